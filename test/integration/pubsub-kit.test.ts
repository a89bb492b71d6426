/**
 * PubSub through @solana/kit's rpcSubscriptions, including its sendAndConfirmTransaction factory,
 * which waits on signatureNotifications (and slotNotifications for block-height expiry).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { startTestNode, type TestNode } from '../helpers/node.ts';

const SYSTEM = address('11111111111111111111111111111111');

let node: TestNode;
let rpc: ReturnType<typeof createSolanaRpc>;
let rpcSubscriptions: ReturnType<typeof createSolanaRpcSubscriptions>;
let payer: KeyPairSigner;
const abort = new AbortController();

/** SystemProgram::Transfer: u32 index 2, u64 lamports. */
function transferInstruction(from: KeyPairSigner, to: Address, lamports: bigint): Instruction {
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, 2, true);
  view.setBigUint64(4, lamports, true);
  return {
    programAddress: SYSTEM,
    accounts: [
      { address: from.address, role: AccountRole.WRITABLE_SIGNER, signer: from } as never,
      { address: to, role: AccountRole.WRITABLE },
    ],
    data,
  };
}

async function signedTransfer(to: Address, lamports: bigint) {
  const { value: latestBlockhash } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latestBlockhash, m),
    (m) => appendTransactionMessageInstruction(transferInstruction(payer, to, lamports), m),
  );
  return signTransactionMessageWithSigners(message);
}

/** The first item of a subscription's async iterator. */
async function first<T>(iterable: AsyncIterable<T>, pred: (v: T) => boolean = () => true): Promise<T> {
  for await (const v of iterable) if (pred(v)) return v;
  throw new Error('subscription ended');
}

before(async () => {
  node = await startTestNode({ rootDepth: 4 });
  rpc = createSolanaRpc(node.rpcUrl);
  rpcSubscriptions = createSolanaRpcSubscriptions(node.pubsubUrl);
  payer = await createKeyPairSignerFromBytes(node.keys.devAccounts[7]!.secretKey);
});

after(async () => {
  abort.abort();
  await node?.stop();
});

describe('@solana/kit rpcSubscriptions', () => {
  it('sendAndConfirmTransactionFactory confirms a transfer at confirmed and at finalized', async () => {
    const sendAndConfirm = sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions });
    const to = (await generateKeyPairSigner()).address;
    for (const commitment of ['confirmed', 'finalized'] as const) {
      const tx = await signedTransfer(to, 1_000_000_000n);
      await sendAndConfirm(tx as Parameters<typeof sendAndConfirm>[0], { commitment });
      const sig = getSignatureFromTransaction(tx);
      const { value } = await rpc.getSignatureStatuses([sig]).send();
      assert.equal(value[0]!.err, null);
      // At finalized the first status check cannot pass yet (roots trail by 4 slots): the
      // signatureNotification is what confirmed it.
      assert.ok(commitment === 'confirmed' ? value[0]!.confirmationStatus !== 'processed' : value[0]!.confirmationStatus === 'finalized');
    }
    const { value: balance } = await rpc.getBalance(to, { commitment: 'finalized' }).send();
    assert.equal(balance, 2_000_000_000n);
  });

  it('accountNotifications, logsNotifications and signatureNotifications for one transfer', async () => {
    const to = (await generateKeyPairSigner()).address;
    const signal = abort.signal;
    const accounts = await rpcSubscriptions.accountNotifications(to, { commitment: 'confirmed', encoding: 'base64' }).subscribe({ abortSignal: signal });
    const logs = await rpcSubscriptions.logsNotifications({ mentions: [to] }, { commitment: 'processed' }).subscribe({ abortSignal: signal });
    const tx = await signedTransfer(to, 3_000_000_000n);
    const sig = getSignatureFromTransaction(tx);
    const signature = await rpcSubscriptions
      .signatureNotifications(sig, { commitment: 'finalized', enableReceivedNotification: true })
      .subscribe({ abortSignal: signal });
    await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64', skipPreflight: true }).send();

    const account = await first(accounts);
    assert.equal(account.value.lamports, 3_000_000_000n);
    assert.equal(account.value.owner, SYSTEM);
    assert.deepEqual(account.value.data, ['', 'base64']);
    const slot = account.context.slot;

    const log = await first(logs);
    assert.equal(log.value.signature, sig);
    assert.equal(log.value.err, null);
    assert.equal(log.context.slot, slot);
    assert.deepEqual(log.value.logs, [`Program ${SYSTEM} invoke [1]`, `Program ${SYSTEM} success`]);

    const received = await first(signature);
    assert.equal(received.value, 'receivedSignature');
    const final = await first(signature);
    assert.deepEqual(final.value, { err: null });
    assert.equal(final.context.slot, slot);
    assert.ok(BigInt(node.chain.rootSlot) >= slot);
  });

  it('programNotifications with a filter', async () => {
    const signal = abort.signal;
    const sub = await rpcSubscriptions
      .programNotifications(SYSTEM, { commitment: 'processed', encoding: 'base64', filters: [{ dataSize: 0n }] })
      .subscribe({ abortSignal: signal });
    const to = (await generateKeyPairSigner()).address;
    const tx = await signedTransfer(to, 4_000_000_000n);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64', skipPreflight: true }).send();
    const n = await first(sub, (v) => v.value.pubkey === to);
    assert.equal(n.value.account.lamports, 4_000_000_000n);
    assert.equal(n.value.account.space, 0n);
  });

  it('slotNotifications and rootNotifications', async () => {
    const signal = abort.signal;
    const slots = await rpcSubscriptions.slotNotifications().subscribe({ abortSignal: signal });
    const roots = await rpcSubscriptions.rootNotifications().subscribe({ abortSignal: signal });
    const a = await first(slots);
    const b = await first(slots);
    assert.equal(b.slot, a.slot + 1n);
    assert.equal(b.parent, a.slot);
    const r1 = await first(roots);
    const r2 = await first(roots);
    assert.equal(r2, r1 + 1n);
  });
});
