/** Reads for the EVM pages (Ethereum JSON-RPC, with Velas's and Otterscan's extensions where the node has them). */
import type { Connection } from './connection.ts';
import { NotYet } from './native.ts';
import { RpcError, unwrap } from './rpc.ts';
import { decodeLogs } from './evm-events.ts';

export const EVM_PAGE = 25;
const toHex = (n: number | bigint) => '0x' + n.toString(16);

export async function fetchEvmBlocks(c: Connection, below?: number): Promise<{ latest: number; blocks: any[] }> {
  const latest = Number(BigInt(await c.evm.call<string>('eth_blockNumber')));
  const top = below === undefined ? latest : Math.min(latest, below - 1);
  const numbers: number[] = [];
  for (let n = top; n >= 0 && numbers.length < EVM_PAGE; n--) numbers.push(n);
  const blocks = unwrap<any[]>(await c.evm.batch(numbers.map((n) => ['eth_getBlockByNumber', [toHex(n), false]] as const)));
  return { latest, blocks: blocks.filter(Boolean) };
}

export async function fetchEvmBlock(c: Connection, id: string): Promise<{ block: any; receipts: any[] | null }> {
  const byHash = id.startsWith('0x');
  const block = await c.evm.call<any>(byHash ? 'eth_getBlockByHash' : 'eth_getBlockByNumber', [byHash ? id : toHex(Number(id)), true]);
  if (!block) {
    if (!byHash) {
      const latest = Number(BigInt(await c.evm.call<string>('eth_blockNumber')));
      if (Number(id) > latest) throw new NotYet(`EVM block ${id} does not exist yet (the newest is ${latest}); waiting for it…`);
    }
    throw new RpcError(-32004, `No EVM block ${id}`);
  }
  const receipts = await c.evm.call<any[]>('eth_getBlockReceipts', [block.number]).catch(() => null);
  return { block, receipts };
}

export async function fetchEvmTransaction(c: Connection, hash: string): Promise<{ tx: any; receipt: any; block: any; latest: number }> {
  const [tx, receipt, bn] = unwrap<[any, any, string]>(
    await c.evm.batch([
      ['eth_getTransactionByHash', [hash]],
      ['eth_getTransactionReceipt', [hash]],
      ['eth_blockNumber', []],
    ]),
  );
  if (!tx) throw new NotYet('EVM transaction not found (yet). This page keeps looking for it…');
  const block = tx.blockHash ? await c.evm.call<any>('eth_getBlockByHash', [tx.blockHash, false]) : null;
  if (receipt) await decodeLogs(c, receipt.logs);
  return { tx, receipt, block, latest: Number(BigInt(bn)) };
}

/** A 0x hash of 32 bytes: a transaction or a block, whichever the node has. */
export async function resolveEvmHash(c: Connection, hash: string): Promise<'tx' | 'block' | null> {
  const [tx, block] = await c.evm.batch([
    ['eth_getTransactionByHash', [hash]],
    ['eth_getBlockByHash', [hash, false]],
  ]);
  if (tx && !(tx instanceof Error)) return 'tx';
  if (block && !(block instanceof Error)) return 'block';
  if (tx instanceof Error) throw tx;
  return null;
}
