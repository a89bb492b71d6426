/** Following a bridge transfer on both sides until finalized. */
import type { Connection } from './connection.ts';
import { RpcError } from './rpc.ts';

export type Stage = 'waiting' | 'processed' | 'confirmed' | 'finalized' | 'failed';

export async function nativeStage(c: Connection, signature: string): Promise<{ stage: Stage; err?: unknown }> {
  const s = (await c.rpc.call<any>('getSignatureStatuses', [[signature], { searchTransactionHistory: true }])).value[0];
  if (!s) return { stage: 'waiting' };
  if (s.err) return { stage: 'failed', err: s.err };
  return { stage: (s.confirmationStatus ?? 'processed') as Stage };
}

export async function evmStage(c: Connection, hash: string): Promise<{ stage: Stage; receipt: any; blockNumber?: number }> {
  const receipt = await c.evm.call<any>('eth_getTransactionReceipt', [hash]);
  if (!receipt) return { stage: 'waiting', receipt: null };
  if (receipt.status !== '0x1') return { stage: 'failed', receipt };
  const block = await c.evm.call<any>('eth_getBlockByHash', [receipt.blockHash, false]);
  return { stage: block?.isFinalized ? 'finalized' : 'confirmed', receipt, blockNumber: Number(BigInt(receipt.blockNumber)) };
}

/** The EVM transaction a native deposit ran (its log names it). */
export async function evmHashOfDeposit(c: Connection, signature: string): Promise<string | null> {
  const tx = await c.rpc.call<any>('getTransaction', [signature, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }]);
  for (const l of (tx?.meta?.logMessages ?? []) as string[]) {
    const m = /EVM transaction (0x[0-9a-fA-F]{64})/.exec(l);
    if (m) return m[1]!.toLowerCase();
  }
  return null;
}

export function describeRpcFailure(e: unknown): string {
  if (e instanceof RpcError) {
    const logs = (e.data as { logs?: string[] } | undefined)?.logs;
    return `${e.message}${logs?.length ? '\n' + logs.join('\n') : ''}`;
  }
  return e instanceof Error ? e.message : String(e);
}
