/**
 * Otterscan's trace-based methods (docs/custom-jsonrpc.md of otterscan/otterscan), in Anvil's
 * reading where Erigon and Anvil differ: ots_getInternalOperations (value transfers, including the
 * transaction's own, creations and self-destructs), ots_traceTransaction (every frame, flat, with its
 * depth) and ots_getTransactionError (the failed transaction's revert data). A native → EVM deposit
 * is a transfer from the bridge's address; a withdrawal is the call that moves value to it.
 */
import { bytesToHex } from '@ethereumjs/util';
import { CallFrameCollector, depositFrame, flattenFrames, type CallFrame } from '../../evm/trace/call-frames.ts';
import { parseParams, required } from '../params.ts';
import type { EvmRpcContext } from './context.ts';
import { hash32, hex } from './params.ts';
import { findTransaction, replayTransaction } from './tracing.ts';

type Method = (params: unknown, ctx: EvmRpcContext) => unknown;

/** The transaction's call tree, replayed (a deposit's is its one transfer). */
async function callTree(ctx: EvmRpcContext, hash: string): Promise<CallFrame> {
  const found = await findTransaction(ctx, hash);
  if (found.record.deposit) return depositFrame(found.record.raw);
  const frames = new CallFrameCollector({ logs: false });
  const entry = await replayTransaction(ctx, found, frames.listeners);
  return frames.finish(entry.result!);
}

const OPERATION = { transfer: 0, selfDestruct: 1, create: 2, create2: 3 } as const;

const ots_getInternalOperations: Method = async (p, ctx) => {
  const [hash] = parseParams(p, [required('hash', hash32)]);
  const out: Array<{ type: number; from: string; to: string; value: string }> = [];
  for (const f of flattenFrames(await callTree(ctx, hash))) {
    // A frame that failed moved nothing.
    if (f.error && f.type !== 'SELFDESTRUCT') continue;
    const type =
      f.type === 'SELFDESTRUCT' ? OPERATION.selfDestruct
      : f.type === 'CREATE' ? OPERATION.create
      : f.type === 'CREATE2' ? OPERATION.create2
      : f.type === 'CALL' && f.value !== null && f.value > 0n ? OPERATION.transfer
      : null;
    if (type !== null) out.push({ type, from: f.from, to: f.to, value: hex(f.value ?? 0n) });
  }
  return out;
};

const ots_traceTransaction: Method = async (p, ctx) => {
  const [hash] = parseParams(p, [required('hash', hash32)]);
  return flattenFrames(await callTree(ctx, hash)).map((f) => ({
    type: f.type,
    depth: f.depth,
    from: f.from,
    to: f.to,
    // Anvil's reading: a DELEGATECALL or STATICCALL moves 0.
    value: hex(f.value ?? 0n),
    input: bytesToHex(f.input),
    output: bytesToHex(f.output),
  }));
};

const ots_getTransactionError: Method = async (p, ctx) => {
  const [hash] = parseParams(p, [required('hash', hash32)]);
  const { record } = await findTransaction(ctx, hash);
  return bytesToHex(record.revertData);
};

export const otsTraceMethods = { ots_getInternalOperations, ots_traceTransaction, ots_getTransactionError };
