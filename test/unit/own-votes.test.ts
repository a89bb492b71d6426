import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { VOTE_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { keypairFromSeed } from '../../node-core/keys/keypair.ts';
import { rebuildVote, splitVote } from '../../node-core/store/lmdb-own-votes.ts';
import type { DatabaseOptions, RootDatabase } from 'lmdb';
import { openLmdbStore, type LmdbStore } from '../../node-core/store/lmdb-store.ts';
import type { Reward, SlotCommit, StoredBlock, StoredTransaction } from '../../node-core/store/store.ts';
import { address, chainMeta, hash, ownVoteTransaction, slotCommit, transaction, VOTE_FEE } from '../helpers/store-fixtures.ts';
import { tempDirMaker } from '../helpers/temp-dirs.ts';

const identity = keypairFromSeed(new Uint8Array(32).fill(7));
const voteAccount = address(900);
const FEE = VOTE_FEE;

const tempDir = tempDirMaker('isthmus-own-votes-');

/** The vote in `slot` on its parent, with the meta the executor gives it. */
const ownVote = (slot: number, opts: Parameters<typeof ownVoteTransaction>[2] = {}): StoredTransaction => ownVoteTransaction({ identity, voteAccount }, slot, opts);

const leaderFee = (vote: StoredTransaction, lamports = FEE / 2): Reward => ({
  pubkey: identity.address,
  lamports,
  postBalance: vote.meta.postBalances[0]! + lamports,
  rewardType: 'Fee',
  commission: null,
});

/** A slot whose block holds the validator's vote first, then `others`, with the leader's fee reward. */
function voteCommit(slot: number, vote = ownVote(slot), others: StoredTransaction[] = []): SlotCommit {
  const commit = slotCommit(slot, [vote, ...others]);
  commit.block.rewards = [leaderFee(vote)];
  return commit;
}

/** A stored transaction as plain values (records read back give the signature and keys through getters). */
const plain = (tx: StoredTransaction) => ({ signature: tx.signature, wire: Buffer.from(tx.wire).toString('hex'), meta: tx.meta, accountKeys: [...new Set(tx.accountKeys)], memo: tx.memo });
const headerOf = ({ transactions: _, ...header }: StoredBlock) => header;
const plainBlock = (b: StoredBlock | null) => b && { ...b, transactions: b.transactions.map(plain) };

async function openStore(dir: string, signed = true): Promise<LmdbStore> {
  const store = await openLmdbStore(dir);
  if (signed) store.signOwnVotesWith(identity);
  return store;
}

/** The entries of the compact votes' signature index (a stale one would not show through reads, which check the rebuilt vote). */
const voteSigEntries = (store: LmdbStore): number =>
  (store as unknown as { root: RootDatabase }).root.openDB<Uint8Array, number>('vote-sigs', { dupSort: true, dupFixed: true, encoding: 'binary' } as DatabaseOptions).getValuesCount(0);

const dirBytes = (dir: string): number => fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);

describe('own votes: split and rebuilt', () => {
  it('the rebuilt vote has the same wire bytes, signature and meta', () => {
    const votes: Array<[number, StoredTransaction]> = [[10, ownVote(10)], [11, ownVote(11, { timestamp: null })], [12, ownVote(12, { hash: hash(3) })]];
    for (const [slot, vote] of votes) {
      const at = { slot, blockTime: chainMeta(slot).blockTime, previousBlockhash: hash(slot - 1) };
      const split = splitVote(vote, at);
      assert.ok(split, 'a plain own-vote splits');
      const rebuilt = rebuildVote(split.template, [0, ...split.vote], at, identity);
      assert.deepEqual(plain(rebuilt), plain(vote));
      assert.deepEqual(Buffer.from(rebuilt.wire), Buffer.from(vote.wire));
    }
  });

  it('keeps the voted hash only when it is not the block\'s previous blockhash, and no timestamp as null', () => {
    const at = (slot: number) => ({ slot, blockTime: chainMeta(slot).blockTime, previousBlockhash: hash(slot - 1) });
    assert.equal(splitVote(ownVote(10), at(10))!.vote[1], null);
    assert.ok(splitVote(ownVote(12, { hash: hash(3) }), at(12))!.vote[1] instanceof Uint8Array);
    assert.equal(splitVote(ownVote(11, { timestamp: null }), at(11))!.vote[2], null);
  });

  it('anything but a plain vote is not split: a transfer, a memo, a failed vote', () => {
    const at = { slot: 10, blockTime: chainMeta(10).blockTime, previousBlockhash: hash(9) };
    assert.equal(splitVote(transaction(10, 1, [address(1), address(2)]), at), null);
    assert.equal(splitVote(ownVote(10, { memo: '[1] x' }), at), null);
    assert.equal(splitVote(ownVote(10, { err: 'InsufficientFundsForFee' }), at), null);
  });
});

