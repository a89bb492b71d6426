/**
 * EVM tracing against Anvil, the oracle: the same dev mnemonic and balances, the same hardfork, the
 * same transactions with the same gas limits and gas price (a transfer, a deployment, a call that
 * creates a contract, makes nested calls, emits logs, reverts in inner frames and sends value back,
 * a transaction that reverts) sent to both; then debug_trace* (struct logger, callTracer,
 * prestateTracer) and the trace-based ots_* compared field by field. What must differ is left out:
 * transaction and block hashes, and the zero address's balance (the coinbase: Anvil's base fee
 * moves with its blocks, ours is fixed and paid to the relayer natively). Every trace of a stored
 * transaction is a replay the node checks against the stored receipt (gasUsed, status, logs), so
 * every answer here is also that check passing. Then the bridge in traces, and bad inputs.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Interface, JsonRpcProvider, Wallet, parseEther, type TransactionReceipt } from 'ethers';
import WebSocket from 'ws';
import { BRIDGE_ADDRESS } from '../../node-core/evm/constants.ts';
import { deriveEvmKeys } from '../../node-core/keys/evm-keys.ts';
import { writeKeypairFile } from '../../node-core/keys/keypair.ts';
import { runToExit } from '../helpers/cli-process.ts';
import { compileFixture, foundryBinary, startAnvil, type RunningAnvil } from '../helpers/evm.ts';
import { rpc, rpcBatch, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';

const WORDS = 'test test test test test test test test test test test junk';
const GAS_PRICE = 3_000_000_000n;
const traceMe = compileFixture('TraceMe.sol', 'TraceMe');
const iface = new Interface(traceMe.abi as never);
const NO_ANVIL = foundryBinary('anvil') === null && 'npm ships no Anvil for this platform';

interface Side {
  url: string;
  provider: JsonRpcProvider;
  alice: Wallet;
  hashes: Record<string, string>;
  receipts: Record<string, TransactionReceipt>;
}

async function send(side: Side, name: string, tx: { to?: string; data?: string; value?: bigint; gasLimit: bigint }): Promise<void> {
  const sent = await side.alice.sendTransaction({ ...tx, gasPrice: GAS_PRICE, type: 0 });
  side.hashes[name] = sent.hash;
  side.receipts[name] = (await waitFor(() => side.provider.getTransactionReceipt(sent.hash), { what: `${name}'s receipt`, timeoutMs: 30_000 }))!;
}

async function call(url: string, method: string, params: unknown[]): Promise<any> {
  const r = await rpc(url, method, params);
  if (r.error) throw new Error(`${method}: ${r.error.message}`);
  return r.result;
}

/** The zero address's entry (the coinbase) differs by design: see the file's comment. */
function withoutCoinbase(prestate: Record<string, unknown>): Record<string, unknown> {
  const { ['0x0000000000000000000000000000000000000000']: _, ...rest } = prestate;
  return rest;
}

