/**
 * The health check with known validators: a small fake JSON-RPC server whose getSlot the test
 * moves (ahead → behind, unreachable → unknown), then a real second node that runs ahead of a node
 * started through the CLI with --known-validator.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { after, describe, it } from 'node:test';
import { Connection } from '@solana/web3.js';
import { HEALTH_CHECK_SLOT_DISTANCE, healthStatus } from '../../node-core/rpc/health.ts';
import { freePorts, killLeftovers, runIsthmus } from '../helpers/cli-process.ts';
import { rpc, startTestNode, tempLedger, waitFor, type TestNode } from '../helpers/node.ts';

after(killLeftovers);

const FAKE_IDENTITY = 'Fake1dentity1111111111111111111111111111111';

/** A JSON-RPC server that answers getSlot with `slot` (or an error while `slot` is null). */
async function fakeValidator() {
  const state = { slot: 0 as number | null };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { id, method } = JSON.parse(body);
      const answer =
        method === 'getSlot'
          ? state.slot === null
            ? { error: { code: -32005, message: 'Node is unhealthy' } }
            : { result: state.slot }
          : method === 'getIdentity'
            ? { result: { identity: FAKE_IDENTITY } }
            : method === 'getVersion'
              ? { result: { 'solana-core': '1.18.26', 'feature-set': 4215500110 } }
              : { error: { code: -32601, message: 'Method not found' } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, ...answer }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return { state, url: `http://127.0.0.1:${port}`, port, close: () => new Promise((r) => server.close(r)) };
}

const healthBody = async (url: string) => (await fetch(`${url}/health`)).text();

describe('Agave\'s health rule', () => {
  it('ok while above the highest known slot minus 150; behind by the difference; unknown without an answer', () => {
    assert.equal(HEALTH_CHECK_SLOT_DISTANCE, 150);
    assert.deepEqual(healthStatus(1000, undefined), { kind: 'ok' });
    assert.deepEqual(healthStatus(1000, 1149), { kind: 'ok' });
    assert.deepEqual(healthStatus(1000, 1150), { kind: 'behind', numSlots: 150 });
    assert.deepEqual(healthStatus(1000, 5), { kind: 'ok' });
    assert.deepEqual(healthStatus(1000, null), { kind: 'unknown' });
  });
});

describe('health with a known validator (a fake RPC server)', () => {
  let node: TestNode;
  let fake: Awaited<ReturnType<typeof fakeValidator>>;
  after(async () => {
    await node?.stop();
    await fake?.close();
  });

  it('ok → behind (-32005 with numSlotsBehind) → ok → unknown', async () => {
    fake = await fakeValidator();
    node = await startTestNode({ knownValidators: [fake.url], knownValidatorPollMs: 50 });
    await waitFor(async () => (await healthBody(node.rpcUrl)) === 'ok', { what: 'ok' });
    assert.deepEqual((await rpc(node.rpcUrl, 'getHealth')).result, 'ok');

    const conn = new Connection(node.rpcUrl);
    // Its version is listed once its getVersion has answered (asked again at each poll until then).
    await waitFor(async () => (await conn.getClusterNodes())[1]?.version === '1.18.26', { what: 'the known validator listed with its version' });
    const nodes = await conn.getClusterNodes();
    assert.deepEqual(
      nodes.map((n) => [n.pubkey, n.rpc]),
      [
        [node.keys.identity.address, `127.0.0.1:${node.rpcPort}`],
        [FAKE_IDENTITY, `127.0.0.1:${fake.port}`],
      ],
    );
    assert.equal(nodes[1]!.version, '1.18.26');

    fake.state.slot = node.chain.confirmedSlot + 10_000;
    await waitFor(async () => (await healthBody(node.rpcUrl)) === 'behind', { what: 'behind' });
    const res = await rpc(node.rpcUrl, 'getHealth');
    assert.equal(res.error.code, -32005);
    const behind = res.error.data.numSlotsBehind;
    assert.ok(behind > 9_000 && behind <= 10_000, `behind by ${behind}`);
    assert.equal(res.error.message, `Node is behind by ${behind} slots`);
    assert.deepEqual(Object.keys(res.error.data), ['numSlotsBehind']);

    fake.state.slot = node.chain.confirmedSlot;
    await waitFor(async () => (await healthBody(node.rpcUrl)) === 'ok', { what: 'ok again' });

    fake.state.slot = null;
    await waitFor(async () => (await healthBody(node.rpcUrl)) === 'unknown', { what: 'unknown' });
    assert.deepEqual((await rpc(node.rpcUrl, 'getHealth')).error, { code: -32005, message: 'Node is unhealthy', data: { numSlotsBehind: null } });
    await fake.close();
    fake.state.slot = 1;
    assert.equal(await healthBody(node.rpcUrl), 'unknown', 'an unreachable validator gives no slot');
    assert.equal((await rpc(node.rpcUrl, 'getSlot')).result >= 0, true, 'the node keeps serving');
  });
});

describe('health through the CLI with a second node that runs ahead', () => {
  let ahead: TestNode;
  after(async () => {
    await ahead?.stop();
  });

  it('--known-validator: behind (-32005) once the other node is 150 slots ahead; getClusterNodes lists it', async () => {
    // The known validator makes a slot every 10 ms; the CLI node one every 400 ms.
    ahead = await startTestNode({ slotMs: 10 });
    const [rpcPort, pubsubPort] = await freePorts(2);
    const url = `http://127.0.0.1:${rpcPort}`;
    const ledger = tempLedger();
    const p = runIsthmus(['start', '--ledger', ledger, '--rpc-port', String(rpcPort), '--rpc-pubsub-port', String(pubsubPort), '--evm-rpc-port', '0', '--quiet', '--known-validator', ahead.rpcUrl]);
    try {
      await waitFor(async () => (await rpc(url, 'getSlot').catch(() => null))?.result !== undefined, { what: 'the CLI node', timeoutMs: 20_000 });
      const health = await waitFor(async () => {
        const body = await healthBody(url);
        return body === 'behind' ? body : null;
      }, { what: 'behind', timeoutMs: 20_000 });
      assert.equal(health, 'behind');
      // (Agave's rule also calls a node at slot 0 behind a validator a few slots in: wait for a real lead.)
      const res = await waitFor(async () => {
        const r = await rpc(url, 'getHealth');
        return r.error?.data?.numSlotsBehind >= HEALTH_CHECK_SLOT_DISTANCE ? r : null;
      }, { what: 'numSlotsBehind ≥ 150', timeoutMs: 20_000 });
      assert.equal(res.error.code, -32005);
      assert.equal(res.error.message, `Node is behind by ${res.error.data.numSlotsBehind} slots`);
      // Its identity is asked for right after its first slot.
      await waitFor(async () => {
        const clusterNodes = (await rpc(url, 'getClusterNodes')).result as Array<{ pubkey: string; rpc: string }>;
        return clusterNodes.some((n) => n.pubkey === ahead.keys.identity.address && n.rpc === `127.0.0.1:${ahead.rpcPort}`);
      }, { what: 'the known validator in getClusterNodes' });
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
      fs.rmSync(ledger, { recursive: true, force: true });
    }
  });
});
