/**
 * The EVM space through viem and Foundry's `cast` (the binary npm ships): chain id, transfers,
 * receipts, blocks, a contract deployed and called, events through a WebSocket subscription,
 * `isFinalized` on every block method, and the endpoint's DNS-rebinding guard.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import http from 'node:http';
import WebSocket from 'ws';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, createWalletClient, defineChain, getContract, http as viemHttp, parseEther, parseEventLogs, webSocket, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { compileFixture, foundryBinary, LONG_NOTE } from '../helpers/evm.ts';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';

const WORDS = 'test test test test test test test test test test test junk';
const run = promisify(execFile);
const counter = compileFixture('Counter.sol', 'Counter');
const cast = foundryBinary('cast');

/** A POST with a chosen Host header (fetch does not let one set it). */
function post(url: string, host: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { host, 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('EVM space with viem and cast', () => {
  let node: TestNode;
  let chain: ReturnType<typeof defineChain>;
  let publicClient: ReturnType<typeof createPublicClient>;
  let counterAddress: Hex;
  const alice = mnemonicToAccount(WORDS, { addressIndex: 0 });
  const bob = mnemonicToAccount(WORDS, { addressIndex: 1 });

  before(async () => {
    node = await startTestNode({ mnemonic: WORDS, evmChainId: 106 });
    chain = defineChain({ id: 106, name: 'Isthmus mainnet-like', nativeCurrency: { name: 'VLX', symbol: 'VLX', decimals: 18 }, rpcUrls: { default: { http: [node.evmRpcUrl] } } });
    publicClient = createPublicClient({ chain, transport: viemHttp(node.evmRpcUrl), pollingInterval: 50 });
  });
  after(() => node.stop());

  test('viem: chain id from --evm-chain-id, a transfer and its receipt, block fields with isFinalized', async () => {
    assert.equal(await publicClient.getChainId(), 106);
    const wallet = createWalletClient({ account: alice, chain, transport: viemHttp(node.evmRpcUrl) });
    const before = await publicClient.getBalance({ address: bob.address });
    const hash = await wallet.sendTransaction({ to: bob.address, value: parseEther('0.25') });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.transactionIndex, 0);
    assert.equal(await publicClient.getBalance({ address: bob.address }), before + parseEther('0.25'));
    const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber, includeTransactions: true });
    assert.equal(block.transactions[0]!.hash, hash);
    assert.equal(typeof (block as unknown as { isFinalized: boolean }).isFinalized, 'boolean');
    const byHash = await rpc(node.evmRpcUrl, 'eth_getBlockByHash', [block.hash, false]);
    assert.equal(byHash.result.number, `0x${receipt.blockNumber.toString(16)}`);
    await waitFor(async () => (await rpc(node.evmRpcUrl, 'eth_getBlockByHash', [block.hash, false])).result.isFinalized, { what: 'finality' });
    assert.equal((await rpc(node.evmRpcUrl, 'eth_getBlockByNumber', ['finalized', false])).result.isFinalized, true);
    assert.equal(await publicClient.getTransactionCount({ address: alice.address }), 1);
  });

  test('viem: a contract deployed, written, read, and its events over a WebSocket subscription', async () => {
    const wallet = createWalletClient({ account: alice, chain, transport: viemHttp(node.evmRpcUrl) });
    const hash = await wallet.deployContract({ abi: counter.abi, bytecode: counter.bytecode, args: [LONG_NOTE] });
    const { contractAddress } = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    counterAddress = contractAddress!;
    const ws = createPublicClient({ chain, transport: webSocket(node.evmRpcUrl.replace('http', 'ws')) });
    const heads: bigint[] = [];
    const logs: unknown[] = [];
    const unwatchHeads = ws.watchBlockNumber({ onBlockNumber: (n) => void heads.push(n), emitOnBegin: false });
    const unwatchLogs = ws.watchContractEvent({ address: contractAddress!, abi: counter.abi, eventName: 'Incremented', onLogs: (l) => void logs.push(...l) });
    await new Promise((r) => setTimeout(r, 200));

    const contract = getContract({ address: contractAddress!, abi: counter.abi, client: { public: publicClient, wallet } });
    const txHash = await contract.write.add([42n]);
    const receipt = await publicClient.waitForTransactionReceipt({ hash: txHash, pollingInterval: 50 });
    assert.equal(await contract.read.count(), 42n);
    const [event] = parseEventLogs({ abi: counter.abi, logs: receipt.logs }) as unknown as Array<{ args: { count: bigint } }>;
    assert.equal(event!.args.count, 42n);
    await waitFor(() => logs.length === 1 && heads.includes(receipt.blockNumber), { what: 'subscription events' });
    unwatchHeads();
    unwatchLogs();
    await (await ws.transport.getRpcClient()).close();

    await assert.rejects(contract.simulate.add([13n], { account: alice }), /unlucky number/);
    const gas = await publicClient.estimateContractGas({ address: contractAddress!, abi: counter.abi, functionName: 'increment', account: alice });
    assert.ok(gas > 21000n && gas < 100000n);
  });

  test('cast: chain id, balance, block, a send and a call', { skip: cast ? false : 'cast ships for linux-x64 only' }, async () => {
    const url = ['--rpc-url', node.evmRpcUrl];
    assert.equal((await run(cast!, ['chain-id', ...url])).stdout.trim(), '106');
    assert.equal((await run(cast!, ['balance', '--ether', bob.address, ...url])).stdout.trim(), '100000.250000000000000000');
    const number = Number((await run(cast!, ['block-number', ...url])).stdout.trim());
    assert.ok(number >= 3);
    const block = JSON.parse((await run(cast!, ['block', String(number), '--json', ...url])).stdout);
    assert.equal(Number(block.number), number);
    assert.equal(typeof block.isFinalized, 'boolean');
    // A transfer signed by cast with the second dev key.
    const key = `0x${Buffer.from(bob.getHdKey().privateKey!).toString('hex')}` as Hex;
    const to = '0x000000000000000000000000000000000000dEaD';
    const sent = JSON.parse((await run(cast!, ['send', '--private-key', key, to, '--value', '1gwei', '--json', ...url])).stdout);
    assert.equal(sent.status, '0x1');
    assert.equal((await run(cast!, ['balance', to, ...url])).stdout.trim(), '1000000000');
    const receipt = JSON.parse((await run(cast!, ['receipt', sent.transactionHash, '--json', ...url])).stdout);
    assert.equal(receipt.gasUsed, '0x5208');
    // A read of the counter through cast call, and an error for a revert.
    assert.equal((await run(cast!, ['call', counterAddress, 'count()(uint256)', ...url])).stdout.trim(), '42');
    await assert.rejects(run(cast!, ['call', counterAddress, 'add(uint256)', '13', ...url]), (e: any) => /unlucky number/.test(e.stderr));
  });

  test('a request under another host name is refused (DNS rebinding), with CORS still open for browsers', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_accounts' });
    for (const url of [node.evmRpcUrl, node.rpcUrl]) {
      const refused = await post(url, 'evil.example', body);
      assert.equal(refused.status, 403);
      assert.match(refused.body, /invalid host "evil.example".*--rpc-allowed-hosts/);
      const ok = await post(url, 'localhost:8545', body, { origin: 'https://some.dapp' });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers['access-control-allow-origin'], '*');
      assert.equal((await post(url, '127.0.0.1', body)).status, 200);
      assert.equal((await post(url, '[::1]:8545', body)).status, 200);
    }
    // The WebSocket upgrade is guarded too.
    const ws = new WebSocket(node.evmRpcUrl.replace('http', 'ws'), { headers: { host: 'evil.example' } });
    const status = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!)));
    assert.equal(status, 403);
    const pubsub = new WebSocket(node.pubsubUrl, { headers: { host: 'rebind.attacker' } });
    assert.equal(await new Promise<number>((resolve) => pubsub.on('unexpected-response', (_req, res) => resolve(res.statusCode!))), 403);
  });
});
