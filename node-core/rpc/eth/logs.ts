/** Log queries: matching by address and topic positions (bloom first), over blocks and ranges. */
import { hexToBytes } from '@ethereumjs/util';
import { Bloom } from '@ethereumjs/vm';
import type { EvmBlockRecord, EvmLog, EvmTxRecord, Hex } from '../../evm/records.ts';
import type { EvmSpace } from '../../evm/space.ts';
import { RpcError } from '../errors.ts';
import { SERVER_ERROR } from './call.ts';
import { formatLogs } from './format.ts';

/** The most blocks one eth_getLogs may scan (blocks are sparse here: only slots with EVM transactions). */
export const MAX_LOG_RANGE = 10_000;

export interface LogCriteria {
  addresses: Hex[] | null;
  /** Per position: null (any) or the accepted topics. */
  topics: Array<Hex[] | null>;
}

export function logMatches(log: EvmLog, c: LogCriteria): boolean {
  if (c.addresses && !c.addresses.includes(log.address)) return false;
  for (let i = 0; i < c.topics.length; i++) {
    const want = c.topics[i];
    if (!want) continue;
    const have = log.topics[i];
    if (!have || !want.includes(have)) return false;
  }
  return true;
}

/** Whether the block's bloom allows a match (false means surely none). */
function bloomAllows(block: EvmBlockRecord, c: LogCriteria): boolean {
  const bloom = new Bloom(block.logsBloom);
  if (c.addresses && !c.addresses.some((a) => bloom.check(hexToBytes(a)))) return false;
  for (const want of c.topics) if (want && !want.some((t) => bloom.check(hexToBytes(t)))) return false;
  return true;
}

/** The formatted logs of one block that match. */
export function blockLogs(block: EvmBlockRecord, txs: EvmTxRecord[], c: LogCriteria): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let index = 0;
  for (const t of txs) {
    if (t.logs.length) {
      const formatted = formatLogs(t, block, index);
      t.logs.forEach((l, i) => logMatches(l, c) && out.push(formatted[i]!));
    }
    index += t.logs.length;
  }
  return out;
}

/** Logs in blocks [from, to] that match. */
export async function rangeLogs(space: EvmSpace, from: number, to: number, c: LogCriteria): Promise<Record<string, unknown>[]> {
  if (to - from + 1 > MAX_LOG_RANGE) throw new RpcError(-32005, `query exceeds the limit of ${MAX_LOG_RANGE} blocks: ask for a smaller range`);
  const out: Record<string, unknown>[] = [];
  for (let n = from; n <= to; n++) {
    const block = await space.block(n);
    if (!block || block.transactions.length === 0 || !bloomAllows(block, c)) continue;
    out.push(...blockLogs(block, await space.blockTransactions(block), c));
  }
  return out;
}

export function criteriaOf(filter: { address?: Hex[]; topics?: Array<Hex[] | null> }): LogCriteria {
  return { addresses: filter.address ?? null, topics: filter.topics ?? [] };
}

export const invalidRange = (from: number, to: number) => new RpcError(SERVER_ERROR, `invalid block range params: fromBlock ${from} is after toBlock ${to}`);
