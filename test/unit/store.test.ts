import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Address } from '../../node-core/common/pubkey.ts';
import type { Account } from '../../node-core/runtime/account.ts';
import { openLmdbStore, type LmdbStore } from '../../node-core/store/lmdb-store.ts';
import { MemoryStore } from '../../node-core/store/memory-store.ts';
import type { AddressSignature, SignatureQuery, Store } from '../../node-core/store/store.ts';
import {
  address,
  chainMeta,
  CRASH_ADDRESSES,
  CRASH_BIG,
  CRASH_BIG_SIZE,
  CRASH_COUNTER,
  crashTxCount,
  crashTxKeys,
  hash,
  signature,
  slotCommit,
  transaction,
} from '../helpers/store-fixtures.ts';
import { tempDirMaker } from '../helpers/temp-dirs.ts';

/** More rounds for a soak: STORE_CRASH_ROUNDS=50 node --import tsx --test test/unit/store.test.ts */
const CRASH_ROUNDS = Number(process.env.STORE_CRASH_ROUNDS ?? 4);
const WRITER = fileURLToPath(new URL('../helpers/store-crash-writer.ts', import.meta.url));

const tempDir = tempDirMaker('isthmus-store-');

interface Backend {
  name: string;
  open(): Promise<{ store: Store; reopen?: () => Promise<Store> }>;
}

const backends: Backend[] = [
  { name: 'memory', open: async () => ({ store: new MemoryStore() }) },
  {
    name: 'lmdb',
    open: async () => {
      const dir = tempDir();
      const store = await openLmdbStore(dir);
      assert.equal(store.addressIndexLayout, 'duplicates');
      return { store, reopen: async () => openLmdbStore(dir) };
    },
  },
  {
    // A ledger written before the address index moved to LMDB duplicates: it keeps its layout when reopened.
    name: 'lmdb, keyed address index',
    open: async () => {
      const dir = tempDir();
      const store = await openLmdbStore(dir, { newLedgerLayout: 'keyed' });
      assert.equal(store.addressIndexLayout, 'keyed');
      return { store, reopen: async () => openLmdbStore(dir) };
    },
  },
];

const account = (lamports: number, data: Uint8Array = new Uint8Array(0)): Account => ({
  lamports,
  data,
  owner: address(0),
  executable: false,
  rentEpoch: 18446744073709551615,
});

async function withStore(backend: Backend, body: (store: Store, reopen?: () => Promise<Store>) => Promise<Store | void>) {
  const { store, reopen } = await backend.open();
  let last: Store = store;
  try {
    last = (await body(store, reopen)) ?? store;
  } finally {
    await last.close();
  }
}

const A = address(1);
const B = address(2);
const C = address(3);

