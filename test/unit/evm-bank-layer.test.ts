import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EvmBankLayer } from '../../node-core/evm/bank-layer.ts';
import type { BlockEnv } from '../../node-core/evm/machine.ts';
import { EMPTY_BYTES, EvmBaseState, newEvmAccount, type EvmAccount } from '../../node-core/evm/state.ts';
import { UnrootedChanges } from '../../node-core/ledger/bank.ts';

const env = (n: number): BlockEnv => ({ number: BigInt(n), timestamp: 0n, prevRandao: new Uint8Array(32), baseFeePerGas: 7n });
const ADDRESSES = Array.from({ length: 12 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
const SLOTS = ['0x01', '0x02', '0x03'];

/** The reads as they were before the index: every layer down to the base, top first. */
function walkedAccount(layer: EvmBankLayer, base: EvmBaseState, address: string): EvmAccount | null {
  for (let l: EvmBankLayer | null = layer; l; l = l.parent) {
    const a = l.changes.accounts.get(address);
    if (a !== undefined) return a;
  }
  return base.account(address);
}

function walkedStorage(layer: EvmBankLayer, base: EvmBaseState, address: string, slot: string): Uint8Array {
  for (let l: EvmBankLayer | null = layer; l; l = l.parent) {
    const v = l.changes.storage.get(address)?.get(slot);
    if (v !== undefined) return v;
    if (l.changes.cleared.has(address)) return EMPTY_BYTES;
  }
  return base.storage(address, slot);
}

/** A deterministic pseudo-random sequence, so a failure replays. */
function sequence(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x80000000;
  };
}

test('a layer reads what the walk down every unrooted layer reads, while layers open, root and drop', () => {
  const random = sequence(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const base = new EvmBaseState();
  const unrooted = new UnrootedChanges<string>();
  base.accounts.set(ADDRESSES[0]!, newEvmAccount(5n));
  base.storageByAddress.set(ADDRESSES[0]!, new Map([['0x01', new Uint8Array([9])]]));
  let tip = new EvmBankLayer(0, null, base, env(0), unrooted);
  const unrootedLayers: EvmBankLayer[] = [tip];
  const check = (layer: EvmBankLayer) => {
    for (const address of ADDRESSES) {
      assert.deepEqual(layer.account(address), walkedAccount(layer, base, address), `account ${address} at slot ${layer.slot}`);
      for (const slot of SLOTS) assert.deepEqual(layer.storage(address, slot), walkedStorage(layer, base, address, slot), `storage ${address} ${slot} at slot ${layer.slot}`);
    }
  };
  for (let slot = 1; slot <= 200; slot++) {
    // The working layer's changes: accounts set or deleted, storage written, storage cleared.
    for (let n = Math.floor(random() * 4); n > 0; n--) {
      const address = pick(ADDRESSES);
      const r = random();
      if (r < 0.5) tip.changes.accounts.set(address, newEvmAccount(BigInt(slot)));
      else if (r < 0.6) tip.changes.accounts.set(address, null);
      else if (r < 0.9) tip.changes.putStorage(address, pick(SLOTS), new Uint8Array([slot & 0xff]));
      else tip.changes.clearStorage(address);
    }
    check(tip);
    tip = new EvmBankLayer(slot, tip, base, env(slot), unrooted);
    unrootedLayers.push(tip);
    // Reads from a frozen layer below the tip (eth_call at an older block) answer the same too.
    check(pick(unrootedLayers));
    // Root the oldest few, as the chain does once they are deep enough.
    while (unrootedLayers.length > 1 + Math.floor(random() * 40)) {
      const rooted = unrootedLayers.shift()!;
      base.fold(rooted.changes);
      rooted.uncount();
      rooted.parent = null;
    }
    check(tip);
  }
  // Everything rooted but the tip: only the tip's parent's addresses may still count.
  for (const layer of unrootedLayers.slice(0, -1)) {
    base.fold(layer.changes);
    layer.uncount();
    layer.parent = null;
  }
  check(tip);
  assert.equal(unrooted.size, 0, 'no rooted layer leaves its addresses counted');
});

test('an address no unrooted layer changed is read from the base without walking the layers', () => {
  const base = new EvmBaseState();
  const unrooted = new UnrootedChanges<string>();
  base.accounts.set(ADDRESSES[1]!, newEvmAccount(3n));
  let tip = new EvmBankLayer(0, null, base, env(0), unrooted);
  for (let slot = 1; slot <= 5; slot++) {
    tip.changes.accounts.set(ADDRESSES[0]!, newEvmAccount(BigInt(slot)));
    tip = new EvmBankLayer(slot, tip, base, env(slot), unrooted);
  }
  let walked = 0;
  for (let l = tip.parent; l; l = l.parent) {
    const accounts = l.changes.accounts;
    const get = accounts.get.bind(accounts);
    accounts.get = (key: string) => {
      walked++;
      return get(key);
    };
  }
  assert.deepEqual(tip.account(ADDRESSES[1]!), newEvmAccount(3n));
  assert.equal(walked, 0);
  assert.deepEqual(tip.account(ADDRESSES[0]!), newEvmAccount(5n));
  assert.ok(walked > 0);
});
