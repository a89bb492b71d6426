/**
 * The HTTP transport's streamed answers (an async iterable of pieces, as the struct logger's trace is
 * written while the run steps), fed here through a PieceChannel as the RPC layer feeds it: the client
 * gets the pieces in order in chunked encoding and each byte piece goes to `sent` once written; a
 * client that does not read holds the writer, so what is queued stays bounded; a stream that fails
 * after it began breaks the connection (no client takes the part for an answer); a client that goes
 * away fails the writer's wait, so the work behind it stops, and the server keeps serving.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { PieceChannel, ReaderGone } from '../../node-core/common/piece-channel.ts';
import { createHttpServer, STREAM_QUEUE_BYTES } from '../../node-core/transport/http-server.ts';
import { closeServer, listen } from '../../node-core/transport/listen.ts';
import { answerPostsOnSockets } from '../../node-core/transport/post-fast-path.ts';

const MB = 1 << 20;
type Piece = string | Uint8Array;

interface WriterState {
  written: number;
  waiting: boolean;
  done: boolean;
  failed?: unknown;
}

/**
 * A channel fed by a writer of `chunks` chunks of 1 MB (bytes i % 251) after `prefix`, waiting
 * whenever the channel is full, failing at chunk `failAfter`; `state` shows how far it got.
 */
function megabytes(chunks: number, state: WriterState, opts: { prefix?: Piece[]; suffix?: Piece[]; failAfter?: number; maxQueued?: number } = {}): PieceChannel {
  const channel = new PieceChannel(opts.maxQueued ?? 2 * MB);
  void (async () => {
    for (const p of opts.prefix ?? []) channel.write(p);
    for (let i = 0; i < chunks; i++) {
      if (i === opts.failAfter) throw new Error('the run failed half-way');
      const chunk = Buffer.alloc(MB, i % 251);
      state.written += chunk.length;
      if (!channel.write(chunk)) {
        state.waiting = true;
        try {
          await channel.ready();
        } finally {
          state.waiting = false;
        }
      }
    }
    for (const p of opts.suffix ?? []) channel.write(p);
  })().then(
    () => {
      state.done = true;
      channel.end();
    },
    (e: unknown) => {
      state.failed = e;
      channel.fail(e);
    },
  );
  return channel;
}

/** Polls a condition (no fixed sleeps: the machine may be busy). */
async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 6000 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ok(), `waited for ${what}`);
}

const newState = (): WriterState => ({ written: 0, waiting: false, done: false });

/** Both ways a POST is answered: by node:http, and on the socket (post-fast-path.ts) as the endpoints do. */
for (const onSockets of [false, true])
describe(`the HTTP transport streams an answer${onSockets ? ' (answered on the socket)' : ''}`, () => {
  let server: http.Server;
  let port: number;
  let answer: () => AsyncIterable<Piece> | string;
  const sent: Piece[] = [];
  const logged: unknown[][] = [];
  const consoleError = console.error;

  before(async () => {
    console.error = (...args: unknown[]) => void logged.push(args);
    const handlers = { answer: async () => answer(), health: () => 'ok' as const, sent: (p: readonly Piece[]) => void sent.push(...p) };
    server = createHttpServer(handlers);
    if (onSockets) answerPostsOnSockets(server, handlers);
    port = await listen(server, 0, '127.0.0.1', '--port');
  });
  after(async () => {
    console.error = consoleError;
    await closeServer(server);
  });

  /** A POST whose response can be paused (the client that does not read). */
  function post(): Promise<{ res: http.IncomingMessage; req: http.ClientRequest }> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json' } }, (res) => resolve({ res, req }));
      req.on('error', reject);
      req.end('{}');
    });
  }

  const fetchText = async () => (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' })).text();

  test('the pieces in order, in chunked encoding; each byte piece goes to `sent` once written', async () => {
    const state = newState();
    const channel = megabytes(3, state, { prefix: ['{"a":', Buffer.from('1,"b":"')], suffix: ['"}'] });
    sent.length = 0;
    answer = () => channel;
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });
    assert.equal(res.headers.get('content-length'), null);
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
    const body = Buffer.from(await res.arrayBuffer());
    assert.equal(body.length, 5 + 7 + 3 * MB + 2);
    assert.equal(body.subarray(0, 12).toString(), '{"a":1,"b":"');
    for (let i = 0; i < 3; i++) assert.equal(body[12 + i * MB + 12345], i);
    assert.equal(body.subarray(-2).toString(), '"}');
    await until('the pieces to be given back', () => sent.length === 4);
    assert.deepEqual(
      sent.map((p) => (typeof p === 'string' ? 'string' : p.byteLength)),
      [7, MB, MB, MB],
      'the byte pieces only, each once, in order',
    );
  });

  test('a client that does not read holds the writer: what is queued stays bounded; it all arrives once read', async () => {
    const state = newState();
    const total = 96;
    answer = () => megabytes(total, state);
    const { res } = await post();
    res.pause();
    await until('the writer to wait', () => state.waiting);
    assert.ok(state.written < total * MB, `written ${state.written / MB} MB of ${total} before the client read anything`);
    assert.ok(state.written >= STREAM_QUEUE_BYTES, 'the socket may queue its share before the writer is held');
    let received = 0;
    res.on('data', (d: Buffer) => void (received += d.length));
    res.resume();
    await new Promise((r) => res.on('end', r));
    assert.equal(received, total * MB);
    assert.ok(state.done);
  });

  test('a stream that fails after it began breaks the connection, and the failure is logged', async () => {
    const state = newState();
    answer = () => megabytes(4, state, { prefix: ['{"result":'], failAfter: 2 });
    logged.length = 0;
    // Whether the break comes before the headers were read or in the body, the client has no answer.
    await assert.rejects(fetchText());
    assert.equal(state.written, 2 * MB);
    await until('the failure to be logged', () => logged.length > 0);
    assert.match(String(logged[0]![0]), /streamed answer failed after it began/);
    assert.equal(await ((answer = () => 'whole'), fetchText()), 'whole', 'the server keeps serving');
  });

  test('a stream that fails before its first piece is a 500 with a JSON-RPC internal error', async () => {
    const state = newState();
    answer = () => megabytes(4, state, { failAfter: 0 });
    logged.length = 0;
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null });
  });

  test("a client that goes away fails the writer's wait (the work behind the stream stops); nothing is logged; the server keeps serving", async () => {
    const state = newState();
    answer = () => megabytes(1024, state);
    logged.length = 0;
    const { res, req } = await post();
    res.pause();
    await until('the writer to wait', () => state.waiting);
    (req.socket as net.Socket).destroy();
    await until("the writer's wait to fail", () => state.failed !== undefined);
    assert.ok(state.failed instanceof ReaderGone, String(state.failed));
    assert.ok(state.written < 1024 * MB);
    assert.deepEqual(logged, []);
    answer = () => 'still here';
    assert.equal(await fetchText(), 'still here');
  });
});

