/**
 * Commits crash-fixture slots into the LMDB store at argv[2] as fast as it can, resuming after the
 * stored meta, purging old slots now and then, until killed. Prints "ready" once the store is open.
 */
import { openLmdbStore } from '../../node-core/store/lmdb-store.ts';
import { crashCommit } from './store-fixtures.ts';

const store = await openLmdbStore(process.argv[2]!);
let slot = ((await store.readMeta())?.slot ?? 0) + 1;
process.stdout.write('ready\n');
for (;;) {
  await store.commitSlot(crashCommit(slot));
  if (slot % 50 === 0) await store.purgeSlotsBelow(slot - 30);
  slot++;
}
