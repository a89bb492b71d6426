/** The known-validator poller: the highest slot of those that answer, none from one that hangs or errs. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { after, test } from 'node:test';
import { KnownValidators } from '../../node-core/rpc/known-validators.ts';

const servers: http.Server[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

async function serve(answer: (method: string) => unknown | undefined): Promise<string> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { id, method } = JSON.parse(body);
      const result = answer(method);
      if (result === undefined) return; // hang
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, ...(result as object) }));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

test('the highest slot among the validators that answer; identity and version once', async () => {
  const a = await serve((m) => (m === 'getSlot' ? { result: 500 } : m === 'getIdentity' ? { result: { identity: 'A' } } : { result: { 'solana-core': '1.18.26', 'feature-set': 7 } }));
  const b = await serve((m) => (m === 'getSlot' ? { result: 900 } : { error: { code: -32601, message: 'Method not found' } }));
  const hanging = await serve(() => undefined);
  const erring = await serve(() => ({ error: { code: -32005, message: 'Node is unhealthy' } }));
  const changes: string[] = [];
  // The timeout is long enough for a local answer on a busy machine; the hanging one still ends the poll.
  const kv = new KnownValidators([a, b, hanging, erring], { timeoutMs: 2_000, onChange: (v, up) => changes.push(`${v.url} ${up}`) });
  assert.equal(kv.highestSlot(), null, 'nothing polled yet');
  const started = Date.now();
  await kv.poll();
  assert.ok(Date.now() - started < 20_000, 'a hanging validator times out (the poll ends)');
  assert.equal(kv.highestSlot(), 900);
  const [va, vb, vh, ve] = kv.validators;
  assert.deepEqual([va!.identity, va!.version, va!.featureSet, va!.rpc], ['A', '1.18.26', 7, new URL(a).host]);
  assert.equal(vb!.identity, null, 'getIdentity failed: no identity, the slot still counts');
  assert.deepEqual([vh!.slot, ve!.slot], [null, null]);
  assert.deepEqual(changes.sort(), [`${a} true`, `${b} true`].sort());
  assert.equal(new KnownValidators([]).highestSlot(), undefined, 'none configured');
});
