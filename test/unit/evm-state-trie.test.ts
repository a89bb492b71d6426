import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMPT } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, bytesToUnprefixedHex, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from '../../node-core/common/hash.ts';
import { findByHash, hashPrefix, recordWithIndex } from '../../node-core/evm/hash-index.ts';
import { encodeAccountLeaf, EvmStateTrie, LEGACY_TRIE_TABLE, STORAGE_ROOT_TABLE, TRIE_INDEX_TABLE, TRIE_NODE_TABLE, type TrieSource } from '../../node-core/evm/state-trie.ts';
import { compareExtraKeys } from '../../node-core/store/store-query.ts';
import type { ExtraKey, ExtraRange } from '../../node-core/store/store.ts';
import { childReferences } from '../helpers/trie-nodes.ts';
import { EMPTY_STORAGE_ROOT, EvmBaseState, EvmChanges, LayeredState, newEvmAccount } from '../../node-core/evm/state.ts';

/** The trie's records as a slot commit would store them, read as the stores read them (key order, ranges). */
class MemoryTrieStore implements TrieSource {
  readonly tables = new Map<string, Map<string, [ExtraKey, unknown]>>();
  written = 0;

  commit(extras: { table: string; key: ExtraKey; value: unknown }[]): void {
    for (const { table, key, value } of extras) {
      let t = this.tables.get(table);
      if (!t) this.tables.set(table, (t = new Map()));
      if (value === null) t.delete(JSON.stringify(key));
      else t.set(JSON.stringify(key), [key, value]);
      if (table === TRIE_NODE_TABLE) this.written++;
    }
  }

  async getExtra(table: string, key: ExtraKey): Promise<unknown | null> {
    return this.tables.get(table)?.get(JSON.stringify(key))?.[1] ?? null;
  }

  *scanExtras(table: string, range: ExtraRange = {}): Iterable<[ExtraKey, unknown]> {
    const entries = [...(this.tables.get(table)?.values() ?? [])].sort(([a], [b]) => compareExtraKeys(a, b));
    yield* entries.filter(([k]) => (range.start === undefined || compareExtraKeys(k, range.start) >= 0) && (range.end === undefined || compareExtraKeys(k, range.end) < 0));
  }

  /** Every stored node by its hash (hex, unprefixed), each checked against its index entry. */
  nodesByHash(): Map<string, Uint8Array> {
    const nodes = new Map<string, Uint8Array>();
    for (const [key, node] of this.tables.get(TRIE_NODE_TABLE)?.values() ?? []) {
      const hash = bytesToUnprefixedHex(keccak256(node as Uint8Array));
      assert.ok(this.tables.get(TRIE_INDEX_TABLE)?.has(JSON.stringify([hashPrefix(hash), ...(key as number[])])), `node ${hash} has no index entry`);
      nodes.set(hash, node as Uint8Array);
    }
    return nodes;
  }
}

const address = (i: number) => bytesToHex(keccak256(new TextEncoder().encode(`account ${i}`)).subarray(12));
const slotKey = (i: number) => bytesToHex(keccak256(new TextEncoder().encode(`slot ${i}`)));

/** Every stored node under `root` (hash keys), reading only the store: throws on a missing node. */
function storedNodesUnder(nodes: Map<string, Uint8Array>, root: Uint8Array, into = new Set<string>()): Set<string> {
  const key = bytesToUnprefixedHex(root);
  if (into.has(key)) return into;
  const encoded = nodes.get(key);
  assert.ok(encoded, `node ${key} is reachable but not stored`);
  into.add(key);
  for (const child of childReferences(encoded)) storedNodesUnder(nodes, child, into);
  return into;
}

