/**
 * The native JSON-RPC against @solana/web3.js v1: a real node, a real client, and web3.js's own
 * response schemas checking every shape it reads.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  NONCE_ACCOUNT_LENGTH,
  NonceAccount,
  PublicKey,
  SendTransactionError,
  SolanaJSONRPCError,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  sendAndConfirmTransaction,
  type Commitment,
  type ParsedTransaction,
  type SignatureStatus,
  type Signer,
  type TransactionSignature,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { rpc, rpcBatch, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';
import { checkValueConservation } from '../helpers/conservation.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';
import { rejectionOf } from '../helpers/thrown.ts';

const SYSTEM = '11111111111111111111111111111111';
const MEMO_PROGRAM = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const FEE = 5000;

let node: TestNode;
let conn: Connection;
let dev: Keypair[];
/** Created first thing, so its nonce has expired by the time the last test needs it to. */
let earlyNonce: { account: Keypair; authority: Keypair; nonce: string; blockhash: string };

const RANK: Record<string, number> = { processed: 0, confirmed: 1, finalized: 2 };

/** Waits until the signature's status reaches `level`; returns that status. */
async function confirm(sig: TransactionSignature, level: 'processed' | 'confirmed' | 'finalized' = 'confirmed'): Promise<SignatureStatus> {
  return (await waitFor<SignatureStatus | null>(
    async () => {
      const s = (await conn.getSignatureStatuses([sig])).value[0];
      return s && RANK[s.confirmationStatus ?? 'processed']! >= RANK[level]! ? s : null;
    },
    { what: `${sig} to be ${level}` },
  ))!;
}

/** web3.js's sendAndConfirmTransaction (preflight, then signatureSubscribe over PubSub); throws if it failed. */
async function send(tx: Transaction, signers: Signer[], level: 'processed' | 'confirmed' | 'finalized' = 'confirmed') {
  return sendAndConfirmTransaction(conn, tx, signers, { commitment: level });
}

/** A fresh account funded by `from` with `sol` SOL. */
async function funded(from: Keypair, sol: number): Promise<Keypair> {
  const kp = Keypair.generate();
  await send(new Transaction().add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: kp.publicKey, lamports: sol * LAMPORTS_PER_SOL })), [from]);
  return kp;
}

const rpcError = (p: Promise<unknown>) => rejectionOf(p, SolanaJSONRPCError);
const sendError = (p: Promise<unknown>) => rejectionOf(p, SendTransactionError);

before(async () => {
  node = await startTestNode();
  conn = new Connection(node.rpcUrl, { commitment: 'confirmed', wsEndpoint: node.pubsubUrl });
  dev = node.keys.devAccounts.map((k) => Keypair.fromSecretKey(k.secretKey));
  const authority = dev[9]!;
  const account = Keypair.generate();
  const rent = await conn.getMinimumBalanceForRentExemption(NONCE_ACCOUNT_LENGTH);
  await send(
    new Transaction().add(...SystemProgram.createNonceAccount({ fromPubkey: authority.publicKey, noncePubkey: account.publicKey, authorizedPubkey: authority.publicKey, lamports: rent }).instructions),
    [authority, account],
  );
  const info = await conn.getAccountInfo(account.publicKey);
  // A blockhash of the same early slots, for the test that needs one expired.
  const { blockhash } = await conn.getLatestBlockhash();
  earlyNonce = { account, authority, nonce: NonceAccount.fromAccountData(info!.data).nonce, blockhash };
});

after(async () => {
  // The last test no longer waits out 150 blocks, so web3.js's PubSub socket may still be open here.
  if (conn) await closeConnectionSocket(conn);
  await node?.stop();
});

