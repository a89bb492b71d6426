/**
 * Snapshots of the whole chain and reverts to them, with real clients against a real node: viem's
 * test client (evm_snapshot/evm_revert as Anvil answers them), one snapshot that a native transfer
 * (web3.js), an EVM transfer (ethers) and a bridge transfer (the transferToNative precompile) are
 * reverted past together, what subscribers hear, the native isthmus_* methods and their bad input,
 * and a revert that survives kill -9 (the real command), after which `isthmus verify-ledger` passes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction, sendAndConfirmTransaction } from '@solana/web3.js';
import { Contract, JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { createTestClient, createWalletClient, defineChain, http as viemHttp, parseEther as viemParseEther } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { BRIDGE_ADDRESS } from '../../node-core/evm/constants.ts';
import { killLeftovers } from '../helpers/cli-process.ts';
import { checkValueConservation } from '../helpers/conservation.ts';
import { rpc, startTestNode, tempLedger, waitFor, type TestNode } from '../helpers/node.ts';
import { startChainProcess } from '../helpers/chain-process.ts';
import { subscribe } from '../helpers/subscription.ts';
import { chainClients, closeChainClients } from '../helpers/chain-clients.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';

const WORDS = 'test test test test test test test test test test test junk';
const BRIDGE_ABI = ['function transferToNative(bytes32 native_recipient) payable'];

after(killLeftovers);

describe('snapshots and revert on a running node', () => {
  let node: TestNode;
  let connection: Connection;
  let provider: JsonRpcProvider;
  let alice: Wallet;
  let payer: Keypair;

  before(async () => {
    node = await startTestNode({ mnemonic: WORDS });
    ({ connection, provider, alice, payer } = chainClients(node, WORDS, Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey)));
  });
  /** The connections afterReverts made, whose sockets are closed before the node stops. */
  const freshConnections: Connection[] = [];
  after(async () => {
    await closeChainClients({ connection, provider });
    for (const fresh of freshConnections) await closeConnectionSocket(fresh);
    await node.stop();
  });

  /**
   * A connection for sends after the earlier tests' reverts. web3.js reuses a blockhash it fetched for
   * up to 30 s; the shared connection's may come from a slot a revert discarded (the first slot after
   * the snapshot comes back with the same blockhash, a later one does not), and a send with it fails
   * preflight with BlockhashNotFound, as on a cluster after a fork switch. Which slot it came from
   * depends on timing; a new connection fetches a blockhash of the chain as it is now.
   */
  const afterReverts = () => {
    const fresh = new Connection(node.rpcUrl, { commitment: 'confirmed', wsEndpoint: node.pubsubUrl });
    freshConnections.push(fresh);
    return fresh;
  };

  test("viem's test client: snapshot, a transfer, revert; the balance, nonce and block number are back", async () => {
    const chain = defineChain({ id: node.evm.chainId, name: 'isthmus', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [node.evmRpcUrl] } } });
    const testClient = createTestClient({ mode: 'anvil', chain, transport: viemHttp(node.evmRpcUrl) });
    const account = mnemonicToAccount(WORDS, { addressIndex: 1 });
    const wallet = createWalletClient({ account, chain, transport: viemHttp(node.evmRpcUrl) });
    const receiver = Wallet.createRandom().address as `0x${string}`;
    const id = await testClient.snapshot();
    assert.match(id, /^0x[0-9a-f]+$/);
    const blockBefore = await provider.getBlockNumber();
    const nonceBefore = await provider.getTransactionCount(account.address, 'latest');
    const hash = await wallet.sendTransaction({ to: receiver, value: viemParseEther('0.25') });
    await waitFor(async () => (await provider.getTransactionReceipt(hash))?.status === 1, { what: 'the transfer' });
    assert.equal(await provider.getBalance(receiver), parseEther('0.25'));

    await testClient.revert({ id });
    assert.equal(await provider.getBalance(receiver), 0n);
    assert.equal(await provider.getTransactionCount(account.address, 'latest'), nonceBefore);
    assert.equal(await provider.getBlockNumber(), blockBefore);
    assert.equal(await provider.getTransactionReceipt(hash), null);
    // The id is spent: Anvil answers false for it now.
    assert.equal(await rpc(node.evmRpcUrl, 'evm_revert', [id]).then((r) => r.result), false);
  });

  test('one snapshot, then a native, an EVM and a bridge transfer; one revert undoes all three, and subscribers hear it', async () => {
    const nativeReceiver = Keypair.generate().publicKey;
    const evmReceiver = Wallet.createRandom().address;
    const bridgeRecipient = Keypair.generate().publicKey;
    const aliceBefore = await provider.getBalance(alice.address);
    const payerBefore = await connection.getBalance(payer.publicKey, 'confirmed');

    const snap = (await rpc(node.rpcUrl, 'isthmus_snapshot', ['before the three transfers'])).result;
    assert.equal(snap.label, 'before the three transfers');
    const evmBlockAtSnapshot = await provider.getBlockNumber();
    assert.equal(snap.evmBlockNumber, evmBlockAtSnapshot);
    assert.deepEqual((await rpc(node.rpcUrl, 'isthmus_getSnapshots', [])).result.find((s: any) => s.id === snap.id), snap);

    const accountSub = await subscribe(node.pubsubUrl, 'accountSubscribe', [nativeReceiver.toBase58(), { commitment: 'confirmed', encoding: 'base64' }]);
    const slotSub = await subscribe(node.pubsubUrl, 'slotSubscribe', []);
    const headsSub = await subscribe(node.evmRpcUrl.replace('http', 'ws'), 'eth_subscribe', ['newHeads']);

    const nativeSig = await sendAndConfirmTransaction(connection, new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: nativeReceiver, lamports: LAMPORTS_PER_SOL })), [payer], { commitment: 'confirmed' });
    const evmTx = await alice.sendTransaction({ to: evmReceiver, value: parseEther('1') });
    await evmTx.wait();
    const bridge = new Contract(BRIDGE_ADDRESS, BRIDGE_ABI, alice);
    const bridgeTx = await bridge.getFunction('transferToNative')(bridgeRecipient.toBytes(), { value: parseEther('2') });
    await bridgeTx.wait();
    await waitFor(async () => (await connection.getBalance(bridgeRecipient, 'confirmed')) === 2 * LAMPORTS_PER_SOL, { what: 'the bridge payout' });
    assert.equal(await connection.getBalance(nativeReceiver, 'confirmed'), LAMPORTS_PER_SOL);
    assert.equal(await provider.getBalance(evmReceiver), parseEther('1'));
    await waitFor(() => accountSub.seen.length > 0, { what: "the transfer's account notification" });
    const nativeSlot = (await connection.getSignatureStatus(nativeSig)).value!.slot;
    assert.ok(nativeSlot > snap.slot);
    const evmHeadBefore = await provider.getBlockNumber();
    assert.ok(evmHeadBefore >= evmBlockAtSnapshot + 2);

    const reverted = (await rpc(node.rpcUrl, 'isthmus_revert', [snap.id])).result;
    assert.equal(reverted.snapshot.id, snap.id);
    assert.ok(reverted.discardedSlots > 0);

    // Balances of all three as they were.
    assert.equal(await connection.getBalance(nativeReceiver, 'confirmed'), 0);
    assert.equal(await connection.getBalance(bridgeRecipient, 'confirmed'), 0);
    assert.equal(await connection.getBalance(payer.publicKey, 'confirmed'), payerBefore);
    assert.equal(await provider.getBalance(evmReceiver), 0n);
    assert.equal(await provider.getBalance(alice.address), aliceBefore);
    // The transactions are gone from every lookup.
    assert.equal(await connection.getTransaction(nativeSig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }), null);
    assert.deepEqual((await connection.getSignatureStatuses([nativeSig], { searchTransactionHistory: true })).value, [null]);
    assert.deepEqual(await connection.getSignaturesForAddress(nativeReceiver), []);
    for (const hash of [evmTx.hash, bridgeTx.hash]) {
      assert.equal((await rpc(node.evmRpcUrl, 'eth_getTransactionReceipt', [hash])).result, null);
      assert.equal((await rpc(node.evmRpcUrl, 'eth_getTransactionByHash', [hash])).result, null);
    }
    // The EVM block number is back, and the native chain goes on from the snapshot's slot.
    assert.equal(await provider.getBlockNumber(), evmBlockAtSnapshot);
    const slotAfter = await connection.getSlot('confirmed');
    assert.ok(slotAfter >= snap.slot && slotAfter < nativeSlot + 1000);
    // A block at the native transfer's slot, if the chain made one again, does not hold it.
    await waitFor(async () => (await connection.getSlot('confirmed')) >= nativeSlot, { what: 'the slot made again' });
    const again = (await rpc(node.rpcUrl, 'getBlock', [nativeSlot, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, transactionDetails: 'signatures' }])).result;
    assert.ok(again === null || !again.signatures.includes(nativeSig));

    // Subscribers: the account's restored state, slots from the snapshot's on, newHeads from its EVM block on.
    await waitFor(() => accountSub.seen.some((n) => n.value.lamports === 0), { what: 'the restored account notification' });
    await waitFor(() => slotSub.seen.some((n) => n.slot === snap.slot + 1 && n.parent === snap.slot), { what: 'the slot after the snapshot again' });
    const evmTx2 = await alice.sendTransaction({ to: evmReceiver, value: parseEther('0.5') });
    const receipt2 = await evmTx2.wait();
    assert.equal(receipt2!.blockNumber, evmBlockAtSnapshot + 1);
    await waitFor(() => headsSub.seen.some((h) => Number(h.number) === evmBlockAtSnapshot + 1 && h.hash === receipt2!.blockHash), { what: 'newHeads from the reverted block on' });
    for (const s of [accountSub, slotSub, headsSub]) s.close();

    // The snapshot was spent; the chain still adds up.
    assert.equal((await rpc(node.rpcUrl, 'isthmus_getSnapshots', [])).result.some((s: any) => s.id === snap.id), false);
    await checkValueConservation(node);
  });

  test('ids answer as Anvil: a revert deletes that snapshot and every later one; a later one answers false or "Resource not found"', async () => {
    const first = (await rpc(node.evmRpcUrl, 'evm_snapshot', [])).result;
    const second = (await rpc(node.evmRpcUrl, 'anvil_snapshot', [])).result;
    assert.equal(Number(second), Number(first) + 1);
    // Native snapshots share the id space.
    const third = (await rpc(node.rpcUrl, 'isthmus_snapshot', [])).result;
    assert.equal(Number(third.id), Number(second) + 1);
    // An EVM block after the third snapshot: reverting to the first removes it.
    const tx = await alice.sendTransaction({ to: Wallet.createRandom().address, value: 1n });
    await tx.wait();
    await rpc(node.rpcUrl, 'isthmus_labelSnapshot', [third.id, 'third']);
    assert.equal((await rpc(node.evmRpcUrl, 'evm_revert', [first])).result, true);
    assert.equal((await rpc(node.rpcUrl, 'isthmus_getSnapshots', [])).result.some((s: any) => [first, second, third.id].includes(s.id)), false);
    // `second` was taken at a block that still exists: false, as Anvil. `third` also still names an existing block.
    assert.equal((await rpc(node.evmRpcUrl, 'evm_revert', [second])).result, false);
    assert.equal((await rpc(node.evmRpcUrl, 'evm_revert', [second])).result, false);
    // A snapshot taken after an EVM block that a revert then removed: Anvil's error, once, then false.
    const s4 = (await rpc(node.evmRpcUrl, 'evm_snapshot', [])).result;
    const tx2 = await alice.sendTransaction({ to: Wallet.createRandom().address, value: 1n });
    await tx2.wait();
    const s5 = (await rpc(node.evmRpcUrl, 'evm_snapshot', [])).result;
    assert.equal((await rpc(node.evmRpcUrl, 'evm_revert', [s4])).result, true);
    const tx3 = await alice.sendTransaction({ to: Wallet.createRandom().address, value: 2n });
    await tx3.wait();
    const gone = await rpc(node.evmRpcUrl, 'evm_revert', [s5]);
    assert.deepEqual(gone.error, { code: -32001, message: 'Resource not found' });
    assert.equal((await rpc(node.evmRpcUrl, 'evm_revert', [s5])).result, false);
    // Ids are never reused.
    assert.equal(Number((await rpc(node.evmRpcUrl, 'evm_snapshot', [])).result), Number(s5) + 1);
  });

  test('bad input changes nothing: unknown ids, malformed ids, params evm_snapshot does not take', async () => {
    const receiver = Keypair.generate().publicKey;
    await sendAndConfirmTransaction(afterReverts(), new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: receiver, lamports: LAMPORTS_PER_SOL })), [payer], { commitment: 'confirmed' });
    const listBefore = (await rpc(node.rpcUrl, 'isthmus_getSnapshots', [])).result;
    const slotBefore = await connection.getSlot('confirmed');
    const evmBefore = await provider.getBlockNumber();

    assert.equal((await rpc(node.evmRpcUrl, 'evm_revert', ['0x99999'])).result, false);
    assert.equal((await rpc(node.evmRpcUrl, 'evm_revert', [])).error.code, -32602);
    assert.equal((await rpc(node.evmRpcUrl, 'evm_revert', ['zz'])).error.code, -32602);
    assert.equal((await rpc(node.evmRpcUrl, 'evm_revert', [-1])).error.code, -32602);
    assert.equal((await rpc(node.evmRpcUrl, 'evm_snapshot', [1])).error.code, -32602);
    for (const [method, params] of [
      ['isthmus_revert', ['0x99999']],
      ['isthmus_deleteSnapshot', [0x99999]],
      ['isthmus_labelSnapshot', ['0x99999', 'x']],
    ] as const) {
      const r = await rpc(node.rpcUrl, method, params);
      assert.equal(r.error.code, -32602, method);
      assert.match(r.error.message, /snapshot 0x99999 does not exist/);
    }
    assert.equal((await rpc(node.rpcUrl, 'isthmus_snapshot', [42])).error.code, -32602);
    assert.equal((await rpc(node.rpcUrl, 'isthmus_snapshot', ['x'.repeat(201)])).error.code, -32602);

    assert.deepEqual((await rpc(node.rpcUrl, 'isthmus_getSnapshots', [])).result, listBefore);
    assert.equal(await connection.getBalance(receiver, 'confirmed'), LAMPORTS_PER_SOL);
    assert.ok((await connection.getSlot('confirmed')) >= slotBefore);
    assert.equal(await provider.getBlockNumber(), evmBlockAtLeast(evmBefore, await provider.getBlockNumber()));
  });

  test('label and delete: a deleted snapshot cannot be reverted to, and the chain is untouched', async () => {
    const snap = (await rpc(node.rpcUrl, 'isthmus_snapshot', [])).result;
    assert.equal(snap.label, null);
    assert.equal((await rpc(node.rpcUrl, 'isthmus_labelSnapshot', [snap.id, 'named'])).result.label, 'named');
    assert.equal((await rpc(node.rpcUrl, 'isthmus_getSnapshots', [])).result.find((s: any) => s.id === snap.id).label, 'named');
    const receiver = Keypair.generate().publicKey;
    await sendAndConfirmTransaction(afterReverts(), new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: receiver, lamports: LAMPORTS_PER_SOL / 2 })), [payer], { commitment: 'confirmed' });
    assert.equal((await rpc(node.rpcUrl, 'isthmus_deleteSnapshot', [snap.id])).result, true);
    assert.equal((await rpc(node.evmRpcUrl, 'evm_revert', [snap.id])).result, false);
    assert.equal(await connection.getBalance(receiver, 'confirmed'), LAMPORTS_PER_SOL / 2);
  });
});

