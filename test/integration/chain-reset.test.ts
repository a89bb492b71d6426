/**
 * A reset of the whole chain to its genesis (anvil_reset / hardhat_reset without a fork, and Surfpool's
 * surfnet_resetNetwork), with real clients against a real node: viem's test client resets after EVM,
 * native and bridge transfers and a snapshot, and both spaces are at genesis again (balances, EVM
 * block 0, signatures unknown, snapshots gone) while the chain goes on; subscribers hear it; fork
 * params are refused with nothing changed; the gate refuses it on a non-loopback bind; and a reset
 * survives kill -9 (the real command), after which `isthmus verify-ledger` passes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from '@solana/web3.js';
import { Contract, JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { createTestClient, createWalletClient, defineChain, http as viemHttp, parseEther as viemParseEther } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { BRIDGE_ADDRESS } from '../../node-core/evm/constants.ts';
import { CHAIN_CONTROL_REFUSED } from '../../node-core/rpc/chain-control-gate.ts';
import { killLeftovers } from '../helpers/cli-process.ts';
import { checkValueConservation } from '../helpers/conservation.ts';
import { rpc, startTestNode, tempLedger, waitFor, type TestNode } from '../helpers/node.ts';
import { startChainProcess } from '../helpers/chain-process.ts';
import { subscribe } from '../helpers/subscription.ts';
import { chainClients, closeChainClients } from '../helpers/chain-clients.ts';

const WORDS = 'test test test test test test test test test test test junk';
const BRIDGE_ABI = ['function transferToNative(bytes32 native_recipient) payable'];

after(killLeftovers);

/** An EVM receipt polled from the node (after a reset the block numbers go back; ethers' wait() waits for one it has not seen). */
const receiptOf = (url: string, hash: string) => waitFor(async () => (await rpc(url, 'eth_getTransactionReceipt', [hash])).result, { timeoutMs: 60_000, what: `the receipt of ${hash}` });

/**
 * A native transfer, confirmed, on a blockhash read for it: web3.js keeps one for 30 seconds, and after
 * a reset the chain knows none of the blockhashes of before (as a new chain would not).
 */
async function transfer(connection: Connection, payer: Keypair, to: Keypair['publicKey'], lamports: number): Promise<string> {
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed');
  const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight }).add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports }));
  tx.sign(payer);
  const signature = await connection.sendRawTransaction(tx.serialize());
  const status = await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, 'confirmed');
  assert.equal(status.value.err, null);
  return signature;
}