for (const backend of backends) {
  describe(`store (${backend.name})`, () => {
    it('starts empty', () =>
      withStore(backend, async (store) => {
        assert.equal(await store.readMeta(), null);
        assert.equal(await store.readGenesis(), null);
        assert.equal(await store.firstAvailableSlot(), null);
        assert.equal(await store.getBlock(0), null);
        assert.equal(await store.getBlockHeader(0), null);
        assert.equal(await store.getTransaction(signature(1, 0)), null);
        assert.equal(await store.getSignatureLocation(signature(1, 0)), null);
        assert.deepEqual(await store.getBlockSlots(0, 100, 10), []);
        assert.deepEqual([...(store.loadAccounts() as Iterable<unknown>)], []);
        assert.deepEqual(await store.getSignaturesForAddress(A, { limit: 10, maxSlot: 100 }), []);
        assert.equal(await store.getExtra('t', 1), null);
      }));

    it('keeps genesis, meta and extras', () =>
      withStore(backend, async (store) => {
        const genesis = { creationTime: 1, accounts: [[A, { lamports: 5 }]], hashes: [hash(0)] };
        await store.writeGenesis(genesis);
        assert.deepEqual(await store.readGenesis(), genesis);

        await store.commitSlot(slotCommit(1, [], { extras: [{ table: 'evm', key: 5, value: { n: 5 } }, { table: 'evm', key: '5', value: 'five' }] }));
        await store.commitSlot(slotCommit(2, [], { extras: [{ table: 'evm', key: 'x', value: [1, 2] }] }));
        assert.deepEqual(await store.readMeta(), chainMeta(2));
        assert.deepEqual(await store.getExtra('evm', 5), { n: 5 });
        assert.equal(await store.getExtra('evm', '5'), 'five');
        assert.deepEqual(await store.getExtra('evm', 'x'), [1, 2]);
        assert.equal(await store.getExtra('other', 5), null);

        await store.commitSlot(slotCommit(3, [], { extras: [{ table: 'evm', key: 5, value: null }] }));
        assert.equal(await store.getExtra('evm', 5), null);
        assert.equal(await store.getExtra('evm', '5'), 'five');
      }));

    it('gives byte strings in extension records back as plain Uint8Arrays, at any depth', () =>
      withStore(backend, async (store) => {
        const record = [new Uint8Array([1, 2]), [new Uint8Array([3]), [new Uint8Array([4, 5, 6])]], 7];
        await store.commitSlot(slotCommit(1, [], { extras: [{ table: 'bytes', key: 1, value: record }] }));
        const plain = (v: unknown): boolean => (Array.isArray(v) ? v.every(plain) : !(v instanceof Uint8Array) || v.constructor === Uint8Array);
        const read = await store.getExtra('bytes', 1);
        assert.deepEqual(read, record);
        assert.ok(plain(read), 'getExtra');
        for await (const [, value] of store.scanExtras('bytes')) assert.ok(plain(value), 'scanExtras');
      }));

    it('scans an extension table in key order, forward and reverse, with bounds and limits', () =>
      withStore(backend, async (store) => {
        const keys: Array<string | number | Array<string | number>> = [['zz', 10], 'a', 7, ['zz', 3], ['ab', 1], 5, 'b'];
        await store.commitSlot(slotCommit(1, [], { extras: [...keys.map((key, i) => ({ table: 'idx', key, value: i })), { table: 'idx2', key: 1, value: 'other' }, { table: 'id', key: 1, value: 'other' }] }));
        const scan = async (range?: Parameters<typeof store.scanExtras>[1]) => {
          const out: unknown[] = [];
          for await (const [key] of store.scanExtras('idx', range)) out.push(key);
          return out;
        };
        assert.deepEqual(await scan(), [5, 7, 'a', ['ab', 1], 'b', ['zz', 3], ['zz', 10]]);
        assert.deepEqual(await scan({ reverse: true, limit: 3 }), [['zz', 10], ['zz', 3], 'b']);
        assert.deepEqual(await scan({ start: ['zz'], end: ['zz', 10] }), [['zz', 3]]);
        assert.deepEqual(await scan({ start: ['zz', 10], end: ['zz'], reverse: true }), [['zz', 10], ['zz', 3]]);
        assert.deepEqual(await scan({ start: 6, end: 'b' }), [7, 'a', ['ab', 1]]);
      }));

    it('stores blocks with their transactions in order', () =>
      withStore(backend, async (store) => {
        const txs = [
          transaction(5, 0, [A, B], { memo: '[5] hello' }),
          transaction(5, 1, [B, C], { err: { InstructionError: [0, { Custom: 1 }] } }),
          transaction(5, 2, [A], { err: 'InsufficientFundsForFee' }),
        ];
        const commit = slotCommit(5, txs);
        commit.block.parentSlot = 3;
        commit.block.blockHeight = 4;
        commit.block.rewards = [{ pubkey: A, lamports: 7500, postBalance: 1e12, rewardType: 'Fee', commission: null }];
        await store.commitSlot(commit);

        const block = await store.getBlock(5);
        assert.deepEqual(block, commit.block);
        for (const tx of block!.transactions) assert.equal(tx.wire.constructor, Uint8Array);
        const { transactions: _, ...header } = commit.block;
        assert.deepEqual(await store.getBlockHeader(5), header);
        assert.equal(await store.getBlock(4), null);

        const found = await store.getTransaction(txs[1]!.signature);
        assert.deepEqual(found, { slot: 5, index: 1, blockTime: commit.block.blockTime, transaction: txs[1] });
        assert.deepEqual(await store.getSignatureLocation(txs[2]!.signature), { slot: 5, index: 2, err: 'InsufficientFundsForFee' });
        assert.deepEqual(await store.getSignatureLocation(txs[0]!.signature), { slot: 5, index: 0, err: null });
      }));

    it('keeps token balances, inner instructions and return data of a transaction', () =>
      withStore(backend, async (store) => {
        const tx = transaction(2, 0, [A, B]);
        const balance = { accountIndex: 1, mint: A, uiTokenAmount: { uiAmount: 1.5, decimals: 2, amount: '150', uiAmountString: '1.5' }, owner: B, programId: A };
        tx.meta.preTokenBalances = [balance];
        tx.meta.postTokenBalances = [{ ...balance, uiTokenAmount: { uiAmount: 0, decimals: 2, amount: '0', uiAmountString: '0' } }];
        tx.meta.innerInstructions = [{ index: 0, instructions: [{ programIdIndex: 1, accounts: [0, 1], data: Uint8Array.of(3, 1, 2), stackHeight: 2 }] }];
        tx.meta.returnData = { programId: B, data: Uint8Array.of(165, 0, 0, 0, 0, 0, 0, 0) };
        await store.commitSlot(slotCommit(2, [tx]));
        const meta = (await store.getTransaction(tx.signature))!.transaction.meta;
        assert.deepEqual(meta.preTokenBalances, tx.meta.preTokenBalances);
        assert.deepEqual(meta.postTokenBalances, tx.meta.postTokenBalances);
        const inner = meta.innerInstructions as Array<{ index: number; instructions: Array<{ data: Uint8Array; stackHeight: number }> }>;
        assert.deepEqual([...inner[0]!.instructions[0]!.data], [3, 1, 2]);
        assert.equal(inner[0]!.instructions[0]!.stackHeight, 2);
        assert.equal(meta.returnData!.programId, B);
        assert.deepEqual(meta.returnData!.data, Uint8Array.of(165, 0, 0, 0, 0, 0, 0, 0));
        const plainTx = transaction(2, 1, [A]);
        await store.commitSlot(slotCommit(3, [plainTx]));
        assert.equal('returnData' in (await store.getTransaction(plainTx.signature))!.transaction.meta, false);
      }));

    it('keeps hashes that are not 32-byte base-58 as they are', () =>
      withStore(backend, async (store) => {
        const commit = slotCommit(1);
        commit.block.blockhash = '11111111111111111111111111111111';
        commit.block.previousBlockhash = 'not base58: 0OIl';
        await store.commitSlot(commit);
        const header = await store.getBlockHeader(1);
        assert.equal(header!.blockhash, commit.block.blockhash);
        assert.equal(header!.previousBlockhash, commit.block.previousBlockhash);
      }));

    it('lists block slots in a range', () =>
      withStore(backend, async (store) => {
        for (const slot of [1, 2, 4, 7, 8, 12]) await store.commitSlot(slotCommit(slot));
        assert.deepEqual(await store.getBlockSlots(0, 100, 100), [1, 2, 4, 7, 8, 12]);
        assert.deepEqual(await store.getBlockSlots(2, 8, 100), [2, 4, 7, 8]);
        assert.deepEqual(await store.getBlockSlots(3, 12, 3), [4, 7, 8]);
        assert.deepEqual(await store.getBlockSlots(9, 11, 10), []);
        assert.deepEqual(await store.getBlockSlots(8, 2, 10), []);
        assert.deepEqual(await store.getBlockSlots(0, 100, 0), []);
        assert.equal(await store.firstAvailableSlot(), 1);
      }));

    describe('address signatures', () => {
      // Address A appears in slots 1..20 at varying indexes; B in a few.
      const entries: AddressSignature[] = [];
      const commits = Array.from({ length: 20 }, (_, s) => {
        const slot = s + 1;
        const txs = Array.from({ length: slot % 3 === 0 ? 0 : (slot % 4) + 1 }, (_, i) => {
          const keys = i % 2 ? [B, A, A] : [A, C];
          const tx = transaction(slot, i, keys, { memo: i === 1 ? `[2] m${slot}` : null, err: i === 2 ? 'AccountInUse' : null });
          entries.push({ signature: tx.signature, slot, index: i, err: tx.meta.err, memo: tx.memo, blockTime: chainMeta(slot).blockTime });
          return tx;
        });
        return slotCommit(slot, txs);
      });
      // The model answer: newest first, filtered by brute force.
      const expected = (q: SignatureQuery): AddressSignature[] =>
        [...entries]
          .sort((x, y) => y.slot - x.slot || y.index - x.index)
          .filter((e) => e.slot <= q.maxSlot && (q.minSlot === undefined || e.slot >= q.minSlot))
          .filter((e) => !q.before || e.slot < q.before.slot || (e.slot === q.before.slot && e.index < q.before.index))
          .filter((e) => !q.until || e.slot > q.until.slot || (e.slot === q.until.slot && e.index > q.until.index))
          .slice(0, Math.max(0, q.limit));

      const queries: Array<[string, SignatureQuery]> = [
        ['all', { limit: 1000, maxSlot: 1000 }],
        ['limit', { limit: 5, maxSlot: 1000 }],
        ['maxSlot', { limit: 1000, maxSlot: 10 }],
        ['minSlot', { limit: 1000, maxSlot: 1000, minSlot: 7 }],
        ['minSlot..maxSlot', { limit: 1000, maxSlot: 14, minSlot: 7 }],
        ['before', { limit: 1000, maxSlot: 1000, before: { slot: 10, index: 1 } }],
        ['before beyond maxSlot', { limit: 1000, maxSlot: 8, before: { slot: 10, index: 1 } }],
        ['until', { limit: 1000, maxSlot: 1000, until: { slot: 14, index: 0 } }],
        ['before and until', { limit: 1000, maxSlot: 1000, before: { slot: 17, index: 1 }, until: { slot: 5, index: 2 } }],
        ['before, until and limit', { limit: 3, maxSlot: 1000, before: { slot: 17, index: 1 }, until: { slot: 5, index: 2 } }],
        ['until above before', { limit: 1000, maxSlot: 1000, before: { slot: 5, index: 0 }, until: { slot: 9, index: 0 } }],
        ['until below minSlot', { limit: 1000, maxSlot: 1000, minSlot: 11, until: { slot: 2, index: 0 } }],
        ['zero limit', { limit: 0, maxSlot: 1000 }],
        ['maxSlot below all', { limit: 10, maxSlot: 0 }],
      ];

      for (const [name, query] of queries) {
        it(name, () =>
          withStore(backend, async (store) => {
            for (const commit of commits) await store.commitSlot(commit);
            assert.deepEqual(await store.getSignaturesForAddress(A, query), expected(query));
          }));
      }

      it('pages through with before', () =>
        withStore(backend, async (store) => {
          for (const commit of commits) await store.commitSlot(commit);
          const seen: AddressSignature[] = [];
          let before: SignatureQuery['before'];
          for (;;) {
            const page = await store.getSignaturesForAddress(A, { limit: 4, maxSlot: 1000, before });
            if (page.length === 0) break;
            seen.push(...page);
            before = { slot: page.at(-1)!.slot, index: page.at(-1)!.index };
          }
          assert.deepEqual(seen, expected({ limit: 1000, maxSlot: 1000 }));
          const onlyB = await store.getSignaturesForAddress(B, { limit: 1000, maxSlot: 1000 });
          assert.ok(onlyB.length > 0 && onlyB.every((e) => e.index % 2 === 1));
          assert.deepEqual(await store.getSignaturesForAddress(address(99), { limit: 10, maxSlot: 1000 }), []);
        }));
    });

    it('puts, replaces and removes accounts', () =>
      withStore(backend, async (store) => {
        const big = new Uint8Array(10 * 1024 * 1024);
        for (let i = 0; i < big.length; i += 4093) big[i] = i & 0xff;
        await store.commitSlot(slotCommit(1, [], { accounts: [[A, account(1, new Uint8Array([1, 2, 3]))], [B, account(2)], [C, account(3, big)]] }));
        await store.commitSlot(slotCommit(2, [], { accounts: [[A, account(10, new Uint8Array([9]))], [B, null]] }));
        const loaded = new Map<Address, Account>();
        for await (const [key, value] of store.loadAccounts()) loaded.set(key, value);
        assert.deepEqual([...loaded.keys()].sort(), [A, C].sort());
        assert.deepEqual(loaded.get(A), account(10, new Uint8Array([9])));
        const c = loaded.get(C)!;
        assert.equal(c.data.constructor, Uint8Array);
        assert.equal(c.data.length, big.length);
        assert.ok(Buffer.from(c.data.buffer, c.data.byteOffset, c.data.byteLength).equals(big));
        assert.equal(c.rentEpoch, 18446744073709551615);
        const copy = c.data.slice();
        copy[0] = 77;
        assert.equal(c.data[0], big[0]);
      }));

    it('captures a commit when it is called', () =>
      withStore(backend, async (store) => {
        const commit = slotCommit(1, [transaction(1, 0, [A])], { accounts: [[A, account(5, new Uint8Array([1]))]] });
        const pending = store.commitSlot(commit);
        commit.accounts[0]![1]!.data[0] = 9;
        commit.block.transactions[0]!.memo = 'changed';
        commit.meta.slot = 99;
        await pending;
        const [[, stored]] = [...(store.loadAccounts() as Iterable<[Address, Account]>)];
        assert.deepEqual(stored!.data, new Uint8Array([1]));
        assert.equal((await store.getBlock(1))!.transactions[0]!.memo, null);
        assert.equal((await store.readMeta())!.slot, 1);
      }));

    it('writes nothing of a commit that fails', () =>
      withStore(backend, async (store) => {
        await store.commitSlot(slotCommit(1, [], { accounts: [[A, account(1)]] }));
        const bad = slotCommit(2, [transaction(2, 0, [A])], {
          accounts: [[A, account(2)]],
          extras: [{ table: 't', key: 1, value: { get boom(): number { throw new Error('boom'); } } }],
        });
        await assert.rejects(store.commitSlot(bad), /boom/);
        assert.equal((await store.readMeta())!.slot, 1);
        assert.equal(await store.getBlock(2), null);
        assert.equal(await store.getSignatureLocation(signature(2, 0)), null);
        assert.deepEqual(await store.getSignaturesForAddress(A, { limit: 10, maxSlot: 10 }), []);
        assert.deepEqual([...(store.loadAccounts() as Iterable<unknown>)], [[A, account(1)]]);
        await store.commitSlot(slotCommit(2));
        assert.equal((await store.readMeta())!.slot, 2);
      }));

    it('writes nothing of a large commit that fails after its first thousands of writes', () =>
      withStore(backend, async (store) => {
        await store.commitSlot(slotCommit(1, [], { accounts: [[A, account(1)]] }));
        // Thousands of writes before the failing one (queued for lmdb-js's write thread, it would start on them before the failure).
        const txs = Array.from({ length: 1500 }, (_, i) => transaction(2, i, [A, B]));
        const bad = slotCommit(2, txs, { accounts: [[A, account(2)]], extras: [{ table: 't', key: 1, value: { get boom(): number { throw new Error('boom'); } } }] });
        await assert.rejects(store.commitSlot(bad), /boom/);
        assert.equal((await store.readMeta())!.slot, 1);
        assert.equal(await store.getBlock(2), null);
        assert.equal(await store.getSignatureLocation(signature(2, 0)), null);
        assert.equal(await store.getSignatureLocation(signature(2, 1499)), null);
        assert.deepEqual(await store.getSignaturesForAddress(B, { limit: 10, maxSlot: 10 }), []);
        assert.deepEqual([...(store.loadAccounts() as Iterable<unknown>)], [[A, account(1)]]);
        await store.commitSlot(slotCommit(2, [transaction(2, 0, [B])]));
        assert.equal((await store.readMeta())!.slot, 2);
        assert.equal((await store.getSignaturesForAddress(B, { limit: 10, maxSlot: 10 })).length, 1);
      }));

    it('purges slots below a bound', () =>
      withStore(backend, async (store) => {
        for (let slot = 1; slot <= 30; slot++) {
          const txs = Array.from({ length: slot % 3 }, (_, i) => transaction(slot, i, [A, i ? B : C]));
          await store.commitSlot(slotCommit(slot, txs));
        }
        await store.purgeSlotsBelow(12);
        assert.equal(await store.firstAvailableSlot(), 12);
        assert.deepEqual(await store.getBlockSlots(0, 12, 5), [12]);
        assert.equal(await store.getBlock(11), null);
        assert.equal(await store.getTransaction(signature(11, 1)), null);
        assert.equal(await store.getSignatureLocation(signature(10, 0)), null);
        assert.deepEqual(await store.getSignatureLocation(signature(13, 0)), { slot: 13, index: 0, err: null });
        for (const who of [A, B, C]) {
          const sigs = await store.getSignaturesForAddress(who, { limit: 1000, maxSlot: 1000 });
          assert.ok(sigs.length > 0 && sigs.every((e) => e.slot >= 12));
        }
        assert.equal((await store.getSignaturesForAddress(A, { limit: 1000, maxSlot: 1000 })).length, [...Array(19)].reduce((n, _, i) => n + ((12 + i) % 3), 0));
        await store.purgeSlotsBelow(5); // below what is left: nothing happens
        assert.equal(await store.firstAvailableSlot(), 12);
        await store.purgeSlotsBelow(1000);
        assert.equal(await store.firstAvailableSlot(), null);
        assert.deepEqual(await store.getSignaturesForAddress(A, { limit: 1000, maxSlot: 1000 }), []);
        assert.equal((await store.readMeta())!.slot, 30);
      }));

    it('purges many slots in chunks', () =>
      withStore(backend, async (store) => {
        for (let slot = 1; slot <= 3000; slot++) {
          const txs = slot % 10 === 0 ? Array.from({ length: 20 }, (_, i) => transaction(slot, i, [A, address(i)])) : [];
          await store.commitSlot(slotCommit(slot, txs));
        }
        await store.purgeSlotsBelow(2991);
        assert.deepEqual(await store.getBlockSlots(0, 5000, 100), Array.from({ length: 10 }, (_, i) => 2991 + i));
        const left = await store.getSignaturesForAddress(A, { limit: 1000, maxSlot: 5000 });
        assert.deepEqual(new Set(left.map((e) => e.slot)), new Set([3000]));
        assert.equal(await store.getSignatureLocation(signature(2990, 5)), null);
      }));

    it('overwrites a slot committed twice', () =>
      withStore(backend, async (store) => {
        await store.commitSlot(slotCommit(1, [transaction(1, 0, [A]), transaction(1, 1, [B])]));
        await store.commitSlot(slotCommit(1, [transaction(1, 5, [C])]));
        assert.deepEqual((await store.getBlock(1))!.transactions.map((t) => t.signature), [signature(1, 5)]);
        assert.equal(await store.getSignatureLocation(signature(1, 1)), null);
        assert.deepEqual(await store.getSignaturesForAddress(A, { limit: 10, maxSlot: 10 }), []);
        assert.equal((await store.getSignaturesForAddress(C, { limit: 10, maxSlot: 10 }))[0]!.index, 0);
      }));

    if (backend.name.startsWith('lmdb')) {
      it('keeps everything across close and reopen', () =>
        withStore(backend, async (store, reopen) => {
          await store.writeGenesis({ g: 1 });
          await store.commitSlot(slotCommit(1, [transaction(1, 0, [A, B])], { accounts: [[A, account(5, new Uint8Array([4, 5]))]], extras: [{ table: 't', key: 1, value: 'x' }] }));
          await store.close();
          await store.close(); // idempotent
          const again = await reopen!();
          assert.deepEqual(await again.readGenesis(), { g: 1 });
          assert.deepEqual(await again.readMeta(), chainMeta(1));
          assert.equal((await again.getBlock(1))!.transactions[0]!.signature, signature(1, 0));
          assert.deepEqual([...(again.loadAccounts() as Iterable<unknown>)], [[A, account(5, new Uint8Array([4, 5]))]]);
          assert.equal((await again.getSignaturesForAddress(B, { limit: 10, maxSlot: 10 })).length, 1);
          assert.equal(await again.getExtra('t', 1), 'x');
          assert.equal((again as LmdbStore).addressIndexLayout, (store as LmdbStore).addressIndexLayout, 'the address index keeps its layout');
          await again.commitSlot(slotCommit(2, [transaction(2, 0, [B])]));
          assert.deepEqual((await again.getSignaturesForAddress(B, { limit: 10, maxSlot: 10 })).map((e) => e.slot), [2, 1]);
          return again;
        }));
    }

    if (backend.name === 'lmdb') {
      it('grows by about a header per empty slot', async () => {
        const dir = tempDir();
        const clock: Account = { ...account(1_169_280, new Uint8Array(40)), owner: address(7) };
        const commitEmpty = (store: Store, slot: number) => store.commitSlot(slotCommit(slot, [], { accounts: [[address(8), clock]] }));
        let store = await openLmdbStore(dir);
        for (let slot = 1; slot <= 200; slot++) await commitEmpty(store, slot);
        await store.close();
        const before = fs.statSync(path.join(dir, 'data.mdb')).size;
        store = await openLmdbStore(dir);
        for (let slot = 201; slot <= 2200; slot++) await commitEmpty(store, slot);
        await store.close();
        const perSlot = (fs.statSync(path.join(dir, 'data.mdb')).size - before) / 2000;
        assert.ok(perSlot < 160, `${perSlot} bytes per empty slot`);
      });

      it('keeps the address index pages full: a slot with one 5-key transaction costs well under half of the keyed layout\'s index', async () => {
        const indexGrowth = async (layout: 'keyed' | 'duplicates') => {
          const dir = tempDir();
          const keys = [address(11), address(12), address(13), address(14), address(15)];
          let store = await openLmdbStore(dir, { newLedgerLayout: layout });
          const commit = (slot: number) => store.commitSlot(slotCommit(slot, [transaction(slot, 0, keys)]));
          for (let slot = 1; slot <= 200; slot++) await commit(slot);
          await store.close();
          const before = fs.statSync(path.join(dir, 'data.mdb')).size;
          store = await openLmdbStore(dir);
          assert.equal(store.addressIndexLayout, layout);
          for (let slot = 201; slot <= 3200; slot++) await commit(slot);
          assert.equal((await store.getSignaturesForAddress(keys[2]!, { limit: 1000, maxSlot: 5000 })).length, 1000);
          await store.close();
          return (fs.statSync(path.join(dir, 'data.mdb')).size - before) / 3000;
        };
        const keyed = await indexGrowth('keyed');
        const duplicates = await indexGrowth('duplicates');
        assert.ok(duplicates < keyed - 500, `per slot: ${duplicates.toFixed(0)} bytes with duplicates, ${keyed.toFixed(0)} keyed`);
      });

      it('stays consistent when the writer is killed at any moment', { timeout: 120_000 }, async () => {
        const dir = tempDir();
        let lastSlot = 0;
        for (let round = 0; round < CRASH_ROUNDS; round++) {
          await runCrashWriter(dir, 100 + Math.random() * 500);
          const store = await openLmdbStore(dir);
          try {
            const slot = await checkCrashLedger(store);
            assert.ok(slot >= lastSlot, `meta went back from ${lastSlot} to ${slot}`);
            lastSlot = slot;
          } finally {
            await store.close();
          }
        }
        assert.ok(lastSlot > 50, `the writer only reached slot ${lastSlot}`);
      });
    }
  });
}