test('slots of many changes: the roots equal a plain trie, every node they reach is stored, and nothing else', async () => {
  const store = new MemoryTrieStore();
  const trie = await EvmStateTrie.open(store, null);
  const reference = await createMPT({ useKeyHashing: true, useKeyHashingFunction: keccak256 });
  const base = new EvmBaseState();
  const contract = address(9_999);
  let puts = 0;
  for (let slot = 0; slot < 6; slot++) {
    const changes = new EvmChanges();
    // Many transfers in one slot: the upper branches are rewritten by every put.
    for (let i = 0; i < 400; i++) {
      const a = address((slot * 131 + i * 7) % 1_000);
      changes.accounts.set(a, { ...newEvmAccount(BigInt(slot * 1_000 + i + 1)), nonce: BigInt(slot) });
    }
    changes.accounts.set(contract, { ...newEvmAccount(1n), nonce: 1n });
    for (let i = 0; i < 50; i++) changes.putStorage(contract, slotKey((slot * 13 + i) % 80), i % 9 === 0 ? new Uint8Array(0) : Uint8Array.of(slot + 1, i));
    const after = new LayeredState([changes], base);
    const seal = await trie.apply(slot + 1, changes, after);
    store.commit(seal.extras);
    trie.written(seal.nodeKeys);
    for (const [a, acct] of changes.accounts) base.accounts.set(a, acct!);
    for (const [a, slots] of changes.storage) {
      let m = base.storageByAddress.get(a);
      if (!m) base.storageByAddress.set(a, (m = new Map()));
      for (const [k, v] of slots) (v.length === 0 ? m.delete(k) : m.set(k, v));
    }
    // The same accounts, put one by one into a trie that keeps everything.
    const storageRef = await createMPT({ useKeyHashing: true, useKeyHashingFunction: keccak256 });
    for (const [k, v] of base.storageByAddress.get(contract) ?? []) await storageRef.put(hexToBytes(k as `0x${string}`), RLP.encode(v));
    for (const [a, acct] of changes.accounts) {
      puts++;
      await reference.put(hexToBytes(a as `0x${string}`), encodeAccountLeaf(acct!, a === contract ? storageRef.root() : EMPTY_STORAGE_ROOT));
    }
    assert.equal(bytesToHex(seal.stateRoot), bytesToHex(reference.root()), `state root of slot ${slot}`);
    assert.equal(bytesToHex(trie.storageRoot(contract)), bytesToHex(storageRef.root()), `storage root of slot ${slot}`);
    // Everything the new roots reach is stored, read back through the store alone, and nothing else was written.
    const nodes = store.nodesByHash();
    const reached = storedNodesUnder(nodes, seal.stateRoot);
    storedNodesUnder(nodes, trie.storageRoot(contract), reached);
    const writtenNow = seal.extras.filter((e) => e.table === TRIE_NODE_TABLE).map((e) => bytesToUnprefixedHex(keccak256(e.value as Uint8Array)));
    assert.ok(writtenNow.length > 0);
    for (const key of writtenNow) assert.ok(reached.has(key), `slot ${slot} wrote node ${key}, which its roots do not reach`);
    const fresh = await EvmStateTrie.open(store, seal.stateRoot);
    for (const [a, acct] of base.accounts) {
      const got = await fresh.accountAt(seal.stateRoot, a);
      assert.equal(got?.account.balance, acct.balance, `balance of ${a} at slot ${slot}`);
    }
    for (const [k, v] of base.storageByAddress.get(contract)!) assert.deepEqual(await fresh.storageAt(trie.storageRoot(contract), k), v);
  }
  assert.ok(store.tables.get(STORAGE_ROOT_TABLE)?.has(JSON.stringify(contract)));
  assert.ok(puts > 2_000);
});

test('a ledger written before the hash index: nodes kept under their hash are read, and later slots build on them', async () => {
  const legacy = new MemoryTrieStore();
  const current = new MemoryTrieStore();
  const trie = await EvmStateTrie.open(current, null);
  const changes = new EvmChanges();
  for (let i = 0; i < 300; i++) changes.accounts.set(address(i), newEvmAccount(BigInt(i + 1)));
  const seal = await trie.apply(1, changes, new LayeredState([changes], new EvmBaseState()));
  current.commit(seal.extras);
  // The same records as an older node stored them: each node under its hash, no index.
  legacy.commit(seal.extras.map((e) => (e.table === TRIE_NODE_TABLE ? { table: LEGACY_TRIE_TABLE, key: bytesToUnprefixedHex(keccak256(e.value as Uint8Array)), value: e.value } : e)).filter((e) => e.table !== TRIE_INDEX_TABLE));
  const reopened = await EvmStateTrie.open(legacy, seal.stateRoot);
  for (let i = 0; i < 300; i += 37) assert.equal((await reopened.accountAt(seal.stateRoot, address(i)))?.account.balance, BigInt(i + 1));
  const next = new EvmChanges();
  next.accounts.set(address(5), newEvmAccount(99n));
  const base = new EvmBaseState();
  for (const [a, acct] of changes.accounts) base.accounts.set(a, acct!);
  const later = await reopened.apply(2, next, new LayeredState([next], base));
  const reference = await EvmStateTrie.open(current, seal.stateRoot);
  assert.equal(bytesToHex(later.stateRoot), bytesToHex((await reference.apply(2, next, new LayeredState([next], base))).stateRoot));
  assert.ok(later.extras.every((e) => e.table !== LEGACY_TRIE_TABLE), 'new nodes go to the indexed table');
});

test('records whose hashes share their first 48 bits are each found under their own hash', async () => {
  const store = new MemoryTrieStore();
  const hashes = ['0x' + 'ab'.repeat(6) + '01'.repeat(26), '0x' + 'ab'.repeat(6) + '02'.repeat(26)];
  assert.equal(hashPrefix(hashes[0]!), hashPrefix(hashes[1]!));
  store.commit(hashes.flatMap((hash, i) => recordWithIndex('records', 'index', hash, [7, i], { hash })));
  const find = (hash: string) => findByHash(store, 'records', 'index', hash, (r) => ((r as { hash: string }).hash === hash ? r : null));
  for (const hash of hashes) assert.deepEqual(await find(hash), { hash });
  assert.equal(await find('0x' + 'ab'.repeat(6) + '03'.repeat(26)), null);
  assert.equal(await find('0x' + 'cd'.repeat(32)), null);
});
