/**
 * PubSub through @solana/web3.js v1's Connection (wsEndpoint = the node's PubSub URL): its own
 * notification schemas check every shape it reads, at each commitment.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  Transaction,
  sendAndConfirmTransaction,
  type AccountInfo,
  type Commitment,
  type Context,
  type KeyedAccountInfo,
  type Logs,
  type SignatureResult,
  type SlotInfo,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { startTestNode, waitFor, type TestNode } from '../helpers/node.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';

let node: TestNode;
let conn: Connection;
let dev: Keypair[];
const rootedAt = new Map<number, number>();

/** Collects a listener's calls; `next()` waits for the next one. */
function recorder<T extends unknown[]>() {
  const calls: Array<{ args: T; at: number }> = [];
  let taken = 0;
  return {
    calls,
    fn: (...args: T) => {
      calls.push({ args, at: performance.now() });
    },
    next: async (what = 'a notification', timeoutMs = 8000) => {
      await waitFor(() => calls.length > taken, { what, timeoutMs, everyMs: 5 });
      return calls[taken++]!;
    },
  };
}

const transferTx = (from: Keypair, to: PublicKey, lamports: number) =>
  new Transaction().add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports }));

before(async () => {
  node = await startTestNode({ rootDepth: 4 });
  node.chain.on('rooted', (banks) => {
    for (const b of banks) rootedAt.set(b.slot, performance.now());
  });
  conn = new Connection(node.rpcUrl, { commitment: 'confirmed', wsEndpoint: node.pubsubUrl });
  dev = node.keys.devAccounts.map((k) => Keypair.fromSecretKey(k.secretKey));
});

after(async () => {
  await closeConnectionSocket(conn);
  await node?.stop();
});

