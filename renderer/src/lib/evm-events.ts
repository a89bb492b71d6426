/**
 * Events named by the node (isthmus_decodeEvmLogs: the standards' events it knows by signature);
 * the explorer shows what it answered beside the raw topics and data. A node without the method
 * leaves every log raw.
 */
import type { Connection } from './connection.ts';

export interface DecodedEvent {
  standard: string;
  name: string;
  signature: string;
  args: Array<{ name: string; type: string; value: string | boolean | string[] }>;
}

export interface RawLog {
  topics: string[];
  data: string;
  decoded?: DecodedEvent | null;
}

/** Asks the node to name the logs, and sets each one's `decoded` (null: not an event it knows). */
export async function decodeLogs(c: Connection, logs: RawLog[]): Promise<void> {
  if (logs.length === 0) return;
  let decoded: Array<DecodedEvent | null>;
  try {
    decoded = await c.evm.call<Array<DecodedEvent | null>>('isthmus_decodeEvmLogs', [logs.map(({ topics, data }) => ({ topics, data }))]);
  } catch {
    return;
  }
  logs.forEach((log, i) => (log.decoded = decoded[i] ?? null));
}
