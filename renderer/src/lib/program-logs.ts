/**
 * A transaction's logMessages grouped by invocation, for display: Agave's runtime writes
 * `Program X invoke [n]` when a program starts (n = stack height), `Program X consumed N of M compute
 * units`, `Program return: X <base64>`, then `Program X success` or `Program X failed: <why>`; what a
 * program logs (`Program log:`, `Program data:`, …) comes in between. The node sends the lines as
 * Agave does; this only nests them.
 */

export interface Invocation {
  programId: string;
  /** The stack height from `invoke [n]`: 1 for a transaction's instruction, 2 for its CPIs, … */
  depth: number;
  /** The invocation's own lines and, in order among them, the invocations it made. */
  entries: LogEntry[];
  /** `success`, `failed` (with Agave's message), or null when the logs end first (truncated, or an error before the end). */
  result: { ok: true } | { ok: false; message: string } | null;
  /** From `consumed N of M compute units`. */
  computeUnits: { consumed: number; limit: number } | null;
  /** From `Program return: X <base64>`. */
  returnData: string | null;
}

export type LogEntry = { kind: 'line'; text: string } | { kind: 'invocation'; invocation: Invocation };

export interface GroupedLogs {
  /** The transaction's top-level invocations, in order. */
  invocations: Invocation[];
  /** Lines outside any invocation (e.g. `Log truncated`), in order. */
  other: string[];
}

const INVOKE = /^Program ([1-9A-HJ-NP-Za-km-z]{32,44}) invoke \[(\d+)\]$/;
const SUCCESS = /^Program ([1-9A-HJ-NP-Za-km-z]{32,44}) success$/;
const FAILED = /^Program ([1-9A-HJ-NP-Za-km-z]{32,44}) failed: (.*)$/s;
const CONSUMED = /^Program ([1-9A-HJ-NP-Za-km-z]{32,44}) consumed (\d+) of (\d+) compute units$/;
const RETURN = /^Program return: ([1-9A-HJ-NP-Za-km-z]{32,44}) (\S*)$/;

export function groupLogs(logs: readonly string[] | null | undefined): GroupedLogs {
  const out: GroupedLogs = { invocations: [], other: [] };
  const stack: Invocation[] = [];
  const top = () => stack[stack.length - 1];
  for (const line of logs ?? []) {
    let m: RegExpExecArray | null;
    if ((m = INVOKE.exec(line))) {
      const inv: Invocation = { programId: m[1]!, depth: Number(m[2]), entries: [], result: null, computeUnits: null, returnData: null };
      const parent = top();
      if (parent) parent.entries.push({ kind: 'invocation', invocation: inv });
      else out.invocations.push(inv);
      stack.push(inv);
      continue;
    }
    const current = top();
    if (current && (m = SUCCESS.exec(line)) && m[1] === current.programId) {
      current.result = { ok: true };
      stack.pop();
    } else if (current && (m = FAILED.exec(line)) && m[1] === current.programId) {
      current.result = { ok: false, message: m[2]! };
      stack.pop();
    } else if (current && (m = CONSUMED.exec(line)) && m[1] === current.programId) {
      current.computeUnits = { consumed: Number(m[2]), limit: Number(m[3]) };
    } else if (current && (m = RETURN.exec(line)) && m[1] === current.programId) {
      current.returnData = m[2]!;
      current.entries.push({ kind: 'line', text: line });
    } else if (current) {
      current.entries.push({ kind: 'line', text: line });
    } else {
      out.other.push(line);
    }
  }
  return out;
}

/** Compute units by invocation, in log order (depth first), for a table: what each program consumed. */
export function computeUnitsByInvocation(grouped: GroupedLogs): Array<{ programId: string; depth: number; consumed: number; limit: number }> {
  const rows: Array<{ programId: string; depth: number; consumed: number; limit: number }> = [];
  const visit = (inv: Invocation) => {
    if (inv.computeUnits) rows.push({ programId: inv.programId, depth: inv.depth, ...inv.computeUnits });
    for (const e of inv.entries) if (e.kind === 'invocation') visit(e.invocation);
  };
  grouped.invocations.forEach(visit);
  return rows;
}
