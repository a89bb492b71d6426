/**
 * What a revert or a reset does to what the node was sent around it, with real clients against a real
 * node: the EVM relay's transactions waiting for a nonce gap are dropped by a revert and by a reset
 * (they were sent in the discarded time; they do not fill a gap later), and sends that arrive while a
 * snapshot, revert or reset holds the chain wait for it and then land: none is taken and lost.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from '@solana/web3.js';
import { JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';
import { chainClients, closeChainClients } from '../helpers/chain-clients.ts';

const WORDS = 'test test test test test test test test test test test junk';

describe('sends around a revert or a reset', () => {
  let node: TestNode;
  let connection: Connection;
  let provider: JsonRpcProvider;
  let alice: Wallet;
  let payer: Keypair;

  before(async () => {
    node = await startTestNode({ mnemonic: WORDS });
    ({ connection, provider, alice, payer } = chainClients(node, WORDS, Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey)));
  });
  after(async () => {
    await closeChainClients({ connection, provider });
    await node.stop();
  });

  const signed = (nonce: number, to: string, value = 1n) =>
    alice.signTransaction({ to, value, nonce, gasLimit: 21_000n, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1n, chainId: node.evm.chainId, type: 2 });
  /**
   * The receipt, polled from the node: after a revert or reset the block numbers go back, and ethers'
   * waitForTransaction waits for a block number it has not seen yet.
   */
  const receiptOf = (hash: string) => waitFor(async () => (await rpc(node.evmRpcUrl, 'eth_getTransactionReceipt', [hash])).result, { timeoutMs: 60_000, what: `the receipt of ${hash}` });
  const pendingNonce = async () => Number((await rpc(node.evmRpcUrl, 'eth_getTransactionCount', [alice.address, 'pending'])).result);

  test('a revert drops the transactions waiting for a nonce gap: a send that fills the gap later does not bring them in', async () => {
    const to = Wallet.createRandom().address;
    const snap = (await rpc(node.evmRpcUrl, 'evm_snapshot', [])).result;
    const n = await pendingNonce();
    await receiptOf((await alice.sendTransaction({ to, value: 1n, nonce: n })).hash);
    // Nonce n+2 waits for n+1.
    const ahead = (await rpc(node.evmRpcUrl, 'eth_sendRawTransaction', [await signed(n + 2, to, 7n)])).result;
    assert.equal((await rpc(node.evmRpcUrl, 'eth_getTransactionByHash', [ahead])).result.blockNumber, null);
    assert.equal(await pendingNonce(), n + 1);

    assert.equal((await rpc(node.evmRpcUrl, 'evm_revert', [snap])).result, true);
    assert.equal((await rpc(node.evmRpcUrl, 'eth_getTransactionByHash', [ahead])).result, null);
    assert.equal(await pendingNonce(), n);
    // n and n+1 again: had n+2 stayed queued, n+1 would have handed it to the chain at once.
    const again = (await rpc(node.evmRpcUrl, 'eth_sendRawTransaction', [await signed(n, to, 2n)])).result;
    const next = (await rpc(node.evmRpcUrl, 'eth_sendRawTransaction', [await signed(n + 1, to, 3n)])).result;
    assert.equal(await pendingNonce(), n + 2);
    await receiptOf(again);
    await receiptOf(next);
    assert.equal(await provider.getBalance(to), 5n);
    assert.equal(await provider.getTransactionCount(alice.address, 'latest'), n + 2);
    // The dropped one can be sent again, and lands.
    const resent = (await rpc(node.evmRpcUrl, 'eth_sendRawTransaction', [await signed(n + 2, to, 7n)])).result;
    assert.equal(resent, ahead);
    await receiptOf(resent);
    assert.equal(await provider.getBalance(to), 12n);
  });

  test('a revert forgets a transaction the chain executed in a discarded slot before its block was visible: the same bytes can be sent again', async () => {
    const to = Wallet.createRandom().address;
    // With the clock paused the slot stays open: the transaction runs in it, and its block is not sealed.
    let sent = '';
    assert.equal((await rpc(node.rpcUrl, 'surfnet_pauseClock', [])).error, undefined);
    try {
      const snap = (await rpc(node.evmRpcUrl, 'evm_snapshot', [])).result;
      const raw = await signed(await pendingNonce(), to, 9n);
      const hash = (await rpc(node.evmRpcUrl, 'eth_sendRawTransaction', [raw])).result;
      await waitFor(async () => BigInt((await rpc(node.evmRpcUrl, 'eth_getBalance', [to, 'pending'])).result) === 9n, { what: 'the transfer executed' });
      assert.equal((await rpc(node.evmRpcUrl, 'eth_getTransactionReceipt', [hash])).result, null, 'not in a visible block yet');

      assert.equal((await rpc(node.evmRpcUrl, 'evm_revert', [snap])).result, true);
      assert.equal((await rpc(node.evmRpcUrl, 'eth_getTransactionByHash', [hash])).result, null);
      assert.equal(BigInt((await rpc(node.evmRpcUrl, 'eth_getBalance', [to, 'pending'])).result), 0n);
      const again = await rpc(node.evmRpcUrl, 'eth_sendRawTransaction', [raw]);
      assert.equal(again.error, undefined, JSON.stringify(again.error));
      assert.equal(again.result, hash);
      sent = hash;
    } finally {
      await rpc(node.rpcUrl, 'surfnet_resumeClock', []);
    }
    await receiptOf(sent);
    assert.equal(await provider.getBalance(to), 9n);
  });

  test('sends that arrive while a revert or reset holds the chain wait for it, then land (EVM, native, airdrop)', async () => {
    const evmTo = Wallet.createRandom().address;
    const nativeTo = Keypair.generate().publicKey;
    const airdropTo = Keypair.generate().publicKey;
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed');
    const nativeTx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight }).add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: nativeTo, lamports: LAMPORTS_PER_SOL }));
    nativeTx.sign(payer);
    const raw = await signed(await pendingNonce(), evmTo, 9n);

    // Hold the chain as a revert or reset does (ChainSnapshots runs them in chain.exclusive).
    let release!: () => void;
    const held = node.chain.exclusive(() => new Promise<void>((resolve) => (release = resolve)));
    await waitFor(() => node.chain.isHeld, { what: 'the chain held' });
    const answered: string[] = [];
    const sends = [
      rpc(node.evmRpcUrl, 'eth_sendRawTransaction', [raw]).then((r) => (answered.push('evm'), r)),
      rpc(node.rpcUrl, 'sendTransaction', [nativeTx.serialize().toString('base64'), { encoding: 'base64', preflightCommitment: 'confirmed' }]).then((r) => (answered.push('native'), r)),
      rpc(node.rpcUrl, 'requestAirdrop', [airdropTo.toBase58(), LAMPORTS_PER_SOL]).then((r) => (answered.push('airdrop'), r)),
    ];
    // Calls sent after them are answered (reads do not wait); the sends are not, while the chain is held.
    for (let i = 0; i < 3; i++) await rpc(node.rpcUrl, 'getSlot', []);
    assert.deepEqual(answered, []);
    assert.equal(node.chain.isHeld, true);
    release();
    await held;
    const [evm, native, airdrop] = await Promise.all(sends);
    for (const r of [evm, native, airdrop]) assert.equal(r.error, undefined, JSON.stringify(r.error));
    await receiptOf(evm.result);
    assert.equal(await provider.getBalance(evmTo), 9n);
    await waitFor(async () => (await connection.getBalance(nativeTo, 'confirmed')) === LAMPORTS_PER_SOL, { what: 'the native transfer' });
    await waitFor(async () => (await connection.getBalance(airdropTo, 'confirmed')) === LAMPORTS_PER_SOL, { what: 'the airdrop' });
  });

  test('a reset drops the transactions waiting for a nonce gap too', async () => {
    const to = Wallet.createRandom().address;
    const n = await pendingNonce();
    const ahead = (await rpc(node.evmRpcUrl, 'eth_sendRawTransaction', [await signed(n + 3, to)])).result;
    assert.ok((await rpc(node.evmRpcUrl, 'eth_getTransactionByHash', [ahead])).result);
    assert.equal((await rpc(node.evmRpcUrl, 'anvil_reset', [])).result, null);
    assert.equal((await rpc(node.evmRpcUrl, 'eth_getTransactionByHash', [ahead])).result, null);
    assert.equal(await pendingNonce(), 0);
    // Nonces 0, 1, 2 after the reset do not bring in the one sent as n+3 before it.
    for (let i = 0; i < 3; i++) await rpc(node.evmRpcUrl, 'eth_sendRawTransaction', [await signed(i, to, 1n)]);
    assert.equal(await pendingNonce(), 3);
    await waitFor(async () => (await provider.getTransactionCount(alice.address, 'latest')) === 3, { what: 'the three transfers' });
    assert.equal(await provider.getBalance(to), 3n);
    assert.equal(await provider.getBalance(alice.address) > parseEther('1'), true);
  });
});
