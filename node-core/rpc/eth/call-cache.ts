/**
 * eth_call results per state that can no longer change (the newest sealed block's, the rooted
 * one's): wallets and dapps poll the same view calls many times per block, and the answer is the
 * same until the state moves on. The working (pending) state is never cached. Successes and
 * reverts are kept; other errors are not.
 *
 * One cache for all states, bounded by size: a state is named by a number given the first time it
 * is seen (a WeakMap, so that number dies with its bank), and the oldest entries leave once the
 * entries' keys and answers pass MAX_BYTES, whichever state they were for. Entries of a bank
 * gone are never asked for again and leave the same way.
 *
 * A call is kept from the second time it is asked for on (the first time only its key's hash is
 * noted): calls that never repeat (a different caller each time) would otherwise fill the cache
 * with answers nobody asks for again, which live through ~10,000 newer calls into V8's old
 * generation: ~50 µs of garbage collection per call. A repeated call so runs twice.
 */
import { BoundedMap } from '../../common/bounded-map.ts';
import { RpcError } from '../errors.ts';
import { EXECUTION_ERROR, type CallTarget } from './call.ts';
import type { CallObject } from './params.ts';

/** Keys and answers held at most (a view call's entry is ~300-500 bytes: about 10,000 of them). */
const MAX_BYTES = 4 * 1024 * 1024;
/** What an entry costs beside its key and answer (the map's slot, the entry object, the answer's wrapper). */
const ENTRY_OVERHEAD = 160;
/** An answer bigger than this is not kept (it would push out hundreds of small ones). */
const MAX_ENTRY_BYTES = 64 * 1024;

type Answer = Uint8Array | RpcError;

const stateIds = new WeakMap<object, number>();
let nextStateId = 0;
const entries = new BoundedMap<string, Answer>(MAX_BYTES, (answer, key) => key.length + answerBytes(answer) + ENTRY_OVERHEAD);

const hexOf = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : '');

/** Hashes of keys asked for, one per slot (a newer key takes a slot over): 256 KiB. */
const seen = new Int32Array(1 << 16);
const SEEN_MASK = seen.length - 1;

/** FNV-1a of the key's UTF-16 units, never 0 (an empty slot). */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h | 1;
}

/** Whether `key` was asked for before (as far as its slot remembers); notes it either way. */
function askedBefore(key: string): boolean {
  const h = hashOf(key);
  const slot = h & SEEN_MASK;
  if (seen[slot] === h) return true;
  seen[slot] = h;
  return false;
}

function keyOf(call: CallObject, target: CallTarget): string {
  let id = stateIds.get(target.state);
  if (id === undefined) stateIds.set(target.state, (id = nextStateId++));
  const access = call.accessList ? JSON.stringify(call.accessList) : '';
  return `${id}|${target.env.number}|${target.env.timestamp}|${call.from ?? ''}|${call.to ?? ''}|${hexOf(call.data ?? call.input)}|${call.value ?? ''}|${call.gas ?? ''}|${call.gasPrice ?? ''}|${call.maxFeePerGas ?? ''}|${call.maxPriorityFeePerGas ?? ''}|${call.nonce ?? ''}|${access}`;
}

function answerBytes(answer: Answer): number {
  if (answer instanceof Uint8Array) return answer.length;
  return answer.message.length + (typeof answer.data === 'string' ? answer.data.length : 0);
}

function remember(key: string, answer: Answer): void {
  if (key.length + answerBytes(answer) + ENTRY_OVERHEAD > MAX_ENTRY_BYTES) return;
  entries.set(key, answer);
}

export async function cachedCall(call: CallObject, target: CallTarget, run: () => Promise<Uint8Array>): Promise<Uint8Array> {
  if (!target.immutable) return run();
  const key = keyOf(call, target);
  const known = entries.get(key);
  if (known instanceof RpcError) throw known;
  if (known) return known;
  const keep = askedBefore(key);
  try {
    const out = await run();
    if (keep && !entries.has(key)) remember(key, out);
    return out;
  } catch (e) {
    if (keep && e instanceof RpcError && e.code === EXECUTION_ERROR && !entries.has(key)) remember(key, e);
    throw e;
  }
}

/** The cache's size now (tests read it). */
export function callCacheSize(): { entries: number; bytes: number } {
  return { entries: entries.size, bytes: entries.weight };
}
