/**
 * What debug_trace* and Otterscan's trace methods share: the one replayer per EVM space, finding a
 * stored transaction and replaying it with a tracer's listeners, and geth's words for the EVM's
 * exceptions.
 */
import type { EvmListeners } from '../../evm/machine.ts';
import type { EvmBlockRecord, EvmTxRecord } from '../../evm/records.ts';
import type { EvmSpace } from '../../evm/space.ts';
import { EvmReplayer, ReplayMismatch, type ReplayedEntry } from '../../evm/trace/replay.ts';
import { RpcError } from '../errors.ts';
import { SERVER_ERROR } from './call.ts';
import type { EvmRpcContext } from './context.ts';

const replayers = new WeakMap<EvmSpace, EvmReplayer>();

export function replayerOf(space: EvmSpace): EvmReplayer {
  let r = replayers.get(space);
  if (!r) replayers.set(space, (r = new EvmReplayer(space)));
  return r;
}

/** geth's answer for a hash it does not have. */
export const transactionNotFound = () => new RpcError(SERVER_ERROR, 'transaction not found');

export async function findTransaction(ctx: EvmRpcContext, hash: string): Promise<{ record: EvmTxRecord; block: EvmBlockRecord; records: EvmTxRecord[] }> {
  const record = await ctx.space.transaction(hash);
  if (!record) throw transactionNotFound();
  const block = await ctx.space.block(record.blockNumber);
  if (!block) throw transactionNotFound();
  return { record, block, records: await ctx.space.blockTransactions(block) };
}

/** Replays the block up to `record` and runs it with `listeners`; the entry as it ran. */
export async function replayTransaction(ctx: EvmRpcContext, found: { record: EvmTxRecord; block: EvmBlockRecord; records: EvmTxRecord[] }, listeners: EvmListeners): Promise<ReplayedEntry> {
  let target: ReplayedEntry | undefined;
  await guardReplay(() =>
    replayerOf(ctx.space).replayBlock(found.block, found.records, {
      until: found.record.index,
      listenersFor: (i) => (i === found.record.index ? listeners : undefined),
      onEntry: (e) => void (e.record.index === found.record.index && (target = e)),
    }),
  );
  return target!;
}

/** A replay that disagrees with the stored receipt is the node's failure, said plainly. */
export async function guardReplay<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof ReplayMismatch) throw new RpcError(-32603, e.message);
    throw e;
  }
}

/** geth's error texts (core/vm/errors.go) for @ethereumjs's exceptions. */
const GETH_ERRORS: Record<string, string> = {
  revert: 'execution reverted',
  'out of gas': 'out of gas',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'stack underflow': 'stack underflow',
  'stack overflow': 'stack limit reached 1024 (1023)',
  'invalid JUMP': 'invalid jump destination',
  'invalid opcode': 'invalid opcode: INVALID',
  'value out of range': 'return data out of bounds',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'insufficient balance': 'insufficient balance for transfer',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
};

export const gethError = (ethereumjs: string): string => GETH_ERRORS[ethereumjs] ?? ethereumjs;