describe('native JSON-RPC with @solana/web3.js', () => {
  it('requestAirdrop credits the recipient', async () => {
    const to = Keypair.generate();
    const latest = await conn.getLatestBlockhash();
    const sig = await conn.requestAirdrop(to.publicKey, 2 * LAMPORTS_PER_SOL);
    const confirmed = await conn.confirmTransaction({ signature: sig, ...latest }, 'confirmed');
    assert.equal(confirmed.value.err, null);
    assert.equal((await confirm(sig)).err, null);
    assert.equal(await conn.getBalance(to.publicKey), 2 * LAMPORTS_PER_SOL);
    const tx = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0 });
    assert.equal(tx!.transaction.message.staticAccountKeys[0]!.toBase58(), node.keys.faucet.address);
    assert.equal(tx!.meta!.fee, FEE);
  });

  it('sendAndConfirmTransaction: a transfer confirmed through PubSub, and a failure reported', async () => {
    const from = dev[0]!;
    const to = Keypair.generate();
    const sig = await sendAndConfirmTransaction(conn, new Transaction().add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports: 5 * LAMPORTS_PER_SOL })), [from], {
      commitment: 'finalized',
    });
    assert.equal(await conn.getBalance(to.publicKey, 'finalized'), 5 * LAMPORTS_PER_SOL);
    const status = (await conn.getSignatureStatus(sig)).value!;
    assert.equal(status.confirmationStatus, 'finalized');
    assert.equal(status.confirmations, null);
    // A transaction that lands with an error makes sendAndConfirmTransaction throw.
    await assert.rejects(
      sendAndConfirmTransaction(conn, new Transaction().add(SystemProgram.transfer({ fromPubkey: to.publicKey, toPubkey: from.publicKey, lamports: 6 * LAMPORTS_PER_SOL })), [to], {
        skipPreflight: true,
      }),
      // web3.js rejects with SendTransactionError (status from the notification) or, when its one-time
      // status check sees the failure first, with the bare error object.
      (e: unknown) => (e instanceof Error ? e.message : JSON.stringify(e)).includes('{"InstructionError":[0,{"Custom":1}]}'),
    );
    // Only the fee was taken (at least processed by the time web3.js reports the failure).
    assert.equal(await conn.getBalance(to.publicKey, 'processed'), 5 * LAMPORTS_PER_SOL - FEE);
  });

  it('a transfer is seen by processed first, then confirmed, then finalized', async () => {
    const from = dev[0]!;
    const to = Keypair.generate();
    const lamports = LAMPORTS_PER_SOL;
    const fromBefore = await conn.getBalance(from.publicKey, 'processed');
    const { blockhash } = await conn.getLatestBlockhash('processed');
    const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports }),
    );
    tx.sign(from);
    const sig = await conn.sendRawTransaction(tx.serialize(), { preflightCommitment: 'processed' });
    const processed = await confirm(sig, 'processed');
    const landed = processed.slot;
    // Right after it is processed, the finalized bank (4 slots behind the newest confirmed one) cannot have it.
    const [p, f] = await Promise.all([
      conn.getBalanceAndContext(to.publicKey, 'processed'),
      conn.getBalanceAndContext(to.publicKey, 'finalized'),
    ]);
    assert.equal(p.value, lamports);
    assert.equal(f.value, 0);
    assert.ok(f.context.slot < landed, `finalized context ${f.context.slot} is below the tx slot ${landed}`);
    assert.ok(p.context.slot >= landed);

    // Every answer agrees with its own context slot: it has the transfer iff its bank is at or above the tx slot.
    const seen = new Set<Commitment>();
    await waitFor(
      async () => {
        for (const c of ['processed', 'confirmed', 'finalized'] as const) {
          const r = await conn.getBalanceAndContext(to.publicKey, c);
          assert.equal(r.value, r.context.slot >= landed ? lamports : 0, `${c} at ${r.context.slot}`);
          if (r.value === lamports) seen.add(c);
        }
        return seen.size === 3;
      },
      { what: 'all commitments to see the transfer' },
    );
    const final = await confirm(sig, 'finalized');
    assert.equal(final.confirmations, null);
    assert.equal(await conn.getBalance(from.publicKey, 'finalized'), fromBefore - lamports - FEE);
  });

  it('getBlock and getConfirmedBlock: details, versions, fee rewards', async () => {
    const from = dev[1]!;
    const to = Keypair.generate();
    const sig = await send(new Transaction().add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports: LAMPORTS_PER_SOL })), [from]);
    const { blockhash } = await conn.getLatestBlockhash();
    const v0 = new VersionedTransaction(
      new TransactionMessage({
        payerKey: from.publicKey,
        recentBlockhash: blockhash,
        instructions: [SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports: 1000 })],
      }).compileToV0Message(),
    );
    v0.sign([from]);
    const v0sig = await conn.sendTransaction(v0);
    const v0status = await confirm(v0sig);
    assert.equal(v0status.err, null);
    const slot = (await confirm(sig)).slot;

    const block = await conn.getBlock(slot, { maxSupportedTransactionVersion: 0 });
    assert.ok(block);
    const entry = block.transactions.find((t) => t.transaction.signatures[0] === sig)!;
    assert.ok(entry, 'the transfer is in its block');
    assert.equal(entry.version, 'legacy');
    assert.equal(entry.meta!.fee, FEE);
    assert.equal(block.parentSlot, slot - 1);
    assert.equal((block as { blockHeight?: number | null }).blockHeight, slot);
    assert.equal(block.previousBlockhash, (await conn.getBlock(slot - 1, { maxSupportedTransactionVersion: 0 }))!.blockhash);
    const fees = block.transactions.reduce((n, t) => n + t.meta!.fee, 0);
    assert.deepEqual(block.rewards, [
      {
        pubkey: node.keys.identity.address,
        lamports: fees - Math.floor(fees / 2),
        postBalance: block.rewards![0]!.postBalance,
        rewardType: 'Fee',
        commission: null,
      },
    ]);

    // v0 transaction: reported with version 0 when the client supports it, refused (-32015) when not.
    const v0block = await conn.getBlock(v0status.slot, { maxSupportedTransactionVersion: 0 });
    const v0entry = v0block!.transactions.find((t) => t.transaction.signatures[0] === v0sig)!;
    assert.equal(v0entry.version, 0);
    assert.deepEqual(v0entry.transaction.message.addressTableLookups, []);
    const legacyOnly = await rpc(node.rpcUrl, 'getBlock', [v0status.slot, { commitment: 'confirmed' }]);
    assert.equal(legacyOnly.error.code, -32015);
    assert.match(legacyOnly.error.message, /Transaction version \(0\) is not supported/);
    const v0tx = await conn.getTransaction(v0sig, { maxSupportedTransactionVersion: 0 });
    assert.equal(v0tx!.version, 0);
    assert.equal(v0tx!.meta!.fee, FEE);

    // transactionDetails: signatures and none.
    // (web3.js's getBlock has no `signatures` mode; getBlockSignatures asks for it with rewards: false.)
    const sigsOnly = await conn.getBlockSignatures(slot);
    assert.deepEqual(sigsOnly.signatures, block.transactions.map((t) => t.transaction.signatures[0]));
    assert.equal((sigsOnly as { rewards?: unknown }).rewards, undefined);
    const sigsRaw = await rpc(node.rpcUrl, 'getBlock', [slot, { commitment: 'confirmed', transactionDetails: 'signatures', maxSupportedTransactionVersion: 0 }]);
    assert.deepEqual(sigsRaw.result.signatures, sigsOnly.signatures);
    assert.deepEqual(sigsRaw.result.rewards, block.rewards);
    assert.equal('transactions' in sigsRaw.result, false);
    const none = await conn.getBlock(slot, { transactionDetails: 'none', maxSupportedTransactionVersion: 0 });
    assert.equal(none!.blockhash, block.blockhash);
    assert.equal((none as { transactions?: unknown }).transactions, undefined);
    assert.equal((none as { signatures?: unknown }).signatures, undefined);
    assert.equal(none!.rewards!.length, 1);

    // web3.js's getConfirmedBlock (it calls getBlock), and the 1.5 RPC method itself, which serves
    // rooted blocks only when no commitment is given.
    const early = await rpc(node.rpcUrl, 'getConfirmedBlock', [slot]);
    if (early.error) assert.equal(early.error.code, -32004);
    await confirm(sig, 'finalized');
    const confirmedBlock = await conn.getConfirmedBlock(slot);
    assert.equal(confirmedBlock.blockhash, block.blockhash);
    assert.ok(confirmedBlock.transactions.some((t) => t.transaction.signature && t.meta?.fee === FEE));
    const raw = await rpc(node.rpcUrl, 'getConfirmedBlock', [slot, 'json']);
    assert.equal(raw.result.blockhash, block.blockhash);
    assert.equal(raw.result.parentSlot, slot - 1);
    assert.equal('blockHeight' in raw.result, false);
    assert.deepEqual(raw.result.rewards, block.rewards);
    const rawEntry = raw.result.transactions.find((t: any) => t.transaction.signatures[0] === sig);
    assert.equal('version' in rawEntry, false);
    assert.deepEqual(rawEntry.meta.status, { Ok: null });
    const rawB64 = await rpc(node.rpcUrl, 'getConfirmedBlock', [slot, 'base64']);
    const wire = rawB64.result.transactions.find((t: any) => t.meta.fee === FEE && Transaction.from(Buffer.from(t.transaction[0], 'base64')).signature);
    assert.equal(wire.transaction[1], 'base64');
  });

  it('getTransaction and getConfirmedTransaction: fee, balances, logs', async () => {
    const from = dev[1]!;
    const to = Keypair.generate();
    const before = await conn.getBalance(from.publicKey);
    const sig = await send(new Transaction().add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports: 3 * LAMPORTS_PER_SOL })), [from]);
    const tx = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0 });
    assert.ok(tx);
    assert.equal(tx.meta!.err, null);
    assert.equal(tx.meta!.fee, FEE);
    assert.deepEqual(tx.meta!.preBalances, [before, 0, 1]);
    assert.deepEqual(tx.meta!.postBalances, [before - 3 * LAMPORTS_PER_SOL - FEE, 3 * LAMPORTS_PER_SOL, 1]);
    assert.deepEqual(tx.meta!.logMessages, [`Program ${SYSTEM} invoke [1]`, `Program ${SYSTEM} success`]);
    assert.equal(tx.transaction.signatures[0], sig);
    assert.equal(typeof tx.blockTime, 'number');

    const confirmed = await conn.getConfirmedTransaction(sig);
    // The 1.5 method without a commitment: only rooted transactions.
    await confirm(sig, 'finalized');
    assert.equal(confirmed!.slot, tx.slot);
    assert.equal(confirmed!.transaction.signature!.length, 64);
    const raw = await rpc(node.rpcUrl, 'getConfirmedTransaction', [sig, 'json']);
    assert.equal(raw.result.slot, tx.slot);
    assert.equal(raw.result.meta.fee, FEE);
    assert.deepEqual(raw.result.meta.logMessages, tx.meta!.logMessages);
    assert.equal('version' in raw.result, false);
    const parsed = await conn.getParsedTransaction(sig, { maxSupportedTransactionVersion: 0 });
    const ix = parsed!.transaction.message.instructions[0] as { program: string; parsed: { type: string; info: Record<string, unknown> } };
    assert.equal(ix.program, 'system');
    assert.deepEqual(ix.parsed, { type: 'transfer', info: { source: from.publicKey.toBase58(), destination: to.publicKey.toBase58(), lamports: 3 * LAMPORTS_PER_SOL } });
    assert.equal(await conn.getTransaction(bs58Random(64), { maxSupportedTransactionVersion: 0 }), null);

    // web3.js sends these as one JSON-RPC batch.
    const batch = await conn.getTransactions([sig, bs58Random(64)], { maxSupportedTransactionVersion: 0 });
    assert.equal(batch.length, 2);
    assert.equal(batch[0]!.transaction.signatures[0], sig);
    assert.equal(batch[1], null);
    const parsedBlock = await conn.getParsedBlock(tx.slot, { maxSupportedTransactionVersion: 0 });
    const parsedEntry = parsedBlock.transactions.find((t) => t.transaction.signatures[0] === sig)!;
    assert.deepEqual((parsedEntry.transaction as unknown as ParsedTransaction).message.accountKeys.map((k) => [k.pubkey.toBase58(), k.signer, k.writable]), [
      [from.publicKey.toBase58(), true, true],
      [to.publicKey.toBase58(), false, true],
      [SYSTEM, false, false],
    ]);
  });

  it('getSignaturesForAddress / getConfirmedSignaturesForAddress2: order, before, until, limit', async () => {
    const payer = await funded(dev[2]!, 10);
    const sigs: string[] = [];
    for (let i = 0; i < 6; i++) {
      // One at a time, each processed before the next: their (slot, index) order is the send order.
      const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: LAMPORTS_PER_SOL / 10 }));
      const sig = await conn.sendTransaction(tx, [payer]);
      await confirm(sig, 'processed');
      sigs.push(sig);
    }
    await confirm(sigs[5]!, 'confirmed');
    const fundingSig = (await conn.getSignaturesForAddress(payer.publicKey)).at(-1)!.signature;
    const newestFirst = [...sigs].reverse().concat(fundingSig);

    const all = await conn.getSignaturesForAddress(payer.publicKey);
    assert.deepEqual(all.map((s) => s.signature), newestFirst);
    for (const s of all) {
      assert.equal(s.err, null);
      assert.equal(s.memo, null);
      assert.equal(typeof s.blockTime, 'number');
      assert.ok(s.confirmationStatus === 'confirmed' || s.confirmationStatus === 'finalized');
    }
    const slots = all.map((s) => s.slot);
    assert.deepEqual(slots, [...slots].sort((a, b) => b - a));

    const limited = await conn.getSignaturesForAddress(payer.publicKey, { limit: 2 });
    assert.deepEqual(limited.map((s) => s.signature), newestFirst.slice(0, 2));
    const beforeIt = await conn.getSignaturesForAddress(payer.publicKey, { before: newestFirst[1], limit: 3 });
    assert.deepEqual(beforeIt.map((s) => s.signature), newestFirst.slice(2, 5));
    const untilIt = await conn.getSignaturesForAddress(payer.publicKey, { until: newestFirst[3] });
    assert.deepEqual(untilIt.map((s) => s.signature), newestFirst.slice(0, 3));
    const window = await conn.getSignaturesForAddress(payer.publicKey, { before: newestFirst[0], until: newestFirst[5] });
    assert.deepEqual(window.map((s) => s.signature), newestFirst.slice(1, 5));
    const windowLimited = await conn.getSignaturesForAddress(payer.publicKey, { before: newestFirst[0], until: newestFirst[5], limit: 2 });
    assert.deepEqual(windowLimited.map((s) => s.signature), newestFirst.slice(1, 3));

    const legacy = await conn.getConfirmedSignaturesForAddress2(payer.publicKey, { before: newestFirst[2], limit: 2 });
    assert.deepEqual(legacy.map((s) => s.signature), newestFirst.slice(3, 5));
    const legacyRaw = await rpc(node.rpcUrl, 'getConfirmedSignaturesForAddress2', [payer.publicKey.toBase58(), { until: newestFirst[2], commitment: 'confirmed' }]);
    assert.deepEqual(legacyRaw.result.map((s: { signature: string }) => s.signature), newestFirst.slice(0, 2));
    assert.equal('confirmationStatus' in legacyRaw.result[0], false);

    // Finalized history is a prefix-free suffix of confirmed history: nothing newer than the root.
    await confirm(sigs[5]!, 'finalized');
    const finalized = await conn.getSignaturesForAddress(payer.publicKey, {}, 'finalized');
    assert.deepEqual(finalized.map((s) => s.signature), newestFirst);
    assert.ok(finalized.every((s) => s.confirmationStatus === 'finalized'));
    const deprecated = await rpc(node.rpcUrl, 'getConfirmedSignaturesForAddress', [payer.publicKey.toBase58(), 0, all[0]!.slot]);
    assert.deepEqual(deprecated.result, [...newestFirst].reverse());
  });

  it('createAccount with space, rent exemption, and getProgramAccounts filters', async () => {
    const payer = dev[3]!;
    const program = Keypair.generate().publicKey;
    const sizes = [8, 16, 16, 40];
    const created: Array<{ key: PublicKey; space: number; lamports: number }> = [];
    const tx = new Transaction();
    const signers: Keypair[] = [payer];
    for (const space of sizes) {
      const kp = Keypair.generate();
      const lamports = await conn.getMinimumBalanceForRentExemption(space);
      assert.equal(lamports, (128 + space) * 3480 * 2);
      tx.add(SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: kp.publicKey, lamports, space, programId: program }));
      signers.push(kp);
      created.push({ key: kp.publicKey, space, lamports });
    }
    await send(tx, signers);

    const info = await conn.getAccountInfo(created[3]!.key);
    assert.equal(info!.owner.toBase58(), program.toBase58());
    assert.equal(info!.data.length, 40);
    assert.equal(info!.lamports, created[3]!.lamports);
    assert.equal(info!.executable, false);

    const keysOf = (list: ReadonlyArray<{ pubkey: PublicKey }>) => list.map((a) => a.pubkey.toBase58()).sort();
    const expect = (pred: (c: (typeof created)[number]) => boolean) => created.filter(pred).map((c) => c.key.toBase58()).sort();
    assert.deepEqual(keysOf(await conn.getProgramAccounts(program)), expect(() => true));
    assert.deepEqual(keysOf(await conn.getProgramAccounts(program, { filters: [{ dataSize: 16 }] })), expect((c) => c.space === 16));
    assert.deepEqual(keysOf(await conn.getProgramAccounts(program, { filters: [{ dataSize: 17 }] })), []);
    // The data is zeroed: a zero byte at offset 12 needs at least 13 bytes; a non-zero byte matches nothing.
    assert.deepEqual(keysOf(await conn.getProgramAccounts(program, { filters: [{ memcmp: { offset: 12, bytes: '1' } }] })), expect((c) => c.space > 12));
    assert.deepEqual(keysOf(await conn.getProgramAccounts(program, { filters: [{ memcmp: { offset: 0, bytes: '2' } }] })), []);
    assert.deepEqual(
      keysOf(await conn.getProgramAccounts(program, { filters: [{ dataSize: 40 }, { memcmp: { offset: 39, bytes: '1' } }] })),
      expect((c) => c.space === 40),
    );
    const sliced = await conn.getProgramAccounts(program, { dataSlice: { offset: 0, length: 4 }, filters: [{ dataSize: 40 }] });
    assert.equal(sliced[0]!.account.data.length, 4);

    // Too few lamports for the space: the new account would be rent-paying.
    const short = Keypair.generate();
    const min = await conn.getMinimumBalanceForRentExemption(100);
    const e = await sendError(
      conn.sendTransaction(new Transaction().add(SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: short.publicKey, lamports: min - 1, space: 100, programId: program })), [payer, short]),
    );
    assert.equal(e.transactionError.message, 'Transaction simulation failed: Transaction results in an account (1) with insufficient funds for rent');
    const simulated = await conn.simulateTransaction(
      new Transaction().add(SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: short.publicKey, lamports: min - 1, space: 100, programId: program })),
      [payer, short],
    );
    assert.deepEqual(simulated.value.err, { InsufficientFundsForRent: { account_index: 1 } });
    assert.equal(await conn.getAccountInfo(short.publicKey), null);
  });

  it('durable nonce accounts: create, use, advance, authorize, withdraw, jsonParsed', async () => {
    const payer = dev[4]!;
    const nonceKp = Keypair.generate();
    const rent = await conn.getMinimumBalanceForRentExemption(NONCE_ACCOUNT_LENGTH);
    await send(
      new Transaction().add(...SystemProgram.createNonceAccount({ fromPubkey: payer.publicKey, noncePubkey: nonceKp.publicKey, authorizedPubkey: payer.publicKey, lamports: rent + LAMPORTS_PER_SOL }).instructions),
      [payer, nonceKp],
    );
    const read = async () => NonceAccount.fromAccountData((await conn.getAccountInfo(nonceKp.publicKey))!.data);
    const first = await read();
    assert.equal(first.authorizedPubkey.toBase58(), payer.publicKey.toBase58());
    assert.equal(first.feeCalculator.lamportsPerSignature, FEE);

    // jsonParsed: nonce accounts parse; memcmp on the authority (offset 8) with dataSize 80 finds exactly ours.
    const parsed = await conn.getParsedAccountInfo(nonceKp.publicKey);
    assert.deepEqual((parsed.value!.data as { parsed: unknown }).parsed, {
      type: 'initialized',
      info: { authority: payer.publicKey.toBase58(), blockhash: first.nonce, feeCalculator: { lamportsPerSignature: String(FEE) } },
    });
    assert.equal((parsed.value!.data as { program: string }).program, 'nonce');
    const byAuthority = await conn.getParsedProgramAccounts(SystemProgram.programId, {
      filters: [{ dataSize: NONCE_ACCOUNT_LENGTH }, { memcmp: { offset: 8, bytes: payer.publicKey.toBase58() } }],
    });
    assert.deepEqual(byAuthority.map((a) => a.pubkey.toBase58()), [nonceKp.publicKey.toBase58()]);
    assert.equal((byAuthority[0]!.account.data as { program: string }).program, 'nonce');
    const allNonces = await conn.getProgramAccounts(SystemProgram.programId, { filters: [{ dataSize: NONCE_ACCOUNT_LENGTH }] });
    assert.deepEqual(
      allNonces.map((a) => a.pubkey.toBase58()).sort(),
      [nonceKp.publicKey.toBase58(), earlyNonce.account.publicKey.toBase58()].sort(),
    );

    // A durable-nonce transaction: nonceAdvance first, the nonce as its blockhash. A nonce advances at
    // most once per blockhash, so preflight (on the confirmed bank) needs a bank newer than the creation.
    const created = (await conn.getSignaturesForAddress(nonceKp.publicKey, { limit: 1 }))[0]!.slot;
    await waitFor(async () => (await conn.getSlot('confirmed')) > created, { what: 'a confirmed slot after the nonce creation' });
    const to = Keypair.generate();
    const durable = new Transaction({
      feePayer: payer.publicKey,
      nonceInfo: { nonce: first.nonce, nonceInstruction: SystemProgram.nonceAdvance({ noncePubkey: nonceKp.publicKey, authorizedPubkey: payer.publicKey }) },
    }).add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to.publicKey, lamports: LAMPORTS_PER_SOL }));
    durable.sign(payer);
    assert.equal(durable.compileMessage().recentBlockhash, first.nonce);
    const durableSig = await conn.sendRawTransaction(durable.serialize());
    assert.equal((await confirm(durableSig)).err, null);
    assert.equal(await conn.getBalance(to.publicKey), LAMPORTS_PER_SOL);
    const advanced = await read();
    assert.notEqual(advanced.nonce, first.nonce);
    // The same durable transaction cannot land twice: its nonce has moved on, and a durable nonce is
    // never a recent blockhash, so Agave's age check refuses it before the status cache would.
    const replay = await sendError(conn.sendRawTransaction(durable.serialize()));
    assert.equal(replay.transactionError.message, 'Transaction simulation failed: Blockhash not found');

    // Authorize a new authority; only it can withdraw now.
    const newAuthority = Keypair.generate();
    await send(new Transaction().add(SystemProgram.nonceAuthorize({ noncePubkey: nonceKp.publicKey, authorizedPubkey: payer.publicKey, newAuthorizedPubkey: newAuthority.publicKey })), [payer]);
    assert.equal((await read()).authorizedPubkey.toBase58(), newAuthority.publicKey.toBase58());
    const withdraw = (authority: PublicKey, to: PublicKey, lamports: number) =>
      new Transaction({ feePayer: payer.publicKey }).add(SystemProgram.nonceWithdraw({ noncePubkey: nonceKp.publicKey, authorizedPubkey: authority, toPubkey: to, lamports }));
    const denied = await conn.simulateTransaction(withdraw(payer.publicKey, payer.publicKey, 1), [payer]);
    assert.deepEqual(denied.value.err, { InstructionError: [0, 'MissingRequiredSignature'] });
    // A partial withdrawal must leave the rent-exempt reserve.
    const sink = Keypair.generate();
    const tooMuch = await conn.simulateTransaction(withdraw(newAuthority.publicKey, sink.publicKey, LAMPORTS_PER_SOL + 1), [payer, newAuthority]);
    assert.deepEqual(tooMuch.value.err, { InstructionError: [0, 'InsufficientFunds'] });
    assert.deepEqual(tooMuch.value.logs![1], `Withdraw nonce account: insufficient lamports ${rent + LAMPORTS_PER_SOL}, need ${rent + LAMPORTS_PER_SOL + 1}`);
    await send(withdraw(newAuthority.publicKey, sink.publicKey, LAMPORTS_PER_SOL), [payer, newAuthority]);
    assert.equal(await conn.getBalance(nonceKp.publicKey), rent);
    // Withdraw everything: the account closes.
    await send(withdraw(newAuthority.publicKey, sink.publicKey, rent), [payer, newAuthority]);
    assert.equal(await conn.getAccountInfo(nonceKp.publicKey), null);
    assert.equal(await conn.getBalance(sink.publicKey), rent + LAMPORTS_PER_SOL);
  });

  it('createAccountWithSeed and transfer with seed', async () => {
    const base = dev[5]!;
    const seed = 'isthmus-seed';
    const derived = await PublicKey.createWithSeed(base.publicKey, seed, SystemProgram.programId);
    await send(
      new Transaction().add(
        SystemProgram.createAccountWithSeed({ fromPubkey: base.publicKey, newAccountPubkey: derived, basePubkey: base.publicKey, seed, lamports: 2 * LAMPORTS_PER_SOL, space: 0, programId: SystemProgram.programId }),
      ),
      [base],
    );
    assert.equal(await conn.getBalance(derived), 2 * LAMPORTS_PER_SOL);

    const to = Keypair.generate();
    const sig = await send(
      new Transaction().add(
        SystemProgram.transfer({ fromPubkey: derived, basePubkey: base.publicKey, toPubkey: to.publicKey, lamports: LAMPORTS_PER_SOL, seed, programId: SystemProgram.programId }),
      ),
      [base],
    );
    assert.equal(await conn.getBalance(derived), LAMPORTS_PER_SOL);
    assert.equal(await conn.getBalance(to.publicKey), LAMPORTS_PER_SOL);
    const parsed = await conn.getParsedTransaction(sig, { maxSupportedTransactionVersion: 0 });
    assert.equal((parsed!.transaction.message.instructions[0] as { parsed: { type: string } }).parsed.type, 'transferWithSeed');

    // An account with space owned by another program, at a seed address.
    const program = Keypair.generate().publicKey;
    const owned = await PublicKey.createWithSeed(base.publicKey, 'data', program);
    const lamports = await conn.getMinimumBalanceForRentExemption(24);
    await send(
      new Transaction().add(SystemProgram.createAccountWithSeed({ fromPubkey: base.publicKey, newAccountPubkey: owned, basePubkey: base.publicKey, seed: 'data', lamports, space: 24, programId: program })),
      [base],
    );
    const info = await conn.getAccountInfo(owned);
    assert.equal(info!.owner.toBase58(), program.toBase58());
    assert.equal(info!.data.length, 24);
    assert.deepEqual((await conn.getProgramAccounts(program)).map((a) => a.pubkey.toBase58()), [owned.toBase58()]);
  });

  it('a memo shows in the logs and in getSignaturesForAddress', async () => {
    const payer = await funded(dev[6]!, 1);
    const text = 'hello isthmus';
    const sig = await send(
      new Transaction().add(new TransactionInstruction({ programId: MEMO_PROGRAM, keys: [{ pubkey: payer.publicKey, isSigner: true, isWritable: false }], data: Buffer.from(text) })),
      [payer],
    );
    const [entry] = await conn.getSignaturesForAddress(payer.publicKey, { limit: 1 });
    assert.equal(entry!.signature, sig);
    assert.equal(entry!.memo, `[${text.length}] ${text}`);
    const tx = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0 });
    const logs = tx!.meta!.logMessages!;
    assert.equal(logs[0], `Program ${MEMO_PROGRAM.toBase58()} invoke [1]`);
    assert.equal(logs[1], `Program log: Signed by ${payer.publicKey.toBase58()}`);
    assert.equal(logs[2], `Program log: Memo (len ${text.length}): "${text}"`);
    assert.match(logs[3]!, new RegExp(`^Program ${MEMO_PROGRAM.toBase58()} consumed \\d+ of 200000 compute units$`));
    assert.equal(logs[4], `Program ${MEMO_PROGRAM.toBase58()} success`);
    assert.equal(tx!.meta!.fee, FEE);
  });

  it('a compute-budget priority fee: 5000 + ceil(price × limit / 1e6)', async () => {
    const payer = await funded(dev[6]!, 1);
    const before = await conn.getBalance(payer.publicKey);
    const units = 300_000;
    const microLamports = 1_234_567;
    const expectedFee = FEE + Math.ceil((microLamports * units) / 1e6);
    const tx = new Transaction().add(
      ComputeBudgetProgram.setComputeUnitLimit({ units }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: dev[6]!.publicKey, lamports: 1000 }),
    );
    tx.feePayer = payer.publicKey;
    tx.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
    assert.equal((await conn.getFeeForMessage(tx.compileMessage())).value, expectedFee);
    const sig = await send(tx, [payer]);
    const got = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0 });
    assert.equal(got!.meta!.fee, expectedFee);
    assert.equal(await conn.getBalance(payer.publicKey), before - expectedFee - 1000);
    // No earlier transaction in this file pays a priority fee, so only this slot shows one.
    const fees = await conn.getRecentPrioritizationFees({ lockedWritableAccounts: [payer.publicKey] });
    assert.deepEqual(
      fees.filter((f) => f.prioritizationFee !== 0),
      [{ slot: got!.slot, prioritizationFee: microLamports }],
    );
  });

  it('a failing transfer: preflight error with logs, or a landed failure that only pays the fee', async () => {
    const payer = await funded(dev[7]!, 1);
    const to = Keypair.generate();
    const tooMuch = () => new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to.publicKey, lamports: 2 * LAMPORTS_PER_SOL }));
    const e = await sendError(conn.sendTransaction(tooMuch(), [payer]));
    assert.equal(e.transactionError.message, 'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1');
    assert.deepEqual(await e.getLogs(conn), [
      `Program ${SYSTEM} invoke [1]`,
      `Transfer: insufficient lamports ${LAMPORTS_PER_SOL - FEE}, need ${2 * LAMPORTS_PER_SOL}`,
      `Program ${SYSTEM} failed: custom program error: 0x1`,
    ]);

    const sig = await conn.sendTransaction(tooMuch(), [payer], { skipPreflight: true });
    const status = await confirm(sig);
    assert.deepEqual(status.err, { InstructionError: [0, { Custom: 1 }] });
    const tx = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0 });
    assert.deepEqual(tx!.meta!.err, { InstructionError: [0, { Custom: 1 }] });
    assert.equal(tx!.meta!.fee, FEE);
    assert.deepEqual(tx!.meta!.preBalances, [LAMPORTS_PER_SOL, 0, 1]);
    assert.deepEqual(tx!.meta!.postBalances, [LAMPORTS_PER_SOL - FEE, 0, 1]);
    const block = await conn.getBlock(status.slot, { maxSupportedTransactionVersion: 0 });
    assert.deepEqual(block!.transactions.find((t) => t.transaction.signatures[0] === sig)!.meta!.err, { InstructionError: [0, { Custom: 1 }] });
    assert.equal(await conn.getBalance(payer.publicKey), LAMPORTS_PER_SOL - FEE);
    assert.equal(await conn.getAccountInfo(to.publicKey), null);
    const [hist] = await conn.getSignaturesForAddress(payer.publicKey, { limit: 1 });
    assert.deepEqual(hist!.err, { InstructionError: [0, { Custom: 1 }] });
  });

  it('a duplicate transaction is refused and lands once', async () => {
    const payer = await funded(dev[7]!, 1);
    const to = Keypair.generate();
    const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to.publicKey, lamports: LAMPORTS_PER_SOL / 2 }));
    tx.feePayer = payer.publicKey;
    tx.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
    tx.sign(payer);
    const raw = tx.serialize();
    const sig = await conn.sendRawTransaction(raw);
    await confirm(sig);
    const e = await sendError(conn.sendRawTransaction(raw));
    assert.equal(e.transactionError.message, 'Transaction simulation failed: This transaction has already been processed');
    // Skipping preflight does not get it in twice either.
    const again = await conn.sendRawTransaction(raw, { skipPreflight: true });
    assert.equal(again, sig);
    // Wait for a later block, so a second copy would have had its chance to land.
    const later = (await conn.getSlot('processed')) + 2;
    await waitFor(async () => (await conn.getSlot('confirmed')) >= later, { what: 'two more slots' });
    const history = await conn.getSignaturesForAddress(payer.publicKey);
    assert.equal(history.filter((h) => h.signature === sig).length, 1);
    assert.equal(await conn.getBalance(to.publicKey), LAMPORTS_PER_SOL / 2);
    assert.equal(await conn.getBalance(payer.publicKey), LAMPORTS_PER_SOL / 2 - FEE);
  });

  it('transactions that cannot land: unknown blockhash, bad signature, no fee payer, no program', async () => {
    const payer = dev[7]!;
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: bs58Random(32) }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: LAMPORTS_PER_SOL }),
    );
    tx.sign(payer);
    const e = await sendError(conn.sendRawTransaction(tx.serialize()));
    assert.equal(e.transactionError.message, 'Transaction simulation failed: Blockhash not found');
    const sim = await conn.simulateTransaction(VersionedTransaction.deserialize(tx.serialize()));
    assert.equal(sim.value.err, 'BlockhashNotFound');

    const good = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: LAMPORTS_PER_SOL }));
    good.feePayer = payer.publicKey;
    good.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
    good.sign(payer);
    const wire = good.serialize();
    wire[1 + 10]! ^= 0xff; // flip a byte of the signature
    const bad = await rpc(node.rpcUrl, 'sendTransaction', [wire.toString('base64'), { encoding: 'base64' }]);
    assert.equal(bad.error.code, -32003);
    assert.equal(bad.error.message, 'Transaction signature verification failure');
    await assert.rejects(conn.sendRawTransaction(wire, { skipPreflight: true }), (err: Error) => /signature verification failure/.test(err.message));

    // A fee payer that never received lamports, and a program that does not exist: refused in
    // preflight, and dropped (never in a block, no status) when preflight is skipped.
    const nobody = Keypair.generate();
    const unfunded = new Transaction().add(SystemProgram.transfer({ fromPubkey: nobody.publicKey, toPubkey: payer.publicKey, lamports: 1 }));
    const e1 = await sendError(conn.sendTransaction(unfunded, [nobody]));
    assert.equal(e1.transactionError.message, 'Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.');
    const missingProgram = new Transaction().add(new TransactionInstruction({ programId: Keypair.generate().publicKey, keys: [], data: Buffer.alloc(0) }));
    const e2 = await sendError(conn.sendTransaction(missingProgram, [payer]));
    assert.equal(e2.transactionError.message, 'Transaction simulation failed: Attempt to load a program that does not exist');
    const dropped = [
      await conn.sendTransaction(new Transaction().add(SystemProgram.transfer({ fromPubkey: nobody.publicKey, toPubkey: payer.publicKey, lamports: 2 })), [nobody], { skipPreflight: true }),
      await conn.sendTransaction(missingProgram, [payer], { skipPreflight: true }),
    ];
    const later = (await conn.getSlot('processed')) + 2;
    await waitFor(async () => (await conn.getSlot('confirmed')) >= later, { what: 'two more slots' });
    assert.deepEqual((await conn.getSignatureStatuses(dropped, { searchTransactionHistory: true })).value, [null, null]);
    assert.equal(await conn.getTransaction(dropped[1]!, { maxSupportedTransactionVersion: 0 }), null);
  });

  it('fees and blockhashes: getFeeForMessage, isBlockhashValid, getLatestBlockhash', async () => {
    const payer = dev[8]!;
    const latest = await conn.getLatestBlockhashAndContext('finalized');
    assert.equal(latest.value.lastValidBlockHeight, latest.context.slot + 150);
    const confirmedHash = await conn.getLatestBlockhash('confirmed');
    assert.ok((await conn.isBlockhashValid(confirmedHash.blockhash)).value);
    assert.equal((await conn.isBlockhashValid(bs58Random(32))).value, false);
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: confirmedHash.blockhash,
      instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: dev[0]!.publicKey, lamports: 1 })],
    });
    assert.equal((await conn.getFeeForMessage(message.compileToLegacyMessage())).value, FEE);
    assert.equal((await conn.getFeeForMessage(message.compileToV0Message())).value, FEE);
    const twoSigners = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: confirmedHash.blockhash,
      instructions: [SystemProgram.transfer({ fromPubkey: dev[0]!.publicKey, toPubkey: payer.publicKey, lamports: 1 })],
    });
    assert.equal((await conn.getFeeForMessage(twoSigners.compileToLegacyMessage())).value, 2 * FEE);
    const unknown = new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: bs58Random(32), instructions: message.instructions });
    assert.equal((await conn.getFeeForMessage(unknown.compileToLegacyMessage())).value, null);
    const governor = await rpc(node.rpcUrl, 'getFeeRateGovernor', []);
    assert.equal(governor.result.value.feeRateGovernor.burnPercent, 50);
  });

  it('cluster, epoch, supply and ledger methods validate against web3.js schemas', async () => {
    await waitFor(async () => (await conn.getSlot('finalized')) >= 1, { what: 'a root' });
    const epochInfo = await conn.getEpochInfo();
    assert.equal(epochInfo.slotsInEpoch, node.genesis.epochSchedule.slotsPerEpoch);
    assert.equal(epochInfo.absoluteSlot, epochInfo.blockHeight);
    const schedule = await conn.getEpochSchedule();
    assert.equal(schedule.slotsPerEpoch, node.genesis.epochSchedule.slotsPerEpoch);
    assert.deepEqual(await conn.getInflationGovernor(), node.genesis.inflation);
    const rate = await conn.getInflationRate();
    assert.ok(rate.total > 0 && Math.abs(rate.validator + rate.foundation - rate.total) < 1e-12);

    const supply = await conn.getSupply();
    const genesisTotal = node.genesis.accounts.reduce((n, a) => n + a.lamports, 0);
    // The total is the capitalization of the bank read (the validator's votes burn fees every slot).
    assert.equal(supply.value.total, node.chain.bank(supply.context.slot)!.capitalization);
    assert.ok(supply.value.total < genesisTotal);
    assert.equal(supply.value.circulating + supply.value.nonCirculating, supply.value.total);
    assert.deepEqual(supply.value.nonCirculatingAccounts.map((k) => k.toBase58()), [node.genesis.stakeAccount]);
    const largest = await conn.getLargestAccounts();
    assert.equal(largest.value.length, 20);
    for (let i = 1; i < largest.value.length; i++) assert.ok(largest.value[i - 1]!.lamports >= largest.value[i]!.lamports);
    const nonCirculating = await conn.getLargestAccounts({ filter: 'nonCirculating' });
    assert.deepEqual(nonCirculating.value.map((a) => a.address.toBase58()), [node.genesis.stakeAccount]);

    const version = await conn.getVersion();
    assert.equal(typeof version['solana-core'], 'string');
    assert.equal(typeof version['feature-set'], 'number');
    assert.equal((await rpc(node.rpcUrl, 'getIdentity', [])).result.identity, node.keys.identity.address);
    assert.equal(await conn.getGenesisHash(), node.genesisHash);
    const nodes = await conn.getClusterNodes();
    assert.equal(nodes.length, 1);
    assert.equal(nodes[0]!.pubkey, node.keys.identity.address);
    assert.equal(nodes[0]!.rpc, new URL(node.rpcUrl).host);
    assert.equal((await rpc(node.rpcUrl, 'getHealth', [])).result, 'ok');
    assert.deepEqual(await conn.getRecentPerformanceSamples(5), []); // one sample a minute; this node is younger

    const slot = await conn.getSlot('finalized');
    const leaders = await conn.getSlotLeaders(slot, 3);
    assert.deepEqual(leaders.map((l) => l.toBase58()), new Array(3).fill(node.keys.identity.address));
    assert.equal((await conn.getSlotLeader()), node.keys.identity.address);
    const schedule2 = await conn.getLeaderSchedule();
    assert.deepEqual(Object.keys(schedule2), [node.keys.identity.address]);
    assert.equal(schedule2[node.keys.identity.address]!.length, node.genesis.epochSchedule.slotsPerEpoch);
    const production = await conn.getBlockProduction();
    const [leaderSlots, produced] = production.value.byIdentity[node.keys.identity.address]!;
    assert.equal(leaderSlots, production.value.range.lastSlot - production.value.range.firstSlot + 1);
    assert.equal(produced, leaderSlots);

    const confirmed = await conn.getSlot('confirmed');
    const commitment = (await rpc(node.rpcUrl, 'getBlockCommitment', [confirmed])).result; // not in web3.js v1
    // The epoch's active stake: what the vote accounts have delegated to them.
    const staked = (await conn.getVoteAccounts('finalized')).current.reduce((n, v) => n + v.activatedStake, 0);
    assert.equal(commitment.totalStake, staked);
    assert.equal(staked, 500_000 * LAMPORTS_PER_SOL);
    assert.ok(commitment.commitment === null || commitment.commitment.length === 32);
    const blockTime = await conn.getBlockTime(slot);
    assert.ok(blockTime !== null && Math.abs(blockTime - Date.now() / 1000) < 120);
    const blocks = await conn.getBlocks(0, slot, 'finalized');
    assert.deepEqual(blocks, Array.from({ length: slot + 1 }, (_, i) => i));
    const withLimit = await rpc(node.rpcUrl, 'getBlocksWithLimit', [1, 3]);
    assert.deepEqual(withLimit.result, [1, 2, 3]);
    const legacyWithLimit = await rpc(node.rpcUrl, 'getConfirmedBlocksWithLimit', [0, 2]);
    assert.deepEqual(legacyWithLimit.result, [0, 1]);
    assert.equal(await conn.getFirstAvailableBlock(), 0);
    assert.equal(await conn.getMinimumLedgerSlot(), 0);
    // The chain keeps voting meanwhile: the count answered lies between the counter before and after.
    const countBefore = node.chain.totalTransactionCount;
    const count = await conn.getTransactionCount();
    assert.ok(count >= countBefore && count <= node.chain.totalTransactionCount, `${countBefore} <= ${count} <= ${node.chain.totalTransactionCount}`);
    assert.ok(count > 10);
    // In one batch both are read at one instant: no slot is skipped on this node, so they are equal.
    const [height, finalizedSlot] = (await rpcBatch(node.rpcUrl, [['getBlockHeight', [{ commitment: 'finalized' }]], ['getSlot', [{ commitment: 'finalized' }]]])).map((r) => r.result);
    assert.equal(height, finalizedSlot);

    // The staking readers (test/integration/stake-web3.test.ts covers them in depth).
    assert.equal(((await conn.getStakeMinimumDelegation()) as unknown as { value: number }).value, LAMPORTS_PER_SOL);
    const votes = await conn.getVoteAccounts();
    assert.deepEqual(votes.current.map((v) => v.votePubkey), [node.genesis.voteAccount]);
    const tooMany = await rpcError(conn.getInflationReward(new Array(101).fill(PublicKey.default)));
    assert.equal(tooMany.code, -32602);
    assert.match(tooMany.message, /Too many inputs provided; max 100/);
  });

  it('value is conserved: every balance plus what was burned equals the genesis total', async () => {
    // A mix: a transfer, a failing transfer, an account creation, a priority fee; then everything rooted.
    const payer = await funded(dev[8]!, 5);
    const sigs: string[] = [];
    sigs.push(await conn.sendTransaction(new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: LAMPORTS_PER_SOL })), [payer]));
    sigs.push(await conn.sendTransaction(new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 50 * LAMPORTS_PER_SOL })), [payer], { skipPreflight: true }));
    const acct = Keypair.generate();
    sigs.push(
      await conn.sendTransaction(
        new Transaction().add(
          ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 10_000 }),
          SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: acct.publicKey, lamports: LAMPORTS_PER_SOL, space: 64, programId: Keypair.generate().publicKey }),
        ),
        [payer, acct],
      ),
    );
    for (const s of sigs) await confirm(s, 'finalized');
    // Fees are burned when a slot is sealed; wait for a root past every slot that had fees.
    const last = (await conn.getSignatureStatuses(sigs)).value.reduce((m, s) => Math.max(m, s!.slot), 0);
    await waitFor(() => node.chain.rootSlot > last, { what: 'a root above the last transaction' });
    assert.ok(node.chain.supply().burned > 0);
    // Every balance of the confirmed bank plus the fees burned equals genesis plus inflation minted.
    await checkValueConservation(node);
  });

  it('an expired blockhash is refused, and a durable nonce outlives it', async () => {
    const { account, authority, nonce, blockhash } = earlyNonce;
    // A blockhash from the nonce's early slots: wait until it leaves the 150-block window.
    await waitFor(async () => !(await conn.isBlockhashValid(blockhash, { commitment: 'processed' })).value, { what: 'the early blockhash to expire', timeoutMs: 20_000, everyMs: 100 });
    const to = Keypair.generate();
    const plain = new Transaction({ feePayer: authority.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: authority.publicKey, toPubkey: to.publicKey, lamports: LAMPORTS_PER_SOL }),
    );
    plain.sign(authority);
    const e = await sendError(conn.sendRawTransaction(plain.serialize(), { preflightCommitment: 'processed' }));
    assert.equal(e.transactionError.message, 'Transaction simulation failed: Blockhash not found');

    const durable = new Transaction({
      feePayer: authority.publicKey,
      nonceInfo: { nonce, nonceInstruction: SystemProgram.nonceAdvance({ noncePubkey: account.publicKey, authorizedPubkey: authority.publicKey }) },
    }).add(SystemProgram.transfer({ fromPubkey: authority.publicKey, toPubkey: to.publicKey, lamports: LAMPORTS_PER_SOL }));
    durable.sign(authority);
    // Its fee is known although its blockhash expired: it comes from the nonce account (Agave's get_fee_for_message).
    assert.equal((await conn.getFeeForMessage(durable.compileMessage(), 'processed')).value, FEE);
    const sig = await conn.sendRawTransaction(durable.serialize(), { preflightCommitment: 'processed' });
    assert.equal((await confirm(sig)).err, null);
    assert.equal(await conn.getBalance(to.publicKey), LAMPORTS_PER_SOL);
    const after = NonceAccount.fromAccountData((await conn.getAccountInfo(account.publicKey))!.data);
    assert.notEqual(after.nonce, nonce);
    // Agave's durable nonce is a hash of a blockhash, so never itself a valid blockhash.
    assert.equal((await conn.isBlockhashValid(after.nonce, { commitment: 'processed' })).value, false);
  });
});

function bs58Random(bytes: number): string {
  return bs58.encode(crypto.getRandomValues(new Uint8Array(bytes)));
}
