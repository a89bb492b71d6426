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
const clients = (rpcUrl: string, pubsubUrl: string) => ({ rpc: createSolanaRpc(rpcUrl), rpcSubscriptions: createSolanaRpcSubscriptions(pubsubUrl) });
let rpc: ReturnType<typeof clients>['rpc'];
let rpcSubscriptions: ReturnType<typeof clients>['rpcSubscriptions'];
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

/**
 * Reads a subscription from now on: kit's iterators only hear notifications once polled, so a
 * background loop polls at once and buffers; `read(pred)` takes the first matching item.
 */
function reader<T>(iterable: AsyncIterable<T>) {
  const buffer: T[] = [];
  let wake = (): void => {};
  let ended = false;
  void (async () => {
    try {
      for await (const v of iterable) {
        buffer.push(v);
        wake();
      }
    } finally {
      ended = true;
      wake();
    }
  })().catch(() => {});
  return async (pred: (v: T) => boolean = () => true): Promise<T> => {
    for (;;) {
      const i = buffer.findIndex(pred);
      if (i >= 0) return buffer.splice(i, 1)[0]!;
      if (ended) throw new Error('subscription ended');
      await new Promise<void>((r) => (wake = r));
    }
  };
}

before(async () => {
  node = await startTestNode({ rootDepth: 4 });
  ({ rpc, rpcSubscriptions } = clients(node.rpcUrl, node.pubsubUrl));
  payer = await createKeyPairSignerFromBytes(node.keys.devAccounts[7]!.secretKey);
});

after(async () => {
  abort.abort();
  await node?.stop();
});

describe('@solana/kit rpcSubscriptions', () => {
  it('sendAndConfirmTransactionFactory sends a transfer and confirms it over signatureNotifications', async () => {
    const sendAndConfirm = sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions });
    const to = (await generateKeyPairSigner()).address;
    for (let i = 1n; i <= 3n; i++) {
      const tx = await signedTransfer(to, i * 1_000_000_000n);
      await sendAndConfirm(tx as Parameters<typeof sendAndConfirm>[0], { commitment: 'confirmed' });
      const { value } = await rpc.getSignatureStatuses([getSignatureFromTransaction(tx)]).send();
      assert.equal(value[0]!.err, null);
      assert.notEqual(value[0]!.confirmationStatus, 'processed');
    }
    const { value: balance } = await rpc.getBalance(to, { commitment: 'confirmed' }).send();
    assert.equal(balance, 6_000_000_000n);
  });

  it('sendAndConfirm at finalized (kit omits the commitment) returns only once the transfer is rooted', async () => {
    const sendAndConfirm = sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions });
    const to = (await generateKeyPairSigner()).address;
    const tx = await signedTransfer(to, 2_000_000_000n);
    await sendAndConfirm(tx as Parameters<typeof sendAndConfirm>[0], { commitment: 'finalized' });
    const { value } = await rpc.getSignatureStatuses([getSignatureFromTransaction(tx)]).send();
    assert.equal(value[0]!.confirmationStatus, 'finalized');
    const { value: balance } = await rpc.getBalance(to).send();
    assert.equal(balance, 2_000_000_000n, 'the finalized bank already has the transfer');
  });

  it('accountNotifications, logsNotifications and signatureNotifications for one transfer', async () => {
    const to = (await generateKeyPairSigner()).address;
    const signal = abort.signal;
    const accounts = reader(await rpcSubscriptions.accountNotifications(to, { commitment: 'confirmed', encoding: 'base64' }).subscribe({ abortSignal: signal }));
    const logs = reader(await rpcSubscriptions.logsNotifications({ mentions: [to] }, { commitment: 'processed' }).subscribe({ abortSignal: signal }));
    const tx = await signedTransfer(to, 3_000_000_000n);
    const sig = getSignatureFromTransaction(tx);
    const signature = reader(
      await rpcSubscriptions.signatureNotifications(sig, { commitment: 'confirmed', enableReceivedNotification: true }).subscribe({ abortSignal: signal }),
    );
    await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64', skipPreflight: true }).send();

    const account = await accounts();
    assert.equal(account.value.lamports, 3_000_000_000n);
    assert.equal(account.value.owner, SYSTEM);
    assert.deepEqual(account.value.data, ['', 'base64']);
    const slot = account.context.slot;

    const log = await logs();
    assert.equal(log.value.signature, sig);
    assert.equal(log.value.err, null);
    assert.equal(log.context.slot, slot);
    assert.deepEqual(log.value.logs, [`Program ${SYSTEM} invoke [1]`, `Program ${SYSTEM} success`]);

    const received = await signature();
    assert.equal(received.value, 'receivedSignature');
    const final = await signature();
    assert.deepEqual(final.value, { err: null });
    assert.equal(final.context.slot, slot);
    assert.ok(BigInt(node.chain.confirmedSlot) >= slot);
  });

  it('programNotifications with a filter', async () => {
    const signal = abort.signal;
    const sub = reader(
      await rpcSubscriptions
        .programNotifications(SYSTEM, { commitment: 'processed', encoding: 'base64', filters: [{ dataSize: 0n }] })
        .subscribe({ abortSignal: signal }),
    );
    const to = (await generateKeyPairSigner()).address;
    const tx = await signedTransfer(to, 4_000_000_000n);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64', skipPreflight: true }).send();
    const n = await sub((v) => v.value.pubkey === to);
    assert.equal(n.value.account.lamports, 4_000_000_000n);
    assert.equal(n.value.account.space, 0n);
  });

  it('slotNotifications and rootNotifications', async () => {
    const signal = abort.signal;
    const slots = reader(await rpcSubscriptions.slotNotifications().subscribe({ abortSignal: signal }));
    const roots = reader(await rpcSubscriptions.rootNotifications().subscribe({ abortSignal: signal }));
    const a = await slots();
    const b = await slots();
    assert.equal(b.slot, a.slot + 1n);
    assert.equal(b.parent, a.slot);
    const r1 = await roots();
    const r2 = await roots();
    assert.equal(r2, r1 + 1n);
  });
});
