/**
 * The dashboard's reads that need nothing but the node's RPC: the first one (counters and header, then
 * the newest blocks), which the small entry (main.ts) starts at boot, and the range of blocks the model
 * catches up with. Nothing here imports Svelte, so the entry stays small.
 */
import { unwrap, type RpcClient } from './rpc.ts';

export const MAX_BLOCKS = 60;
/** The totals, read at one confirmed slot (the first answer). */
export const COUNTER_CALLS: readonly (readonly [string, unknown[]])[] = [
  ['getSlot', [{ commitment: 'confirmed' }]],
  ['getTransactionCount', [{ commitment: 'confirmed' }]],
  ['getBlockHeight', [{ commitment: 'confirmed' }]],
];

/** The first load's header: the counters, then the oldest block kept, the supply and the performance samples. */
const FIRST_CALLS: readonly (readonly [string, unknown[]])[] = [
  ...COUNTER_CALLS,
  ['getFirstAvailableBlock', []],
  ['getSupply', [{ commitment: 'confirmed', excludeNonCirculatingAccountsList: true }]],
  ['getRecentPerformanceSamples', [30]],
];

export interface RpcBlock {
  parentSlot: number;
  blockHeight?: number | null;
  blockhash: string;
  blockTime: number | null;
  signatures?: string[];
}

export type SlotBlock = RpcBlock & { slot: number };

/** The dashboard's first read: FIRST_CALLS' answers and the newest blocks up to the confirmed slot they name. */
export interface DashboardFirstRead {
  header: unknown[];
  blocks: SlotBlock[];
}

/** The name main.ts starts the first read under (lib/early.ts), for the model to take. */
export const EARLY_DASHBOARD = 'dashboard';

/**
 * The counters and the rest of the header in one round trip, then the blocks in a second. Throws
 * when the counters fail; needs nothing but the RPC, so it can start before the app has mounted.
 */
export async function readDashboardFirst(rpc: RpcClient): Promise<DashboardFirstRead> {
  const header = await rpc.batch(FIRST_CALLS);
  const [confirmed] = unwrap<[number, number, number]>(header.slice(0, COUNTER_CALLS.length));
  const first = header[COUNTER_CALLS.length];
  const lowest = first instanceof Error ? 0 : (first as number);
  return { header, blocks: await readBlocks(rpc, Math.max(lowest, confirmed - (MAX_BLOCKS - 1)), confirmed) };
}

/**
 * The newest blocks up to `upTo`, at most MAX_BLOCKS slots of them, in one batch of getBlock (never the
 * whole ledger). Asking each slot saves the getBlocks round trip first; a skipped or trimmed slot
 * answers an error and is left out.
 */
export async function readBlocks(rpc: RpcClient, from: number, upTo: number): Promise<SlotBlock[]> {
  if (upTo < from) return [];
  const wanted: number[] = [];
  for (let slot = Math.max(from, upTo - (MAX_BLOCKS - 1)); slot <= upTo; slot++) wanted.push(slot);
  const answers = await rpc.batch(wanted.map((slot) => ['getBlock', [slot, { encoding: 'json', transactionDetails: 'signatures', rewards: false, maxSupportedTransactionVersion: 0, commitment: 'confirmed' }]] as const));
  const blocks: SlotBlock[] = [];
  answers.forEach((a, i) => {
    if (a && !(a instanceof Error)) blocks.push({ slot: wanted[i]!, ...(a as RpcBlock) });
  });
  return blocks;
}