describe('own votes in the LMDB store', () => {
  it('blocks, transactions, statuses and the address index read back exactly; the vote costs no transaction record', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const commits: SlotCommit[] = [];
    for (let slot = 1; slot <= 40; slot++) {
      const others = slot % 5 === 0 ? [transaction(slot, 1, [address(1), voteAccount, address(2)]), transaction(slot, 2, [address(2)], { memo: '[2] hi' })] : [];
      const commit = slot === 1 ? slotCommit(1) : voteCommit(slot, ownVote(slot, slot === 7 ? { timestamp: null } : {}), others);
      commits.push(commit);
      await store.commitSlot(commit);
    }
    for (const commit of commits) {
      const { slot } = commit.block;
      assert.deepEqual(plainBlock(await store.getBlock(slot)), plainBlock(commit.block), `block ${slot}`);
      assert.deepEqual(await store.getBlockHeader(slot), headerOf(commit.block));
      for (const [index, tx] of commit.block.transactions.entries()) {
        const found = await store.getTransaction(tx.signature);
        assert.deepEqual(found && { ...found, transaction: plain(found.transaction) }, { slot, index, blockTime: commit.block.blockTime, transaction: plain(tx) });
        assert.deepEqual(await store.getSignatureLocation(tx.signature), { slot, index, err: tx.meta.err });
      }
    }
    // Every address the votes name, in ledger order with the transfers that name it too.
    for (const addr of [voteAccount, identity.address, VOTE_PROGRAM_ID, address(1), address(2)]) {
      const expected = commits
        .flatMap((c) => c.block.transactions.map((tx, index) => ({ tx, index, c })))
        .filter(({ tx }) => tx.accountKeys.includes(addr))
        .map(({ tx, index, c }) => ({ signature: tx.signature, slot: c.block.slot, index, err: tx.meta.err, memo: tx.memo, blockTime: c.block.blockTime }))
        .reverse();
      assert.deepEqual(await store.getSignaturesForAddress(addr, { limit: 1000, maxSlot: 1000 }), expected, addr);
      // Pages: before/until and a small limit land on the same entries.
      assert.deepEqual(await store.getSignaturesForAddress(addr, { limit: 3, maxSlot: 1000, before: { slot: 20, index: 1 } }), expected.filter((e) => e.slot < 20 || (e.slot === 20 && e.index < 1)).slice(0, 3));
      assert.deepEqual(await store.getSignaturesForAddress(addr, { limit: 1000, maxSlot: 30, until: { slot: 10, index: 0 } }), expected.filter((e) => e.slot <= 30 && (e.slot > 10 || (e.slot === 10 && e.index > 0))));
    }
    assert.equal(await store.getTransaction(ownVote(999).signature), null);
    assert.equal(await store.getSignatureLocation(ownVote(999).signature), null);
    await store.close();

    // Reopened: the same answers; without the identity's key the compact votes cannot be read, and say why.
    const again = await openStore(dir);
    assert.deepEqual(plainBlock(await again.getBlock(20)), plainBlock(commits[19]!.block));
    await again.close();
    const keyless = await openStore(dir, false);
    await assert.rejects(keyless.getBlock(20), /rebuilt with its identity's key/);
    assert.deepEqual(await keyless.getBlockHeader(1), headerOf(commits[0]!.block));
    await keyless.close();
  });

  it('a store without the key writes votes whole, as before, and both kinds read back in one ledger', async () => {
    const dir = tempDir();
    const keyless = await openStore(dir, false);
    const commits = [slotCommit(1), voteCommit(2), voteCommit(3)];
    for (const c of commits.slice(0, 2)) await keyless.commitSlot(c);
    await keyless.close();
    const store = await openStore(dir);
    await store.commitSlot(commits[2]!);
    for (const c of commits) assert.deepEqual(plainBlock(await store.getBlock(c.block.slot)), plainBlock(c.block));
    assert.deepEqual(
      (await store.getSignaturesForAddress(voteAccount, { limit: 10, maxSlot: 10 })).map((e) => e.slot),
      [3, 2],
    );
    await store.close();
  });

  it('a slot written again and purged slots leave no vote behind; the first kept block still knows its previous blockhash', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const commits = [slotCommit(1), ...Array.from({ length: 29 }, (_, i) => voteCommit(i + 2))];
    for (const c of commits) await store.commitSlot(c);
    // Slot 30 written again with another vote (as after a restart that lost it).
    const redo = voteCommit(30, ownVote(30, { timestamp: null }));
    await store.commitSlot(redo);
    assert.equal(await store.getTransaction(commits[29]!.block.transactions[0]!.signature), null);
    assert.deepEqual(await store.getSignatureLocation(redo.block.transactions[0]!.signature), { slot: 30, index: 0, err: null });
    assert.deepEqual(plainBlock(await store.getBlock(30)), plainBlock(redo.block));

    await store.purgeSlotsBelow(20);
    for (const c of commits.slice(0, 19)) {
      assert.equal(await store.getBlock(c.block.slot), null);
      for (const tx of c.block.transactions) assert.equal(await store.getSignatureLocation(tx.signature), null);
    }
    assert.deepEqual((await store.getBlockHeader(20))?.previousBlockhash, hash(19));
    assert.deepEqual(plainBlock(await store.getBlock(20)), plainBlock(commits[19]!.block));
    assert.deepEqual(
      (await store.getSignaturesForAddress(identity.address, { limit: 100, maxSlot: 100 })).map((e) => e.slot),
      [30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20],
    );
    await store.close();
  });

  it('a revert drops the discarded slots\' compact votes; the votes written again in those slots read back', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    for (let slot = 1; slot <= 10; slot++) await store.commitSlot(slot === 1 ? slotCommit(1) : voteCommit(slot));
    await store.writeSnapshots({ undoFrom: 10, registry: null });
    assert.equal(voteSigEntries(store), 9);
    const discarded: SlotCommit[] = [];
    for (let slot = 11; slot <= 20; slot++) {
      const others = slot % 3 === 0 ? [transaction(slot, 1, [address(1), voteAccount])] : [];
      discarded.push(voteCommit(slot, ownVote(slot), others));
      await store.commitSlot(discarded.at(-1)!);
    }
    const r = await store.revertTo(10, { undoFrom: null, registry: null });
    assert.deepEqual(r.discardedSlots, [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    // The discarded votes' signature entries are left until their slots (or later ones) are written again.
    assert.equal(voteSigEntries(store), 19);
    for (const c of discarded) {
      assert.equal(await store.getBlock(c.block.slot), null);
      for (const tx of c.block.transactions) {
        assert.equal(await store.getTransaction(tx.signature), null);
        assert.equal(await store.getSignatureLocation(tx.signature), null);
      }
    }
    assert.deepEqual((await store.getSignaturesForAddress(voteAccount, { limit: 100, maxSlot: 100 })).map((e) => e.slot), [10, 9, 8, 7, 6, 5, 4, 3, 2]);
    // The same slots again, with other votes (no timestamp): found where they are, the old ones still not.
    const again = Array.from({ length: 5 }, (_, i) => voteCommit(11 + i, ownVote(11 + i, { timestamp: null })));
    for (const c of again) await store.commitSlot(c);
    for (const c of again) {
      const vote = c.block.transactions[0]!;
      assert.deepEqual(await store.getSignatureLocation(vote.signature), { slot: c.block.slot, index: 0, err: null });
      assert.deepEqual(plainBlock(await store.getBlock(c.block.slot)), plainBlock(c.block));
    }
    for (const c of discarded) assert.equal(await store.getSignatureLocation(c.block.transactions[0]!.signature), null);
    assert.equal(voteSigEntries(store), 19);
    // Slot 21 (16-20 skipped) drops the entries left of 16-20.
    await store.commitSlot(voteCommit(21));
    assert.equal(voteSigEntries(store), 15);
    // Rebuilt votes are remembered; a reader changing the bytes it was given changes no later read.
    (await store.getBlock(11))!.transactions[0]!.wire.fill(0);
    assert.deepEqual(plainBlock(await store.getBlock(11)), plainBlock(again[0]!.block));
    await store.close();
  });

  it('an idle slot with a compact vote costs under 115 bytes of disk', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    for (let slot = 1; slot <= 200; slot++) await store.commitSlot(slot === 1 ? slotCommit(1) : voteCommit(slot));
    await store.close();
    const before = dirBytes(dir);
    const again = await openStore(dir);
    const SLOTS = 3000;
    for (let slot = 201; slot < 201 + SLOTS; slot++) await again.commitSlot(voteCommit(slot));
    await again.close();
    const perSlot = (dirBytes(dir) - before) / SLOTS;
    assert.ok(perSlot < 115, `${perSlot} bytes per slot`);
  });
});