/** The EVM block number after bad input: no revert happened, so it is where it was or later. */
function evmBlockAtLeast(before: number, now: number): number {
  assert.ok(now >= before, `the EVM block number went back from ${before} to ${now}`);
  return now;
}

describe('a revert is durable', () => {
  test('revert, then kill -9 at once, then restart: nothing of the discarded slots comes back; verify-ledger passes', async () => {
    const ledger = tempLedger();
    const node = await startChainProcess(ledger, WORDS);
    const { url, evmUrl, connection, provider, alice, payer, receiver, evmReceiver } = node;
    let verified;
    try {
      const early = (await rpc(url, 'isthmus_snapshot', ['kept across the restart'])).result;
      const snap = (await rpc(evmUrl, 'evm_snapshot', [])).result;
      const evmBlock = await provider.getBlockNumber();
      const sig = await sendAndConfirmTransaction(connection, new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: receiver, lamports: LAMPORTS_PER_SOL })), [payer], { commitment: 'confirmed' });
      const evmTx = await alice.sendTransaction({ to: evmReceiver, value: parseEther('1') });
      await evmTx.wait();
      // Let the discarded slots be rooted too, so the revert reaches below the root.
      const rootedSlot = (await connection.getSignatureStatus(sig)).value!.slot;
      await waitFor(async () => (await connection.getSlot('finalized')) > rootedSlot + 2, { what: 'the transfer rooted' });

      assert.equal((await rpc(evmUrl, 'evm_revert', [snap])).result, true);
      await node.killAndRestart();
      assert.equal(await connection.getBalance(receiver, 'confirmed'), 0);
      assert.equal(await connection.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }), null);
      assert.deepEqual((await connection.getSignatureStatuses([sig], { searchTransactionHistory: true })).value, [null]);
      assert.equal(await provider.getBalance(evmReceiver), 0n);
      assert.equal((await rpc(evmUrl, 'eth_getTransactionReceipt', [evmTx.hash])).result, null);
      assert.equal(await provider.getBlockNumber(), evmBlock);
      // The chain goes on: a new transfer lands.
      const sig2 = await sendAndConfirmTransaction(connection, new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: receiver, lamports: LAMPORTS_PER_SOL / 4 })), [payer], { commitment: 'confirmed' });
      assert.ok(sig2);
      assert.equal(await connection.getBalance(receiver, 'confirmed'), LAMPORTS_PER_SOL / 4);
      // The snapshot taken before the reverted one was kept in the ledger: reverting to it undoes sig2 too.
      assert.deepEqual((await rpc(url, 'isthmus_getSnapshots', [])).result, [early]);
      assert.equal((await rpc(url, 'isthmus_revert', [early.id])).result.snapshot.id, early.id);
      assert.equal(await connection.getBalance(receiver, 'confirmed'), 0);
      assert.deepEqual((await connection.getSignatureStatuses([sig2], { searchTransactionHistory: true })).value, [null]);
    } finally {
      verified = await node.stopAndVerify();
    }
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  });
});
