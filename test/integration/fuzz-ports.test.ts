/**
 * The short form of bench/fuzz-ports.ts: a few thousand malformed and hostile requests from a fixed
 * seed across native HTTP, EVM HTTP, PubSub and EVM WebSocket against a real node in a child process.
 * The node must not die, every answer must be a JSON-RPC error (with the request's id), an HTTP error
 * status or a closed connection (or a well-formed result), RSS must stay bounded, and the node must
 * serve normally afterwards. Then each defect the fuzzer found, one request at a time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WebSocket } from 'ws';
import { checkServing, formatReport, runFuzz, startFuzzNode, type FuzzNode } from '../../bench/lib/fuzz-ports.ts';
import { caseGenerator } from '../../bench/lib/fuzz-requests.ts';

const SEED = 19;
const COUNT = 2_500;

describe('every port fuzzed', () => {
  let node: FuzzNode;
  before(async () => {
    node = await startFuzzNode();
  });
  after(async () => {
    await node?.stop();
  });

  test('the generator is a function of its seed', () => {
    const a = caseGenerator(7, { floodSize: 10 });
    const b = caseGenerator(7, { floodSize: 10 });
    for (let i = 0; i < 200; i++) assert.deepEqual(a(), b());
  });

  test(`${COUNT} hostile requests (seed ${SEED}): no crash, only JSON-RPC errors, HTTP errors or closed connections, RSS bounded, still serving`, async () => {
    const rssBefore = node.rssBytes();
    const report = await runFuzz(node, { count: COUNT, seed: SEED, concurrency: 16, floodSize: 500, hangMs: 20_000 });
    const table = formatReport(report);
    assert.equal(report.crashed, null, `the node died: ${node.stderr().slice(-2000)}`);
    assert.equal(report.cases, COUNT);
    assert.deepEqual(report.violations, [], table);
    assert.equal(report.internalErrorsLogged, 0, node.stderr().slice(-2000));
    // Every sort of case was drawn and reached its port.
    const kinds = [...report.outcomes.keys()].join('\n');
    for (const kind of ['wrong-types', 'broken-json', 'batch', 'huge-array', 'deep-nesting', 'oversized-body', 'binary-body', 'binary-frame', 'oversized-frame', 'subscribe-flood', 'slow-request', 'short-body', 'held-open', 'garbage-bytes', 'ws-bad-frame', 'ws-half-upgrade', 'ws-bad-upgrade']) {
      assert.match(kinds, new RegExp(kind), `no ${kind} case in the run:\n${table}`);
    }
    for (const target of ['native-http', 'evm-http', 'pubsub-ws', 'evm-ws']) assert.match(kinds, new RegExp(`${target} .* error -32602`));
    const grownMiB = (node.rssBytes() - rssBefore) / 2 ** 20;
    assert.ok(grownMiB < 400, `RSS grew by ${grownMiB.toFixed(0)} MiB`);
    await checkServing(node);
  });

  test('an EVM WebSocket frame past the payload limit closes that socket (1009), not the node', async () => {
    const evmWs = node.urls['evm-ws'];
    const ws = new WebSocket(evmWs);
    await new Promise((r) => ws.once('open', r));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.send('x'.repeat((1 << 20) + 1));
    assert.equal(await closed, 1009);
    assert.equal(node.exit, null);
    const res = await fetch(node.urls['evm-http'], { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' });
    assert.match(((await res.json()) as { result: string }).result, /^0x/);
  });

  test('EVM methods without params refuse params (eth_chainId ["x", {}] was answered)', async () => {
    for (const [method, params] of [['eth_chainId', ['x', {}]], ['eth_blockNumber', [1]], ['net_version', [[]]], ['eth_newBlockFilter', [{}]], ['eth_getUncleByBlockNumberAndIndex', ['nonsense']]] as const) {
      const res = await fetch(node.urls['evm-http'], { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 'q', method, params }) });
      const body = (await res.json()) as { id: string; error?: { code: number } };
      assert.equal(body.id, 'q');
      assert.equal(body.error?.code, -32602, `${method} ${JSON.stringify(params)}: ${JSON.stringify(body)}`);
    }
  });
});
