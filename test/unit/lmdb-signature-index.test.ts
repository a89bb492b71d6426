import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open, type Key } from 'lmdb';
import { decodeBase58, encodeBase58 } from '../../node-core/common/base58.ts';
import { openLmdbStore } from '../../node-core/store/lmdb-store.ts';
import type { StoredTransaction } from '../../node-core/store/store.ts';
import { address, slotCommit, transaction } from '../helpers/store-fixtures.ts';
import { tempDirMaker } from '../helpers/temp-dirs.ts';

const tempDir = tempDirMaker('isthmus-sigs-');

/** `tx` signed with a signature whose first 6 bytes are `prefixOf`'s. */
function sharingPrefix(tx: StoredTransaction, prefixOf: string): StoredTransaction {
  const wire = tx.wire.slice();
  wire.set(decodeBase58(prefixOf).subarray(0, 6), 1);
  return { ...tx, wire, signature: encodeBase58(wire.subarray(1, 65)) };
}

test('transactions whose signatures share their first 48 bits are each found under their own, and leave with their slot', async () => {
  const store = await openLmdbStore(tempDir());
  const first = transaction(1, 0, [address(1)]);
  const second = sharingPrefix(transaction(1, 1, [address(2)], { err: 'AccountNotFound' }), first.signature);
  const absent = sharingPrefix(transaction(1, 2, [address(3)]), first.signature);
  assert.notEqual(first.signature, second.signature);
  await store.commitSlot(slotCommit(1, [first, second]));
  await store.commitSlot(slotCommit(2));
  assert.equal((await store.getTransaction(first.signature))?.transaction.signature, first.signature);
  assert.equal((await store.getTransaction(second.signature))?.index, 1);
  assert.deepEqual(await store.getSignatureLocation(first.signature), { slot: 1, index: 0, err: null });
  assert.deepEqual(await store.getSignatureLocation(second.signature), { slot: 1, index: 1, err: 'AccountNotFound' });
  assert.equal(await store.getSignatureLocation(absent.signature), null);
  assert.equal(await store.getSignatureLocation('not base-58 at all!'), null);
  await store.purgeSlotsBelow(2);
  assert.equal(await store.getTransaction(first.signature), null);
  assert.equal(await store.getSignatureLocation(second.signature), null);
  assert.equal((store as unknown as { sigsDb: { getKeysCount(): number } }).sigsDb.getKeysCount(), 0);
  await store.close();
});

test('a ledger written before: entries under the base-58 signature are read, and removed with their slot', async () => {
  const dir = tempDir();
  const older = transaction(1, 0, [address(1)]);
  const failed = transaction(2, 0, [address(2)], { err: 'InsufficientFundsForFee' });
  let store = await openLmdbStore(dir);
  await store.commitSlot(slotCommit(1, [older]));
  await store.commitSlot(slotCommit(2, [failed]));
  await store.close();
  // The signature index as older versions wrote it: signature → [slot, index, err].
  const root = open({ path: dir, maxDbs: 16 });
  const sigs = root.openDB<unknown, Key>('sigs', {});
  root.transactionSync(() => {
    for (const key of [...sigs.getKeys()]) sigs.removeSync(key);
    sigs.putSync(older.signature, [1, 0, null]);
    sigs.putSync(failed.signature, [2, 0, 'InsufficientFundsForFee']);
  });
  await root.close();
  store = await openLmdbStore(dir);
  assert.equal((await store.getTransaction(older.signature))?.slot, 1);
  assert.deepEqual(await store.getSignatureLocation(failed.signature), { slot: 2, index: 0, err: 'InsufficientFundsForFee' });
  await store.purgeSlotsBelow(2);
  assert.equal(await store.getSignatureLocation(older.signature), null);
  assert.deepEqual(await store.getSignatureLocation(failed.signature), { slot: 2, index: 0, err: 'InsufficientFundsForFee' });
  assert.deepEqual([...(store as unknown as { sigsDb: { getKeys(): Iterable<unknown> } }).sigsDb.getKeys()], [failed.signature]);
  await store.close();
});
