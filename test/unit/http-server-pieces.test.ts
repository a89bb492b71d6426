/** The HTTP transport writes an answer given in pieces as one body, then says the pieces were sent (their memory may be reused). */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createHttpServer } from '../../node-core/transport/http-server.ts';

test('an answer in pieces is one body; `sent` gets the pieces once they were written', async () => {
  const big = Buffer.alloc(3 << 20, 0x61);
  const pieces = ['{"result":"', big, Buffer.from('"}')];
  const sent: Array<readonly (string | Uint8Array)[]> = [];
  const server = createHttpServer({ answer: async () => pieces, health: () => 'ok', sent: (p) => void sent.push(p) });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const text = await res.text();
    assert.equal(res.headers.get('content-length'), String(text.length));
    assert.ok(text === `{"result":"${'a'.repeat(3 << 20)}"}`, 'the body is the pieces in order');
    while (sent.length === 0) await new Promise((r) => setTimeout(r, 5));
    assert.equal(sent.length, 1);
    assert.equal(sent[0], pieces);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