describe('web3.js v1 subscriptions', () => {
  it('onAccountChange at processed, confirmed and finalized', async () => {
    const to = Keypair.generate().publicKey;
    const levels: Commitment[] = ['processed', 'confirmed', 'finalized'];
    const recs = levels.map(() => recorder<[AccountInfo<Buffer>, Context]>());
    const ids = levels.map((commitment, i) => conn.onAccountChange(to, recs[i]!.fn, { commitment }));
    // Old names, too: `recent` is processed, `max` is finalized.
    const recent = recorder<[AccountInfo<Buffer>, Context]>();
    const recentId = conn.onAccountChange(to, recent.fn, 'recent');
    await new Promise((r) => setTimeout(r, 200)); // web3.js subscribes lazily
    const sig = await sendAndConfirmTransaction(conn, transferTx(dev[0]!, to, LAMPORTS_PER_SOL), [dev[0]!], { commitment: 'confirmed' });
    const slot = (await conn.getSignatureStatus(sig)).value!.slot;

    const got = await Promise.all(recs.map((r) => r.next()));
    for (const { args } of [...got, await recent.next()]) {
      const [info, ctx] = args;
      assert.equal(info.lamports, LAMPORTS_PER_SOL);
      assert.ok(info.owner.equals(SystemProgram.programId));
      assert.equal(info.data.length, 0);
      assert.equal(ctx.slot, slot);
    }
    const [processed, confirmed, finalized] = got;
    assert.ok(processed!.at <= confirmed!.at && confirmed!.at <= finalized!.at);
    assert.ok(finalized!.at >= rootedAt.get(slot)!, 'finalized only after the slot is rooted');
    for (const id of [...ids, recentId]) await conn.removeAccountChangeListener(id);
  });

  it('onProgramAccountChange with filters', async () => {
    const owner = Keypair.generate().publicKey;
    const all = recorder<[KeyedAccountInfo, Context]>();
    const sized = recorder<[KeyedAccountInfo, Context]>();
    const wrongSize = recorder<[KeyedAccountInfo, Context]>();
    const memcmp = recorder<[KeyedAccountInfo, Context]>();
    const ids = [
      conn.onProgramAccountChange(owner, all.fn, { commitment: 'processed' }),
      conn.onProgramAccountChange(owner, sized.fn, { commitment: 'confirmed', filters: [{ dataSize: 24 }] }),
      conn.onProgramAccountChange(owner, wrongSize.fn, 'confirmed', [{ dataSize: 25 }]),
      conn.onProgramAccountChange(owner, memcmp.fn, { commitment: 'finalized', filters: [{ memcmp: { offset: 20, bytes: bs58.encode(new Uint8Array(4)) } }] }),
    ];
    await new Promise((r) => setTimeout(r, 200));
    const created = Keypair.generate();
    const payer = dev[1]!;
    const lamports = await conn.getMinimumBalanceForRentExemption(24);
    await sendAndConfirmTransaction(
      conn,
      new Transaction().add(SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: created.publicKey, lamports, space: 24, programId: owner })),
      [payer, created],
      { commitment: 'confirmed' },
    );
    for (const r of [all, sized, memcmp]) {
      const [keyed] = (await r.next()).args;
      assert.ok(keyed.accountId.equals(created.publicKey));
      assert.ok(keyed.accountInfo.owner.equals(owner));
      assert.equal(keyed.accountInfo.lamports, lamports);
      assert.deepEqual(keyed.accountInfo.data, Buffer.alloc(24));
    }
    assert.equal(wrongSize.calls.length, 0);
    for (const id of ids) await conn.removeProgramAccountChangeListener(id);
  });

  it('onLogs: all and mentions, by commitment', async () => {
    const to = Keypair.generate().publicKey;
    const all = recorder<[Logs, Context]>();
    const mentions = recorder<[Logs, Context]>();
    const finalMentions = recorder<[Logs, Context]>();
    const other = recorder<[Logs, Context]>();
    const ids = [
      conn.onLogs('all', all.fn, 'processed'),
      conn.onLogs(to, mentions.fn, 'confirmed'),
      conn.onLogs(to, finalMentions.fn, 'finalized'),
      conn.onLogs(Keypair.generate().publicKey, other.fn),
    ];
    await new Promise((r) => setTimeout(r, 200));
    const sig = await sendAndConfirmTransaction(conn, transferTx(dev[2]!, to, LAMPORTS_PER_SOL), [dev[2]!], { commitment: 'confirmed' });
    const slot = (await conn.getSignatureStatus(sig)).value!.slot;
    let seen: { args: [Logs, Context] };
    do seen = await all.next();
    while (seen.args[0].signature !== sig);
    for (const { args } of [seen, await mentions.next(), await finalMentions.next()]) {
      const [logs, ctx] = args;
      assert.equal(logs.signature, sig);
      assert.equal(logs.err, null);
      assert.deepEqual(logs.logs, ['Program 11111111111111111111111111111111 invoke [1]', 'Program 11111111111111111111111111111111 success']);
      assert.equal(ctx.slot, slot);
    }
    assert.equal(other.calls.length, 0);
    for (const id of ids) await conn.removeOnLogsListener(id);
  });

  it('onSignature at each commitment, and the received notification', async () => {
    const payer = dev[3]!;
    const tx = transferTx(payer, Keypair.generate().publicKey, LAMPORTS_PER_SOL);
    tx.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
    tx.feePayer = payer.publicKey;
    tx.sign(payer);
    const sig = bs58.encode(tx.signature!);
    const levels: Commitment[] = ['processed', 'confirmed', 'finalized'];
    const recs = levels.map(() => recorder<[SignatureResult, Context]>());
    levels.forEach((c, i) => conn.onSignature(sig, recs[i]!.fn, c));
    const withReceived = recorder<[unknown, Context]>();
    conn.onSignatureWithOptions(sig, withReceived.fn, { commitment: 'confirmed', enableReceivedNotification: true });
    await new Promise((r) => setTimeout(r, 200));
    await conn.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    const got = await Promise.all(recs.map((r) => r.next()));
    const slot = got[0]!.args[1].slot;
    for (const { args } of got) {
      assert.deepEqual(args[0], { err: null });
      assert.equal(args[1].slot, slot);
    }
    assert.ok(got[2]!.at >= rootedAt.get(slot)!);
    // web3.js removes an onSignatureWithOptions listener after its first notification, which
    // with enableReceivedNotification is the early "received" one.
    assert.deepEqual((await withReceived.next()).args[0], { type: 'received' });
    // One notification each: the server cancelled the subscriptions itself.
    await new Promise((r) => setTimeout(r, 300));
    for (const r of recs) assert.equal(r.calls.length, 1);
    assert.equal(withReceived.calls.length, 1);
  });

  it('sendAndConfirmTransaction at finalized waits on signatureNotification', async () => {
    const sig = await sendAndConfirmTransaction(conn, transferTx(dev[4]!, Keypair.generate().publicKey, LAMPORTS_PER_SOL), [dev[4]!], { commitment: 'finalized' });
    const status = (await conn.getSignatureStatus(sig)).value!;
    assert.equal(status.confirmationStatus, 'finalized');
  });

  it('onSlotChange and onRootChange', async () => {
    const slots = recorder<[SlotInfo]>();
    const roots = recorder<[number]>();
    const slotId = conn.onSlotChange(slots.fn);
    const rootId = conn.onRootChange(roots.fn);
    const [a] = (await slots.next()).args;
    const [b] = (await slots.next()).args;
    assert.equal(b.slot, a.slot + 1);
    assert.equal(b.parent, a.slot);
    assert.ok(b.root <= b.slot);
    const [r1] = (await roots.next()).args;
    const [r2] = (await roots.next()).args;
    assert.equal(r2, r1 + 1);
    await conn.removeSlotChangeListener(slotId);
    await conn.removeRootChangeListener(rootId);
    const n = slots.calls.length;
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(slots.calls.length <= n + 1, 'no more slot notifications after unsubscribing');
  });
});
