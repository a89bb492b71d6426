/**
 * Malformed and hostile requests for the node's four ports, drawn from a seeded generator so a run
 * can be repeated from its seed. The method names come from the node's own tables. Used by
 * bench/fuzz-ports.ts (the full run) and test/integration/fuzz-ports.test.ts (the short form).
 */
import { nativeMethods } from '../../node-core/rpc/methods/index.ts';
import { ethMethods } from '../../node-core/rpc/eth/methods.ts';
import { pubsubMethods } from '../../node-core/pubsub/methods.ts';
import { prng } from '../../test/helpers/prng.ts';

export type HttpTarget = 'native-http' | 'evm-http';
export type WsTarget = 'pubsub-ws' | 'evm-ws';
export type Target = HttpTarget | WsTarget;

export type FuzzCase =
  /** A POST with this body (content-type as given). */
  | { target: HttpTarget; kind: string; how: 'post'; body: string | Buffer; contentType?: string }
  /** A GET of a hostile path. */
  | { target: HttpTarget; kind: string; how: 'get'; path: string }
  /** Raw bytes on a TCP connection, `gapMs` between chunks, then: read the answer after a half-close, cut the connection, or hold it open until the run ends. */
  | { target: Target; kind: string; how: 'raw'; chunks: Buffer[]; gapMs: number; then: 'half-close' | 'destroy' | 'hold' }
  /** One WebSocket frame; its answer is awaited (a frame expecting none is followed by a sentinel request). */
  | { target: WsTarget; kind: string; how: 'ws'; data: string | Buffer; binary: boolean }
  /** `count` subscriptions on one fresh socket, all answered, then the socket closed. */
  | { target: WsTarget; kind: string; how: 'subscribe-flood'; count: number };

/**
 * Pausing the clock is what a loopback client may do (chain control), and a paused node is not
 * "serving normally" by the fuzzer's check (its slots stop): it is left out. Every other chain-control
 * method is fuzzed like the rest.
 */
const NOT_FUZZED = new Set(['surfnet_pauseClock']);
const fuzzed = (names: string[]) => names.filter((n) => !NOT_FUZZED.has(n));

export const METHODS: Record<Target, readonly string[]> = {
  'native-http': fuzzed(Object.keys(nativeMethods).concat(Object.keys(ethMethods))),
  'evm-http': fuzzed(Object.keys(ethMethods)),
  'pubsub-ws': Object.keys(pubsubMethods),
  'evm-ws': fuzzed(Object.keys(ethMethods).concat(['eth_subscribe', 'eth_unsubscribe'])),
};

type Rand = () => number;
const int = (r: Rand, n: number) => Math.floor(r() * n);
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)]!;

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const randomString = (r: Rand, n: number, alphabet = BASE58) => Array.from({ length: n }, () => alphabet[int(r, alphabet.length)]).join('');
const hex = (r: Rand, bytes: number) => `0x${randomString(r, bytes * 2, '0123456789abcdef')}`;

/** A value of a wrong (or borderline) type for any param position. */
function hostileValue(r: Rand, depth = 0): unknown {
  switch (int(r, 24)) {
    case 0: return -1;
    case 1: return 2 ** 64;
    case 2: return 1.5;
    case 3: return Number.MAX_SAFE_INTEGER + 2;
    case 4: return -0;
    case 5: return 1e308;
    case 6: return '';
    case 7: return randomString(r, 1 + int(r, 90));
    case 8: return hex(r, int(r, 40));
    case 9: return '0x';
    case 10: return '0xzz';
    case 11: return 'x'.repeat(1000 + int(r, 20_000));
    case 12: return true;
    case 13: return {};
    case 14: return [];
    case 15: return depth < 2 ? { encoding: hostileValue(r, depth + 1), commitment: hostileValue(r, depth + 1), filters: hostileValue(r, depth + 1) } : null;
    case 16: return depth < 2 ? Array.from({ length: int(r, 5) }, () => hostileValue(r, depth + 1)) : 0;
    case 17: return { __proto__: { polluted: true }, constructor: { prototype: { x: 1 } } };
    case 18: return JSON.parse('{"__proto__":{"isAdmin":true},"toString":1,"valueOf":2}');
    case 19: return '\u0000\ud800\uffff';
    case 20: return pick(r, ['latest', 'pending', 'earliest', 'finalized', 'safe', 'processed', 'confirmed', 'base64+zstd', 'jsonParsed', 'NaN', 'Infinity']);
    case 21: return { dataSlice: { offset: hostileValue(r, 2), length: hostileValue(r, 2) }, minContextSlot: hostileValue(r, 2) };
    case 22: return { fromBlock: hostileValue(r, 2), toBlock: hostileValue(r, 2), address: hostileValue(r, 2), topics: hostileValue(r, 2) };
    default: return null;
  }
}

