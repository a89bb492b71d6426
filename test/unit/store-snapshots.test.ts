/**
 * The store's side of snapshots, on both backends: undo records only while a book sets a floor,
 * revertTo putting accounts, extras and meta back and deleting the later slots' records in one
 * write, nested snapshots, a floor raised dropping what is no longer needed, a reset to genesis, and
 * (LMDB) the book, a revert and a reset surviving a reopen.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { DatabaseOptions, RootDatabase } from 'lmdb';
import type { Account } from '../../node-core/runtime/account.ts';
import { openLmdbStore } from '../../node-core/store/lmdb-store.ts';
import { MemoryStore } from '../../node-core/store/memory-store.ts';
import type { Store } from '../../node-core/store/store.ts';
import { address, chainMeta, signature, slotCommit, transaction } from '../helpers/store-fixtures.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const backends: Array<{ name: string; open(): Promise<{ store: Store; reopen?: () => Promise<Store> }> }> = [
  { name: 'memory', open: async () => ({ store: new MemoryStore() }) },
  {
    name: 'lmdb',
    open: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-store-snap-'));
      dirs.push(dir);
      return { store: await openLmdbStore(dir), reopen: () => openLmdbStore(dir) };
    },
  },
];

const account = (lamports: number, data: number[] = []): Account => ({ lamports, data: new Uint8Array(data), owner: address(0), executable: false, rentEpoch: 0 });
const A = address(1);
const B = address(2);
const C = address(3);
const accounts = async (store: Store) => new Map([...(store.loadAccounts() as Iterable<[string, Account]>)]);

/** Slot 1 (before any snapshot): A, C and two extras. */
async function base(store: Store): Promise<void> {
  await store.commitSlot(
    slotCommit(1, [transaction(1, 0, [A, C])], {
      accounts: [
        [A, account(100, [1])],
        [C, account(300)],
      ],
      extras: [
        { table: 'evm', key: 'kept', value: new Uint8Array([1]) },
        { table: 'evm', key: ['x', 1], value: 'one' },
      ],
    }),
  );
}

/** Slots 2 and 3: A changed twice, B created, C closed, extras changed, added and deleted. */
async function later(store: Store): Promise<void> {
  await store.commitSlot(slotCommit(2, [transaction(2, 0, [A, B])], { accounts: [[A, account(90, [2])], [B, account(10)]], extras: [{ table: 'evm', key: 'kept', value: new Uint8Array([2]) }, { table: 'evm', key: 'new', value: 'n' }] }));
  await store.commitSlot(slotCommit(3, [transaction(3, 0, [A, C])], { accounts: [[A, account(80, [3])], [C, null]], extras: [{ table: 'evm', key: ['x', 1], value: null }] }));
}

async function assertAtSlot1(store: Store): Promise<void> {
  assert.deepEqual(await store.readMeta(), chainMeta(1));
  const all = await accounts(store);
  assert.deepEqual(all.get(A), account(100, [1]));
  assert.equal(all.has(B), false);
  assert.deepEqual(all.get(C), account(300));
  assert.deepEqual(await store.getExtra('evm', 'kept'), new Uint8Array([1]));
  assert.equal(await store.getExtra('evm', ['x', 1]), 'one');
  assert.equal(await store.getExtra('evm', 'new'), null);
  assert.deepEqual(await store.getBlockSlots(0, 10, 10), [1]);
  for (const slot of [2, 3]) {
    assert.equal(await store.getBlock(slot), null);
    assert.equal(await store.getTransaction(signature(slot, 0)), null);
    assert.equal(await store.getSignatureLocation(signature(slot, 0)), null);
  }
  assert.deepEqual((await store.getSignaturesForAddress(A, { limit: 10, maxSlot: 10 })).map((e) => e.slot), [1]);
  assert.deepEqual(await store.getSignaturesForAddress(B, { limit: 10, maxSlot: 10 }), []);
}

