/**
 * Back-pressure on the EVM port: the pool takes, not yet executed, what the node executes in a block
 * and then answers geth's "txpool is full" (-32000), taking nothing; once blocks drain it, the same
 * transaction is taken.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Transaction, Wallet } from 'ethers';
import { deriveEvmKeys } from '../../node-core/keys/evm-keys.ts';
import { rpc, rpcBatch, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';

const WORDS = 'test test test test test test test test test test test junk';
/**
 * Sends per JSON-RPC batch (a batch's body stays under the 50 KB request limit), batches in flight at
 * once, and how many are signed before any of them is sent: the burst is not paced by the client's
 * signing, which on a busy machine let the node execute as fast as sends came and never fill its pool.
 */
const BATCH = 128;
const BATCHES_IN_FLIGHT = 8;
const SIGNED_AHEAD = BATCH * BATCHES_IN_FLIGHT;
const MAX_SENDS = 8_192;

describe('EVM pool limit', () => {
  let node: TestNode;
  let alice: Wallet;

  before(async () => {
    // Long slots: the burst arrives well within one block, so the pool fills before blocks drain it.
    node = await startTestNode({ mnemonic: WORDS, slotMs: 2_000 });
    alice = new Wallet(Buffer.from(deriveEvmKeys(WORDS, 1)[0]!.privateKey).toString('hex'));
  });
  after(() => node.stop());

  const sign = (nonce: number, from: Wallet = alice) =>
    from.signTransaction({ to: '0x000000000000000000000000000000000000beef', value: 1n, nonce, gasLimit: 21_000n, maxFeePerGas: 20_000_000_000n, maxPriorityFeePerGas: 0n, chainId: 5705n, type: 2 });

  test('a burst past the pool is refused with "txpool is full", nothing taken, and taken once drained', async () => {
    let nonce = 0;
    let refused: { raw: string; error: { code: number; message: string } } | null = null;
    while (!refused && nonce < MAX_SENDS) {
      const raws = await Promise.all(Array.from({ length: SIGNED_AHEAD }, (_, i) => sign(nonce + i)));
      const batches = Array.from({ length: BATCHES_IN_FLIGHT }, (_, b) => raws.slice(b * BATCH, (b + 1) * BATCH));
      const answers = (await Promise.all(batches.map((batch) => rpcBatch(node.evmRpcUrl, batch.map((raw) => ['eth_sendRawTransaction', [raw]] as const))))).flat();
      // In nonce order: the first refusal is the one checked below (a later nonce may have been taken meanwhile, waiting for it).
      for (const [i, a] of answers.entries()) {
        if (a.error) {
          refused = { raw: raws[i]!, error: a.error };
          break;
        }
        nonce++;
      }
    }
    assert.ok(refused, `the pool never refused (${nonce} taken)`);
    assert.deepEqual(refused.error, { code: -32000, message: 'txpool is full' });
    assert.ok(nonce >= 256, `refused after only ${nonce}`);
    const taken = nonce;

    // Nothing of the refused transaction was kept.
    const refusedHash = Transaction.from(refused.raw).hash!;
    assert.equal((await rpc(node.evmRpcUrl, 'eth_getTransactionByHash', [refusedHash])).result, null);

    // Once blocks have executed what was taken, the pool takes more.
    await waitFor(async () => Number((await rpc(node.evmRpcUrl, 'eth_getTransactionCount', [alice.address, 'latest'])).result) >= taken, { timeoutMs: 120_000, what: 'the taken transactions executed' });
    const next = await sign(Number((await rpc(node.evmRpcUrl, 'eth_getTransactionCount', [alice.address, 'pending'])).result));
    const answer = await rpc(node.evmRpcUrl, 'eth_sendRawTransaction', [next]);
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    assert.match(answer.result, /^0x[0-9a-f]{64}$/);
  });

  test('a pool full of transactions queued behind a nonce gap still takes the one that fills it, and then all of them run', async () => {
    const bob = new Wallet(Buffer.from(deriveEvmKeys(WORDS, 2)[1]!.privateKey).toString('hex'));
    const start = Number((await rpc(node.evmRpcUrl, 'eth_getTransactionCount', [bob.address, 'pending'])).result);
    // Nonces after a gap at `start` are queued until the pool refuses the next one.
    let queued = 0;
    for (;;) {
      const raws = await Promise.all(Array.from({ length: BATCH }, (_, i) => sign(start + 1 + queued + i, bob)));
      const answers = await rpcBatch(node.evmRpcUrl, raws.map((raw) => ['eth_sendRawTransaction', [raw]] as const));
      const refusedAt = answers.findIndex((a) => a.error);
      if (refusedAt < 0) {
        queued += BATCH;
        assert.ok(queued < MAX_SENDS, 'the pool never refused a queued transaction');
        continue;
      }
      assert.deepEqual(answers[refusedAt]!.error, { code: -32000, message: 'txpool is full' });
      queued += refusedAt;
      break;
    }
    const gap = await rpc(node.evmRpcUrl, 'eth_sendRawTransaction', [await sign(start, bob)]);
    assert.equal(gap.error, undefined, JSON.stringify(gap.error));
    await waitFor(async () => Number((await rpc(node.evmRpcUrl, 'eth_getTransactionCount', [bob.address, 'latest'])).result) >= start + 1 + queued, {
      timeoutMs: 120_000,
      what: 'the gap filler and every transaction queued behind it executed',
    });
  });
});
