import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import bs58 from 'bs58';
import { keypairFromSeed } from '../../node-core/keys/keypair.ts';
import { INVALID_PARAMS, RpcError } from '../../node-core/rpc/errors.ts';
import { decodeSubmissionHere, SubmissionDecoder, type DecodedSubmission } from '../../node-core/rpc/submission-decoder.ts';
import { serializeTransaction } from '../../node-core/runtime/wire.ts';
import { buildTransaction, transferIx } from '../helpers/tx-builder.ts';
import { waitFor } from '../helpers/node.ts';
import { Wallet } from 'ethers';
import { createEvmCommon } from '../../node-core/evm/evm-common.ts';
import { wrapInOne } from '../../node-core/evm/relay-wrap.ts';
import { TransactionDecoder, type DecodedTransaction } from '../../node-core/evm/transaction.ts';

const BLOCKHASH = bs58.encode(new Uint8Array(32).fill(3));
const alice = keypairFromSeed(new Uint8Array(32).fill(21));
const bob = keypairFromSeed(new Uint8Array(32).fill(22));
const good = buildTransaction(alice, [transferIx(alice.address, bob.address, 5)], BLOCKHASH);
const forged = serializeTransaction([new Uint8Array(64).fill(9)], good.message.bytes);
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** The answers a decoder gives for a good transaction, a forged signature and three bad texts. */
async function answers(decode: (encoded: string, encoding: 'base58' | 'base64') => Promise<DecodedSubmission>): Promise<unknown[]> {
  const settle = (p: Promise<DecodedSubmission>) =>
    p.then(
      ({ tx, verified }) => ({ id: tx.id, wire: Buffer.from(tx.wire).toString('hex'), keys: tx.message.accountKeys, messageBytes: Buffer.from(tx.message.bytes).toString('hex'), verified }),
      (e: unknown) => (e instanceof RpcError ? { code: e.code, message: e.message } : { unexpected: String(e) }),
    );
  return Promise.all([
    settle(decode(b64(good.wire), 'base64')),
    settle(decode(bs58.encode(good.wire), 'base58')),
    settle(decode(b64(forged), 'base64')),
    settle(decode('@@@@', 'base64')),
    settle(decode('0OIl', 'base58')),
    settle(decode(b64(good.wire.subarray(0, 100)), 'base64')),
  ]);
}