const validId = (r: Rand): string | number => (r() < 0.5 ? int(r, 1_000_000) : `id-${randomString(r, 6)}`);

/** A request object: wrong types in every param position, or a broken envelope. */
function hostileRequest(r: Rand, target: Target, allowNotification: boolean): Record<string, unknown> {
  const method = r() < 0.95 ? pick(r, METHODS[target]) : pick(r, ['', 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'rpc.discover', 'x'.repeat(5000)]);
  const req: Record<string, unknown> = { jsonrpc: '2.0', id: validId(r), method };
  const n = int(r, 5);
  const roll = int(r, 20);
  if (roll === 0) req.params = hostileValue(r);
  else if (roll === 1) delete req.params;
  else req.params = Array.from({ length: n }, () => hostileValue(r));
  switch (int(r, 30)) {
    case 0: req.jsonrpc = pick(r, ['1.0', 2, null, '2.00']); break;
    case 1: delete req.jsonrpc; break;
    case 2: req.id = pick(r, [{}, [], true, 1.5e300, '']); break;
    case 3: req.method = pick(r, [1, null, [], {}, true]); break;
    case 4: if (allowNotification) delete req.id; break;
    case 5: req.extra = hostileValue(r); break;
    default: break;
  }
  return req;
}

function deepNesting(r: Rand, depth: number): string {
  const open = r() < 0.5 ? '[' : '{"a":';
  const close = open === '[' ? ']' : '}';
  const inner = open.repeat(depth) + '1' + close.repeat(depth);
  return `{"jsonrpc":"2.0","id":${int(r, 1000)},"method":"getBalance","params":${inner}}`;
}