for (const backend of backends) {
  describe(`store snapshots (${backend.name})`, () => {
    it('keeps no undo records without a floor, and refuses a revert then', async () => {
      const { store } = await backend.open();
      await base(store);
      await later(store);
      assert.equal(await store.readSnapshots(), null);
      await assert.rejects(store.revertTo(1, { undoFrom: null, registry: null }), /no undo records/);
      assert.deepEqual(await store.readMeta(), chainMeta(3));
      await store.close();
    });

    it('reverts every later slot in one write and says what it put back', async () => {
      const { store } = await backend.open();
      await base(store);
      await store.writeSnapshots({ undoFrom: 1, registry: { n: 1 } });
      await later(store);
      const r = await store.revertTo(1, { undoFrom: null, registry: { n: 0 } });
      assert.deepEqual(r.meta, chainMeta(1));
      assert.deepEqual(r.discardedSlots, [2, 3]);
      assert.deepEqual(new Map(r.accounts), new Map([[A, account(100, [1])], [B, null], [C, account(300)]]));
      const extras = new Map(r.extras.map((e) => [JSON.stringify([e.table, e.key]), e.value]));
      assert.deepEqual(extras, new Map<string, unknown>([[JSON.stringify(['evm', 'kept']), new Uint8Array([1])], [JSON.stringify(['evm', 'new']), null], [JSON.stringify(['evm', ['x', 1]]), 'one']]));
      await assertAtSlot1(store);
      assert.deepEqual(await store.readSnapshots(), { undoFrom: null, registry: { n: 0 } });
      // The chain goes on from slot 1: slot 2 again, and a revert is refused without a floor.
      await store.commitSlot(slotCommit(2, [transaction(2, 7, [B])], { accounts: [[B, account(5)]] }));
      assert.equal((await store.getBlock(2))!.transactions[0]!.signature, signature(2, 7));
      await assert.rejects(store.revertTo(1, { undoFrom: null, registry: null }), /no undo records/);
      await store.close();
    });

    it('a failed transaction with a memo leaves no address-index entry behind', async () => {
      const { store } = await backend.open();
      await base(store);
      await store.writeSnapshots({ undoFrom: 1, registry: null });
      await store.commitSlot(slotCommit(2, [transaction(2, 0, [B, C], { err: { InstructionError: [0, 'Custom'] } as never, memo: '[4] memo' }), transaction(2, 1, [B])]));
      assert.equal((await store.getSignaturesForAddress(B, { limit: 10, maxSlot: 10 })).length, 2);
      await store.revertTo(1, { undoFrom: null, registry: null });
      assert.deepEqual(await store.getSignaturesForAddress(B, { limit: 10, maxSlot: 10 }), []);
      assert.deepEqual((await store.getSignaturesForAddress(C, { limit: 10, maxSlot: 10 })).map((e) => e.slot), [1]);
      assert.equal(await store.getSignatureLocation(signature(2, 0)), null);
      await store.close();
    });

    it('nested snapshots: a revert to the later one keeps what the earlier one needs', async () => {
      const { store } = await backend.open();
      await base(store);
      await store.writeSnapshots({ undoFrom: 1, registry: 'at 1' });
      await store.commitSlot(slotCommit(2, [transaction(2, 0, [A])], { accounts: [[A, account(90)]] }));
      // A second snapshot at 2: the floor stays at 1.
      await store.writeSnapshots({ undoFrom: 1, registry: 'at 1 and 2' });
      await store.commitSlot(slotCommit(3, [transaction(3, 0, [A])], { accounts: [[A, account(80)], [B, account(1)]] }));
      const r2 = await store.revertTo(2, { undoFrom: 1, registry: 'at 1' });
      assert.deepEqual(r2.discardedSlots, [3]);
      assert.equal((await accounts(store)).get(A)!.lamports, 90);
      assert.equal((await accounts(store)).has(B), false);
      assert.deepEqual(await store.readMeta(), chainMeta(2));
      await store.commitSlot(slotCommit(3, [transaction(3, 1, [B])], { accounts: [[B, account(2)]] }));
      const r1 = await store.revertTo(1, { undoFrom: null, registry: 'none' });
      assert.deepEqual(r1.discardedSlots, [2, 3]);
      assert.equal((await accounts(store)).get(A)!.lamports, 100);
      assert.equal((await accounts(store)).has(B), false);
      assert.deepEqual(await store.readMeta(), chainMeta(1));
      assert.equal(await store.getSignatureLocation(signature(3, 1)), null);
      await store.close();
    });

    it('keys changed in every slot after nested snapshots come back as they stood at each, also after slots written again', async () => {
      const { store } = await backend.open();
      await base(store);
      await store.writeSnapshots({ undoFrom: 1, registry: 'at 1' });
      for (let slot = 2; slot <= 5; slot++) await store.commitSlot(slotCommit(slot, [], { accounts: [[A, account(100 - slot)]], extras: [{ table: 'evm', key: 'kept', value: new Uint8Array([slot]) }] }));
      await store.writeSnapshots({ undoFrom: 1, registry: 'at 1 and 5' });
      for (let slot = 6; slot <= 9; slot++) await store.commitSlot(slotCommit(slot, [], { accounts: [[A, account(200 + slot)], [B, account(slot)]], extras: [{ table: 'evm', key: 'kept', value: new Uint8Array([slot]) }] }));
      const r5 = await store.revertTo(5, { undoFrom: 1, registry: 'at 1' });
      assert.deepEqual(r5.discardedSlots, [6, 7, 8, 9]);
      assert.deepEqual(new Map(r5.accounts), new Map([[A, account(95)], [B, null]]));
      assert.deepEqual(await store.readMeta(), chainMeta(5));
      assert.deepEqual(await store.getExtra('evm', 'kept'), new Uint8Array([5]));
      // Slots 6-8 again (B, changed only after slot 5 before, changed again), then back to slot 1: every key as it stood there.
      for (let slot = 6; slot <= 8; slot++) await store.commitSlot(slotCommit(slot, [], { accounts: [[A, account(300 + slot)], [B, account(10 * slot)], [C, account(slot)]], extras: [{ table: 'evm', key: 'kept', value: new Uint8Array([slot]) }] }));
      const r1 = await store.revertTo(1, { undoFrom: null, registry: null });
      assert.deepEqual(r1.discardedSlots, [2, 3, 4, 5, 6, 7, 8]);
      await assertAtSlot1(store);
      await store.close();
    });

    it('a floor raised drops the undo records below it: a revert there is refused, and nothing changes', async () => {
      const { store } = await backend.open();
      await base(store);
      await store.writeSnapshots({ undoFrom: 1, registry: null });
      await store.commitSlot(slotCommit(2, [], { accounts: [[A, account(90)]] }));
      await store.writeSnapshots({ undoFrom: 2, registry: null });
      await store.commitSlot(slotCommit(3, [], { accounts: [[A, account(80)]] }));
      await assert.rejects(store.revertTo(1, { undoFrom: null, registry: null }), /no undo records/);
      assert.equal((await accounts(store)).get(A)!.lamports, 80);
      await store.revertTo(2, { undoFrom: null, registry: null });
      assert.equal((await accounts(store)).get(A)!.lamports, 90);
      await store.close();
    });

    it('resetToGenesis: every record of before gone in one write, the genesis and slot 0 written, the book replaced', async () => {
      const { store, reopen } = await backend.open();
      await store.writeGenesis({ config: 'old', hash: 'h' });
      await base(store);
      await store.writeSnapshots({ undoFrom: 1, registry: { live: [1] } });
      await later(store);
      const genesisAccounts: Array<[string, Account]> = [[C, account(7, [9])]];
      const slot0 = slotCommit(0, [], { accounts: genesisAccounts, extras: [{ table: 'evm', key: 'genesis', value: new Uint8Array([0]) }] });
      await store.resetToGenesis({ config: 'genesis', hash: 'h' }, slot0, { undoFrom: null, registry: { live: [] } });
      const check = async (s: Store) => {
        assert.deepEqual(await s.readGenesis(), { config: 'genesis', hash: 'h' });
        assert.deepEqual(await s.readMeta(), chainMeta(0));
        assert.deepEqual(await accounts(s), new Map(genesisAccounts));
        assert.deepEqual([...(s.scanExtras('evm') as Iterable<unknown>)], [['genesis', new Uint8Array([0])]]);
        assert.deepEqual(await s.getBlockSlots(0, 10, 10), [0]);
        assert.equal(await s.firstAvailableSlot(), 0);
        for (const slot of [1, 2, 3]) {
          assert.equal(await s.getBlock(slot), null);
          assert.equal(await s.getTransaction(signature(slot, 0)), null);
          assert.equal(await s.getSignatureLocation(signature(slot, 0)), null);
        }
        for (const a of [A, B, C]) assert.deepEqual(await s.getSignaturesForAddress(a, { limit: 10, maxSlot: 10 }), []);
        assert.deepEqual(await s.readSnapshots(), { undoFrom: null, registry: { live: [] } });
        // No undo records are left: there is nothing to revert to.
        await assert.rejects(s.revertTo(0, { undoFrom: null, registry: null }), /no undo records/);
      };
      await check(store);
      if (reopen) {
        await store.close();
        const again = await reopen();
        await check(again);
        await again.commitSlot(slotCommit(1, [transaction(1, 5, [A])], { accounts: [[A, account(1)]] }));
        assert.deepEqual((await again.getSignaturesForAddress(A, { limit: 10, maxSlot: 10 })).map((e) => e.signature), [signature(1, 5)]);
        await again.close();
        return;
      }
      // The chain goes on from slot 0.
      await store.commitSlot(slotCommit(1, [transaction(1, 5, [A])], { accounts: [[A, account(1)]] }));
      assert.deepEqual((await store.getSignaturesForAddress(A, { limit: 10, maxSlot: 10 })).map((e) => e.signature), [signature(1, 5)]);
      await store.close();
    });

    it('a discarded transaction sent again lands where the chain puts it, also once its old slot is written again and after a reopen', async () => {
      const { store, reopen } = await backend.open();
      await base(store);
      await store.writeSnapshots({ undoFrom: 1, registry: null });
      const moved = transaction(3, 0, [A]);
      await store.commitSlot(slotCommit(2, [transaction(2, 0, [B])]));
      await store.commitSlot(slotCommit(3, [moved]));
      await store.revertTo(1, { undoFrom: null, registry: null });
      let s = store;
      if (reopen) {
        await store.close();
        s = await reopen();
      }
      for (const sig of [signature(2, 0), moved.signature]) {
        assert.equal(await s.getSignatureLocation(sig), null);
        assert.equal(await s.getTransaction(sig), null);
      }
      // It lands in slot 2 this time; slot 3 is then written without it, so its old entry is dropped and the new one kept.
      await s.commitSlot(slotCommit(2, [moved]));
      await s.commitSlot(slotCommit(3, [transaction(3, 1, [B])]));
      assert.deepEqual(await s.getSignatureLocation(moved.signature), { slot: 2, index: 0, err: null });
      assert.equal((await s.getTransaction(moved.signature))!.slot, 2);
      assert.equal(await s.getSignatureLocation(signature(2, 0)), null);
      assert.deepEqual(await s.getSignatureLocation(signature(3, 1)), { slot: 3, index: 0, err: null });
      await s.close();
    });

    if (backend.name === 'lmdb') {
      it("leaves a discarded slot's index entries to the next write of that slot or a later one: until then they lie above the newest block", async () => {
        const { store, reopen } = await backend.open();
        const left = (s: Store) => [...(s as unknown as { discardedIndex: { getKeys(): Iterable<number> } }).discardedIndex.getKeys()];
        const addressEntries = (s: Store) => (s as unknown as { root: RootDatabase }).root.openDB('addr-dup', { dupSort: true, encoding: 'binary' } as DatabaseOptions).getValuesCount(A);
        await base(store);
        await store.writeSnapshots({ undoFrom: 1, registry: null });
        for (let slot = 2; slot <= 5; slot++) await store.commitSlot(slotCommit(slot, [transaction(slot, 0, [A])]));
        await store.revertTo(1, { undoFrom: null, registry: null });
        assert.deepEqual(left(store), [2, 3, 4, 5]);
        assert.equal(addressEntries(store), 5);
        await store.close();
        const s = await reopen!();
        assert.deepEqual(left(s), [2, 3, 4, 5]);
        for (let slot = 2; slot <= 5; slot++) assert.equal(await s.getSignatureLocation(signature(slot, 0)), null);
        assert.deepEqual((await s.getSignaturesForAddress(A, { limit: 10, maxSlot: 10 })).map((e) => e.signature), [signature(1, 0)]);
        // Slot 2 written again drops slot 2's; slot 4 (3 skipped) drops 3's and 4's.
        await s.commitSlot(slotCommit(2, []));
        assert.deepEqual(left(s), [3, 4, 5]);
        await s.commitSlot(slotCommit(4, [transaction(4, 0, [A])], { meta: chainMeta(4) }));
        assert.deepEqual(left(s), [5]);
        assert.deepEqual(await s.getSignatureLocation(signature(4, 0)), { slot: 4, index: 0, err: null });
        assert.deepEqual((await s.getSignaturesForAddress(A, { limit: 10, maxSlot: 10 })).map((e) => e.signature), [signature(4, 0), signature(1, 0)]);
        // The signature index's entries, by the position each names ([prefix, slot, index] keys).
        const sigs = (s as unknown as { sigsDb: { getKeys(): Iterable<unknown> } }).sigsDb;
        const positions = () => new Set([...sigs.getKeys()].map((k) => (Array.isArray(k) ? `${k[1]}:${k[2]}` : `keyed by signature: ${String(k)}`)));
        assert.deepEqual(positions(), new Set(['1:0', '4:0', '5:0']));
        assert.equal(addressEntries(s), 3);
        await s.commitSlot(slotCommit(6, []));
        assert.deepEqual(left(s), []);
        assert.deepEqual(positions(), new Set(['1:0', '4:0']));
        assert.equal(addressEntries(s), 2);
        await s.close();
      });

      it('keeps undo records only while a snapshot needs them: a revert or a book with no floor empties the table in its write', async () => {
        const { store } = await backend.open();
        const undoRecords = () => (store as unknown as { undo: { getKeysCount(): number } }).undo.getKeysCount();
        await base(store);
        await store.writeSnapshots({ undoFrom: 1, registry: 'at 1' });
        await store.commitSlot(slotCommit(2, [transaction(2, 0, [A])], { accounts: [[A, account(90)]] }));
        await store.writeSnapshots({ undoFrom: 1, registry: 'at 1 and 2' });
        await store.commitSlot(slotCommit(3, [transaction(3, 0, [A])], { accounts: [[A, account(80)], [B, account(1)]] }));
        assert.equal(undoRecords(), 2);
        // A snapshot is left (at 1): slot 2's record stays for it, slot 3's goes with the slot.
        await store.revertTo(2, { undoFrom: 1, registry: 'at 1' });
        assert.equal(undoRecords(), 1);
        await store.commitSlot(slotCommit(3, [transaction(3, 1, [B])], { accounts: [[B, account(2)]] }));
        assert.equal(undoRecords(), 2);
        // None is left: the table is emptied, and the revert still puts back what slot 2's record kept.
        const r1 = await store.revertTo(1, { undoFrom: null, registry: null });
        assert.deepEqual(r1.discardedSlots, [2, 3]);
        assert.equal(undoRecords(), 0);
        await assertAtSlot1(store);
        // A snapshot deleted (a book with no floor) empties it too.
        await store.writeSnapshots({ undoFrom: 1, registry: 'at 1' });
        await store.commitSlot(slotCommit(2, [transaction(2, 2, [A])], { accounts: [[A, account(70)]] }));
        assert.equal(undoRecords(), 1);
        await store.writeSnapshots({ undoFrom: null, registry: null });
        assert.equal(undoRecords(), 0);
        await store.close();
      });

      it('the book and the undo records survive a reopen, and so does a revert', async () => {
        const { store, reopen } = await backend.open();
        await base(store);
        await store.writeSnapshots({ undoFrom: 1, registry: { live: [1] } });
        await store.commitSlot(slotCommit(2, [transaction(2, 0, [A, B])], { accounts: [[A, account(90, [2])], [B, account(10)]], extras: [{ table: 'evm', key: 'kept', value: new Uint8Array([2]) }, { table: 'evm', key: 'new', value: 'n' }] }));
        await store.close();
        const again = await reopen!();
        assert.deepEqual(await again.readSnapshots(), { undoFrom: 1, registry: { live: [1] } });
        // Commits after the reopen are recorded too.
        await again.commitSlot(slotCommit(3, [transaction(3, 0, [A, C])], { accounts: [[A, account(80, [3])], [C, null]], extras: [{ table: 'evm', key: ['x', 1], value: null }] }));
        await again.revertTo(1, { undoFrom: null, registry: null });
        await again.close();
        const third = await reopen!();
        await assertAtSlot1(third);
        await third.close();
      });
    }
  });
}