describe('SubmissionDecoder', () => {
  it('answers on its worker thread exactly as on the event loop: the parsed transaction, whether it is signed, the invalid-params errors', async () => {
    const here = await answers(decodeSubmissionHere);
    assert.deepEqual(here.slice(0, 3).map((a) => (a as { verified: boolean }).verified), [true, true, false]);
    assert.deepEqual(here.slice(3).map((a) => (a as { code: number }).code), [INVALID_PARAMS, INVALID_PARAMS, INVALID_PARAMS]);
    const decoder = new SubmissionDecoder();
    try {
      // Before the worker is ready, requests are decoded here.
      assert.deepEqual(await answers((e, enc) => decoder.decode(e, enc)), here);
      assert.equal(decoder.runsOnWorker, false);
      assert.equal(await decoder.whenReady(), true);
      assert.deepEqual(await answers((e, enc) => decoder.decode(e, enc)), here);
      assert.equal(decoder.runsOnWorker, true, 'the worker thread answered');
    } finally {
      await decoder.close();
    }
    // Closed, it still answers (on the event loop).
    assert.deepEqual(await answers((e, enc) => decoder.decode(e, enc)), here);
  });

  it('decodes on the event loop when its worker cannot start', async () => {
    const here = await answers(decodeSubmissionHere);
    const decoder = new SubmissionDecoder(new URL('./no-such-worker.mjs', import.meta.url));
    try {
      assert.deepEqual(await answers((e, enc) => decoder.decode(e, enc)), here);
      assert.equal(await decoder.whenReady(), false);
      assert.deepEqual(await answers((e, enc) => decoder.decode(e, enc)), here);
      assert.equal(decoder.runsOnWorker, false);
    } finally {
      await decoder.close();
    }
  });

  it('keeps a process open while it has requests to answer, and not after', async () => {
    // Nothing else of the node runs in this process: it gets its answer, then ends (an idle worker that
    // held it open would run it into the timeout).
    const script = `
      const { SubmissionDecoder } = await import(${JSON.stringify(new URL('../../node-core/rpc/submission-decoder.ts', import.meta.url).href)});
      const decoder = new SubmissionDecoder();
      await decoder.whenReady();
      decoder.decode('@@@@', 'base64').catch((e) => console.log(e.message, decoder.runsOnWorker));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 60_000 });
    assert.equal(stdout.trim(), 'invalid base64 encoding: the transaction is not padded base-64 text true');
  });

  it("checks Ethereum transactions and recovers their senders on its worker thread as TransactionDecoder does on the event loop", async () => {
    const chainId = 5705;
    const wallet = new Wallet('0x' + '11'.repeat(32));
    const signed = async (fields: object) => Buffer.from((await wallet.signTransaction({ to: '0x' + '22'.repeat(20), value: 1n, nonce: 3, gasLimit: 21000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 0n, type: 2, chainId, ...fields })).slice(2), 'hex');
    const good = await signed({});
    const otherChain = await signed({ chainId: 1 });
    const here = (raw: Uint8Array): DecodedTransaction | string => {
      try {
        return new TransactionDecoder(createEvmCommon(chainId)).decode(raw);
      } catch (e) {
        return (e as Error).message;
      }
    };
    const decoder = new SubmissionDecoder();
    try {
      assert.equal(await decoder.recoverEvm(good, chainId), null, 'before the worker is ready: decoded by the caller');
      assert.equal(await decoder.whenReady(), true);
      const [recovery, refused, garbage] = await Promise.all([decoder.recoverEvm(good, chainId), decoder.recoverEvm(otherChain, chainId), decoder.recoverEvm(new Uint8Array([0xc0, 1]), chainId)]);
      assert.ok(recovery && 'recovered' in recovery);
      const expected = here(good) as DecodedTransaction;
      assert.equal(recovery.recovered.from, wallet.address.toLowerCase());
      assert.equal(recovery.recovered.from, expected.from);
      assert.equal(recovery.recovered.hash, expected.hash);
      assert.deepEqual({ invalid: here(otherChain) }, refused);
      assert.deepEqual({ invalid: here(new Uint8Array([0xc0, 1])) }, garbage);
      // Asked to, it also makes the native transaction that carries it: the relay's own (ed25519 signs deterministically).
      const wrapping = { relayer: keypairFromSeed(new Uint8Array(32).fill(23)), blockhash: BLOCKHASH };
      const withWrap = await decoder.recoverEvm(good, chainId, wrapping);
      assert.ok(withWrap && 'recovered' in withWrap && withWrap.wrapped);
      assert.deepEqual(withWrap.wrapped, wrapInOne(good, expected.tx, wrapping.relayer, BLOCKHASH));
      assert.equal(withWrap.wrapped.message.recentBlockhash, BLOCKHASH);
      // Taken on the event loop: parsed there, sender not recovered again, the same transaction.
      const adopted = new TransactionDecoder(createEvmCommon(chainId)).adopt(good, recovery.recovered);
      assert.equal(adopted.tx.getSenderAddress().toString(), expected.from);
      assert.deepEqual(adopted.tx.getSenderPublicKey(), expected.tx.getSenderPublicKey());
      assert.deepEqual(adopted.tx.hash(), expected.tx.hash());
      assert.equal(adopted.tx.nonce, 3n);
    } finally {
      await decoder.close();
    }
    assert.equal(await decoder.recoverEvm(good, chainId), null, 'closed: decoded by the caller');
  });

  it('stops its worker once idle and starts it again with the next request', async () => {
    const decoder = new SubmissionDecoder(undefined, 200);
    try {
      assert.equal(await decoder.whenReady(), true);
      const here = await answers(decodeSubmissionHere);
      assert.deepEqual(await answers((e, enc) => decoder.decode(e, enc)), here);
      assert.equal(decoder.runsOnWorker, true);
      await waitFor(() => !decoder.workerRunning, { timeoutMs: 30_000, what: 'the idle worker stopped' });
      // Answered on the event loop while the new worker loads, then by it.
      assert.deepEqual(await answers((e, enc) => decoder.decode(e, enc)), here);
      assert.equal(decoder.workerRunning, true);
      assert.equal(await decoder.whenReady(), true);
      assert.deepEqual(await answers((e, enc) => decoder.decode(e, enc)), here);
    } finally {
      await decoder.close();
    }
  });
});
