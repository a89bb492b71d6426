/**
 * The validator's own votes are stored compactly (node-core/store/lmdb-own-votes.ts). Clients must not
 * see it: every history method answers for those slots exactly as a ledger with the votes stored whole
 * (a second store, not given the identity's key, which writes them as before) fed the same commits.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import bs58 from 'bs58';
import { Connection, Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { VOTE_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { SYSVAR_CLOCK_ID, SYSVAR_SLOT_HASHES_ID } from '../../node-core/runtime/sysvars.ts';
import { openLmdbStore, type LmdbStore } from '../../node-core/store/lmdb-store.ts';
import type { Store } from '../../node-core/store/store.ts';
import { rpc, startTestNode, tempLedger, waitFor, type TestNode } from '../helpers/node.ts';

const HISTORY = ['getBlock', 'getBlockHeader', 'getBlockSlots', 'getTransaction', 'getSignatureLocation', 'getSignaturesForAddress', 'firstAvailableSlot'] as const;

/** The node's store, with its commits also written to `reference` and its history read from whichever `reading` says. */
function teeStore(real: Store, reference: Store) {
  const tee = { reading: real };
  const store = Object.create(real) as Store;
  for (const name of HISTORY) (store as any)[name] = (...args: unknown[]) => (tee.reading as any)[name](...args);
  store.commitSlot = async (commit) => {
    await reference.commitSlot(commit);
    await real.commitSlot(commit);
  };
  store.purgeSlotsBelow = async (slot) => {
    await reference.purgeSlotsBelow(slot);
    await real.purgeSlotsBelow(slot);
  };
  return { store, tee };
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const name of fs.readdirSync(dir)) {
    const st = fs.statSync(path.join(dir, name));
    n += st.isDirectory() ? dirBytes(path.join(dir, name)) : st.size;
  }
  return n;
}