describe('reset to genesis on a running node', () => {
  let node: TestNode;
  let connection: Connection;
  let provider: JsonRpcProvider;
  let alice: Wallet;
  let payer: Keypair;
  /** Read before any transaction: the genesis balances and EVM block 0. */
  let genesis: { payer: number; alice: bigint; block0: any; genesisHash: string };

  before(async () => {
    node = await startTestNode({ mnemonic: WORDS });
    ({ connection, provider, alice, payer } = chainClients(node, WORDS, Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey)));
    genesis = {
      payer: await connection.getBalance(payer.publicKey, 'confirmed'),
      alice: await provider.getBalance(alice.address),
      block0: (await rpc(node.evmRpcUrl, 'eth_getBlockByNumber', ['0x0', false])).result,
      genesisHash: await connection.getGenesisHash(),
    };
  });
  after(async () => {
    await closeChainClients({ connection, provider });
    await node.stop();
  });

  test("viem's test client: EVM, native and bridge transfers and a snapshot, then reset(): both spaces at genesis, the chain goes on", async () => {
    const chain = defineChain({ id: node.evm.chainId, name: 'isthmus', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [node.evmRpcUrl] } } });
    const testClient = createTestClient({ mode: 'anvil', chain, transport: viemHttp(node.evmRpcUrl) });
    const bob = mnemonicToAccount(WORDS, { addressIndex: 1 });
    const wallet = createWalletClient({ account: bob, chain, transport: viemHttp(node.evmRpcUrl) });
    const bobGenesis = await provider.getBalance(bob.address);
    const evmReceiver = Wallet.createRandom().address as `0x${string}`;
    const nativeReceiver = Keypair.generate().publicKey;
    const bridgeRecipient = Keypair.generate().publicKey;

    // EVM transfers (viem and ethers), a native transfer (web3.js), a bridge transfer, a snapshot.
    const viemHash = await wallet.sendTransaction({ to: evmReceiver, value: viemParseEther('0.25') });
    await waitFor(async () => (await provider.getTransactionReceipt(viemHash))?.status === 1, { what: "viem's transfer" });
    const evmTx = await alice.sendTransaction({ to: evmReceiver, value: parseEther('1') });
    await evmTx.wait();
    const nativeSig = await transfer(connection, payer, nativeReceiver, LAMPORTS_PER_SOL);
    const bridge = new Contract(BRIDGE_ADDRESS, BRIDGE_ABI, alice);
    const bridgeTx = await bridge.getFunction('transferToNative')(bridgeRecipient.toBytes(), { value: parseEther('2') });
    await bridgeTx.wait();
    await waitFor(async () => (await connection.getBalance(bridgeRecipient, 'confirmed')) === 2 * LAMPORTS_PER_SOL, { what: 'the bridge payout' });
    const snapshotId = await testClient.snapshot();
    assert.equal(await provider.getBalance(evmReceiver), parseEther('1.25'));
    const evmHeadBefore = await provider.getBlockNumber();
    assert.ok(evmHeadBefore >= 3);
    // Enough slots behind the chain that "back near slot 0" cannot be mistaken for where it was.
    await waitFor(async () => (await connection.getSlot('confirmed')) >= 100, { timeoutMs: 60_000, what: 'slot 100' });
    const slotBefore = await connection.getSlot('confirmed');

    const accountSub = await subscribe(node.pubsubUrl, 'accountSubscribe', [nativeReceiver.toBase58(), { commitment: 'confirmed', encoding: 'base64' }]);
    const slotSub = await subscribe(node.pubsubUrl, 'slotSubscribe', []);
    const headsSub = await subscribe(node.evmRpcUrl.replace('http', 'ws'), 'eth_subscribe', ['newHeads']);

    // viem's reset() sends { forking: { blockNumber: null } }: no fork is named, so it is a reset to genesis.
    await testClient.reset();

    // Native space: slot near 0, genesis balances, the transfer's signature unknown.
    const slotAfter = await connection.getSlot('confirmed');
    assert.ok(slotAfter < slotBefore, `slot ${slotAfter} after the reset, ${slotBefore} before`);
    assert.equal(await connection.getFirstAvailableBlock(), 0);
    assert.equal(await connection.getGenesisHash(), genesis.genesisHash);
    assert.equal(await connection.getBalance(nativeReceiver, 'confirmed'), 0);
    assert.equal(await connection.getBalance(bridgeRecipient, 'confirmed'), 0);
    assert.equal(await connection.getBalance(payer.publicKey, 'confirmed'), genesis.payer);
    assert.deepEqual((await connection.getSignatureStatuses([nativeSig], { searchTransactionHistory: true })).value, [null]);
    assert.equal(await connection.getTransaction(nativeSig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }), null);
    assert.deepEqual(await connection.getSignaturesForAddress(nativeReceiver), []);
    // EVM space: block 0 as at genesis, genesis balances and nonces, the transactions unknown.
    assert.equal((await rpc(node.evmRpcUrl, 'eth_blockNumber', [])).result, '0x0');
    assert.deepEqual((await rpc(node.evmRpcUrl, 'eth_getBlockByNumber', ['latest', false])).result, genesis.block0);
    assert.equal((await rpc(node.evmRpcUrl, 'eth_getBlockByNumber', ['0x1', false])).result, null);
    assert.equal(await provider.getBalance(evmReceiver), 0n);
    assert.equal(await provider.getBalance(alice.address), genesis.alice);
    assert.equal(await provider.getBalance(bob.address), bobGenesis);
    assert.equal(await provider.getTransactionCount(alice.address, 'latest'), 0);
    assert.equal(await provider.getTransactionCount(alice.address, 'pending'), 0);
    for (const hash of [viemHash, evmTx.hash, bridgeTx.hash]) {
      assert.equal((await rpc(node.evmRpcUrl, 'eth_getTransactionReceipt', [hash])).result, null);
      assert.equal((await rpc(node.evmRpcUrl, 'eth_getTransactionByHash', [hash])).result, null);
    }
    // Snapshots: none left; the one taken names an EVM block that is gone, so Anvil's answer.
    assert.deepEqual((await rpc(node.rpcUrl, 'isthmus_getSnapshots', [])).result, []);
    assert.deepEqual((await rpc(node.evmRpcUrl, 'evm_revert', [snapshotId])).error, { code: -32001, message: 'Resource not found' });

    // Subscribers: the account at its genesis state (absent), slots from the reset slot on.
    await waitFor(() => accountSub.seen.some((n) => n.value.lamports === 0), { what: "the receiver's reset notification" });
    await waitFor(() => slotSub.seen.some((n) => n.parent === 0), { what: 'a slot notification whose parent is slot 0' });

    // The chain goes on: slots, a native transfer, an EVM transfer at block 1 (nonce 0 again), newHeads from it.
    await waitFor(async () => (await connection.getSlot('confirmed')) > slotAfter, { what: 'slots after the reset' });
    await transfer(connection, payer, nativeReceiver, LAMPORTS_PER_SOL / 4);
    assert.equal(await connection.getBalance(nativeReceiver, 'confirmed'), LAMPORTS_PER_SOL / 4);
    const evmTx2 = await alice.sendTransaction({ to: evmReceiver, value: parseEther('0.5') });
    assert.equal(evmTx2.nonce, 0);
    // Polled from the node: ethers' wait() waits for a block number it has not seen, and the numbers went back.
    const receipt2 = await receiptOf(node.evmRpcUrl, evmTx2.hash);
    assert.equal(Number(receipt2.blockNumber), 1);
    assert.equal(await provider.getBalance(evmReceiver), parseEther('0.5'));
    await waitFor(() => headsSub.seen.some((h) => Number(h.number) === 1 && h.hash === receipt2.blockHash && h.parentHash === genesis.block0.hash), { what: 'newHeads of block 1 after the reset' });
    for (const s of [accountSub, slotSub, headsSub]) s.close();
    // Ids are never reused: the next snapshot's id follows the one taken before the reset.
    assert.equal(Number(await testClient.snapshot()), Number(snapshotId) + 1);
    await checkValueConservation(node);
  });

  test('fork params are refused and change nothing; other bad params too', async () => {
    const receiver = Keypair.generate().publicKey;
    await transfer(connection, payer, receiver, LAMPORTS_PER_SOL / 2);
    await rpc(node.rpcUrl, 'isthmus_snapshot', ['kept']);
    const snapshotsBefore = (await rpc(node.rpcUrl, 'isthmus_getSnapshots', [])).result;
    const slotBefore = await connection.getSlot('confirmed');
    const evmBefore = (await rpc(node.evmRpcUrl, 'eth_blockNumber', [])).result;

    for (const [method, params] of [
      ['anvil_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:1' } }]],
      ['anvil_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:1', blockNumber: 5 } }]],
      ['hardhat_reset', [{ forking: { blockNumber: 5 } }]],
    ] as const) {
      const r = await rpc(node.evmRpcUrl, method, params);
      assert.equal(r.error.code, -32602, method);
      assert.match(r.error.message, /Forking is not supported on this node/, method);
      assert.match(r.error.message, /nothing was changed/, method);
    }
    for (const [method, params] of [
      ['anvil_reset', [{ fork: {} }]],
      ['anvil_reset', ['0x1']],
      ['anvil_reset', [{ forking: 'http://127.0.0.1:1' }]],
      ['anvil_reset', [{}, {}]],
    ] as const) {
      assert.equal((await rpc(node.evmRpcUrl, method, params)).error.code, -32602, `${method} ${JSON.stringify(params)}`);
    }
    assert.equal((await rpc(node.rpcUrl, 'surfnet_resetNetwork', [1])).error.code, -32602);

    assert.equal(await connection.getBalance(receiver, 'confirmed'), LAMPORTS_PER_SOL / 2);
    assert.deepEqual((await rpc(node.rpcUrl, 'isthmus_getSnapshots', [])).result, snapshotsBefore);
    assert.ok((await connection.getSlot('confirmed')) >= slotBefore);
    assert.equal((await rpc(node.evmRpcUrl, 'eth_blockNumber', [])).result, evmBefore);
  });

  test("surfnet_resetNetwork on the native port: Surfpool's answer, the chain at genesis", async () => {
    const receiver = Keypair.generate().publicKey;
    await transfer(connection, payer, receiver, LAMPORTS_PER_SOL);
    await receiptOf(node.evmRpcUrl, (await alice.sendTransaction({ to: Wallet.createRandom().address, value: 1n })).hash);
    const answer = await rpc(node.rpcUrl, 'surfnet_resetNetwork', []);
    assert.equal(answer.result.value, null);
    assert.equal(typeof answer.result.context.slot, 'number');
    assert.equal(await connection.getBalance(receiver, 'confirmed'), 0);
    assert.equal(await connection.getBalance(payer.publicKey, 'confirmed'), genesis.payer);
    assert.equal((await rpc(node.evmRpcUrl, 'eth_blockNumber', [])).result, '0x0');
    assert.equal(await provider.getBalance(alice.address), genesis.alice);
    assert.deepEqual((await rpc(node.rpcUrl, 'isthmus_getSnapshots', [])).result, []);
    // hardhat_reset with no params is the same reset.
    await transfer(connection, payer, receiver, LAMPORTS_PER_SOL);
    assert.equal((await rpc(node.evmRpcUrl, 'hardhat_reset', [])).result, null);
    assert.equal(await connection.getBalance(receiver, 'confirmed'), 0);
    await checkValueConservation(node);
  });
});

