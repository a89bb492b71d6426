/**
 * The calls a stock Otterscan makes, replayed with its exact params (no npm package ships a built
 * Otterscan, and CI cannot fetch its repository; scripts/otterscan-by-hand.ts drives a real build by
 * hand, see README). Read from Otterscan's source:
 * - src/useProvider.ts: the probe at start, through ethers' JsonRpcProvider with staticNetwork
 *   (batched): eth_blockNumber, erigon_getHeaderByNumber ["latest"], ots_getApiLevel [] (refused
 *   below MIN_API_LEVEL = 8, src/params.ts) and the eth_chainId ethers makes for getNetwork();
 * - src/useLatestBlock.ts: eth_blockNumber, then erigon_getHeaderByNumber [<JSON number>];
 * - src/useErigonHooks.ts: ots_getBlockDetails [<JSON number>], ots_getBlockDetailsByHash [hash],
 *   ots_getBlockTransactions [number, pageNumber, pageSize], ots_getTransactionBySenderAndNonce
 *   [checksummed address, number], ots_getContractCreator [checksummed address], ots_hasCode
 *   [address, "latest"], and an ERC-20 name() eth_call on addresses it shows;
 * - src/search/search.ts: ots_searchTransactionsBefore/After [checksummed address, block, 25];
 * - src/useErigonHooks.ts, useStateDiffTrace (the transaction's State Diff tab): Erigon's
 *   trace_replayTransaction [hash, ["stateDiff"]], which the node does not serve; Otterscan says so only
 *   when ethers reads the error as UNSUPPORTED_OPERATION (found by scripts/otterscan-by-hand.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Contract, FetchRequest, HDNodeWallet, Interface, JsonRpcProvider, Mnemonic, WebSocketProvider, getAddress } from 'ethers';
import { compileFixture } from '../helpers/evm.ts';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';
import { otsApiLevel } from '../../node-core/rpc/eth/ots.ts';
import { ethMethods } from '../../node-core/rpc/eth/methods.ts';

const WORDS = 'test test test test test test test test test test test junk';
const MIN_API_LEVEL = 8;
const PAGE_SIZE = 25;
const factory = compileFixture('Factory.sol', 'Factory');
const iface = new Interface(factory.abi as never);

describe("Otterscan's calls, with the params it sends", () => {
  let node: TestNode;
  /** Every JSON-RPC request body the provider sent, in order. */
  const sent: unknown[] = [];
  let provider: JsonRpcProvider;
  const alice = HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(WORDS), "m/44'/60'/0'/0/0");
  let factoryAddress: string;
  let child: string;
  let made: any;

  before(async () => {
    node = await startTestNode({ mnemonic: WORDS, evmChainId: 106 });
    const request = new FetchRequest(node.evmRpcUrl);
    request.preflightFunc = async (req) => {
      sent.push(JSON.parse(Buffer.from(req.body!).toString()));
      return req;
    };
    // As src/useProvider.ts makes it.
    provider = new JsonRpcProvider(request, undefined, { staticNetwork: true });
    const send = async (tx: object, nonce: number) => {
      const raw = await alice.signTransaction({ type: 2, chainId: 106, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, gasLimit: 1_000_000, nonce, ...tx });
      const hash = (await rpc(node.evmRpcUrl, 'eth_sendRawTransaction', [raw])).result;
      return waitFor(async () => (await rpc(node.evmRpcUrl, 'eth_getTransactionReceipt', [hash])).result, { what: 'the receipt', timeoutMs: 30_000 });
    };
    factoryAddress = getAddress((await send({ data: factory.bytecode }, 0)).contractAddress);
    made = await send({ to: factoryAddress, data: iface.encodeFunctionData('make', [7]) }, 1);
    child = getAddress(`0x${made.logs[0].data.slice(26)}`);
  });
  after(() => node.stop());

  test("the probe at start: Otterscan's four calls (batched by ethers); the level check passes only when the node serves level 8", async () => {
    sent.length = 0;
    const probeBlockNumber = provider.getBlockNumber();
    const probeHeader1 = provider.send('erigon_getHeaderByNumber', ['latest']);
    const probeOtsAPI = provider.send('ots_getApiLevel', []);
    const getNetwork = provider.getNetwork();
    const [blockNumber, header, level, network] = await Promise.all([probeBlockNumber, probeHeader1, probeOtsAPI, getNetwork]);
    const methods = sent.flat().map((b) => (b as { method: string }).method);
    assert.deepEqual([...methods].sort(), ['eth_blockNumber', 'eth_chainId', 'erigon_getHeaderByNumber', 'ots_getApiLevel'].sort());
    assert.equal(network.chainId, 106n);
    assert.equal(Number(BigInt(header.number)), blockNumber);
    for (const field of ['hash', 'parentHash', 'timestamp', 'gasLimit', 'gasUsed', 'miner', 'extraData', 'baseFeePerGas', 'difficulty', 'nonce']) assert.match(header[field], /^0x[0-9a-f]*$/, field);
    // src/useProvider.ts: a level below 8 is "not Otterscan-patched". The node says 8 only with every level-8 method.
    assert.equal(level, otsApiLevel(Object.keys(ethMethods)));
    assert.equal(level >= MIN_API_LEVEL, otsApiLevel(Object.keys(ethMethods)) === 8);
  });

  test('the home page and block pages: block numbers as JSON numbers, the hash form, and the transaction page of 25', async () => {
    const latest = await provider.getBlockNumber();
    const header = await provider.send('erigon_getHeaderByNumber', [latest]);
    assert.equal(header.number, `0x${latest.toString(16)}`);
    const details = await provider.send('ots_getBlockDetails', [Number(BigInt(made.blockNumber))]);
    assert.equal(details.block.hash, made.blockHash);
    assert.equal(details.block.transactionCount, 1);
    assert.deepEqual(details.issuance, { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' });
    // The two reads may straddle the block's rooting: all but isFinalized must agree.
    const byHash = await provider.send('ots_getBlockDetailsByHash', [made.blockHash]);
    const unrooted = (d: { block: Record<string, unknown> }) => ({ ...d, block: { ...d.block, isFinalized: undefined } });
    assert.equal(typeof byHash.block.isFinalized, 'boolean');
    assert.deepEqual(unrooted(byHash), unrooted(details));
    const page = await provider.send('ots_getBlockTransactions', [Number(BigInt(made.blockNumber)), 0, PAGE_SIZE]);
    assert.equal(page.fullblock.transactions[0].hash, made.transactionHash);
    assert.equal(page.receipts[0].status, '0x1');
    // A block that is not there yet: null, which Otterscan shows as "block not found".
    assert.equal(await provider.send('ots_getBlockDetails', [latest + 1000]), null);
  });

  test('the address page: checksummed addresses, the history pages, the creator, hasCode, the nonce lookup and name()', async () => {
    const before = await provider.send('ots_searchTransactionsBefore', [getAddress(alice.address), 0, PAGE_SIZE]);
    assert.deepEqual(before.txs.map((t: { hash: string }) => t.hash), [made.transactionHash, before.txs[1].hash]);
    assert.equal(before.firstPage, true);
    assert.equal(before.lastPage, true);
    const afterPage = await provider.send('ots_searchTransactionsAfter', [getAddress(alice.address), 0, PAGE_SIZE]);
    assert.deepEqual(afterPage.txs, before.txs);
    for (const r of before.receipts) assert.match(r.timestamp, /^0x[0-9a-f]+$/);
    assert.deepEqual(await provider.send('ots_getContractCreator', [child]), { hash: made.transactionHash, creator: factoryAddress.toLowerCase() });
    assert.equal(await provider.send('ots_hasCode', [child, 'latest']), true);
    assert.equal(await provider.send('ots_hasCode', [getAddress(alice.address), 'latest']), false);
    assert.equal(await provider.send('ots_getTransactionBySenderAndNonce', [getAddress(alice.address), 1]), made.transactionHash);
    assert.equal(await provider.send('ots_getTransactionBySenderAndNonce', [getAddress(alice.address), 2]), null);
    // ERC-20 name() on every address it shows: a revert (no such function) is an answer it handles.
    const erc20 = new Contract(factoryAddress, ['function name() view returns (string)'], provider);
    await assert.rejects(erc20.getFunction('name')(), (e: { code?: string }) => e.code === 'CALL_EXCEPTION');
    const eoa = new Contract(alice.address, ['function name() view returns (string)'], provider);
    await assert.rejects(eoa.getFunction('name')(), (e: { code?: string }) => e.code === 'BAD_DATA' || e.code === 'CALL_EXCEPTION');
  });

  test("a method the node does not serve (the State Diff tab's trace_replayTransaction): -32601 in geth's words, which ethers reads as unsupported", async () => {
    const params = [made.transactionHash, ['stateDiff']];
    const message = 'the method trace_replayTransaction does not exist/is not available';
    assert.deepEqual((await rpc(node.evmRpcUrl, 'trace_replayTransaction', params)).error, { code: -32601, message });
    // Otterscan's check (useStateDiffTrace): e.code === "UNSUPPORTED_OPERATION" shows "not supported"; anything else left the tab loading forever.
    await assert.rejects(provider.send('trace_replayTransaction', params), (e: { code?: string }) => e.code === 'UNSUPPORTED_OPERATION');
    const ws = new WebSocketProvider(node.evmRpcUrl.replace('http', 'ws'), undefined, { staticNetwork: true });
    try {
      await assert.rejects(ws.send('trace_replayTransaction', params), (e: { code?: string; error?: { message?: string } }) => e.code === 'UNSUPPORTED_OPERATION');
    } finally {
      await ws.destroy();
    }
    // The native port keeps Agave's words for its own unknown methods.
    assert.deepEqual((await rpc(node.rpcUrl, 'trace_replayTransaction', params)).error, { code: -32601, message: 'Method not found' });
  });
});