describe('own votes stored compactly: clients see no difference', () => {
  let node: TestNode;
  let reference: LmdbStore;
  let referenceDir: string;
  let tee: { reading: Store };
  let real: Store;
  let slots: number[];
  let transferSig: string;
  let sender: Keypair;
  const recipient = Keypair.generate().publicKey;
  let growth: { compact: number; whole: number };

  before(async () => {
    node = await startTestNode({ slotMs: 60_000 });
    referenceDir = tempLedger();
    reference = await openLmdbStore(referenceDir);
    real = node.chain.store;
    const t = teeStore(real, reference);
    tee = t.tee;
    (node.chain as unknown as { store: Store }).store = t.store;
    // The slots the test reads start after the tee: the reference holds every one of them.
    node.chain.sealWorkingBank();
    await node.chain.flushed();
    const first = node.chain.sealWorkingBank().slot;
    sender = Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey);

    const conn = new Connection(node.rpcUrl, 'processed');
    for (let i = 0; i < 3; i++) node.chain.sealWorkingBank();
    await node.chain.flushed();
    const { blockhash } = await conn.getLatestBlockhash('processed');
    const tx = new Transaction({ feePayer: sender.publicKey, recentBlockhash: blockhash }).add(SystemProgram.transfer({ fromPubkey: sender.publicKey, toPubkey: recipient, lamports: 5_000_000 }));
    tx.sign(sender);
    transferSig = await conn.sendRawTransaction(tx.serialize());
    await waitFor(async () => (await conn.getSignatureStatus(transferSig)).value, { what: 'the transfer processed' });
    const compactBefore = dirBytes(path.join(node.ledger, 'store'));
    const wholeBefore = dirBytes(referenceDir);
    for (let i = 0; i < 300; i++) {
      node.chain.sealWorkingBank();
      if (i % 50 === 49) await node.chain.flushed();
    }
    await node.chain.flushed();
    growth = { compact: dirBytes(path.join(node.ledger, 'store')) - compactBefore, whole: dirBytes(referenceDir) - wholeBefore };
    const last = (await rpc(node.rpcUrl, 'getSlot', [{ commitment: 'finalized' }])).result as number;
    slots = [];
    for (let s = first; s <= last; s++) slots.push(s);
  });

  let closed = false;
  after(async () => {
    if (closed) fs.rmSync(node.ledger, { recursive: true, force: true });
    else await node?.stop();
    await reference?.close();
    if (referenceDir) fs.rmSync(referenceDir, { recursive: true, force: true });
  });

  /** What the node answers with its own store, and what it answers with the reference's. */
  async function both<T>(ask: () => Promise<T>): Promise<[T, T]> {
    tee.reading = real;
    const compact = await ask();
    tee.reading = reference;
    try {
      return [compact, await ask()];
    } finally {
      tee.reading = real;
    }
  }

  const result = async (method: string, params: unknown[]) => {
    const r = await rpc(node.rpcUrl, method, params);
    return r.error ? { error: r.error } : r.result;
  };

  test('the votes were stored compactly: the ledger grew a small fraction of the whole-vote ledger', () => {
    assert.ok(growth.whole > 0 && growth.compact < growth.whole / 4, `compact ${growth.compact} bytes, whole ${growth.whole} bytes over 300 slots`);
  });

  test('getBlock: every encoding, transactionDetails and rewards, for every slot', async () => {
    assert.ok(slots.length > 250);
    let votes = 0;
    for (const slot of slots) {
      const [compact, whole] = await both(() => result('getBlock', [slot, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'finalized' }]));
      assert.deepEqual(compact, whole, `slot ${slot}`);
      if (compact.transactions?.[0]?.transaction.message.accountKeys.includes(VOTE_PROGRAM_ID)) votes++;
    }
    assert.equal(votes, slots.length, 'every block holds the validator\'s vote');
    const transferSlot = (await result('getTransaction', [transferSig, { commitment: 'finalized' }])).slot as number;
    for (const slot of [transferSlot, slots[0]!, slots.at(-1)!]) {
      for (const encoding of ['json', 'jsonParsed', 'base64', 'base58']) {
        for (const transactionDetails of ['full', 'accounts', 'signatures', 'none']) {
          for (const rewards of [true, false]) {
            const params = [slot, { encoding, transactionDetails, rewards, maxSupportedTransactionVersion: 0, commitment: 'confirmed' }];
            const [compact, whole] = await both(() => result('getBlock', params));
            assert.deepEqual(compact, whole, JSON.stringify(params));
          }
        }
      }
      // Without maxSupportedTransactionVersion, and the deprecated name.
      for (const method of ['getBlock', 'getConfirmedBlock', 'getBlockTime']) {
        const [compact, whole] = await both(() => result(method, [slot]));
        assert.deepEqual(compact, whole, `${method} ${slot}`);
      }
    }
    const [compact] = await both(() => result('getBlock', [transferSlot, { encoding: 'json', maxSupportedTransactionVersion: 0 }]));
    assert.equal(compact.transactions.length, 2, 'the vote, then the transfer');
    assert.equal(compact.transactions[1].transaction.signatures[0], transferSig);
  });

  test('web3.js getBlock, getParsedBlock, getTransaction and getParsedTransaction of the votes', async () => {
    const conn = new Connection(node.rpcUrl, 'finalized');
    for (const slot of slots.filter((_, i) => i % 25 === 0)) {
      const [block, wholeBlock] = await both(() => conn.getBlock(slot, { maxSupportedTransactionVersion: 0 }));
      assert.deepEqual(block, wholeBlock);
      assert.deepEqual(...(await both(() => conn.getParsedBlock(slot, { maxSupportedTransactionVersion: 0 }))));
      const voteSig = block!.transactions[0]!.transaction.signatures[0]!;
      const [tx, wholeTx] = await both(() => conn.getTransaction(voteSig, { maxSupportedTransactionVersion: 0 }));
      assert.ok(tx, `vote ${voteSig} found`);
      assert.equal(tx.slot, slot);
      assert.deepEqual(tx, wholeTx);
      assert.deepEqual(...(await both(() => conn.getParsedTransaction(voteSig, { maxSupportedTransactionVersion: 0 }))));
      for (const encoding of ['json', 'jsonParsed', 'base64', 'base58']) {
        const [compact, whole] = await both(() => result('getTransaction', [voteSig, { encoding, maxSupportedTransactionVersion: 0 }]));
        assert.deepEqual(compact, whole, encoding);
      }
    }
  });

  test('getSignatureStatuses with searchTransactionHistory, for votes and the transfer', async () => {
    const conn = new Connection(node.rpcUrl, 'finalized');
    const sigs = [transferSig];
    for (const slot of slots.filter((_, i) => i % 30 === 0)) sigs.push((await result('getBlock', [slot, { transactionDetails: 'signatures', maxSupportedTransactionVersion: 0 }])).signatures[0]);
    const [compact, whole] = await both(() => conn.getSignatureStatuses(sigs, { searchTransactionHistory: true }));
    assert.deepEqual(compact, whole);
    assert.ok(compact.value.every((s) => s?.confirmationStatus === 'finalized' && s.err === null));
    // A signature no vote has: null from both.
    const unknown = [bs58.encode(Buffer.alloc(64, 9))];
    const [none] = await both(() => result('getSignatureStatuses', [unknown, { searchTransactionHistory: true }]));
    assert.deepEqual(none.value, [null]);
  });

  test('getSignaturesForAddress on every key the vote names, and on the transfer\'s, paged', async () => {
    const conn = new Connection(node.rpcUrl, 'finalized');
    const identity = new PublicKey(node.keys.identity.address);
    const voteAccount = new PublicKey(node.genesis.voteAccount);
    const keys = [voteAccount, identity, new PublicKey(SYSVAR_CLOCK_ID), new PublicKey(SYSVAR_SLOT_HASHES_ID), new PublicKey(VOTE_PROGRAM_ID), sender.publicKey, recipient];
    for (const key of keys) {
      const [page, wholePage] = await both(() => conn.getSignaturesForAddress(key, { limit: 40 }));
      assert.deepEqual(page, wholePage, key.toBase58());
      assert.ok(page.length > 0, key.toBase58());
      if (page.length < 40) continue;
      const opts = { before: page[9]!.signature, until: page[35]!.signature, limit: 20 };
      const [next, wholeNext] = await both(() => conn.getSignaturesForAddress(key, opts));
      assert.deepEqual(next, wholeNext, `${key.toBase58()} ${JSON.stringify(opts)}`);
      assert.deepEqual(next, page.slice(10, 30));
    }
    // The transfer is the recipient's only entry.
    const [recipientPage] = await both(() => conn.getSignaturesForAddress(recipient));
    assert.deepEqual(recipientPage.map((e) => e.signature), [transferSig]);
    const [byAccount, wholeByAccount] = await both(() => result('getConfirmedSignaturesForAddress2', [voteAccount.toBase58(), { limit: 5 }]));
    assert.deepEqual(byAccount, wholeByAccount);
  });

  test('after a restart the compact votes read back the same (the last test: it closes the node)', async () => {
    const params = [slots[5]!, { encoding: 'base64', maxSupportedTransactionVersion: 0 }];
    const [compact, whole] = await both(() => result('getBlock', params));
    assert.deepEqual(compact, whole);
    await node.close();
    closed = true;
    const again = await startTestNode({ slotMs: 60_000, ledger: node.ledger });
    try {
      assert.deepEqual((await rpc(again.rpcUrl, 'getBlock', params)).result, compact);
    } finally {
      await again.close();
    }
  });
});
