/**
 * Store.getBlockStatuses, on both backends: for every range it equals what getBlockSlots, getBlockHeader
 * and getBlock give for the same ledger (headers; signature, index and error of each transaction at or
 * above the statuses' floor) — with compact own votes (LMDB), votes stored whole, failed transactions,
 * memos, slots with no block, a previous blockhash that is not the parent's, rewards, after a revert and
 * after a reopen (nothing remembered from the writes).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { DatabaseOptions, RootDatabase } from 'lmdb';
import { keypairFromSeed } from '../../node-core/keys/keypair.ts';
import { openLmdbStore } from '../../node-core/store/lmdb-store.ts';
import { MemoryStore } from '../../node-core/store/memory-store.ts';
import type { BlockStatuses, SlotCommit, Store, StoredTransaction } from '../../node-core/store/store.ts';
import { address, hash, ownVoteTransaction, slotCommit, transaction, VOTE_FEE } from '../helpers/store-fixtures.ts';

const identity = keypairFromSeed(new Uint8Array(32).fill(9));
const voteAccount = address(901);
const FEE = VOTE_FEE;

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const backends: Array<{ name: string; open(): Promise<{ store: Store; reopen?: () => Promise<Store> }> }> = [
  { name: 'memory', open: async () => ({ store: new MemoryStore() }) },
  {
    name: 'lmdb',
    open: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-block-statuses-'));
      dirs.push(dir);
      const open = async () => {
        const store = await openLmdbStore(dir);
        store.signOwnVotesWith(identity);
        return store;
      };
      return { store: await open(), reopen: open };
    },
  },
];

/** The validator's vote in `slot` on `parent` (its blockhash as the chain writes it), with the executor's meta. */
const ownVote = (slot: number, parent: number, opts: { timestamp?: number | null; hash?: string } = {}): StoredTransaction =>
  ownVoteTransaction({ identity, voteAccount }, slot, { ...opts, parent });

/**
 * Slot `slot` on parent `parent`: the vote first (on the parent; some without a timestamp, some on
 * another hash, every 11th slot's whole: a failed vote), then transfers, failed ones and memos.
 */
function commitOf(slot: number, parent: number): SlotCommit {
  const vote = ownVote(slot, parent, slot % 7 === 0 ? { timestamp: null } : slot % 13 === 0 ? { hash: hash(parent - 1) } : {});
  if (slot % 11 === 0) vote.meta.err = { InstructionError: [0, { Custom: 3 }] };
  const others = Array.from({ length: slot % 4 }, (_, i) =>
    transaction(slot, i + 1, [address(1 + i), address(2 + slot % 3)], {
      err: (slot + i) % 5 === 0 ? 'InsufficientFundsForFee' : (slot + i) % 9 === 0 ? { InstructionError: [0, { Custom: 1 }] } : null,
      memo: i === 1 ? `[2] m${slot}` : null,
    }),
  );
  const commit = slotCommit(slot, slot % 17 === 0 ? others : [vote, ...others]);
  commit.block.parentSlot = parent;
  // Slot 30's previous blockhash is not its parent's stored one (as after a parent written again).
  commit.block.previousBlockhash = slot === 30 ? hash(1000) : hash(parent);
  commit.block.blockHeight = slot - Math.floor(slot / 10);
  commit.block.rewards = slot % 6 === 0 ? [] : [{ pubkey: identity.address, lamports: FEE / 2, postBalance: vote.meta.postBalances[0]! + FEE / 2, rewardType: 'Fee', commission: null }];
  return commit;
}

/** What the chain derived before from getBlockSlots, getBlockHeader and getBlock. */
async function derived(store: Store, start: number, end: number, statusesFrom: number): Promise<BlockStatuses[]> {
  const out: BlockStatuses[] = [];
  for (const slot of await store.getBlockSlots(start, end, Number.MAX_SAFE_INTEGER)) {
    const header = await store.getBlockHeader(slot);
    assert.ok(header, `slot ${slot} has a header`);
    if (slot < statusesFrom) {
      out.push({ header, statuses: null });
      continue;
    }
    const block = await store.getBlock(slot);
    assert.ok(block, `slot ${slot} has a block`);
    const { transactions, ...blockHeader } = block;
    assert.deepEqual(blockHeader, header);
    out.push({ header, statuses: transactions.map((t, index) => [t.signature, index, t.meta.err]) });
  }
  return out;
}

