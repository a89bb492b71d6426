/**
 * eth_call and eth_estimateGas: a transaction from any address, run on the call machine against
 * the state of the chosen block and thrown away. Gas estimation searches for the smallest gas
 * limit that succeeds, as geth does (its optimistic first guess covers the 63/64 rule).
 */
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address, hexToBytes } from '@ethereumjs/util';
import type { RunTxResult } from '@ethereumjs/vm';
import { transferToNativeRecipient } from '../../evm/bridge-precompile.ts';
import { BRIDGE_ADDRESS, MAX_TX_GAS } from '../../evm/constants.ts';
import type { BlockEnv, EvmMachine } from '../../evm/machine.ts';
import { decodeRevertReason } from '../../evm/revert.ts';
import { EvmChanges, isEmptyCodeHash, type EvmStateSource } from '../../evm/state.ts';
import { RpcError } from '../errors.ts';
import type { CallObject } from './params.ts';
import { bytesHex } from './params.ts';

/** geth's code for execution errors (reverts carry their data). */
export const EXECUTION_ERROR = 3;
export const SERVER_ERROR = -32000;

export interface CallTarget {
  state: EvmStateSource;
  env: BlockEnv;
  /** True when the state can no longer change (a sealed bank's), so results may be kept (call-cache.ts). */
  immutable?: boolean;
}

type Runner = (opts: { tx: TypedTransaction; env: BlockEnv; below: EvmStateSource; changes: EvmChanges; canCredit(r: string): boolean; call: true }) => Promise<RunTxResult>;

/** The transaction a call object describes, from its `from` (unsigned: the sender is taken as given). */
export async function callTransaction(call: CallObject, target: CallTarget, gas: bigint, common: TypedTransaction['common']): Promise<TypedTransaction> {
  const from = call.from ?? ZERO_ADDRESS;
  const nonce = call.nonce ?? (await target.state.account(from))?.nonce ?? 0n;
  const base = { nonce, gasLimit: gas, to: call.to, value: call.value ?? 0n, data: call.data ?? call.input ?? new Uint8Array(0) };
  const withFees = call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined;
  const tx = withFees
    ? createTx({ ...base, type: 2, maxFeePerGas: call.maxFeePerGas ?? target.env.baseFeePerGas + (call.maxPriorityFeePerGas ?? 0n), maxPriorityFeePerGas: call.maxPriorityFeePerGas ?? 0n, accessList: toAccessList(call) }, { common, freeze: false })
    : call.accessList
      ? createTx({ ...base, type: 1, gasPrice: call.gasPrice ?? 0n, accessList: toAccessList(call) }, { common, freeze: false })
      : createTx({ ...base, gasPrice: call.gasPrice ?? 0n }, { common, freeze: false });
  const sender = new Address(hexToBytes(from));
  return Object.assign(tx, { getSenderAddress: () => sender }) as TypedTransaction;
}

const toAccessList = (call: CallObject) => (call.accessList ?? []).map((i) => ({ address: i.address, storageKeys: i.storageKeys }));

/** Zero-fee copies of block environments, one per environment (so calls against one block share it). */
const unpricedEnvs = new WeakMap<BlockEnv, BlockEnv>();

/** Calls carry no fee unless they name one: geth runs them with a zero base fee. */
export function callEnv(env: BlockEnv, call: CallObject): BlockEnv {
  const priced = call.gasPrice !== undefined || call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined;
  if (priced) return env;
  let unpriced = unpricedEnvs.get(env);
  if (!unpriced) unpricedEnvs.set(env, (unpriced = { number: env.number, timestamp: env.timestamp, prevRandao: env.prevRandao, baseFeePerGas: 0n }));
  return unpriced;
}

/** The bridge adds transferToNative's recipient to the native transaction, so a call may credit it. */
export function callBridgeRecipient(call: CallObject): (r: string) => boolean {
  const recipient = call.to === BRIDGE_ADDRESS ? transferToNativeRecipient(call.data ?? call.input ?? new Uint8Array(0)) : null;
  return (r) => r === recipient;
}

export const ZERO_ADDRESS = `0x${'0'.repeat(40)}` as const;

export async function checkValue(target: CallTarget, from: string, value: bigint): Promise<void> {
  const balance = (await target.state.account(from))?.balance ?? 0n;
  if (balance < value) throw new RpcError(SERVER_ERROR, `insufficient funds for gas * price + value: address ${from} have ${balance} want ${value}`);
}

