/**
 * transport/post-fast-path.ts: plain JSON-RPC POSTs answered on the socket, in order, however the
 * bytes arrive; anything else handed to node:http on the same connection and answered as before;
 * closing the server closes the connections read here.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createHttpServer, MAX_REQUEST_BODY_SIZE, type HttpHandlers } from '../../node-core/transport/http-server.ts';
import { closeServer } from '../../node-core/transport/listen.ts';
import { answerPostsOnSockets } from '../../node-core/transport/post-fast-path.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Answers echo the body; a body `{"slow":N}` is answered after N ms; `notify` gets no answer (204); `pieces` in three. */
function handlers(log: { sent: Array<readonly (string | Uint8Array)[]>; origins: (string | undefined)[] }): HttpHandlers {
  return {
    async answer(body, request) {
      log.origins.push(request?.origin);
      const slow = /"slow":(\d+)/.exec(body);
      if (slow) await sleep(Number(slow[1]));
      if (body.includes('notify')) return null;
      if (body.includes('pieces')) return ['{"a":', Buffer.from('"pie'), 'ces"}'];
      if (body.includes('throw')) throw new Error('handler failed');
      return `{"echo":${JSON.stringify(body)}}`;
    },
    health: () => 'ok',
    serveStatic: (req, res) => {
      if (req.url !== '/page') return false;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('a page');
      return true;
    },
    sent: (p) => void log.sent.push(p),
  };
}

const post = (body: string, extra = '') => `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** A raw connection that collects whole responses (status line, headers, body by Content-Length or none). */
class RawClient {
  private buffer = Buffer.alloc(0);
  private readonly waiting: Array<() => void> = [];
  closed = false;
  constructor(readonly socket: net.Socket) {
    socket.on('data', (c: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, c]);
      this.waiting.splice(0).forEach((w) => w());
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiting.splice(0).forEach((w) => w());
    });
  }
  static async connect(port: number): Promise<RawClient> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    return new RawClient(socket);
  }
  async response(): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end >= 0) {
        const lines = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines.slice(1)) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
        const status = Number(lines[0]!.split(' ')[1]);
        if (status === 100) {
          this.buffer = this.buffer.subarray(end + 4);
          continue;
        }
        const length = headers['content-length'] !== undefined ? Number(headers['content-length']) : null;
        const chunked = headers['transfer-encoding'] === 'chunked';
        if (length !== null && this.buffer.length >= end + 4 + length) {
          const body = this.buffer.subarray(end + 4, end + 4 + length).toString();
          this.buffer = this.buffer.subarray(end + 4 + length);
          return { status, headers, body };
        }
        if (length === null && !chunked) {
          this.buffer = this.buffer.subarray(end + 4);
          return { status, headers, body: '' };
        }
        if (chunked) {
          const last = this.buffer.indexOf('0\r\n\r\n', end + 4);
          if (last >= 0) {
            const raw = this.buffer.subarray(end + 4, last).toString();
            this.buffer = this.buffer.subarray(last + 5);
            return { status, headers, body: raw.replace(/(^|\r\n)[0-9a-f]+\r\n/g, '').replace(/\r\n$/, '') };
          }
        }
      }
      if (this.closed) throw new Error(`connection closed with ${this.buffer.length} bytes unparsed: ${this.buffer.toString()}`);
      await new Promise<void>((r) => this.waiting.push(r));
    }
  }
}

describe('JSON-RPC POSTs answered on the socket', () => {
  const log = { sent: [] as Array<readonly (string | Uint8Array)[]>, origins: [] as (string | undefined)[] };
  let server: http.Server;
  let port: number;
  before(async () => {
    const h = handlers(log);
    server = createHttpServer(h);
    answerPostsOnSockets(server, h);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => closeServer(server));

  test('requests sent together are answered in their order, a slow first one included', async () => {
    const c = await RawClient.connect(port);
    c.socket.write(post('{"slow":30,"n":1}') + post('{"n":2}') + post('{"n":3}'));
    for (const n of [1, 2, 3]) {
      const r = await c.response();
      assert.equal(r.headers.date, undefined, 'answered on the socket');
      assert.equal(r.status, 200);
      assert.equal(JSON.parse(r.body).echo.includes(`"n":${n}`), true, `answer ${n} in place ${n}: ${r.body}`);
      assert.equal(r.headers['access-control-allow-origin'], '*');
      assert.equal(r.headers['content-type'], 'application/json');
    }
    c.socket.destroy();
  });

  test('a request arriving a byte at a time, multi-byte UTF-8 split included, is read whole', async () => {
    const c = await RawClient.connect(port);
    const bytes = Buffer.from(post('{"text":"€ and ü"}'));
    for (const b of bytes) {
      c.socket.write(Buffer.from([b]));
      await new Promise((r) => setImmediate(r));
    }
    const r = await c.response();
    assert.equal(JSON.parse(JSON.parse(r.body).echo).text, '€ and ü');
    c.socket.destroy();
  });

  test('a body larger than the head limit is read here too; garbage and a cut request get node:http\'s answer or a close', async () => {
    const c = await RawClient.connect(port);
    const big = `{"big":"${'x'.repeat(40_000)}"}`;
    c.socket.write(post(big));
    const r = await c.response();
    assert.equal(r.headers.date, undefined, 'answered on the socket');
    assert.equal(JSON.parse(r.body).echo, big);
    c.socket.destroy();
    const garbage = await RawClient.connect(port);
    garbage.socket.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0x01]));
    assert.equal((await garbage.response()).status, 400);
    garbage.socket.destroy();
    const cut = await RawClient.connect(port);
    cut.socket.end(post('{"n":1}').slice(0, -3));
    while (!cut.closed) await sleep(2);
    const answered = await RawClient.connect(port);
    answered.socket.end(post('{"last":1}'));
    assert.equal((await answered.response()).status, 200, 'a whole request before the FIN is answered, then the connection ends');
    while (!answered.closed) await sleep(2);
  });

  test('the browser Origin is passed on; a notification gets 204; pieces are one body and reported sent', async () => {
    const c = await RawClient.connect(port);
    c.socket.write(post('{"o":1}', 'Origin: http://localhost:5173\r\n'));
    await c.response();
    assert.equal(log.origins.at(-1), 'http://localhost:5173');
    c.socket.write(post('{"notify":1}'));
    const none = await c.response();
    assert.equal(none.status, 204);
    assert.equal(none.body, '');
    const before = log.sent.length;
    c.socket.write(post('{"pieces":1}'));
    const pieces = await c.response();
    assert.equal(pieces.body, '{"a":"pieces"}');
    while (log.sent.length === before) await sleep(2);
    assert.equal(log.sent.length, before + 1);
    c.socket.destroy();
  });

  test('a handler that fails gets 500 with a JSON-RPC error, and the connection goes on', async () => {
    const c = await RawClient.connect(port);
    c.socket.write(post('{"throw":1}'));
    const r = await c.response();
    assert.equal(r.status, 500);
    assert.equal(JSON.parse(r.body).error.code, -32603);
    c.socket.write(post('{"after":1}'));
    assert.equal((await c.response()).status, 200);
    c.socket.destroy();
  });

  test('after POSTs, a GET on the same connection goes to node:http, and so does everything after it', async () => {
    const c = await RawClient.connect(port);
    c.socket.write(post('{"n":1}'));
    const first = await c.response();
    assert.equal(first.status, 200);
    assert.equal(first.headers.date, undefined, 'answered on the socket (node:http would add a Date header)');
    c.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' + post('{"n":2}') + 'GET /page HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const health = await c.response();
    assert.equal(health.body, 'ok');
    const second = await c.response();
    assert.match(second.body, /"n\\?":2/);
    assert.ok(second.headers.date, 'node:http answered it');
    assert.equal((await c.response()).body, 'a page');
    c.socket.destroy();
  });

  test('what this path does not read is answered by node:http as before', async () => {
    const cases: Array<[string, (r: { status: number; body: string; headers: Record<string, string> }) => void]> = [
      [post('{"n":1}').replace('Host: 127.0.0.1', 'Host: evil.example'), (r) => assert.equal(r.status, 403)],
      [`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${MAX_REQUEST_BODY_SIZE + 1}\r\n\r\n`, (r) => assert.equal(r.status, 413)],
      ['POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{"c":1}\r\n0\r\n\r\n', (r) => assert.match(r.body, /\\"c\\":1/)],
      [post('{"e":1}', 'Expect: 100-continue\r\n'), (r) => assert.match(r.body, /\\"e\\":1/)],
      ['OPTIONS / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccess-Control-Request-Headers: content-type\r\n\r\n', (r) => assert.equal(r.status, 204)],
    ];
    for (const [request, check] of cases) {
      const c = await RawClient.connect(port);
      c.socket.write(request);
      check(await c.response());
      c.socket.destroy();
    }
    const close = await RawClient.connect(port);
    close.socket.write(post('{"bye":1}', 'Connection: close\r\n'));
    const r = await close.response();
    assert.match(r.body, /bye/);
    assert.equal(r.headers.connection, 'close');
    while (!close.closed) await sleep(2);
  });

  test('a real client: fetch over one keep-alive connection', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"fetch":${i}}` });
      assert.equal(res.status, 200);
      assert.match(await res.text(), new RegExp(`fetch\\\\":${i}`));
    }
  });

  test('a client gone before its answer does not stop the server', async () => {
    const c = await RawClient.connect(port);
    c.socket.write(post('{"slow":20}'));
    c.socket.destroy();
    await sleep(40);
    const d = await RawClient.connect(port);
    d.socket.write(post('{"still":1}'));
    assert.equal((await d.response()).status, 200);
    d.socket.destroy();
  });
});

