/**
 * Anvil's chain-control methods on the EVM port through viem's test client (mode 'anvil'), against a
 * real node: mining (count, interval), time (increaseTime, setNextBlockTimestamp), state edits
 * (balance, code, nonce, storage) with the supply's books following them, impersonation, dump and
 * load; bad input refused with nothing changed; `verify-ledger` holding after the edits; and the
 * gate: refused on a non-loopback bind unless the node was started with --allow-chain-control.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, createTestClient, createWalletClient, defineChain, http, parseEther, type Chain, type Hex, type PublicClient, type TestClient } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { CHAIN_CONTROL_REFUSED } from '../../node-core/rpc/chain-control-gate.ts';
import { verifyLedger } from '../../node-core/node/verify-ledger.ts';
import { rpc, startTestNode, tempLedger, type TestNode } from '../helpers/node.ts';

const WORDS = 'test test test test test test test test test test test junk';
/**
 * The supply's books read at one moment: what edits moved (adjusted), and the total less what fees
 * burned and rewards minted (so slots passing between two reads do not move it).
 */
const books = (node: TestNode) => {
  const s = node.chain.supply();
  return { adjusted: s.adjusted, net: s.total + s.burned - s.minted };
};

describe('Anvil methods with viem test client', () => {
  let node: TestNode;
  let ledger: string;
  let chain: Chain;
  let client: PublicClient;
  let testClient: TestClient;

  before(async () => {
    ledger = tempLedger();
    node = await startTestNode({ mnemonic: WORDS, ledger });
    chain = defineChain({ id: 5705, name: 'Isthmus', nativeCurrency: { name: 'VLX', symbol: 'VLX', decimals: 18 }, rpcUrls: { default: { http: [node.evmRpcUrl] } } });
    // No block-number cache: each read after a mine must see the new head.
    client = createPublicClient({ chain, transport: http(node.evmRpcUrl), pollingInterval: 50, cacheTime: 0 });
    testClient = createTestClient({ chain, mode: 'anvil', transport: http(node.evmRpcUrl) });
  });
  after(async () => {
    await node?.stop();
    fs.rmSync(ledger, { recursive: true, force: true });
  });

  test('mine: each block is a new EVM block (count), interval seconds apart', async () => {
    const start = await client.getBlockNumber();
    await testClient.mine({ blocks: 3 });
    assert.equal(await client.getBlockNumber(), start + 3n);
    await testClient.mine({ blocks: 3, interval: 100 });
    assert.equal(await client.getBlockNumber(), start + 6n);
    const [b4, b5, b6] = await Promise.all([start + 4n, start + 5n, start + 6n].map((n) => client.getBlock({ blockNumber: n })));
    assert.equal(b5!.timestamp - b4!.timestamp, 100n);
    assert.equal(b6!.timestamp - b5!.timestamp, 100n);
    assert.equal(b6!.transactions.length, 0);
    assert.equal(b6!.parentHash, b5!.hash);
    assert.equal((await rpc(node.evmRpcUrl, 'evm_mine', [])).result, '0x0');
    assert.equal(await client.getBlockNumber(), start + 7n);
  });

  test('time: increaseTime and setNextBlockTimestamp move the next block and the Clock sysvar', async () => {
    const last = await client.getBlock();
    const offset = (await rpc(node.evmRpcUrl, 'evm_increaseTime', [3600])).result;
    assert.equal(typeof offset, 'number');
    assert.ok(offset >= 3600, `total offset ${offset}`);
    await testClient.mine({ blocks: 1 });
    const after = await client.getBlock();
    assert.ok(after.timestamp >= last.timestamp + 3600n, `${after.timestamp} after ${last.timestamp} + 3600`);
    // The native block of the same slot (its Clock) has the same time.
    const raw = (await rpc(node.evmRpcUrl, 'eth_getBlockByNumber', ['latest', false])).result;
    assert.equal((await rpc(node.rpcUrl, 'getBlockTime', [Number(raw.nativeSlot)])).result, Number(after.timestamp));

    const target = after.timestamp + 86_400n;
    await testClient.setNextBlockTimestamp({ timestamp: target });
    await testClient.mine({ blocks: 1 });
    assert.equal((await client.getBlock()).timestamp, target);
    await testClient.mine({ blocks: 1 });
    assert.ok((await client.getBlock()).timestamp >= target);

    const refused = await rpc(node.evmRpcUrl, 'evm_setNextBlockTimestamp', [1]);
    assert.equal(refused.error.code, -32602);
    assert.match(refused.error.message, /Timestamp error: 1 is lower than previous block's timestamp/);
  });

  test('state edits: balance (with its backing and the supply), code, nonce, storage', async () => {
    const target = '0x00000000000000000000000000000000000a11ce' as Hex;
    const before = books(node);
    await testClient.setBalance({ address: target, value: parseEther('5') });
    assert.equal(await client.getBalance({ address: target }), parseEther('5'));
    // 5 VLX in the EVM = 5 * 10^9 lamports more behind it, in the native supply.
    assert.deepEqual(books(node), { adjusted: before.adjusted + 5_000_000_000, net: before.net + 5_000_000_000 });
    await testClient.setBalance({ address: target, value: parseEther('1') });
    assert.equal(await client.getBalance({ address: target }), parseEther('1'));
    assert.deepEqual(books(node), { adjusted: before.adjusted + 1_000_000_000, net: before.net + 1_000_000_000 });

    // A contract that returns 42: PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN.
    const code = '0x602a60005260206000f3' as Hex;
    await testClient.setCode({ address: target, bytecode: code });
    assert.equal(await client.getCode({ address: target }), code);
    assert.equal(BigInt((await client.call({ to: target })).data!), 42n);
    await testClient.setNonce({ address: target, nonce: 7 });
    assert.equal(await client.getTransactionCount({ address: target }), 7);
    const value = `0x${'00'.repeat(31)}2a` as Hex;
    await testClient.setStorageAt({ address: target, index: 5, value });
    assert.equal(await client.getStorageAt({ address: target, slot: '0x5' }), value);
    // The code and storage edits kept the balance.
    assert.equal(await client.getBalance({ address: target }), parseEther('1'));
  });

  test('a balance off the lamport grid: set exactly; the backing moves a whole lamport up and the coinbase gets the wei left over', async () => {
    const target = '0x00000000000000000000000000000000000c0c00' as Hex;
    const coinbase = '0x0000000000000000000000000000000000000000' as Hex;
    const before = { books: books(node), coinbase: await client.getBalance({ address: coinbase }) };
    await testClient.setBalance({ address: target, value: 1_500_000_001n });
    assert.equal(await client.getBalance({ address: target }), 1_500_000_001n);
    // 1.500000001 lamports asked: 2 lamports move in, 0.499999999 of one to the coinbase.
    assert.equal(await client.getBalance({ address: coinbase }), before.coinbase + 499_999_999n);
    assert.deepEqual(books(node), { adjusted: before.books.adjusted + 2, net: before.books.net + 2 });
    await testClient.setBalance({ address: target, value: 1n });
    assert.equal(await client.getBalance({ address: target }), 1n);
    // 1.5 lamports taken out: 1 lamport leaves the backing, half of one to the coinbase (verify-ledger below checks the backing).
    assert.equal(await client.getBalance({ address: coinbase }), before.coinbase + 999_999_999n);
    assert.deepEqual(books(node), { adjusted: before.books.adjusted + 1, net: before.books.net + 1 });
  });

  test('bad input: the coinbase balance off the lamport grid, malformed data, a past time: a clear error and nothing changed', async () => {
    const target = '0x00000000000000000000000000000000000b0b00' as Hex;
    await testClient.setBalance({ address: target, value: parseEther('2') });
    const supply = books(node);
    const coinbase = '0x0000000000000000000000000000000000000000' as Hex;
    const coinbaseBalance = await client.getBalance({ address: coinbase });
    const odd = await rpc(node.evmRpcUrl, 'anvil_setBalance', [coinbase, `0x${(coinbaseBalance + 1n).toString(16)}`]);
    assert.equal(odd.error.code, -32602);
    assert.match(odd.error.message, /coinbase/);
    assert.equal(await client.getBalance({ address: coinbase }), coinbaseBalance);
    const badCode = await rpc(node.evmRpcUrl, 'anvil_setCode', [target, 'zz']);
    assert.equal(badCode.error.code, -32602);
    const badWord = await rpc(node.evmRpcUrl, 'anvil_setStorageAt', [target, '0x0', '0x01']);
    assert.equal(badWord.error.code, -32602);
    const badState = await rpc(node.evmRpcUrl, 'anvil_loadState', ['0x1f8b00']);
    assert.equal(badState.error.code, -32602);
    assert.equal(await client.getBalance({ address: target }), parseEther('2'));
    assert.equal(await client.getCode({ address: target }), undefined);
    assert.deepEqual(books(node), supply);
    // A reset to a fork: this node has none (a reset to genesis is tested in chain-reset.test.ts).
    const fork = await rpc(node.evmRpcUrl, 'anvil_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:1', blockNumber: 1 } }]);
    assert.equal(fork.error.code, -32602);
    assert.match(fork.error.message, /Forking is not supported on this node/);
    assert.equal(await client.getBalance({ address: target }), parseEther('2'));
    assert.deepEqual(books(node), supply);
  });

  test('impersonation: eth_sendTransaction from an address without its key', async () => {
    const whale = '0x00000000000000000000000000000000000000f1' as Hex;
    const to = '0x00000000000000000000000000000000000000f2' as Hex;
    await testClient.setBalance({ address: whale, value: parseEther('10') });
    const wallet = createWalletClient({ chain, transport: http(node.evmRpcUrl) });
    await assert.rejects(wallet.sendTransaction({ account: whale, to, value: parseEther('1') }), /unknown account/);
    await testClient.impersonateAccount({ address: whale });
    const hash = await wallet.sendTransaction({ account: whale, to, value: parseEther('1') });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.from, whale);
    assert.equal((await client.getTransaction({ hash })).from, whale);
    assert.equal(await client.getBalance({ address: to }), parseEther('1'));
    await testClient.stopImpersonatingAccount({ address: whale });
    await assert.rejects(wallet.sendTransaction({ account: whale, to, value: 1n }), /unknown account/);
    await rpc(node.evmRpcUrl, 'anvil_autoImpersonateAccount', [true]);
    const again = await wallet.sendTransaction({ account: whale, to, value: parseEther('1') });
    assert.equal((await client.waitForTransactionReceipt({ hash: again, pollingInterval: 50 })).status, 'success');
    await rpc(node.evmRpcUrl, 'anvil_autoImpersonateAccount', [false]);
    assert.equal(await client.getBalance({ address: to }), parseEther('2'));
  });

  test('dropTransaction: a transaction waiting for its nonce gap is dropped; one already run is not', async () => {
    const account = mnemonicToAccount(WORDS, { addressIndex: 3 });
    const wallet = createWalletClient({ account, chain, transport: http(node.evmRpcUrl) });
    const to = '0x00000000000000000000000000000000000000f3' as Hex;
    const nonce = await client.getTransactionCount({ address: account.address });
    const waiting = await wallet.sendTransaction({ to, value: parseEther('1'), nonce: nonce + 1, gas: 21_000n });
    assert.equal((await client.getTransaction({ hash: waiting })).hash, waiting);
    await testClient.dropTransaction({ hash: waiting });
    assert.equal((await rpc(node.evmRpcUrl, 'eth_getTransactionByHash', [waiting])).result, null);
    assert.equal((await rpc(node.evmRpcUrl, 'anvil_dropTransaction', [waiting])).result, null);
    // The gap closes and nothing of the dropped one follows it.
    const ran = await wallet.sendTransaction({ to, value: parseEther('1'), nonce, gas: 21_000n });
    assert.equal((await client.waitForTransactionReceipt({ hash: ran, pollingInterval: 50 })).status, 'success');
    assert.equal((await rpc(node.evmRpcUrl, 'hardhat_dropTransaction', [ran])).result, null);
    assert.equal(await client.getTransactionCount({ address: account.address, blockTag: 'pending' }), nonce + 1);
    assert.equal(await client.getBalance({ address: to }), parseEther('1'));
    assert.equal((await rpc(node.evmRpcUrl, 'anvil_dropTransaction', ['0x12'])).error.code, -32602);
  });

  test('what this chain keeps fixed (base fee, coinbase, gas limit, prevRandao): a clear refusal', async () => {
    for (const [method, params, why] of [
      ['hardhat_setNextBlockBaseFeePerGas', ['0x1'], /base fee is fixed/],
      ['anvil_setCoinbase', ['0x00000000000000000000000000000000000000c0'], /coinbase is fixed/],
      ['evm_setBlockGasLimit', ['0x1'], /gas limit is fixed/],
      ['hardhat_setPrevRandao', [`0x${'11'.repeat(32)}`], /prevRandao/],
    ] as const) {
      const answer = await rpc(node.evmRpcUrl, method, [...params]);
      assert.equal(answer.error?.code, -32601, method);
      assert.match(answer.error.message, why);
    }
  });

  test('dumpState and loadState: an edited state comes back', async () => {
    const a = '0x00000000000000000000000000000000000000d1' as Hex;
    await testClient.setBalance({ address: a, value: parseEther('3') });
    await testClient.setCode({ address: a, bytecode: '0x6001' });
    await testClient.setStorageAt({ address: a, index: 1, value: `0x${'00'.repeat(31)}07` });
    const dump = await testClient.dumpState();
    await testClient.setBalance({ address: a, value: parseEther('9') });
    await testClient.setStorageAt({ address: a, index: 1, value: `0x${'00'.repeat(32)}` });
    await testClient.loadState({ state: dump });
    assert.equal(await client.getBalance({ address: a }), parseEther('3'));
    assert.equal(await client.getCode({ address: a }), '0x6001');
    assert.equal(await client.getStorageAt({ address: a, slot: '0x1' }), `0x${'00'.repeat(31)}07`);
    const info = (await rpc(node.evmRpcUrl, 'anvil_nodeInfo', [])).result;
    assert.equal(info.currentBlockNumber, `0x${(await client.getBlockNumber()).toString(16)}`);
    assert.equal(info.environment.chainId, 5705);
  });

  test('verify-ledger holds after the edits (the supply, the backing of EVM balances), and a restart keeps them', async () => {
    await node.close();
    const result = await verifyLedger(ledger);
    assert.deepEqual(result.violations, []);
    assert.ok(result.books.adjusted > 0n, `adjusted ${result.books.adjusted}`);
    node = await startTestNode({ mnemonic: WORDS, ledger });
    const restarted = createPublicClient({ chain, transport: http(node.evmRpcUrl) });
    const edited = '0x00000000000000000000000000000000000000d1' as Hex;
    assert.equal(await restarted.getBalance({ address: edited }), parseEther('3'));
    assert.equal(await restarted.getCode({ address: edited }), '0x6001');
    assert.equal(await restarted.getStorageAt({ address: edited, slot: '0x1' }), `0x${'00'.repeat(31)}07`);
    assert.equal(node.chain.supply().adjusted, Number(result.books.adjusted));
  });
});

