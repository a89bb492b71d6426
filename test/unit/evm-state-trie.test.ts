import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMPT } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, bytesToUnprefixedHex, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from '../../node-core/common/hash.ts';
import { encodeAccountLeaf, EvmStateTrie, STORAGE_ROOT_TABLE, TRIE_TABLE, type TrieSource } from '../../node-core/evm/state-trie.ts';
import { childReferences } from '../helpers/trie-nodes.ts';
import { EMPTY_STORAGE_ROOT, EvmBaseState, EvmChanges, LayeredState, newEvmAccount } from '../../node-core/evm/state.ts';

/** The trie's records as a slot commit would store them. */
class MemoryTrieStore implements TrieSource {
  readonly tables = new Map<string, Map<string, unknown>>();
  written = 0;

  commit(extras: { table: string; key: unknown; value: unknown }[]): void {
    for (const { table, key, value } of extras) {
      let t = this.tables.get(table);
      if (!t) this.tables.set(table, (t = new Map()));
      if (value === null) t.delete(key as string);
      else t.set(key as string, value);
      if (table === TRIE_TABLE) this.written++;
    }
  }

  async getExtra(table: string, key: unknown): Promise<unknown | null> {
    return this.tables.get(table)?.get(key as string) ?? null;
  }

  *scanExtras(table: string): Iterable<[string, unknown]> {
    yield* [...(this.tables.get(table) ?? new Map<string, unknown>())].sort(([a], [b]) => (a < b ? -1 : 1));
  }
}

const address = (i: number) => bytesToHex(keccak256(new TextEncoder().encode(`account ${i}`)).subarray(12));
const slotKey = (i: number) => bytesToHex(keccak256(new TextEncoder().encode(`slot ${i}`)));

/** Every stored node under `root` (hash keys), reading only the store: throws on a missing node. */
function storedNodesUnder(store: MemoryTrieStore, root: Uint8Array, into = new Set<string>()): Set<string> {
  const key = bytesToUnprefixedHex(root);
  if (into.has(key)) return into;
  const encoded = store.tables.get(TRIE_TABLE)?.get(key) as Uint8Array | undefined;
  assert.ok(encoded, `node ${key} is reachable but not stored`);
  into.add(key);
  for (const child of childReferences(encoded)) storedNodesUnder(store, child, into);
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
    const seal = await trie.apply(changes, after);
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
    const reached = storedNodesUnder(store, seal.stateRoot);
    storedNodesUnder(store, trie.storageRoot(contract), reached);
    const writtenNow = seal.extras.filter((e) => e.table === TRIE_TABLE).map((e) => e.key as string);
    assert.ok(writtenNow.length > 0);
    for (const key of writtenNow) assert.ok(reached.has(key), `slot ${slot} wrote node ${key}, which its roots do not reach`);
    const fresh = await EvmStateTrie.open(store, seal.stateRoot);
    for (const [a, acct] of base.accounts) {
      const got = await fresh.accountAt(seal.stateRoot, a);
      assert.equal(got?.account.balance, acct.balance, `balance of ${a} at slot ${slot}`);
    }
    for (const [k, v] of base.storageByAddress.get(contract)!) assert.deepEqual(await fresh.storageAt(trie.storageRoot(contract), k), v);
  }
  assert.ok(store.tables.get(STORAGE_ROOT_TABLE)?.has(contract));
  assert.ok(puts > 2_000);
});
