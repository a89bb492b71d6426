/**
 * JSON text written ahead (common/json-text.ts) and the struct logger's stack text: the bytes equal
 * what JSON.stringify writes, across chunk boundaries; the dispatcher puts such an answer into its
 * response, alone or in a batch, as the same text an object would have given.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ChunkPool, JsonBytesWriter, JsonText, joinPieces, type JsonPiece } from '../../node-core/common/json-text.ts';
import { ReaderGone, type PieceSink } from '../../node-core/common/piece-channel.ts';
import { StackText } from '../../node-core/evm/trace/stack-text.ts';
import { Dispatcher } from '../../node-core/rpc/dispatcher.ts';
import { RpcError } from '../../node-core/rpc/errors.ts';
import { StreamedResult } from '../../node-core/rpc/json.ts';

const text = (w: JsonBytesWriter) => Buffer.concat(w.finish()).toString('latin1');

describe('JsonBytesWriter', () => {
  test('integers as JSON.stringify writes them, strings as they are, over several chunks', () => {
    const w = new JsonBytesWriter();
    const values = [0, 7, 10, 99, 100, 999, 1000, 9999, 10_000, 99_999, 1178784, 9_999_999, 1e7, 99_999_999, 1e8, 999_999_999, 1e9, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 5, 1e15 - 1, 1e15, Number.MAX_SAFE_INTEGER, 1e21, -3, 0.5, NaN];
    let want = '';
    // Some 3 MB: the text crosses chunks of 1 MB, some values at their edges.
    for (let i = 0; i < 40_000; i++) {
      for (const v of values) {
        w.uint(v);
        w.ascii(',"name":');
        want += `${JSON.stringify(v)},"name":`;
      }
      const long = `"0x${i.toString(16).padStart(64, 'f')}"`;
      w.ascii(long);
      want += long;
    }
    assert.equal(text(w), want);
  });

  test('integers of every length, at and around each power of ten', () => {
    const w = new JsonBytesWriter();
    let want = '';
    for (let k = 0; k <= 15; k++) {
      for (const v of [10 ** k - 1, 10 ** k, 10 ** k + 1, Math.floor(10 ** k * 3.7)]) {
        if (v < 0 || v > Number.MAX_SAFE_INTEGER) continue;
        w.uint(v);
        w.byte(0x2c);
        want += `${v},`;
      }
    }
    assert.equal(text(w), want);
  });

  test('bytes made ahead, single characters and a string from an offset, within a chunk and across chunk edges', () => {
    const w = new JsonBytesWriter();
    const short = Uint8Array.from(Buffer.from(',"a":'));
    const long = Uint8Array.from(Buffer.from(',{"pc":12345,"op":"PUSH1","gas":'));
    let want = '';
    for (let i = 0; i < 60_000; i++) {
      w.bytes(long, i % 3);
      w.bytes(short);
      w.byte(0x7d);
      w.ascii(',"0x1234"', 1);
      w.ascii(`,"0x${'ab'.repeat(32)}"`, i % 2);
      want += Buffer.from(long.subarray(i % 3)).toString('latin1') + ',"a":}' + '"0x1234"' + `,"0x${'ab'.repeat(32)}"`.slice(i % 2);
    }
    assert.ok(want.length > 5 << 20);
    assert.ok(text(w) === want, 'the text written is the text wanted');
  });

  test('repeat copies bytes of the current chunk, and refuses without room', () => {
    const w = new JsonBytesWriter();
    w.ascii('["a","b"]');
    w.reserve(9);
    w.repeat(0, 9);
    assert.equal(text(w), '["a","b"]["a","b"]');
    const full = new JsonBytesWriter();
    full.ascii('x'.repeat((1 << 20) - 2));
    assert.throws(() => full.repeat(0, 3), RangeError);
  });
});

describe('ChunkPool', () => {
  const filled = (pool: ChunkPool, mb: number) => {
    const w = new JsonBytesWriter(pool);
    for (let i = 0; i < mb * 1024; i++) w.ascii('x'.repeat(1024));
    w.ascii('tail');
    return w.finish();
  };

  test("a writer's chunks given back are what the next writer writes into; other pieces are not taken", () => {
    const pool = new ChunkPool(8, 60_000);
    const pieces = filled(pool, 2);
    assert.equal(pieces.length, 3);
    const foreign = Buffer.alloc(16);
    pool.give(['{"a":', ...pieces, foreign]);
    assert.equal(pool.size, 3);
    // Given twice, a chunk is still pooled once.
    pool.give(pieces);
    assert.equal(pool.size, 3);
    const again = filled(pool, 1);
    assert.equal(pool.size, 1);
    assert.ok(again.every((p) => pieces.some((q) => q.buffer === p.buffer)));
    assert.equal(Buffer.concat(again).toString('latin1'), 'x'.repeat(1 << 20) + 'tail');
    pool.drop();
  });

  test('it keeps at most its bound, and lets its chunks go when idle', async () => {
    const pool = new ChunkPool(2, 20);
    pool.give(filled(pool, 4));
    assert.equal(pool.size, 2);
    while (pool.size > 0) await new Promise((r) => setTimeout(r, 5));
  });
});

describe('StackText', () => {
  for (const handedOn of [false, true]) {
    test(`each step writes the whole stack as JSON, however much of it the step before shared${handedOn ? ' (chunks handed on as they fill)' : ''}`, () => {
      const handed: Buffer[] = [];
      const w = handedOn ? new JsonBytesWriter(new ChunkPool(0, 1000), (c) => void handed.push(c)) : new JsonBytesWriter();
      const text = (w: JsonBytesWriter) => {
        const kept = w.finish();
        if (handedOn) assert.ok(kept.length === 0 && handed.length > 2, 'with onChunk every chunk is handed on, none kept');
        return Buffer.concat(handedOn ? handed : kept).toString('latin1');
      };
      const s = new StackText();
      const stack: bigint[] = [];
      let want = '';
      let seed = 7;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      // Enough steps to cross chunk boundaries: the copy of the shared bottom must never reach into an older chunk.
      for (let step = 0; step < 30_000; step++) {
        const r = random();
        if (r < 0.3 && stack.length > 0) stack.pop();
        else if (r < 0.6 && stack.length < 1024) stack.push(random() < 0.5 ? BigInt(Math.floor(random() * 70_000)) : BigInt(`0x${Math.floor(random() * 2 ** 48).toString(16)}${'ab'.repeat(26)}`));
        else if (stack.length > 0) stack[stack.length - 1] = stack[Math.floor(random() * stack.length)]!;
        // The interpreter's store keeps popped words past its length.
        const store = [...stack, 1n, 2n];
        s.update(store, stack.length);
        s.writeMember(w);
        want += `,"stack":[${stack.map((v) => `"0x${v.toString(16)}"`).join(',')}]`;
      }
      assert.ok(want.length > 2 << 20);
      assert.equal(text(w), want);
    });
  }
});

describe('the dispatcher and JSON text', () => {
  const dispatcher = new Dispatcher(
    {
      written: () => new JsonText(['{"a":', Buffer.from('[1,"x"]'), ',"b":null}']),
      plain: () => ({ a: [1, 'x'], b: null }),
    },
    {},
  );

  test('an answer written ahead is the text the same object would give, alone and in a batch', async () => {
    const one = (method: string, id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method });
    assert.equal(await dispatcher.handleBody(one('written', 'x1')), (await dispatcher.handleBody(one('plain', 'x1')))!);
    assert.equal(await dispatcher.handleBody(one('written', 'x1')), '{"jsonrpc":"2.0","result":{"a":[1,"x"],"b":null},"id":"x1"}');
    const pieces = await dispatcher.handleBodyInPieces(one('written', 3));
    assert.ok(Array.isArray(pieces));
    assert.equal(joinPieces(pieces), '{"jsonrpc":"2.0","result":{"a":[1,"x"],"b":null},"id":3}');
    const batch = `[${one('plain', 1)},${one('written', 2)},${one('nothing', 3)}]`;
    const answer = await dispatcher.handleBodyInPieces(batch);
    assert.ok(Array.isArray(answer));
    assert.deepEqual(JSON.parse(joinPieces(answer)), [
      { jsonrpc: '2.0', result: { a: [1, 'x'], b: null }, id: 1 },
      { jsonrpc: '2.0', result: { a: [1, 'x'], b: null }, id: 2 },
      { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 3 },
    ]);
    assert.equal(await dispatcher.handleBody(`[${one('plain', 1)}]`), '[{"jsonrpc":"2.0","result":{"a":[1,"x"],"b":null},"id":1}]');
  });
});

describe('the dispatcher and a streamed result', () => {
  /** A result written as `parts` into the sink, each awaited when the sink is full; `fail`: thrown after that many parts. */
  const streamed = (parts: string[], fail = Infinity, log: { whole: number; gone?: unknown } = { whole: 0 }) =>
    new StreamedResult(
      async (sink: PieceSink) => {
        for (let i = 0; i < parts.length; i++) {
          if (i === fail) throw new RpcError(-32000, 'failed after ' + i);
          try {
            if (!sink.write(Buffer.from(parts[i]!))) await sink.ready();
          } catch (e) {
            log.gone = e;
            throw e;
          }
        }
      },
      async () => (log.whole++, { whole: true }),
    );
  const log = { whole: 0 } as { whole: number; gone?: unknown };
  let result: () => StreamedResult;
  const dispatcher = new Dispatcher({ streams: () => result() }, {});
  const one = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'streams' });
  const read = async (answer: unknown) => {
    assert.ok(answer !== null && typeof answer === 'object' && Symbol.asyncIterator in answer, 'a stream');
    let out = '';
    for await (const p of answer as AsyncIterable<JsonPiece>) out += joinPieces([p]);
    return out;
  };

  test('a single request with stream: the response around the pieces as they are written', async () => {
    result = () => streamed(['{"structLogs":[', '1,2', '],"gas":3}']);
    assert.equal(await read(await dispatcher.handleBodyInPieces(one(7), undefined, { stream: true })), '{"jsonrpc":"2.0","result":{"structLogs":[1,2],"gas":3},"id":7}');
  });

  test('a failure before the first piece is an error response; after it, the iteration fails', async () => {
    result = () => streamed(['{"a":1}'], 0);
    assert.deepEqual(JSON.parse(await read(await dispatcher.handleBodyInPieces(one(1), undefined, { stream: true }))), { jsonrpc: '2.0', error: { code: -32000, message: 'failed after 0' }, id: 1 });
    result = () => streamed(['{"a":', '1}'], 1);
    await assert.rejects(read(await dispatcher.handleBodyInPieces(one(1), undefined, { stream: true })), /failed after 1/);
  });

  test("a reader that stops early fails the writer's wait", async () => {
    const parts = Array.from({ length: 8 }, () => 'x'.repeat(1 << 20));
    result = () => streamed(parts, Infinity, log);
    const answer = (await dispatcher.handleBodyInPieces(one(1), undefined, { stream: true })) as AsyncIterable<JsonPiece>;
    for await (const _ of answer) break;
    assert.ok(log.gone instanceof ReaderGone, String(log.gone));
  });

  test('without stream, in a batch and as a notification, the whole result is given', async () => {
    result = () => streamed(['{"never":1}'], Infinity, log);
    log.whole = 0;
    const whole = '{"jsonrpc":"2.0","result":{"whole":true},"id":1}';
    assert.equal(await dispatcher.handleBodyInPieces(one(1)), whole);
    assert.equal(await dispatcher.handleBody(one(1)), whole);
    assert.equal(await dispatcher.handleBodyInPieces(`[${one(1)}]`, undefined, { stream: true }), `[${whole}]`);
    assert.equal(await dispatcher.handleBodyInPieces(JSON.stringify({ jsonrpc: '2.0', method: 'streams' }), undefined, { stream: true }), null);
    assert.equal(log.whole, 4);
  });
});