/** Starts the writer, lets it run `ms` after it is ready, then SIGKILLs it. */
function runCrashWriter(dir: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), ms));
    child.on('error', reject);
    child.on('exit', (code, sig) => (sig === 'SIGKILL' ? resolve() : reject(new Error(`writer exited ${code}: ${stderr}`))));
  });
}

/** Checks the invariants of the crash ledger; returns its slot. */
async function checkCrashLedger(store: Store): Promise<number> {
  const meta = await store.readMeta();
  assert.ok(meta, 'meta is stored');
  const slot = meta.slot;
  assert.deepEqual(meta, chainMeta(slot));
  const first = (await store.firstAvailableSlot())!;
  const slots = await store.getBlockSlots(0, slot + 1_000_000, 1_000_000);
  assert.deepEqual(slots, Array.from({ length: slot - first + 1 }, (_, i) => first + i), 'blocks run without gaps up to meta.slot');
  assert.equal((await store.getBlockHeader(slot))!.blockhash, meta.blockhash);

  const expected = new Map<Address, string[]>();
  for (let s = Math.max(1, first - 60); s <= slot + 2; s++) {
    const stored = s >= first && s <= slot;
    const block = await store.getBlock(s);
    assert.equal(block !== null, stored, `block ${s}`);
    if (block) assert.equal(block.transactions.length, crashTxCount(s));
    for (let i = 0; i < crashTxCount(s); i++) {
      const loc = await store.getSignatureLocation(signature(s, i));
      assert.deepEqual(loc, stored ? { slot: s, index: i, err: null } : null, `signature ${s}/${i}`);
      if (stored) {
        assert.equal(block!.transactions[i]!.signature, signature(s, i));
        for (const key of new Set(crashTxKeys(s, i))) expected.set(key, [...(expected.get(key) ?? []), signature(s, i)]);
      }
    }
  }
  for (const who of CRASH_ADDRESSES) {
    const found = await store.getSignaturesForAddress(who, { limit: 1_000_000, maxSlot: slot + 1_000_000 });
    assert.deepEqual(found.map((e) => e.signature), (expected.get(who) ?? []).reverse(), `address index of ${who}`);
  }

  const accounts = new Map<Address, Account>();
  for await (const [key, value] of store.loadAccounts()) accounts.set(key, value);
  assert.equal(accounts.get(CRASH_COUNTER)!.lamports, slot);
  const big = accounts.get(CRASH_BIG)!.data;
  assert.equal(big.length, CRASH_BIG_SIZE);
  assert.ok(big.every((b) => b === (slot & 0xff)), 'big account is from the same slot');
  assert.deepEqual(await store.getExtra('crash', slot), { slot });
  assert.equal(await store.getExtra('crash', slot + 1), null);
  return slot;
}