for (const onSockets of [false, true])
test(`a client that keeps its connection open and reads nothing is cut off after the stall time; the writer's wait fails${onSockets ? ' (answered on the socket)' : ''}`, async () => {
  const handlers = { answer: async () => megabytes(1024, state), health: () => 'ok' as const, streamStallMs: 300 };
  const server = createHttpServer(handlers);
  if (onSockets) answerPostsOnSockets(server, handlers);
  const state = newState();
  const port = await listen(server, 0, '127.0.0.1', '--port');
  try {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/' }, resolve);
      req.on('error', reject);
      req.end('{}');
    });
    res.pause();
    await until("the writer's wait to fail", () => state.failed !== undefined);
    assert.ok(state.failed instanceof ReaderGone, String(state.failed));
    // Read now, the response ends cut short.
    res.on('error', () => {});
    res.resume();
    await new Promise((r) => res.once('close', r));
    assert.equal(res.complete, false, 'the response was cut off before its end');
    assert.ok(state.written < 1024 * MB);
  } finally {
    await closeServer(server);
  }
});

describe('PieceChannel', () => {
  test('the reader gets the pieces in order; the writer is told to wait past its bound and released as the reader takes', async () => {
    const channel = new PieceChannel(10);
    assert.equal(channel.write('abcd'), true);
    assert.equal(channel.write('efgh'), true);
    assert.equal(channel.write('ijkl'), false, '12 bytes queued: past the bound');
    let released = false;
    const ready = channel.ready().then(() => (released = true));
    const reader = channel[Symbol.asyncIterator]();
    assert.deepEqual(await reader.next(), { done: false, value: 'abcd' });
    await ready;
    assert.ok(released, '8 bytes queued: the writer may go on');
    channel.write('mn');
    channel.end();
    const rest: string[] = [];
    for (let r = await reader.next(); !r.done; r = await reader.next()) rest.push(r.value as string);
    assert.deepEqual(rest, ['efgh', 'ijkl', 'mn']);
  });

  test("a writer's failure reaches the reader after the queued pieces", async () => {
    const channel = new PieceChannel(10);
    channel.write('ab');
    channel.fail(new Error('boom'));
    const got: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const p of channel) got.push(p as string);
      })(),
      /boom/,
    );
    assert.deepEqual(got, ['ab']);
  });

  test('a reader that stops fails the waiting writer, and later writes are dropped and fail their wait', async () => {
    const channel = new PieceChannel(4);
    channel.write('abcdef');
    channel.write('ghijkl');
    const waiting = channel.ready();
    for await (const _ of channel) break;
    await assert.rejects(waiting, ReaderGone);
    assert.equal(channel.write('mn'), false);
    await assert.rejects(channel.ready(), ReaderGone);
  });
});