function brokenJson(r: Rand): string {
  const good = JSON.stringify(hostileRequest(r, 'native-http', false));
  switch (int(r, 10)) {
    case 0: return good.slice(0, int(r, good.length));
    case 1: return good + '}';
    case 2: return good.replace(/"/g, "'");
    case 3: return '';
    case 4: return 'null';
    case 5: return pick(r, ['1', '"x"', 'true', '[1,2,3]', '[null]', '[[]]', '{}', '[{}]']);
    case 6: return good.replace(':', '::');
    case 7: return '\ufeff' + good;
    case 8: return `{"jsonrpc":"2.0","id":1,"method":"getSlot","params":[1e999999]}`;
    default: return good.replace(/,/g, ',,');
  }
}

/** A body for a JSON-RPC port; `answered` keeps at least one request with an id (for WebSockets). */
function jsonBody(r: Rand, target: Target, answered: boolean, maxBytes: number): { kind: string; body: string } {
  const roll = int(r, 100);
  if (roll < 45) return { kind: 'wrong-types', body: JSON.stringify(hostileRequest(r, target, !answered)) };
  if (roll < 60) return { kind: 'broken-json', body: brokenJson(r) };
  if (roll < 72) {
    const n = pick(r, [1, 2, 10, 100, 999, 1000, 1001, 5000]);
    const items = Array.from({ length: n }, (_, i) => (i === 0 && answered ? { ...hostileRequest(r, target, false), id: validId(r) } : hostileRequest(r, target, true)));
    let body = JSON.stringify(items);
    // Batches past the body limit are cut to it: the large-body cases have their own rolls.
    while (body.length > maxBytes && items.length > 1) body = JSON.stringify(items.splice(0, Math.ceil(items.length / 2)));
    return { kind: 'batch', body };
  }
  if (roll < 80) {
    const method = pick(r, ['getMultipleAccounts', 'getSignatureStatuses', 'getBlocks', 'getInflationReward', 'eth_getLogs', 'eth_call', 'getProgramAccounts', 'accountSubscribe', 'logsSubscribe']);
    const n = Math.floor(maxBytes / 50) + int(r, 500);
    const element = pick(r, [1, 'a', null, '11111111111111111111111111111111', {}]);
    const params = r() < 0.5 ? [Array.from({ length: n }, () => element)] : Array.from({ length: Math.min(n, 2000) }, () => element);
    let body = JSON.stringify({ jsonrpc: '2.0', id: validId(r), method, params });
    if (body.length > maxBytes) body = JSON.stringify({ jsonrpc: '2.0', id: validId(r), method, params: [params[0]] });
    return { kind: 'huge-array', body };
  }
  if (roll < 88) return { kind: 'deep-nesting', body: deepNesting(r, pick(r, [100, 1000, 5000, Math.floor(maxBytes / 6)])) };
  if (roll < 94) return { kind: 'empty-or-scalar', body: pick(r, ['[]', '[[]]', '{}', '0', '"2.0"', 'false', '{"jsonrpc":"2.0"}', '{"id":null}']) };
  return { kind: 'unicode', body: JSON.stringify({ jsonrpc: '2.0', id: validId(r), method: pick(r, METHODS[target]), params: [randomString(r, 200, 'áé€𝄞\u0000\u2028\ud83d') ] }) };
}

const CRLF = '\r\n';

function rawHttp(r: Rand, target: HttpTarget): FuzzCase {
  const body = JSON.stringify(hostileRequest(r, target, false));
  const head = (len: number | string, extra = '') => `POST / HTTP/1.1${CRLF}Host: 127.0.0.1${CRLF}Content-Type: application/json${CRLF}Content-Length: ${len}${CRLF}${extra}${CRLF}`;
  switch (int(r, 9)) {
    case 0: {
      // Slow: the request arrives a few bytes at a time.
      const whole = Buffer.from(head(Buffer.byteLength(body)) + body);
      const chunks: Buffer[] = [];
      for (let i = 0; i < whole.length; ) {
        const n = 1 + int(r, Math.max(1, Math.floor(whole.length / 6)));
        chunks.push(whole.subarray(i, i + n));
        i += n;
      }
      return { target, kind: 'slow-request', how: 'raw', chunks, gapMs: 2 + int(r, 10), then: 'half-close' };
    }
    case 1:
      // Half-open: a body shorter than its Content-Length, then our side closes.
      return { target, kind: 'short-body', how: 'raw', chunks: [Buffer.from(head(Buffer.byteLength(body) + 100) + body)], gapMs: 0, then: 'half-close' };
    case 2:
      return { target, kind: 'cut-connection', how: 'raw', chunks: [Buffer.from(head(1000) + body.slice(0, 10))], gapMs: 0, then: 'destroy' };
    case 3:
      return { target, kind: 'garbage-bytes', how: 'raw', chunks: [Buffer.from(Array.from({ length: 1 + int(r, 2000) }, () => int(r, 256)))], gapMs: 0, then: 'half-close' };
    case 4:
      return { target, kind: 'bad-content-length', how: 'raw', chunks: [Buffer.from(head(pick(r, ['-1', 'abc', '99999999999999999999', '1, 2', '0x10'])) + body)], gapMs: 0, then: 'half-close' };
    case 5: {
      const chunked = `POST / HTTP/1.1${CRLF}Host: 127.0.0.1${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}${pick(r, ['zz', 'ffffffffffffffff', '5', '-1'])}${CRLF}${body}${CRLF}0${CRLF}${CRLF}`;
      return { target, kind: 'bad-chunked', how: 'raw', chunks: [Buffer.from(chunked)], gapMs: 0, then: 'half-close' };
    }
    case 6:
      // Half-open and held: headers never finished, kept open until the run ends.
      return { target, kind: 'held-open', how: 'raw', chunks: [Buffer.from(`POST / HTTP/1.1${CRLF}Host: 127.0.0.1${CRLF}Content-Le`)], gapMs: 0, then: 'hold' };
    case 7:
      return { target, kind: 'huge-header', how: 'raw', chunks: [Buffer.from(`POST / HTTP/1.1${CRLF}Host: 127.0.0.1${CRLF}X-Big: ${'a'.repeat(20_000 + int(r, 80_000))}${CRLF}Content-Length: 2${CRLF}${CRLF}{}`)], gapMs: 0, then: 'half-close' };
    default: {
      const method = pick(r, ['PUT', 'DELETE', 'PATCH', 'TRACE', 'CONNECT', 'FOO', 'POST']);
      const req = `${method} ${pick(r, ['/', '*', '/x?y=%zz', '//', 'http://evil/'])} HTTP/1.1${CRLF}Host: ${pick(r, ['127.0.0.1', 'localhost', ''])}${CRLF}Content-Length: ${Buffer.byteLength(body)}${CRLF}${CRLF}${body}`;
      return { target, kind: 'odd-http', how: 'raw', chunks: [Buffer.from(req)], gapMs: 0, then: 'half-close' };
    }
  }
}

/** Raw bytes at a WebSocket port: upgrades left half-done, refused, or followed by frames no client may send. */
function rawWebSocket(r: Rand, target: WsTarget): FuzzCase {
  const upgrade = (key: string, version: string) =>
    `GET / HTTP/1.1${CRLF}Host: 127.0.0.1${CRLF}Upgrade: websocket${CRLF}Connection: Upgrade${CRLF}Sec-WebSocket-Key: ${key}${CRLF}Sec-WebSocket-Version: ${version}${CRLF}${CRLF}`;
  const goodKey = Buffer.from(Array.from({ length: 16 }, () => int(r, 256))).toString('base64');
  switch (int(r, 5)) {
    case 0:
      return { target, kind: 'ws-half-upgrade', how: 'raw', chunks: [Buffer.from(upgrade(goodKey, '13').slice(0, 40 + int(r, 60)))], gapMs: 0, then: 'hold' };
    case 1:
      return { target, kind: 'ws-bad-upgrade', how: 'raw', chunks: [Buffer.from(upgrade(pick(r, ['', 'abc', goodKey + 'x']), pick(r, ['13', '8', '99', 'x'])))], gapMs: 0, then: 'half-close' };
    case 2: {
      // An unmasked frame, a reserved opcode or RSV bits, a length past the limit: each is a protocol error.
      const frame = pick(r, [
        Buffer.from([0x81, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f]),
        Buffer.from([0x83, 0x80, 0, 0, 0, 0]),
        Buffer.from([0xf1, 0x80, 0, 0, 0, 0]),
        Buffer.from([0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4]),
        Buffer.from([0x01, 0x83, 1, 2, 3, 4, 1, 2, 3]),
        Buffer.from(Array.from({ length: 1 + int(r, 200) }, () => int(r, 256))),
      ]);
      return { target, kind: 'ws-bad-frame', how: 'raw', chunks: [Buffer.from(upgrade(goodKey, '13')), frame], gapMs: 5, then: 'half-close' };
    }
    case 3:
      return { target, kind: 'ws-plain-http', how: 'raw', chunks: [Buffer.from(`POST / HTTP/1.1${CRLF}Host: 127.0.0.1${CRLF}Content-Length: 2${CRLF}${CRLF}{}`)], gapMs: 0, then: 'half-close' };
    default:
      return { target, kind: 'ws-cut-upgrade', how: 'raw', chunks: [Buffer.from(upgrade(goodKey, '13'))], gapMs: 0, then: 'destroy' };
  }
}

/** Body limits the generator aims around: the HTTP body limit and the WebSocket frame limit. */
export const HTTP_BODY_LIMIT = 50 * 1024;
export const WS_FRAME_LIMIT = 1 << 20;

export interface GeneratorOptions {
  /** Subscriptions in one subscribe-flood case. */
  floodSize: number;
}

/** The `i`-th case of a run is a function of the seed alone: one generator per run, drawn in order. */
export function caseGenerator(seed: number, o: GeneratorOptions): () => FuzzCase {
  const r = prng(seed);
  return () => {
    const target = pick(r, ['native-http', 'evm-http', 'pubsub-ws', 'evm-ws'] as const);
    if (target === 'native-http' || target === 'evm-http') {
      const roll = int(r, 100);
      if (roll < 8) return rawHttp(r, target);
      if (roll < 11) {
        return { target, kind: 'oversized-body', how: 'post', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: ['x'.repeat(HTTP_BODY_LIMIT + int(r, 4 * HTTP_BODY_LIMIT))] }) };
      }
      if (roll < 13) return { target, kind: 'binary-body', how: 'post', body: Buffer.from(Array.from({ length: 1 + int(r, 4000) }, () => int(r, 256))), contentType: pick(r, ['application/octet-stream', 'application/json']) };
      if (roll < 15) return { target, kind: 'hostile-get', how: 'get', path: pick(r, ['/../../../../etc/passwd', '/explorer/../../package.json', '/explorer/%2e%2e/%2e%2e/package.json', '/explorer/%00', '/health?x=' + 'y'.repeat(5000), '/explorer/' + 'a/'.repeat(2000), '/%ff%fe']) };
      const { kind, body } = jsonBody(r, target, false, HTTP_BODY_LIMIT);
      return { target, kind, how: 'post', body, contentType: pick(r, ['application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded']) };
    }
    const roll = int(r, 1000);
    if (roll < 20) return rawWebSocket(r, target);
    if (roll < 22) return { target, kind: 'subscribe-flood', how: 'subscribe-flood', count: o.floodSize };
    if (roll < 34) return { target, kind: 'oversized-frame', how: 'ws', data: 'x'.repeat(WS_FRAME_LIMIT + 1 + int(r, 1000)), binary: r() < 0.5 };
    if (roll < 94) return { target, kind: 'binary-frame', how: 'ws', data: Buffer.from(Array.from({ length: 1 + int(r, 3000) }, () => int(r, 256))), binary: true };
    const { kind, body } = jsonBody(r, target, true, WS_FRAME_LIMIT);
    const binary = r() < 0.1;
    return { target, kind: binary ? `${kind} (binary)` : kind, how: 'ws', data: binary ? Buffer.from(body) : body, binary };
  };
}
