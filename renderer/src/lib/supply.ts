/** The supply page's data: getSupply with its non-circulating accounts, and getLargestAccounts by filter. */
import type { RpcClient } from './rpc.ts';
import { unwrap } from './rpc.ts';

export type LargestFilter = 'all' | 'circulating' | 'nonCirculating';

export interface SupplyView {
  slot: number;
  total: number;
  circulating: number;
  nonCirculating: number;
  nonCirculatingAccounts: string[];
  largest: Array<{ address: string; lamports: number; nonCirculating: boolean }>;
}

export async function fetchSupply(rpc: RpcClient, filter: LargestFilter): Promise<SupplyView> {
  const [supply, largest] = unwrap<[any, any]>(
    await rpc.batch([
      ['getSupply', [{ commitment: 'confirmed' }]],
      ['getLargestAccounts', [{ commitment: 'confirmed', ...(filter === 'all' ? {} : { filter }) }]],
    ]),
  );
  const nonCirculating = new Set<string>(supply.value.nonCirculatingAccounts);
  return {
    slot: supply.context.slot,
    total: supply.value.total,
    circulating: supply.value.circulating,
    nonCirculating: supply.value.nonCirculating,
    nonCirculatingAccounts: supply.value.nonCirculatingAccounts,
    largest: largest.value.map((a: { address: string; lamports: number }) => ({ ...a, nonCirculating: nonCirculating.has(a.address) })),
  };
}
