/** The node's pre-funded dev accounts (isthmus_getDevAccounts) with their balances in both spaces. */
import type { Connection } from './connection.ts';
import { RpcError } from './rpc.ts';

export interface DevAccounts {
  mnemonic: string;
  native: { index: number; address: string; path: string; secretKey: string }[];
  evm: { index: number; address: string; path: string; privateKey: string }[];
}

export class NeedsIsthmus extends Error {}

let cache: { conn: Connection; accounts: DevAccounts } | null = null;

export async function devAccounts(c: Connection): Promise<DevAccounts> {
  if (cache?.conn === c) return cache.accounts;
  try {
    const accounts = await c.rpc.call<DevAccounts>('isthmus_getDevAccounts');
    cache = { conn: c, accounts };
    return accounts;
  } catch (e) {
    if (e instanceof RpcError && e.code === -32601) throw new NeedsIsthmus(`Dev accounts need an Isthmus node on this machine: ${e.message}`);
    throw e;
  }
}

export async function balances(c: Connection, a: DevAccounts): Promise<{ native: (number | null)[]; evm: (bigint | null)[] }> {
  const [multi, ...evm] = await Promise.all([
    c.rpc.call<{ value: ({ lamports: number } | null)[] }>('getMultipleAccounts', [a.native.map((n) => n.address), { commitment: 'confirmed', encoding: 'base64', dataSlice: { offset: 0, length: 0 } }]),
    ...[c.evm.batch(a.evm.map((e) => ['eth_getBalance', [e.address, 'latest']] as const))],
  ]);
  return {
    native: multi.value.map((v) => (v ? v.lamports : null)),
    evm: (evm[0] as unknown[]).map((v) => (typeof v === 'string' ? BigInt(v) : null)),
  };
}
