/** Reading stored Merkle-Patricia trie nodes in tests: which nodes a root reaches. */
import { RLP } from '@ethereumjs/rlp';

/**
 * The hashes a stored trie node refers to: a branch's children and an extension's child that are
 * 32-byte hashes (nodes under 32 bytes are inlined in their parent and hold no hash).
 */
export function childReferences(encoded: Uint8Array): Uint8Array[] {
  const node = RLP.decode(encoded) as (Uint8Array | unknown[])[];
  const isHash = (item: unknown): item is Uint8Array => item instanceof Uint8Array && item.length === 32;
  if (node.length === 17) return node.slice(0, 16).filter(isHash);
  const path = node[0] as Uint8Array;
  const isLeaf = path.length > 0 && path[0]! >> 4 >= 2;
  return !isLeaf && isHash(node[1]) ? [node[1]] : [];
}