describe('EVM tracing: the node against Anvil', () => {
  let node: TestNode;
  let anvil: RunningAnvil | null;
  const sides: Side[] = [];
  let ours: Side;
  let theirs: Side;

  before(async () => {
    // Slots of 400 ms, so that transactions sent together share an EVM block even on a busy machine.
    node = await startTestNode({ mnemonic: WORDS, slotMs: 400 });
    // The node's dev accounts hold 10^14 lamports = 10^23 wei = 100,000 ether.
    anvil = await startAnvil(['--mnemonic', WORDS, '--balance', '100000', '--hardfork', 'osaka', '--steps-tracing']);
    if (!anvil) return;
    const key = Buffer.from(deriveEvmKeys(WORDS, 1)[0]!.privateKey).toString('hex');
    for (const url of [node.evmRpcUrl, anvil.url]) {
      const provider = new JsonRpcProvider(url, undefined, { pollingInterval: 50, cacheTimeout: -1 });
      sides.push({ url, provider, alice: new Wallet(key, provider), hashes: {}, receipts: {} });
    }
    [ours, theirs] = sides as [Side, Side];
    const bob = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
    for (const side of sides) {
      await send(side, 'transfer', { to: bob, value: parseEther('1.25'), gasLimit: 21_000n });
      await send(side, 'deploy', { data: traceMe.bytecode, gasLimit: 2_000_000n });
      const at = side.receipts.deploy!.contractAddress!;
      await send(side, 'run', { to: at, data: iface.encodeFunctionData('run', [5]), value: 4_000_000_000n, gasLimit: 1_000_000n });
      await send(side, 'boom', { to: at, data: iface.encodeFunctionData('boom'), gasLimit: 100_000n });
    }
  });
  after(async () => {
    for (const s of sides) s.provider.destroy();
    anvil?.stop();
    await node.stop();
  });

  test('the same transactions had the same outcome on both', { skip: NO_ANVIL }, () => {
    for (const name of ['transfer', 'deploy', 'run', 'boom']) {
      assert.equal(ours.receipts[name]!.gasUsed, theirs.receipts[name]!.gasUsed, name);
      assert.equal(ours.receipts[name]!.status, theirs.receipts[name]!.status, name);
      assert.equal(ours.receipts[name]!.contractAddress, theirs.receipts[name]!.contractAddress, name);
    }
    assert.equal(ours.receipts.boom!.status, 0);
  });

  for (const name of ['transfer', 'deploy', 'run', 'boom']) {
    test(`callTracer (withLog) of ${name} equals Anvil's`, { skip: NO_ANVIL }, async () => {
      const cfg = { tracer: 'callTracer', tracerConfig: { withLog: true } };
      const [a, b] = await Promise.all(sides.map((s) => call(s.url, 'debug_traceTransaction', [s.hashes[name], cfg])));
      assert.deepEqual(a, b);
      assert.equal(BigInt(a.gasUsed), ours.receipts[name]!.gasUsed);
    });

    test(`the struct logger (memory, return data, storage) of ${name} equals Anvil's`, { skip: NO_ANVIL }, async () => {
      const cfg = { enableMemory: true, enableReturnData: true };
      const [a, b] = await Promise.all(sides.map((s) => call(s.url, 'debug_traceTransaction', [s.hashes[name], cfg])));
      assert.equal(a.structLogs.length, b.structLogs.length);
      for (let i = 0; i < a.structLogs.length; i++) assert.deepEqual(a.structLogs[i], b.structLogs[i], `step ${i}`);
      assert.deepEqual({ ...a, structLogs: [] }, { ...b, structLogs: [] });
    });

    test(`prestateTracer, both modes, of ${name} equals Anvil's`, { skip: NO_ANVIL }, async () => {
      const [a, b] = await Promise.all(sides.map((s) => call(s.url, 'debug_traceTransaction', [s.hashes[name], { tracer: 'prestateTracer' }])));
      assert.deepEqual(withoutCoinbase(a), withoutCoinbase(b));
      const [c, d] = await Promise.all(sides.map((s) => call(s.url, 'debug_traceTransaction', [s.hashes[name], { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }])));
      assert.deepEqual(withoutCoinbase(c.pre), withoutCoinbase(d.pre));
      assert.deepEqual(withoutCoinbase(c.post), withoutCoinbase(d.post));
    });

    test(`ots_traceTransaction, ots_getInternalOperations and ots_getTransactionError of ${name} equal Anvil's`, { skip: NO_ANVIL }, async () => {
      for (const method of ['ots_getInternalOperations', 'ots_getTransactionError']) {
        const [a, b] = await Promise.all(sides.map((s) => call(s.url, method, [s.hashes[name]])));
        assert.deepEqual(a, b, method);
      }
      // Anvil leaves CREATE frames out of ots_traceTransaction; Otterscan's spec (and Erigon) has them.
      const [a, b] = await Promise.all(sides.map((s) => call(s.url, 'ots_traceTransaction', [s.hashes[name]])));
      const creates = a.filter((t: any) => t.type === 'CREATE');
      assert.deepEqual(a.filter((t: any) => t.type !== 'CREATE'), b);
      assert.equal(creates.length, name === 'deploy' || name === 'run' ? 1 : 0);
      if (name === 'run') assert.deepEqual({ ...creates[0], input: undefined, output: undefined }, { type: 'CREATE', depth: 1, from: ours.receipts.deploy!.contractAddress!.toLowerCase(), to: creates[0].to, value: '0x77359400', input: undefined, output: undefined });
    });
  }

  // The struct logger's answer is JSON text written while the run steps; wherever it is put, it is the same answer.
  test('the struct logger with default options equals Anvil\'s, and is the same answer in a block trace, a batch and over WebSocket', { skip: NO_ANVIL }, async () => {
    const hash = ours.hashes.run!;
    const [alone, anvils] = await Promise.all(sides.map((s) => call(s.url, 'debug_traceTransaction', [s.hashes.run, {}])));
    assert.ok(alone.structLogs.length > 100 && alone.structLogs.some((l: any) => l.storage));
    assert.deepEqual(alone, anvils);
    const block = await call(ours.url, 'debug_traceBlockByNumber', [`0x${ours.receipts.run!.blockNumber.toString(16)}`, {}]);
    assert.deepEqual(block.find((t: any) => t.txHash === hash).result, alone);
    for (const t of block) assert.deepEqual(t.result, await call(ours.url, 'debug_traceTransaction', [t.txHash, {}]), t.txHash);
    const [traced, chainId] = await rpcBatch(ours.url, [['debug_traceTransaction', [hash, {}]], ['eth_chainId', []]]);
    assert.deepEqual(traced.result, alone);
    assert.equal(chainId.result, await call(ours.url, 'eth_chainId', []));
    const ws = new WebSocket(ours.url.replace('http://', 'ws://'));
    try {
      await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
      const answer = new Promise<any>((resolve) => ws.once('message', (d) => resolve(JSON.parse(d.toString()))));
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'debug_traceTransaction', params: [hash, {}] }));
      assert.deepEqual(await answer, { jsonrpc: '2.0', id: 7, result: alone });
    } finally {
      ws.close();
    }
  });

  test('callTracer with onlyTopCall, and debug_traceCall, equal Anvil\'s', { skip: NO_ANVIL }, async () => {
    const cfg = { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } };
    const [a, b] = await Promise.all(sides.map((s) => call(s.url, 'debug_traceTransaction', [s.hashes.run, cfg])));
    assert.deepEqual(a, b);
    assert.equal(a.calls, undefined);
    const at = ours.receipts.deploy!.contractAddress!;
    const request = { from: ours.alice.address, to: at, data: iface.encodeFunctionData('run', [9]), value: '0x3b9aca00', gas: '0x100000' };
    const [c, d] = await Promise.all(sides.map((s) => call(s.url, 'debug_traceCall', [request, 'latest', { tracer: 'callTracer', tracerConfig: { withLog: true } }])));
    assert.deepEqual(c, d);
    const [e, f] = await Promise.all(sides.map((s) => call(s.url, 'debug_traceCall', [request, 'latest', {}])));
    assert.deepEqual(e.structLogs.length, f.structLogs.length);
    assert.deepEqual(e, f);
  });

  test('debug_traceBlockByNumber and ByHash give each transaction of the block, as debug_traceTransaction does', { skip: NO_ANVIL }, async () => {
    const cfg = { tracer: 'callTracer' };
    const receipt = ours.receipts.run!;
    const byNumber = await call(ours.url, 'debug_traceBlockByNumber', [`0x${receipt.blockNumber.toString(16)}`, cfg]);
    const byHash = await call(ours.url, 'debug_traceBlockByHash', [receipt.blockHash, cfg]);
    assert.deepEqual(byNumber, byHash);
    const mine = byNumber.find((t: any) => t.txHash === ours.hashes.run);
    const anvilBlock = await call(theirs.url, 'debug_traceBlockByNumber', [`0x${theirs.receipts.run!.blockNumber.toString(16)}`, cfg]);
    assert.deepEqual(mine.result, anvilBlock.find((t: any) => t.txHash === theirs.hashes.run).result);
  });

  test('a transaction late in a block replays on the ones before it (their state changes feed its logs)', async () => {
    const provider = new JsonRpcProvider(node.evmRpcUrl, undefined, { pollingInterval: 50, cacheTimeout: -1 });
    try {
      const alice = new Wallet(Buffer.from(deriveEvmKeys(WORDS, 1)[0]!.privateKey).toString('hex'), provider);
      const at = (await (await alice.sendTransaction({ data: traceMe.bytecode, gasLimit: 2_000_000n })).wait())!.contractAddress!;
      const chainId = (await provider.getNetwork()).chainId;
      // Four senders (the relay keeps one sender's transactions in nonce order, a slot apart).
      const senders = deriveEvmKeys(WORDS, 5).slice(1).map((k) => new Wallet(Buffer.from(k.privateKey).toString('hex'), provider));
      // One batch: the relay takes them in one turn, so they share a slot and an EVM block unless the
      // machine is too slow for even that; then another batch (each one is also a test of replay order).
      let receipts: TransactionReceipt[] = [];
      let last!: TransactionReceipt;
      let shared: TransactionReceipt[] = [];
      for (let attempt = 0; attempt < 5 && shared.length < 2; attempt++) {
        const raws = await Promise.all(
          senders.map(async (w, v) => w.signTransaction({ to: at, data: iface.encodeFunctionData('run', [v + 1]), value: 4_000_000_000n, gasLimit: 1_000_000n, gasPrice: GAS_PRICE, nonce: await provider.getTransactionCount(w.address, 'pending'), chainId, type: 0 })),
        );
        const sent = await fetch(node.evmRpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(raws.map((r, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [r] }))) });
        const hashes = ((await sent.json()) as Array<{ id: number; result: string }>).sort((a, b) => a.id - b.id).map((r) => r.result);
        receipts = (await Promise.all(hashes.map((h) => waitFor(() => provider.getTransactionReceipt(h), { what: 'a receipt' })))) as TransactionReceipt[];
        last = receipts.reduce((a, b) => (b.blockNumber > a.blockNumber || (b.blockNumber === a.blockNumber && b.index > a.index) ? b : a));
        shared = receipts.filter((r) => r.blockNumber === last.blockNumber);
      }
      assert.ok(shared.length >= 2, `the batch's transactions share a block (${receipts.map((r) => r.blockNumber).join(', ')})`);
      assert.ok(last.index > 0);
      const trace = await call(node.evmRpcUrl, 'debug_traceTransaction', [last.hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }]);
      assert.equal(BigInt(trace.gasUsed), last.gasUsed);
      // Done(total) carries the running total that the block's earlier transactions raised.
      const done = trace.logs.at(-1);
      assert.equal(done.data, last.logs.at(-1)!.data);
      assert.equal(BigInt(done.index), BigInt(last.logs.at(-1)!.index));
      const block = await call(node.evmRpcUrl, 'debug_traceBlockByNumber', [`0x${last.blockNumber.toString(16)}`, { tracer: 'callTracer' }]);
      const blockTxs = (await provider.send('eth_getBlockByNumber', [`0x${last.blockNumber.toString(16)}`, false])).transactions as string[];
      assert.deepEqual(block.map((t: any) => t.txHash), blockTxs);
      for (const r of shared) assert.equal(BigInt(block.find((t: any) => t.txHash === r.hash).result.gasUsed), r.gasUsed);
    } finally {
      provider.destroy();
    }
  });

  test('bad input gets geth\'s errors', async () => {
    const url = node.evmRpcUrl;
    const unknown = `0x${'ab'.repeat(32)}`;
    const err = async (method: string, params: unknown[]) => (await rpc(url, method, params)).error;
    assert.deepEqual(await err('debug_traceTransaction', [unknown]), { code: -32000, message: 'transaction not found' });
    const hash = ours?.hashes.run ?? unknown;
    if (anvil) {
      assert.match((await err('debug_traceTransaction', [hash, { tracer: 'fooTracer' }])).message, /^tracer not found: fooTracer/);
      assert.deepEqual(await err('debug_traceTransaction', [hash, { tracer: 'callTracer', tracerConfig: { onlyTopCall: 'yes' } }]), {
        code: -32000,
        message: 'json: cannot unmarshal string into Go struct field callTracerConfig.onlyTopCall of type bool',
      });
      assert.deepEqual(await err('debug_traceTransaction', [hash, { tracer: 'prestateTracer', tracerConfig: 5 }]), {
        code: -32000,
        message: 'json: cannot unmarshal number into Go value of type native.prestateTracerConfig',
      });
      assert.equal((await err('debug_traceTransaction', [hash, { enableMemory: 'yes' }])).code, -32602);
    }
    assert.deepEqual(await err('debug_traceBlockByNumber', ['0xffffff']), { code: -32000, message: 'block #16777215 not found' });
    assert.deepEqual(await err('debug_traceBlockByHash', [unknown]), { code: -32000, message: `block ${unknown} not found` });
    assert.deepEqual(await err('debug_traceBlockByNumber', ['0x0']), { code: -32000, message: 'genesis is not traceable' });
    assert.deepEqual(await err('debug_traceCall', [{ to: BRIDGE_ADDRESS }, '0xffffff']), { code: -32000, message: 'block #16777215 not found' });
    assert.equal((await err('debug_traceTransaction', ['0x12'])).code, -32602);
    assert.deepEqual(await err('ots_traceTransaction', [unknown]), { code: -32000, message: 'transaction not found' });
  });

  test('the bridge in traces: a deposit is a transfer from the bridge, a withdrawal an internal transfer to it', async () => {
    const keyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-key-')), 'id.json');
    writeKeypairFile(keyFile, node.keys.devAccounts[0]!);
    const receiver = Wallet.createRandom().address.toLowerCase();
    const r = await runToExit(['evm', 'transfer-to-evm', '--keypair', keyFile, '--url', node.rpcUrl, receiver, '1.5']);
    assert.equal(r.code, 0, r.stderr);
    const provider = new JsonRpcProvider(node.evmRpcUrl, undefined, { pollingInterval: 50, cacheTimeout: -1 });
    try {
      await waitFor(async () => (await provider.getBalance(receiver)) === parseEther('1.5'), { what: 'the deposit' });
      const block = await provider.send('eth_getBlockByNumber', ['latest', true]);
      const deposit = (block.transactions as any[]).find((t) => t.to === receiver && t.from === BRIDGE_ADDRESS);
      assert.ok(deposit, 'the deposit is in the newest block');
      const trace = await call(node.evmRpcUrl, 'debug_traceTransaction', [deposit.hash, { tracer: 'callTracer' }]);
      assert.deepEqual(trace, { from: BRIDGE_ADDRESS, gas: '0x0', gasUsed: '0x0', to: receiver, input: '0x', value: `0x${parseEther('1.5').toString(16)}`, type: 'CALL' });
      assert.deepEqual(await call(node.evmRpcUrl, 'ots_getInternalOperations', [deposit.hash]), [{ type: 0, from: BRIDGE_ADDRESS, to: receiver, value: `0x${parseEther('1.5').toString(16)}` }]);
      const pre = await call(node.evmRpcUrl, 'debug_traceTransaction', [deposit.hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
      assert.equal(pre.post[receiver].balance, `0x${parseEther('1.5').toString(16)}`);
      // The struct logger: a deposit runs no code.
      assert.deepEqual(await call(node.evmRpcUrl, 'debug_traceTransaction', [deposit.hash, {}]), { gas: 0, failed: false, returnValue: '0x', structLogs: [] });

      // A later transaction of the same block replays on top of the deposit: trace one from the receiver's funds.
      const alice = new Wallet(Buffer.from(deriveEvmKeys(WORDS, 1)[0]!.privateKey).toString('hex'), provider);
      const proxy = new Interface(['function transferToNative(bytes32)']);
      const recipient = node.keys.devAccounts[1]!.address;
      const { decodeBase58 } = await import('../../node-core/common/base58.ts');
      const word = `0x${Buffer.from(decodeBase58(recipient)).toString('hex')}`;
      const sent = await alice.sendTransaction({ to: BRIDGE_ADDRESS, data: proxy.encodeFunctionData('transferToNative', [word]), value: parseEther('2'), gasLimit: 100_000n });
      const receipt = (await sent.wait())!;
      assert.equal(receipt.status, 1);
      const ops = await call(node.evmRpcUrl, 'ots_getInternalOperations', [sent.hash]);
      assert.deepEqual(ops, [{ type: 0, from: alice.address.toLowerCase(), to: BRIDGE_ADDRESS, value: `0x${parseEther('2').toString(16)}` }]);
      const frame = await call(node.evmRpcUrl, 'debug_traceTransaction', [sent.hash, { tracer: 'callTracer' }]);
      assert.equal(frame.to, BRIDGE_ADDRESS);
      assert.equal(BigInt(frame.gasUsed), receipt.gasUsed);
    } finally {
      provider.destroy();
    }
  });
  // A single HTTP request's struct logger answer streams while the traced run steps (its entries first);
  // a batch, a block trace and WebSocket collect it whole. Last: its transaction changes our side's contract only.
  test("the struct logger's streamed answer parses equal to the collected one; a client that leaves half-way leaves the node answering right", { skip: NO_ANVIL }, async () => {
    // Some 100,000 gas of keccak rounds: an answer of several MB, sent in many chunks.
    const burn = iface.encodeFunctionData('burn', [200]);
    const to = ours.receipts.deploy!.contractAddress!;
    const sent = await ours.alice.sendTransaction({ to, data: burn, gasLimit: 1_000_000n, gasPrice: GAS_PRICE, type: 0 });
    const receipt = (await waitFor(() => ours.provider.getTransactionReceipt(sent.hash), { what: "the burn's receipt", timeoutMs: 30_000 }))!;
    const post = async (body: unknown) => {
      const res = await fetch(ours.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { chunked: res.headers.get('transfer-encoding') === 'chunked', text: await res.text() };
    };
    const request = (method: string, params: unknown[], id = 1) => ({ jsonrpc: '2.0', id, method, params });
    const streamed = await post(request('debug_traceTransaction', [sent.hash]));
    assert.ok(streamed.chunked, 'sent as it is written');
    assert.ok(streamed.text.length > 4_000_000 && streamed.text.startsWith('{"jsonrpc":"2.0","result":{"structLogs":[{"pc":0,'), streamed.text.slice(0, 300));
    const answer = JSON.parse(streamed.text);
    assert.equal(answer.id, 1);
    assert.equal(answer.result.gas, Number(receipt.gasUsed));
    // A batch of one collects the answer whole, in geth's member order.
    const batch = await post([request('debug_traceTransaction', [sent.hash])]);
    assert.ok(!batch.chunked);
    assert.ok(batch.text.startsWith('[{"jsonrpc":"2.0","result":{"gas":'), batch.text.slice(0, 100));
    assert.deepEqual(JSON.parse(batch.text)[0].result, answer.result);
    const block = JSON.parse((await post(request('debug_traceBlockByNumber', [`0x${receipt.blockNumber.toString(16)}`]))).text).result;
    assert.deepEqual(block.find((t: any) => t.txHash === sent.hash).result, answer.result);
    // debug_traceCall streams the same way.
    const callArgs = [{ from: ours.alice.address, to, data: burn, gas: '0xf4240' }, `0x${(receipt.blockNumber - 1).toString(16)}`];
    const callStreamed = await post(request('debug_traceCall', callArgs));
    assert.ok(callStreamed.chunked);
    assert.deepEqual(JSON.parse(callStreamed.text).result, JSON.parse((await post([request('debug_traceCall', callArgs)])).text)[0].result);
    // A client that takes the first bytes and goes away; then the same answer, and the node answers.
    await new Promise<void>((resolve, reject) => {
      const req = http.request(ours.url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => res.once('data', () => (req.destroy(), resolve())));
      req.on('error', (e) => (req.destroyed ? resolve() : reject(e)));
      req.end(JSON.stringify(request('debug_traceTransaction', [sent.hash])));
    });
    assert.equal((await post(request('debug_traceTransaction', [sent.hash]))).text, streamed.text);
    assert.equal(await call(ours.url, 'eth_chainId', []), `0x${(await ours.provider.getNetwork()).chainId.toString(16)}`);
  });
});
