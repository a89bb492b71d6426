/**
 * The HTTP side of an endpoint: JSON-RPC bodies on POST (answered by whatever `answer` the node wires
 * in; this layer knows no chain), the health check on GET /health (and the spec's spelling, /heath),
 * static files on other GETs, the Host check, the body limit, and CORS headers as Solana's RPC sends
 * them so browsers and extensions can call it.
 */
import type { EventEmitter } from 'node:events';
import http from 'node:http';
import { forbiddenHostMessage, hostAllowed } from './host-check.ts';

/** How long an idle kept-alive connection stays open. */
export const KEEP_ALIVE_MS = 65_000;

/** Agave's MAX_REQUEST_BODY_SIZE. */
export const MAX_REQUEST_BODY_SIZE = 50 * 1024;

type Piece = string | Uint8Array;

/**
 * A JSON-RPC body in, the response text out: whole, or in pieces (strings or UTF-8 bytes) to be
 * written in order, so a large answer is never joined into one string, or as a stream of pieces
 * still being written, sent as they come; null: nothing to send, the body held only notifications.
 * `origin` is the browser's Origin header, set when a web page made the request.
 */
export type AnswerBody = (body: string, request?: { origin?: string }) => Promise<string | readonly Piece[] | AsyncIterable<Piece> | null>;

/**
 * A stream's next piece is taken only while less than this is queued for the socket: memory stays
 * bounded however slowly the client reads, and the kernel's buffers still feed the client meanwhile.
 */
export const STREAM_QUEUE_BYTES = 4 << 20;

/**
 * A client that leaves a streamed answer's queue for the socket undrained this long is cut off: the
 * writer behind the stream waits while the client does not read, and what it holds (a traced run
 * holds the tracing machine) must not be held for ever by a client that keeps its connection open
 * and reads nothing.
 */
export const STREAM_STALL_MS = 30_000;

export interface HttpHandlers {
  answer: AnswerBody;
  health(): 'ok' | 'behind' | 'unknown';
  /** Serves GET requests other than the health check (the explorer); false when nothing matched. */
  serveStatic?(req: http.IncomingMessage, res: http.ServerResponse): boolean;
  /** Host names allowed beside localhost and IP addresses (host-check.ts). */
  allowedHosts?: readonly string[];
  /** An answer's pieces (or a streamed one's, one by one) were written to the socket: nothing here reads them any more (their memory may be reused). */
  sent?(pieces: readonly Piece[]): void;
  /** How long a streamed answer's queue may stay undrained before the client is cut off [default: STREAM_STALL_MS]. */
  streamStallMs?: number;
  /** How long an idle kept-alive connection stays open [default: KEEP_ALIVE_MS]. */
  keepAliveMs?: number;
}

/** A response needs only the origin header; the methods and max-age are for preflight answers. */
const ALLOW_ORIGIN = 'access-control-allow-origin';
const PREFLIGHT_HEADERS = { [ALLOW_ORIGIN]: '*', 'access-control-allow-methods': 'POST, GET, OPTIONS', 'access-control-max-age': '86400' };

function send(res: http.ServerResponse, status: number, body: string, contentType = 'application/json'): void {
  // Raw header pairs: no header object to copy and validate on the hot path.
  res.writeHead(status, [ALLOW_ORIGIN, '*', 'content-type', contentType, 'content-length', String(Buffer.byteLength(body))]);
  res.end(body);
}

function sendPieces(res: http.ServerResponse, pieces: readonly Piece[], sent?: (pieces: readonly Piece[]) => void): void {
  let length = 0;
  for (const p of pieces) length += Buffer.byteLength(p);
  res.writeHead(200, [ALLOW_ORIGIN, '*', 'content-type', 'application/json', 'content-length', String(length)]);
  for (const p of pieces) res.write(p);
  // 'finish': the last byte went to the socket. A response cut short never finishes, and its pieces are left to the GC.
  if (sent) res.once('finish', () => sent(pieces));
  res.end();
}

