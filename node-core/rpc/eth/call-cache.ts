/**
 * eth_call results per state that can no longer change (the newest sealed block's, the rooted
 * one's): wallets and dapps poll the same view calls many times per block, and the answer is the
 * same until the state moves on. Keyed by the state object, so a cache dies with its bank; the
 * working (pending) state is never cached. Successes and reverts are kept; other errors are not.
 */
import { RpcError } from '../errors.ts';
import { EXECUTION_ERROR, type CallTarget } from './call.ts';
import type { CallObject } from './params.ts';

const MAX_ENTRIES_PER_STATE = 512;
const byState = new WeakMap<object, Map<string, Uint8Array | RpcError>>();

const hexOf = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : '');

function keyOf(call: CallObject, target: CallTarget): string {
  const access = call.accessList ? JSON.stringify(call.accessList) : '';
  return `${target.env.number}|${target.env.timestamp}|${call.from ?? ''}|${call.to ?? ''}|${hexOf(call.data ?? call.input)}|${call.value ?? ''}|${call.gas ?? ''}|${call.gasPrice ?? ''}|${call.maxFeePerGas ?? ''}|${call.maxPriorityFeePerGas ?? ''}|${call.nonce ?? ''}|${access}`;
}

export async function cachedCall(call: CallObject, target: CallTarget, run: () => Promise<Uint8Array>): Promise<Uint8Array> {
  if (!target.immutable) return run();
  let results = byState.get(target.state);
  if (!results) byState.set(target.state, (results = new Map()));
  const key = keyOf(call, target);
  const known = results.get(key);
  if (known instanceof RpcError) throw known;
  if (known) return known;
  const remember = (r: Uint8Array | RpcError) => {
    if (results.size >= MAX_ENTRIES_PER_STATE) results.delete(results.keys().next().value!);
    results.set(key, r);
  };
  try {
    const out = await run();
    remember(out);
    return out;
  } catch (e) {
    if (e instanceof RpcError && e.code === EXECUTION_ERROR) remember(e);
    throw e;
  }
}
