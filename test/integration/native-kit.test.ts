/**
 * The native JSON-RPC against @solana/kit: its RPC client turns every number into a bigint and its
 * transaction code builds and signs the wire bytes itself, so this checks the node's shapes and its
 * transaction parsing from a second, independent client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  estimateResourceLimitsFactory,
  fetchEncodedAccount,
  fetchJsonParsedAccount,
  generateKeyPairSigner,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  getTransactionDecoder,
  isSolanaError,
  lamports,
  pipe,
  sendAndConfirmDurableNonceTransactionFactory,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  setTransactionMessageLifetimeUsingDurableNonce,
  signTransactionMessageWithSigners,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Nonce,
  type Rpc,
  type RpcSubscriptions,
  type Signature,
  type SolanaRpcApi,
  type SolanaRpcSubscriptionsApi,
  type TransactionSigner,
} from '@solana/kit';
import { startTestNode, waitFor, type TestNode } from '../helpers/node.ts';

const SYSTEM = address('11111111111111111111111111111111');
const SYSVAR_RENT = address('SysvarRent111111111111111111111111111111111');
const SYSVAR_RECENT_BLOCKHASHES = address('SysvarRecentB1ockHashes11111111111111111111');
const LAMPORTS_PER_SOL = 1_000_000_000n;
const FEE = 5000n;

let node: TestNode;
let rpc: Rpc<SolanaRpcApi>;
let subs: RpcSubscriptions<SolanaRpcSubscriptionsApi>;
let dev: KeyPairSigner[];

// ---- System program instructions, built by hand (no @solana-program/system here) ----

function u32u64(tag: number, n: bigint): Uint8Array {
  const b = new Uint8Array(12);
  const v = new DataView(b.buffer);
  v.setUint32(0, tag, true);
  v.setBigUint64(4, n, true);
  return b;
}

function transferIx(from: TransactionSigner, to: Address, amount: bigint): Instruction {
  return {
    programAddress: SYSTEM,
    accounts: [
      { address: from.address, role: AccountRole.WRITABLE_SIGNER, signer: from } as never,
      { address: to, role: AccountRole.WRITABLE },
    ],
    data: u32u64(2, amount),
  };
}

function createAccountIx(from: TransactionSigner, to: TransactionSigner, amount: bigint, space: bigint, owner: Address): Instruction {
  const data = new Uint8Array(52);
  const v = new DataView(data.buffer);
  v.setUint32(0, 0, true);
  v.setBigUint64(4, amount, true);
  v.setBigUint64(12, space, true);
  data.set(addressBytes(owner), 20);
  return {
    programAddress: SYSTEM,
    accounts: [
      { address: from.address, role: AccountRole.WRITABLE_SIGNER, signer: from } as never,
      { address: to.address, role: AccountRole.WRITABLE_SIGNER, signer: to } as never,
    ],
    data,
  };
}

function initializeNonceIx(nonce: Address, authority: Address): Instruction {
  const data = new Uint8Array(36);
  new DataView(data.buffer).setUint32(0, 6, true);
  data.set(addressBytes(authority), 4);
  return {
    programAddress: SYSTEM,
    accounts: [
      { address: nonce, role: AccountRole.WRITABLE },
      { address: SYSVAR_RECENT_BLOCKHASHES, role: AccountRole.READONLY },
      { address: SYSVAR_RENT, role: AccountRole.READONLY },
    ],
    data,
  };
}

function addressBytes(a: Address): Uint8Array {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let n = 0n;
  for (const c of a) n = n * 58n + BigInt(alphabet.indexOf(c));
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}

async function signedTransfer(from: KeyPairSigner, to: Address, amount: bigint, version: 0 | 'legacy' = 0) {
  const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayerSigner(from, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) => appendTransactionMessageInstruction(transferIx(from, to, amount), m),
  );
  return signTransactionMessageWithSigners(message);
}

type SignatureStatus = NonNullable<Awaited<ReturnType<ReturnType<Rpc<SolanaRpcApi>['getSignatureStatuses']>['send']>>['value'][number]>;

/** kit makes bigints of most numbers in errors too; compare them as plain JSON. */
const plain = (v: unknown) => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? Number(x) : x)));

/** Waits until the signature is at least confirmed; returns its status. */
async function confirmed(sig: Signature): Promise<SignatureStatus> {
  return (await waitFor<SignatureStatus | null>(
    async () => {
      const [s] = (await rpc.getSignatureStatuses([sig]).send()).value;
      return s && s.confirmationStatus !== 'processed' ? s : null;
    },
    { what: `${sig} to be confirmed` },
  ))!;
}