test('closing the server closes the connections read on the socket, idle or answering', async () => {
  const h = handlers({ sent: [], origins: [] });
  const server = createHttpServer(h);
  answerPostsOnSockets(server, h);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const idle = await RawClient.connect(port);
  idle.socket.write(post('{"n":1}'));
  await idle.response();
  const busy = await RawClient.connect(port);
  busy.socket.write(post('{"slow":10000}'));
  await sleep(20);
  await closeServer(server);
  while (!idle.closed || !busy.closed) await sleep(2);
});

test('an answer slower than the keep-alive timeout is still sent and the connection goes on; an idle one is closed after it', async () => {
  const keepAliveMs = 150;
  const h = { ...handlers({ sent: [], origins: [] }), keepAliveMs };
  const server = createHttpServer(h);
  answerPostsOnSockets(server, h);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  try {
    const client = await RawClient.connect(port);
    client.socket.write(post(`{"slow":${keepAliveMs * 5}}`));
    const slow = await client.response();
    assert.equal(slow.status, 200);
    assert.match(slow.body, /slow/);
    client.socket.write(post('{"next":1}'));
    const next = await client.response();
    assert.equal(next.status, 200);
    assert.match(next.body, /next/);
    // Nothing more is asked: the server closes the connection once it has been idle for keepAliveMs.
    const idleSince = performance.now();
    while (!client.closed) await sleep(10);
    assert.ok(performance.now() - idleSince >= keepAliveMs * 0.9, 'closed no earlier than the keep-alive timeout');
  } finally {
    await closeServer(server);
  }
});
