/**
 * Reads for an EVM transaction's inside: the call tree as geth's callTracer gives it (with each
 * frame's logs) and Otterscan's internal transfers. The node replays the transaction to answer;
 * the explorer only shows what it answered.
 */
import type { Connection } from './connection.ts';
import { decodeLogs, type DecodedEvent } from './evm-events.ts';

export interface TraceLog {
  address: string;
  topics: string[];
  data: string;
  index?: string;
  /** Set by decodeLogs: the event the node named, null when it knows none. */
  decoded?: DecodedEvent | null;
}

/** A frame of geth's callTracer. */
export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  logs?: TraceLog[];
  calls?: CallFrame[];
}

/** Otterscan's internal operation: 0 transfer, 1 self-destruct, 2 create, 3 create2. */
export interface InternalOperation {
  type: 0 | 1 | 2 | 3;
  from: string;
  to: string;
  value: string;
}

export const OPERATION_NAMES = ['transfer', 'self-destruct', 'create', 'create2'] as const;

export interface EvmTrace {
  tree: CallFrame;
  operations: InternalOperation[];
}

export async function fetchEvmTrace(c: Connection, hash: string): Promise<EvmTrace> {
  const tree = await c.evm.call<CallFrame>('debug_traceTransaction', [hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }]);
  const operations = await c.evm.call<InternalOperation[]>('ots_getInternalOperations', [hash]);
  const logs: TraceLog[] = [];
  const collect = (f: CallFrame) => {
    logs.push(...(f.logs ?? []));
    for (const child of f.calls ?? []) collect(child);
  };
  collect(tree);
  await decodeLogs(c, logs);
  return { tree, operations };
}

/** The 4-byte selector of a call's input, or null for a plain transfer or a creation's init code. */
export const selectorOf = (f: CallFrame): string | null => (f.type.startsWith('CREATE') || f.input.length < 10 ? null : f.input.slice(0, 10));