before(async () => {
  node = await startTestNode();
  rpc = createSolanaRpc(node.rpcUrl);
  subs = createSolanaRpcSubscriptions(node.pubsubUrl);
  dev = await Promise.all(node.keys.devAccounts.slice(0, 4).map((k) => createKeyPairSignerFromBytes(k.secretKey)));
});

after(async () => {
  await node?.stop();
});

describe('native JSON-RPC with @solana/kit', () => {
  it('getSlot, getLatestBlockhash, getBalance: bigints and contexts', async () => {
    const slot = await rpc.getSlot({ commitment: 'processed' }).send();
    assert.equal(typeof slot, 'bigint');
    const { context, value } = await rpc.getLatestBlockhash({ commitment: 'finalized' }).send();
    assert.equal(typeof context.slot, 'bigint');
    assert.equal(value.lastValidBlockHeight, context.slot + 150n);
    assert.equal(getBase58Encoder().encode(value.blockhash).length, 32);
    const balance = await rpc.getBalance(dev[0]!.address).send();
    assert.equal(balance.value, lamports(100_000n * LAMPORTS_PER_SOL));
    assert.equal((await rpc.getBalance((await generateKeyPairSigner()).address).send()).value, 0n);
  });

  it('simulateTransaction and sendTransaction (base64) of a kit-built v0 transfer', async () => {
    const from = dev[0]!;
    const to = (await generateKeyPairSigner()).address;
    const tx = await signedTransfer(from, to, LAMPORTS_PER_SOL);
    const wire = getBase64EncodedWireTransaction(tx);

    const sim = await rpc.simulateTransaction(wire, { encoding: 'base64', sigVerify: true, commitment: 'confirmed' }).send();
    assert.equal(sim.value.err, null);
    assert.deepEqual(sim.value.logs, [`Program ${SYSTEM} invoke [1]`, `Program ${SYSTEM} success`]);
    assert.equal(sim.value.unitsConsumed, 150n);
    assert.equal(sim.value.replacementBlockhash, null);
    const withAccounts = await rpc
      .simulateTransaction(wire, { encoding: 'base64', replaceRecentBlockhash: true, accounts: { encoding: 'base64', addresses: [to] } })
      .send();
    assert.equal(withAccounts.value.accounts![0]!.lamports, LAMPORTS_PER_SOL);
    assert.equal(typeof withAccounts.value.replacementBlockhash?.lastValidBlockHeight, 'bigint');
    // Base-58 account data is refused, as Agave refuses it (kit's types offer no such encoding).
    for (const encoding of ['base58', 'binary']) {
      await assert.rejects(
        // @ts-expect-error kit's types give simulateTransaction's accounts only base64, base64+zstd and jsonParsed
        rpc.simulateTransaction(wire, { encoding: 'base64', accounts: { encoding, addresses: [to] } }).send(),
        (e: unknown) => isSolanaError(e, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS) && e.context.__serverMessage === 'base58 encoding not supported',
      );
    }

    const sig = await rpc.sendTransaction(wire, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
    assert.equal(sig, getSignatureFromTransaction(tx));
    const status = await confirmed(sig);
    assert.equal(status.err, null);
    assert.equal(typeof status.slot, 'bigint');
    assert.equal((await rpc.getBalance(to, { commitment: 'confirmed' }).send()).value, LAMPORTS_PER_SOL);

    // getTransaction: json and base64 (the stored wire is exactly what kit sent).
    const got = await rpc.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
    assert.ok(got);
    assert.equal(got.version, 0);
    assert.equal(got.slot, status.slot);
    assert.equal(got.meta!.fee, FEE);
    assert.deepEqual(got.meta!.preBalances, [100_000n * LAMPORTS_PER_SOL, 0n, 1n]);
    assert.deepEqual(got.meta!.postBalances, [100_000n * LAMPORTS_PER_SOL - LAMPORTS_PER_SOL - FEE, LAMPORTS_PER_SOL, 1n]);
    assert.deepEqual(got.meta!.logMessages, [`Program ${SYSTEM} invoke [1]`, `Program ${SYSTEM} success`]);
    assert.deepEqual(got.transaction.message.accountKeys, [from.address, to, SYSTEM]);
    assert.equal(got.meta!.computeUnitsConsumed, 150n);
    const b64 = await rpc.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'base64' }).send();
    assert.equal(b64!.transaction[0], wire);
    const decoded = getTransactionDecoder().decode(Buffer.from(b64!.transaction[0], 'base64'));
    assert.deepEqual(Object.keys(decoded.signatures), [from.address]);

    // getBlock: the transaction is in its block, with the fee reward to the identity.
    const block = await rpc.getBlock(status.slot, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, transactionDetails: 'full', encoding: 'json' }).send();
    assert.ok(block);
    assert.equal(block.blockHeight, status.slot);
    assert.equal(block.parentSlot, status.slot - 1n);
    assert.ok(block.transactions.some((t) => t.transaction.signatures[0] === sig && t.version === 0));
    assert.equal(block.rewards[0]!.pubkey, node.keys.identity.address);
    assert.equal(block.rewards[0]!.rewardType, 'Fee');
    assert.equal(typeof block.rewards[0]!.lamports, 'bigint');
    const sigs = await rpc.getBlock(status.slot, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, transactionDetails: 'signatures', rewards: false }).send();
    assert.ok(sigs!.signatures.includes(sig));

    // getSignaturesForAddress: newest first, kit's bigint slots and timestamps.
    const history = await rpc.getSignaturesForAddress(to, { commitment: 'confirmed' }).send();
    assert.equal(history.length, 1);
    assert.equal(history[0]!.signature, sig);
    assert.equal(history[0]!.slot, status.slot);
    assert.equal(history[0]!.err, null);
    assert.equal(history[0]!.memo, null);
    assert.equal(typeof history[0]!.blockTime, 'bigint');
  });

  it('a legacy transaction and a failing one through kit', async () => {
    const from = dev[1]!;
    const to = (await generateKeyPairSigner()).address;
    const legacy = await signedTransfer(from, to, LAMPORTS_PER_SOL, 'legacy');
    const sig = await rpc.sendTransaction(getBase64EncodedWireTransaction(legacy), { encoding: 'base64' }).send();
    assert.equal((await confirmed(sig)).err, null);
    const got = await rpc.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
    assert.equal(got!.version, 'legacy');

    const poor = await generateKeyPairSigner();
    const funded = await signedTransfer(from, poor.address, LAMPORTS_PER_SOL);
    await confirmed(await rpc.sendTransaction(getBase64EncodedWireTransaction(funded), { encoding: 'base64' }).send());
    const tooMuch = await signedTransfer(poor, to, 2n * LAMPORTS_PER_SOL);
    await assert.rejects(rpc.sendTransaction(getBase64EncodedWireTransaction(tooMuch), { encoding: 'base64', preflightCommitment: 'confirmed' }).send(), (e: unknown) => {
      assert.ok(isSolanaError(e, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE));
      assert.deepEqual(e.context.logs, [
        `Program ${SYSTEM} invoke [1]`,
        `Transfer: insufficient lamports ${LAMPORTS_PER_SOL - FEE}, need ${2n * LAMPORTS_PER_SOL}`,
        `Program ${SYSTEM} failed: custom program error: 0x1`,
      ]);
      // kit turns the preflight's `err` into a typed cause: custom error 1 of instruction 0.
      assert.ok(isSolanaError(e.cause, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM));
      assert.equal(e.cause.context.code, 1);
      assert.equal(e.cause.context.index, 0);
      assert.equal(e.context.unitsConsumed, 150n);
      return true;
    });
    const failed = await rpc.sendTransaction(getBase64EncodedWireTransaction(tooMuch), { encoding: 'base64', skipPreflight: true }).send();
    const status = await confirmed(failed);
    assert.deepEqual(plain(status.err), { InstructionError: [0, { Custom: 1 }] });
    assert.equal((await rpc.getBalance(poor.address, { commitment: 'confirmed' }).send()).value, LAMPORTS_PER_SOL - FEE);
  });

  it('getAccountInfo and getMultipleAccounts: base64, jsonParsed, missing accounts', async () => {
    const owner = dev[2]!;
    const info = await rpc.getAccountInfo(owner.address, { encoding: 'base64', commitment: 'confirmed' }).send();
    assert.deepEqual(info.value?.data, ['', 'base64']);
    assert.equal(info.value?.owner, SYSTEM);
    assert.equal(info.value?.executable, false);
    assert.equal(typeof (info.value as { rentEpoch?: unknown } | null)?.rentEpoch, 'bigint'); // kit's type leaves it out; the node sends it
    assert.equal(info.value?.space, 0n);

    const rent = await rpc.getAccountInfo(SYSVAR_RENT, { encoding: 'jsonParsed' }).send();
    const parsedRent = rent.value!.data as unknown as { program: string; parsed: { type: string; info: Record<string, unknown> } };
    assert.equal(parsedRent.program, 'sysvar');
    assert.equal(parsedRent.parsed.type, 'rent');
    assert.equal(parsedRent.parsed.info.lamportsPerByteYear, '3480'); // a StringAmount, as Agave's UiRent
    assert.equal(parsedRent.parsed.info.exemptionThreshold, 2);

    const missing = (await generateKeyPairSigner()).address;
    const many = await rpc.getMultipleAccounts([owner.address, missing, SYSVAR_RENT], { encoding: 'base64' }).send();
    assert.equal(many.value.length, 3);
    assert.equal(many.value[0]!.lamports, (await rpc.getBalance(owner.address).send()).value);
    assert.equal(many.value[1], null);
    assert.equal(many.value[2]!.data[1], 'base64');
    assert.equal(Buffer.from(many.value[2]!.data[0], 'base64').length, 17);
    assert.equal((await rpc.getAccountInfo(missing).send()).value, null);

    // kit's account helpers on top of the same methods.
    const encoded = await fetchEncodedAccount(rpc, owner.address);
    assert.ok(encoded.exists);
    assert.equal(encoded.data.length, 0);
    const parsed = await fetchJsonParsedAccount<{ lamportsPerByteYear: string; burnPercent: number }>(rpc, SYSVAR_RENT);
    assert.ok(parsed.exists && !(parsed.data instanceof Uint8Array));
    assert.equal(parsed.data.lamportsPerByteYear, '3480');
    assert.equal(parsed.data.burnPercent, 50);
  });

  it('kit end to end: sendAndConfirm over PubSub, compute-unit estimate, a durable nonce', async () => {
    const payer = dev[3]!;
    const sendAndConfirm = sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions: subs });
    const nonce = await generateKeyPairSigner();
    const rentExempt = await rpc.getMinimumBalanceForRentExemption(80n).send();
    const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const createNonce = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) => appendTransactionMessageInstructions([createAccountIx(payer, nonce, rentExempt, 80n, SYSTEM), initializeNonceIx(nonce.address, payer.address)], m),
    );
    const estimate = estimateResourceLimitsFactory({ rpc });
    // Two system instructions (150 each) plus the SetComputeUnitLimit kit adds while estimating (150).
    assert.equal((await estimate(createNonce)).computeUnitLimit, 450);
    const signed = await signTransactionMessageWithSigners(createNonce);
    await sendAndConfirm(signed as Parameters<typeof sendAndConfirm>[0], { commitment: 'confirmed' });

    const parsed = await rpc.getAccountInfo(nonce.address, { encoding: 'jsonParsed', commitment: 'confirmed' }).send();
    const data = parsed.value!.data as unknown as { program: string; parsed: { type: string; info: { authority: string; blockhash: string; feeCalculator: { lamportsPerSignature: string } } } };
    assert.equal(data.program, 'nonce');
    assert.equal(data.parsed.type, 'initialized');
    assert.equal(data.parsed.info.authority, payer.address);
    assert.equal(data.parsed.info.feeCalculator.lamportsPerSignature, '5000');
    const storedNonce = data.parsed.info.blockhash as Nonce;

    // A later bank is needed before the nonce may advance (it advances once per blockhash).
    const created = (await rpc.getSignaturesForAddress(nonce.address, { commitment: 'confirmed' }).send())[0]!.slot;
    await waitFor(async () => (await rpc.getSlot({ commitment: 'confirmed' }).send()) > created, { what: 'a newer confirmed slot' });
    const to = (await generateKeyPairSigner()).address;
    const durable = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingDurableNonce({ nonce: storedNonce, nonceAccountAddress: nonce.address, nonceAuthorityAddress: payer.address }, m),
      (m) => appendTransactionMessageInstruction(transferIx(payer, to, LAMPORTS_PER_SOL), m),
    );
    const durableSigned = await signTransactionMessageWithSigners(durable);
    const sendDurable = sendAndConfirmDurableNonceTransactionFactory({ rpc, rpcSubscriptions: subs });
    await sendDurable(durableSigned as Parameters<typeof sendDurable>[0], { commitment: 'confirmed' });
    assert.equal((await rpc.getBalance(to, { commitment: 'confirmed' }).send()).value, LAMPORTS_PER_SOL);
    const after = await rpc.getAccountInfo(nonce.address, { encoding: 'jsonParsed', commitment: 'confirmed' }).send();
    assert.notEqual((after.value!.data as unknown as typeof data).parsed.info.blockhash, storedNonce);
  });
});
