/**
 * A transaction instruction's inner instructions as a tree. The node lists them flat, in execution
 * order, each with its `stackHeight` (2 for a CPI made by the instruction itself, 3 for a CPI made by
 * that one, …), as Agave does; an instruction's children are the entries after it one level deeper,
 * up to the next entry at its own level or above.
 */
export interface InstructionNode {
  ix: any;
  /** Its place under the transaction's instruction, as 1-based numbers: [2] for the second CPI, [2, 1] for that CPI's first. */
  path: number[];
  children: InstructionNode[];
}

export function innerInstructionTree(inner: readonly any[] | null | undefined): InstructionNode[] {
  const roots: InstructionNode[] = [];
  const stack: Array<{ height: number; node: InstructionNode }> = [];
  for (const ix of inner ?? []) {
    // Without a stack height (ledgers older than Agave 1.14) every inner instruction is a direct CPI.
    const height = typeof ix.stackHeight === 'number' && ix.stackHeight >= 2 ? ix.stackHeight : 2;
    while (stack.length > 0 && stack[stack.length - 1]!.height >= height) stack.pop();
    const parent = stack[stack.length - 1]?.node;
    const siblings = parent ? parent.children : roots;
    const node: InstructionNode = { ix, path: [...(parent?.path ?? []), siblings.length + 1], children: [] };
    siblings.push(node);
    stack.push({ height, node });
  }
  return roots;
}
