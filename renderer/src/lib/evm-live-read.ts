/**
 * The EVM list's read that needs nothing but the Ethereum RPC: the first one (nothing shown yet) is
 * started at boot by the small entry (main.ts), later ones by the model. Nothing here imports Svelte.
 */
import { unwrap, type RpcClient } from './rpc.ts';

export interface EvmBlockSummary {
  number: number;
  hash: string;
  txCount: number;
  timestamp: number;
  nativeSlot: number | null;
  isFinalized: boolean | null;
}

export const MAX_EVM_BLOCKS = 8;
const hex = (n: number) => '0x' + n.toString(16);

export function summary(b: any): EvmBlockSummary {
  return {
    number: Number(BigInt(b.number)),
    hash: b.hash,
    txCount: b.transactions.length,
    timestamp: Number(BigInt(b.timestamp)),
    nativeSlot: b.nativeSlot !== undefined ? Number(BigInt(b.nativeSlot)) : null,
    isFinalized: typeof b.isFinalized === 'boolean' ? b.isFinalized : null,
  };
}

/** The name main.ts starts the first read under (lib/early.ts), for the model to take. */
export const EARLY_EVM_BLOCKS = 'evm-blocks';

/**
 * The blocks to add to those `shown`: up to the newest (the socket may be down or absent), the ones
 * shown not yet final (to refresh their finality), and any missing between those shown. Needs nothing
 * but the Ethereum RPC, so the first read (nothing shown) can start before the app has mounted.
 */
export async function readEvmBlocks(evm: RpcClient, shown: readonly EvmBlockSummary[]): Promise<EvmBlockSummary[]> {
  const latest = Number(BigInt(await evm.call<string>('eth_blockNumber')));
  const newest = shown[0]?.number ?? -1;
  const wanted = new Set<number>();
  for (let n = latest; n > newest && n >= 0 && wanted.size < MAX_EVM_BLOCKS; n--) wanted.add(n);
  for (const b of shown) if (b.isFinalized === false) wanted.add(b.number);
  // EVM block numbers have no holes: one missing between those shown was pushed past before the poll reached it.
  const numbers = new Set(shown.map((b) => b.number));
  for (let n = newest - 1; n > (shown.at(-1)?.number ?? newest); n--) if (!numbers.has(n)) wanted.add(n);
  const blocks = unwrap<any[]>(await evm.batch([...wanted].map((n) => ['eth_getBlockByNumber', [hex(n), false]] as const)));
  return blocks.filter(Boolean).map(summary);
}