/**
 * Resolves true once the socket took what was queued; false when the connection is gone, or cut off
 * after `stallMs` without a drain. `res`: a response, or the socket itself (post-fast-path.ts).
 */
export function drained(res: EventEmitter & { destroyed: boolean; destroy(): unknown }, stallMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve(false);
    const done = (ok: boolean) => {
      clearTimeout(stall);
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    const stall = setTimeout(() => {
      res.destroy();
      done(false);
    }, stallMs);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

/**
 * A streamed answer, in chunked encoding (its length is known only at its end). Each byte piece
 * goes to `sent` once the socket took it. The stream is read no further once the client is gone or
 * cut off (its queue undrained for `stallMs`), and the writer behind it stops; a stream that fails
 * after it began breaks the connection, so that no client takes the part for an answer.
 */
async function sendStream(res: http.ServerResponse, stream: AsyncIterable<Piece>, stallMs: number, sent?: (pieces: readonly Piece[]) => void): Promise<void> {
  const pieces = stream[Symbol.asyncIterator]();
  let began = false;
  try {
    for (let next = await pieces.next(); !next.done; next = await pieces.next()) {
      if (!began) {
        res.writeHead(200, [ALLOW_ORIGIN, '*', 'content-type', 'application/json']);
        began = true;
      }
      const piece = next.value;
      if (res.destroyed) break;
      res.write(piece, sent && typeof piece !== 'string' ? (e) => e || sent([piece]) : undefined);
      if (res.writableLength > STREAM_QUEUE_BYTES && !(await drained(res, stallMs))) break;
    }
    if (!res.destroyed) res.end();
  } catch (e) {
    if (!res.destroyed) console.error(`isthmus: a streamed answer failed${began ? ' after it began; the connection is broken' : ''}:`, e);
    if (began || res.destroyed) res.destroy();
    else send(res, 500, rpcError(-32603, 'Internal error'));
  } finally {
    await pieces.return?.();
  }
}

/** A JSON-RPC error answer with no id (the request was not read as JSON-RPC). */
export const rpcError = (code: number, message: string) => JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });

export function createHttpServer(h: HttpHandlers): http.Server {
  const server = http.createServer((req, res) => {
    if (!hostAllowed(req.headers.host, h.allowedHosts ?? [])) return send(res, 403, forbiddenHostMessage(req.headers.host), 'text/plain; charset=utf-8');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...PREFLIGHT_HEADERS, 'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type' });
      res.end();
      return;
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/health' || path === '/heath') return send(res, 200, h.health(), 'text/plain; charset=utf-8');
      if (h.serveStatic?.(req, res)) return;
      return send(res, 404, 'Not found\n', 'text/plain; charset=utf-8');
    }
    if (req.method !== 'POST') return send(res, 405, 'Method not allowed\n', 'text/plain; charset=utf-8');
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_REQUEST_BODY_SIZE) {
      req.resume();
      return send(res, 413, rpcError(-32600, `Invalid request: body of ${declared} bytes is too large; max ${MAX_REQUEST_BODY_SIZE}`));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BODY_SIZE) {
        if (!tooLarge) send(res, 413, rpcError(-32600, `Invalid request: body is too large; max ${MAX_REQUEST_BODY_SIZE} bytes`));
        tooLarge = true;
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (tooLarge) return;
      const body = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      h.answer(body, req.headers.origin === undefined ? undefined : { origin: req.headers.origin }).then(
        (answer) => {
          if (answer === null) {
            res.writeHead(204, { [ALLOW_ORIGIN]: '*' });
            res.end();
          } else if (typeof answer === 'string') send(res, 200, answer);
          else if (Symbol.asyncIterator in answer) void sendStream(res, answer, h.streamStallMs ?? STREAM_STALL_MS, h.sent);
          else sendPieces(res, answer, h.sent);
        },
        (e) => {
          console.error('isthmus: request failed:', e);
          send(res, 500, rpcError(-32603, 'Internal error'));
        },
      );
    });
  });
  server.keepAliveTimeout = h.keepAliveMs ?? KEEP_ALIVE_MS;
  return server;
}
