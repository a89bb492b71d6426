/**
 * Commits large slots (LARGE_SLOT_TXS transactions each: thousands of puts) into the LMDB store at argv[2], resuming
 * after the stored meta, until killed. Prints each slot's number once its commitSlot has resolved.
 */
import { openLmdbStore } from '../../node-core/store/lmdb-store.ts';
import { largeSlotCommit } from './store-large-slots.ts';

const store = await openLmdbStore(process.argv[2]!);
for (let slot = ((await store.readMeta())?.slot ?? 0) + 1; ; slot++) {
  await store.commitSlot(largeSlotCommit(slot));
  process.stdout.write(`${slot}\n`);
}
