import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMPT } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex } from '@ethereumjs/util';
import { keccak256 } from '../../node-core/common/hash.ts';
import { childReferences } from '../helpers/trie-nodes.ts';
import { EMPTY_TRIE_ROOT, TrieBatch, trieRootOf } from '../../node-core/evm/trie-batch.ts';

/** A small deterministic generator, so that a failure names a reproducible case. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

function bytes(next: () => number, length: number): Uint8Array {
  return Uint8Array.from({ length }, () => Math.floor(next() * 256));
}

/** Stored nodes by hash, as a slot commit would keep them. */
function memoryNodes() {
  const nodes = new Map<string, Uint8Array>();
  return {
    nodes,
    source: { read: async (hash: Uint8Array) => nodes.get(bytesToHex(hash)) },
    sink: (hash: Uint8Array, encoded: Uint8Array) => {
      assert.equal(bytesToHex(keccak256(encoded)), bytesToHex(hash));
      nodes.set(bytesToHex(hash), encoded);
    },
  };
}

/** The stored nodes a root reaches, by hash. */
function reachable(nodes: Map<string, Uint8Array>, root: Uint8Array, into = new Set<string>()): Set<string> {
  const key = bytesToHex(root);
  if (into.has(key)) return into;
  into.add(key);
  for (const child of childReferences(nodes.get(key)!)) reachable(nodes, child, into);
  return into;
}

for (const seed of [1, 2, 3, 4]) {
  test(`batches of puts and deletes give @ethereumjs/mpt's roots, read back from the stored nodes alone (seed ${seed})`, async () => {
    const next = random(seed);
    const reference = await createMPT({ useKeyHashing: true, useKeyHashingFunction: keccak256 });
    const store = memoryNodes();
    let root = EMPTY_TRIE_ROOT;
    const keys: Uint8Array[] = [];
    // Few keys at first (short paths, inlined small nodes), then many; deletes that empty the trie too.
    for (const [round, size] of [5, 1, 40, 300, 300, 120, 500].entries()) {
      const batch = new TrieBatch(root, store.source);
      for (let i = 0; i < size; i++) {
        const roll = next();
        if (roll < 0.3 && keys.length > 0) {
          const key = keys[Math.floor(next() * keys.length)]!;
          await batch.del(keccak256(key));
          await reference.del(key);
        } else if (roll < 0.35) {
          const missing = bytes(next, 20);
          await batch.del(keccak256(missing));
          await reference.del(missing);
        } else {
          const key = roll < 0.6 && keys.length > 0 ? keys[Math.floor(next() * keys.length)]! : bytes(next, 20);
          if (!keys.includes(key)) keys.push(key);
          // Values of 1 to 40 bytes: leaves small enough to be inlined in their parent, and large ones.
          const value = RLP.encode(bytes(next, 1 + Math.floor(next() * 40)));
          await batch.put(keccak256(key), value);
          await reference.put(key, value);
        }
      }
      root = batch.commit(store.sink);
      assert.equal(bytesToHex(root), bytesToHex(reference.root()), `root after round ${round}`);
    }
    // Emptying the trie gives the empty root.
    const batch = new TrieBatch(root, store.source);
    for (const key of keys) {
      await batch.del(keccak256(key));
      await reference.del(key);
    }
    assert.equal(bytesToHex(batch.commit(store.sink)), bytesToHex(EMPTY_TRIE_ROOT));
    assert.equal(bytesToHex(reference.root()), bytesToHex(EMPTY_TRIE_ROOT));
  });
}

test('a commit stores each changed node once, and only nodes its root reaches', async () => {
  const store = memoryNodes();
  const first = new TrieBatch(EMPTY_TRIE_ROOT, store.source);
  for (let i = 0; i < 2_000; i++) await first.put(keccak256(Uint8Array.of(i >> 8, i & 255)), RLP.encode(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33)));
  const root = first.commit(store.sink);
  const stored = store.nodes.size;
  const sunk: string[] = [];
  const second = new TrieBatch(root, store.source);
  for (let i = 0; i < 200; i++) await second.put(keccak256(Uint8Array.of(i >> 8, i & 255)), RLP.encode(Uint8Array.of(i)));
  const newRoot = second.commit((hash, encoded) => {
    sunk.push(bytesToHex(hash));
    store.sink(hash, encoded);
  });
  assert.equal(new Set(sunk).size, sunk.length, 'no node handed over twice');
  // Exactly the nodes of the new trie that the old one did not have.
  const before = reachable(store.nodes, root);
  const after = reachable(store.nodes, newRoot);
  assert.deepEqual(new Set(sunk), new Set([...after].filter((k) => !before.has(k))));
  assert.ok(sunk.length > 200 && store.nodes.size > stored);
  // A batch that changes nothing hands nothing over and keeps the root.
  const idle = new TrieBatch(root, store.source);
  await idle.del(keccak256(Uint8Array.of(0xff, 0xff, 0xff)));
  const none: string[] = [];
  assert.equal(bytesToHex(idle.commit((h) => none.push(bytesToHex(h)))), bytesToHex(root));
  assert.deepEqual(none, []);
});

test('trieRootOf gives the ordered tries of a block (keys RLP of the index)', async () => {
  const reference = await createMPT({ useKeyHashingFunction: keccak256 });
  const entries: [Uint8Array, Uint8Array][] = [];
  for (let i = 0; i < 300; i++) {
    const value = Uint8Array.from({ length: 1 + (i % 120) }, (_, j) => (i * 31 + j) & 255);
    entries.push([RLP.encode(i), value]);
    await reference.put(RLP.encode(i), value);
  }
  assert.equal(bytesToHex(await trieRootOf(entries)), bytesToHex(reference.root()));
  assert.equal(bytesToHex(await trieRootOf(entries.slice(0, 1))), bytesToHex(await (async () => {
    const one = await createMPT({ useKeyHashingFunction: keccak256 });
    await one.put(entries[0]![0], entries[0]![1]);
    return one.root();
  })()));
});

test('a missing node is an error, not a wrong root', async () => {
  const batch = new TrieBatch(keccak256(Uint8Array.of(1)), { read: async () => undefined });
  await assert.rejects(batch.put(keccak256(Uint8Array.of(2)), Uint8Array.of(1)), /trie node [0-9a-f]{64} is missing/);
});