async function assertSame(store: Store, ranges: Array<[number, number, number]>): Promise<void> {
  for (const [start, end, from] of ranges) {
    const got = await store.getBlockStatuses(start, end, from);
    assert.deepEqual(got, await derived(store, start, end, from), `[${start}, ${end}] statuses from ${from}`);
  }
}

/** Slots 1..80, with no block in every slot divisible by 8 (its child's parent is the slot before). */
async function writeLedger(store: Store): Promise<number[]> {
  const written: number[] = [];
  let parent = 0;
  await store.commitSlot(slotCommit(0));
  for (let slot = 1; slot <= 80; slot++) {
    if (slot % 8 === 0) continue;
    await store.commitSlot(commitOf(slot, parent));
    written.push(slot);
    parent = slot;
  }
  return written;
}

for (const backend of backends) {
  describe(`getBlockStatuses (${backend.name})`, () => {
    it('equals the headers and statuses getBlockHeader and getBlock give, over every kind of slot', async () => {
      const { store, reopen } = await backend.open();
      const written = await writeLedger(store);
      const ranges: Array<[number, number, number]> = [
        [0, 80, 0],
        [0, 80, 50],
        [1, 80, 81],
        [9, 31, 20],
        [8, 8, 0],
        [16, 16, 16],
        [33, 33, 0],
        [70, 200, 75],
        [81, 90, 0],
        [40, 30, 0],
      ];
      await assertSame(store, ranges);
      // What the ledger holds is what the test means: compact votes, failed ones, slots with no block.
      const statuses = (await store.getBlockStatuses(0, 80, 0)).flatMap((b) => b.statuses ?? []);
      assert.equal((await store.getBlockStatuses(0, 80, 0)).length, written.length + 1);
      assert.ok(statuses.some(([, , err]) => err === 'InsufficientFundsForFee'));
      assert.ok(statuses.some(([, , err]) => err !== null && typeof err === 'object'));
      assert.deepEqual(await store.getBlockStatuses(8, 8, 0), []);
      if (backend.name === 'lmdb') {
        // Most votes are stored compactly (no transaction record), the failed ones whole.
        const root = (store as unknown as { root: RootDatabase }).root;
        const compact = root.openDB<Uint8Array, number>('vote-sigs', { dupSort: true, dupFixed: true, encoding: 'binary' } as DatabaseOptions).getValuesCount(0);
        assert.ok(compact > 40, `${compact} compact votes`);
        assert.ok(root.openDB('txs', {}).doesExist([11, 0]), 'the failed vote is stored whole');
      }
      if (reopen) {
        await store.close();
        const again = await reopen();
        await assertSame(again, ranges);
        await again.close();
      } else await store.close();
    });

    it('after a revert: the discarded slots are gone, the kept ones unchanged', async () => {
      const { store } = await backend.open();
      await writeLedger(store);
      await store.writeSnapshots({ undoFrom: 80, registry: null });
      for (let slot = 81; slot <= 120; slot++) await store.commitSlot(commitOf(slot, slot === 81 ? 79 : slot - 1));
      await assertSame(store, [[60, 120, 100]]);
      const voteSignature = async (slot: number) => (await store.getBlock(slot))!.transactions[0]!.signature;
      const votes = new Map<number, string>();
      for (let slot = 81; slot <= 120; slot++) votes.set(slot, await voteSignature(slot));
      await store.revertTo(80, { undoFrom: null, registry: null });
      assert.deepEqual((await store.getBlockStatuses(75, 200, 0)).map((b) => b.header.slot), [75, 76, 77, 78, 79]);
      await assertSame(store, [[0, 200, 30], [70, 80, 75]]);
      for (const signature of votes.values()) assert.equal(await store.getSignatureLocation(signature), null);
      // The same slots again, so the same votes (signed alike): found at their slots; the slots not written again are not.
      for (let slot = 81; slot <= 90; slot++) await store.commitSlot(commitOf(slot, slot === 81 ? 79 : slot - 1));
      for (const [slot, signature] of votes) {
        const found = await store.getSignatureLocation(signature);
        if (slot <= 90) assert.deepEqual(found && [found.slot, found.index], [slot, 0], `the vote of slot ${slot}`);
        else assert.equal(found, null, `the vote of slot ${slot}`);
        assert.equal((await store.getTransaction(signature))?.slot ?? null, slot <= 90 ? slot : null);
      }
      await store.close();
    });
  });
}