describe('the chain-control gate', () => {
  test('refused on a non-loopback bind without --allow-chain-control; answered with it', async () => {
    const open = await startTestNode({ bindAddress: '0.0.0.0' });
    try {
      const url = open.evmRpcUrl.replace('0.0.0.0', '127.0.0.1');
      const refused = await rpc(url, 'anvil_setBalance', ['0x00000000000000000000000000000000000000e1', '0x3b9aca00']);
      assert.equal(refused.error.code, CHAIN_CONTROL_REFUSED);
      assert.match(refused.error.message, /--allow-chain-control/);
      assert.equal((await rpc(url, 'eth_getBalance', ['0x00000000000000000000000000000000000000e1', 'latest'])).result, '0x0');
      assert.equal((await rpc(url, 'evm_mine', [])).error.code, CHAIN_CONTROL_REFUSED);
      const native = open.rpcUrl.replace('0.0.0.0', '127.0.0.1');
      assert.equal((await rpc(native, 'surfnet_pauseClock', [])).error.code, CHAIN_CONTROL_REFUSED);
      assert.equal((await rpc(url, 'anvil_reset', [])).error.code, CHAIN_CONTROL_REFUSED);
      assert.equal((await rpc(native, 'surfnet_resetNetwork', [])).error.code, CHAIN_CONTROL_REFUSED);
      // Snapshots and revert sit behind the same gate, on both ports.
      for (const method of ['evm_snapshot', 'anvil_snapshot']) assert.equal((await rpc(url, method, [])).error.code, CHAIN_CONTROL_REFUSED, method);
      assert.equal((await rpc(url, 'evm_revert', ['0x0'])).error.code, CHAIN_CONTROL_REFUSED);
      for (const [method, params] of [['isthmus_snapshot', []], ['isthmus_revert', [0]], ['isthmus_getSnapshots', []], ['isthmus_deleteSnapshot', [0]]] as const) {
        assert.equal((await rpc(native, method, params)).error.code, CHAIN_CONTROL_REFUSED, method);
      }
      assert.equal((await rpc(native, 'isthmus_getNodeInfo', [])).result.chainControlAllowed, false);
    } finally {
      await open.stop();
    }
    const allowed = await startTestNode({ bindAddress: '0.0.0.0', allowChainControl: true });
    try {
      const url = allowed.evmRpcUrl.replace('0.0.0.0', '127.0.0.1');
      assert.equal((await rpc(url, 'anvil_setBalance', ['0x00000000000000000000000000000000000000e1', '0x3b9aca00'])).result, null);
      assert.equal((await rpc(url, 'eth_getBalance', ['0x00000000000000000000000000000000000000e1', 'latest'])).result, '0x3b9aca00');
      assert.equal((await rpc(allowed.rpcUrl.replace('0.0.0.0', '127.0.0.1'), 'isthmus_getNodeInfo', [])).result.chainControlAllowed, true);
    } finally {
      await allowed.stop();
    }
  });
});