describe('the chain-control gate', () => {
  test('a reset is refused on a non-loopback bind, and nothing changes', async () => {
    const open = await startTestNode({ bindAddress: '0.0.0.0' });
    try {
      const evm = open.evmRpcUrl.replace('0.0.0.0', '127.0.0.1');
      const native = open.rpcUrl.replace('0.0.0.0', '127.0.0.1');
      await waitFor(async () => (await rpc(native, 'getSlot', [{ commitment: 'confirmed' }])).result >= 5, { what: 'slot 5' });
      const slotBefore = (await rpc(native, 'getSlot', [{ commitment: 'confirmed' }])).result;
      for (const method of ['anvil_reset', 'hardhat_reset']) {
        const r = await rpc(evm, method, []);
        assert.equal(r.error.code, CHAIN_CONTROL_REFUSED, method);
        assert.match(r.error.message, /--allow-chain-control/);
      }
      assert.equal((await rpc(native, 'surfnet_resetNetwork', [])).error.code, CHAIN_CONTROL_REFUSED);
      assert.ok((await rpc(native, 'getSlot', [{ commitment: 'confirmed' }])).result >= slotBefore);
    } finally {
      await open.stop();
    }
  });
});

describe('a reset is durable', () => {
  test('reset, then kill -9 at once, then restart: the chain is at genesis, nothing of before comes back; verify-ledger passes', async () => {
    const ledger = tempLedger();
    const node = await startChainProcess(ledger, WORDS);
    const { url, evmUrl, connection, provider, alice, payer, receiver, evmReceiver } = node;
    let verified;
    try {
      const genesisHash = await connection.getGenesisHash();
      const payerGenesis = await connection.getBalance(payer.publicKey, 'confirmed');
      const aliceGenesis = await provider.getBalance(alice.address);
      const block0 = (await rpc(evmUrl, 'eth_getBlockByNumber', ['0x0', false])).result;
      const sig = await transfer(connection, payer, receiver, LAMPORTS_PER_SOL);
      const evmTx = await alice.sendTransaction({ to: evmReceiver, value: parseEther('1') });
      await evmTx.wait();
      await rpc(url, 'isthmus_snapshot', ['before the reset']);
      // Let the transfers be rooted, so the reset reaches below the root.
      const slot = (await connection.getSignatureStatus(sig)).value!.slot;
      await waitFor(async () => (await connection.getSlot('finalized')) > slot + 2, { what: 'the transfer rooted' });

      assert.equal((await rpc(evmUrl, 'anvil_reset', [])).result, null);
      await node.killAndRestart();
      assert.equal(await connection.getGenesisHash(), genesisHash);
      assert.equal(await connection.getBalance(receiver, 'confirmed'), 0);
      assert.equal(await connection.getBalance(payer.publicKey, 'confirmed'), payerGenesis);
      assert.deepEqual((await connection.getSignatureStatuses([sig], { searchTransactionHistory: true })).value, [null]);
      assert.equal(await connection.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }), null);
      assert.equal(await provider.getBalance(evmReceiver), 0n);
      assert.equal(await provider.getBalance(alice.address), aliceGenesis);
      assert.equal((await rpc(evmUrl, 'eth_getTransactionReceipt', [evmTx.hash])).result, null);
      assert.equal((await rpc(evmUrl, 'eth_blockNumber', [])).result, '0x0');
      assert.deepEqual((await rpc(evmUrl, 'eth_getBlockByNumber', ['latest', false])).result, block0);
      assert.deepEqual((await rpc(url, 'isthmus_getSnapshots', [])).result, []);
      // The chain goes on after the restart.
      await transfer(connection, payer, receiver, LAMPORTS_PER_SOL / 4);
      assert.equal(await connection.getBalance(receiver, 'confirmed'), LAMPORTS_PER_SOL / 4);
      assert.equal(Number((await receiptOf(evmUrl, (await alice.sendTransaction({ to: evmReceiver, value: 1n })).hash)).blockNumber), 1);
    } finally {
      verified = await node.stopAndVerify();
    }
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  });
});