async function runCall(run: Runner, common: TypedTransaction['common'], call: CallObject, target: CallTarget, gas: bigint): Promise<RunTxResult> {
  const from = call.from ?? ZERO_ADDRESS;
  const value = call.value ?? 0n;
  if (value > 0n) await checkValue(target, from, value);
  const tx = await callTransaction(call, target, gas, common);
  try {
    return await run({ tx, env: callEnv(target.env, call), below: target.state, changes: new EvmChanges(), canCredit: callBridgeRecipient(call), call: true });
  } catch (e) {
    throw new RpcError(SERVER_ERROR, ethereumjsMessage(e));
  }
}

/** @ethereumjs's validation errors in geth's words where one exists. */
function ethereumjsMessage(e: unknown): string {
  const m = (e as Error).message.split(' (')[0]!.split(' -> ')[0]!;
  if (/gas limit is too low|base fee exceeds gas limit/i.test(m)) return `intrinsic gas too low: ${m}`;
  if (/less than the block's baseFeePerGas|less than the base fee/i.test(m)) return `max fee per gas less than block base fee: ${m}`;
  return m;
}

/** The error of a failed run: a revert with its data and decoded reason, or the EVM's exception. */
export function executionError(result: { execResult: RunTxResult['execResult'] }): RpcError {
  const exec = result.execResult;
  if (exec.exceptionError!.error === 'revert') {
    const reason = decodeRevertReason(exec.returnValue);
    return new RpcError(EXECUTION_ERROR, reason === null ? 'execution reverted' : `execution reverted: ${reason}`, bytesHex(exec.returnValue));
  }
  return new RpcError(SERVER_ERROR, exec.exceptionError!.error);
}

/** eth_call: a message call (no transaction, so no intrinsic gas or fee accounting: geth's results). */
export async function ethCall(machine: EvmMachine, call: CallObject, target: CallTarget): Promise<Uint8Array> {
  const from = call.from ?? ZERO_ADDRESS;
  const value = call.value ?? 0n;
  if (value > 0n) await checkValue(target, from, value);
  const result = await machine.call({
    caller: new Address(hexToBytes(from)),
    to: call.to ? new Address(hexToBytes(call.to)) : undefined,
    data: call.data ?? call.input ?? new Uint8Array(0),
    value,
    gasLimit: call.gas !== undefined && call.gas < MAX_TX_GAS ? call.gas : MAX_TX_GAS,
    gasPrice: call.gasPrice ?? call.maxFeePerGas ?? 0n,
    env: callEnv(target.env, call),
    below: target.state,
    canCredit: callBridgeRecipient(call),
  });
  if (result.execResult.exceptionError) throw executionError(result);
  return result.execResult.returnValue;
}

export async function estimateGas(run: Runner, common: TypedTransaction['common'], call: CallObject, target: CallTarget): Promise<bigint> {
  const cap = call.gas !== undefined && call.gas < MAX_TX_GAS ? call.gas : MAX_TX_GAS;
  const first = await runCall(run, common, call, target, cap);
  if (first.execResult.exceptionError) {
    if (first.execResult.exceptionError.error === 'revert') throw executionError(first);
    throw new RpcError(SERVER_ERROR, `gas required exceeds allowance (${cap})`);
  }
  const ok = async (gas: bigint) => {
    try {
      return !(await runCall(run, common, call, target, gas)).execResult.exceptionError;
    } catch {
      return false;
    }
  };
  const used = first.totalGasSpent;
  // A plain value transfer costs exactly what it used (geth answers 21000 without searching).
  const data = call.data ?? call.input;
  if ((!data || data.length === 0) && call.to && (await target.state.account(call.to)) !== null) {
    const code = (await target.state.account(call.to))!.codeHash;
    if (isEmptyCodeHash(code)) return used;
  } else if ((!data || data.length === 0) && call.to) return used;
  let lo = used - 1n;
  let hi = cap;
  // geth's optimistic limit: enough for the 63/64 rule and refunds in one more run.
  const optimistic = ((used + first.gasRefund + 2300n) * 64n) / 63n;
  if (optimistic < hi) {
    if (await ok(optimistic)) hi = optimistic;
    else lo = optimistic;
  }
  // Within 1.5% of the answer is close enough (geth's estimateGasErrorRatio).
  while (lo + 1n < hi && (hi - lo) * 1000n > hi * 15n) {
    const mid = (lo + hi) / 2n;
    if (await ok(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
