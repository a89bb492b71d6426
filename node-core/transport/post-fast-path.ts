/**
 * JSON-RPC POSTs read and answered on the socket itself, without node:http's request and response
 * objects: for a small request those cost about as much as the rest of the node's work (a bare
 * node:http server answering a constant serves half the requests a socket-level one does here).
 *
 * A connection is read here while its requests are plain JSON-RPC POSTs: HTTP/1.1, a
 * Content-Length within the body limit, no Transfer-Encoding, Expect or Upgrade, no
 * `Connection: close`, and a Host the check allows. The first request that is anything else (a
 * GET of the explorer or the health check, a WebSocket upgrade, a preflight, a refused Host, a
 * body too large) hands the connection, from that request's first byte on, to the node:http
 * server, which owns it from then on and answers as it always has. Requests are answered in the
 * order they came, one at a time, as node:http does.
 */
import type http from 'node:http';
import type net from 'node:net';
import { hostAllowed } from './host-check.ts';
import { drained, KEEP_ALIVE_MS, MAX_REQUEST_BODY_SIZE, rpcError, STREAM_QUEUE_BYTES, STREAM_STALL_MS, type HttpHandlers } from './http-server.ts';

const HEAD_END = Buffer.from('\r\n\r\n');
/** A request head longer than this goes to node:http (which answers 431). */
const MAX_HEAD_BYTES = 16 * 1024;

/** The parts of a request head this path needs; null: not a request for this path. */
interface PostHead {
  bodyLength: number;
  origin?: string;
}

function parsePostHead(head: string, allowedHosts: readonly string[]): PostHead | null {
  const lines = head.split('\r\n');
  const requestLine = lines[0]!;
  if (!requestLine.startsWith('POST ') || !requestLine.endsWith(' HTTP/1.1')) return null;
  let length: number | undefined;
  let host: string | undefined;
  let origin: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    switch (name) {
      case 'content-length':
        if (length !== undefined || !/^\d{1,9}$/.test(value)) return null;
        length = Number(value);
        break;
      case 'host':
        if (host !== undefined) return null;
        host = value;
        break;
      case 'origin':
        origin = value;
        break;
      case 'connection':
        if (/close|upgrade/i.test(value)) return null;
        break;
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
        return null;
    }
  }
  if (length === undefined || length > MAX_REQUEST_BODY_SIZE) return null;
  if (!hostAllowed(host, allowedHosts)) return null;
  return origin === undefined ? { bodyLength: length } : { bodyLength: length, origin };
}

const POST_PREFIX = Buffer.from('POST ');
const startsLikePost = (bytes: Buffer) => bytes.subarray(0, POST_PREFIX.length).equals(POST_PREFIX.subarray(0, Math.min(bytes.length, POST_PREFIX.length)));

const JSON_FIELDS = 'access-control-allow-origin: *\r\ncontent-type: application/json\r\n';
const INTERNAL_ERROR_BODY = rpcError(-32603, 'Internal error');

/** The response heads, carrying what node:http's carry here: the CORS origin, and keep-alive with node:http's timeout. */
function responseHeads(keepAliveMs: number) {
  const keepAlive = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(keepAliveMs / 1000)}\r\n`;
  const head = (status: string, length: number) => `HTTP/1.1 ${status}\r\n${JSON_FIELDS}content-length: ${length}\r\n${keepAlive}\r\n`;
  return {
    head,
    chunked: `HTTP/1.1 200 OK\r\n${JSON_FIELDS}transfer-encoding: chunked\r\n${keepAlive}\r\n`,
    noContent: `HTTP/1.1 204 No Content\r\naccess-control-allow-origin: *\r\n${keepAlive}\r\n`,
    internalError: head('500 Internal Server Error', Buffer.byteLength(INTERNAL_ERROR_BODY)) + INTERNAL_ERROR_BODY,
  };
}
type ResponseHeads = ReturnType<typeof responseHeads>;

type Piece = string | Uint8Array;

/**
 * A streamed answer on the socket, in chunked encoding, as http-server.ts's sendStream sends one:
 * each byte piece goes to `sent` once written; no further piece is taken while more than
 * STREAM_QUEUE_BYTES wait for the socket, nor once the client is gone or cut off (the writer behind
 * the stream stops). A stream that fails before its first piece is a 500; after it, the connection
 * is broken. Resolves once the answer is out (true: the connection may serve its next request).
 */
async function streamOnSocket(socket: net.Socket, heads: ResponseHeads, stream: AsyncIterable<Piece>, stallMs: number, sent?: (pieces: readonly Piece[]) => void): Promise<boolean> {
  const pieces = stream[Symbol.asyncIterator]();
  let began = false;
  try {
    for (let next = await pieces.next(); !next.done; next = await pieces.next()) {
      if (socket.destroyed) break;
      if (!began) socket.write(heads.chunked);
      began = true;
      const piece = next.value;
      const length = typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength;
      // An empty chunk would end the body.
      if (length === 0) continue;
      socket.write(`${length.toString(16)}\r\n`);
      socket.write(piece, sent && typeof piece !== 'string' ? (e) => e || sent([piece]) : undefined);
      socket.write('\r\n');
      if (socket.writableLength > STREAM_QUEUE_BYTES && !(await drained(socket, stallMs))) break;
    }
    if (socket.destroyed) return false;
    socket.write(began ? '0\r\n\r\n' : heads.head('200 OK', 0));
    return true;
  } catch (e) {
    if (!socket.destroyed) console.error(`isthmus: a streamed answer failed${began ? ' after it began; the connection is broken' : ''}:`, e);
    if (began || socket.destroyed) {
      socket.destroy();
      return false;
    }
    socket.write(heads.internalError);
    return true;
  } finally {
    await pieces.return?.();
  }
}

/**
 * Reads `server`'s connections here first (see above). `server` must be the node:http server
 * createHttpServer made for the same handlers; its other connection listeners run for the
 * connections handed over. Closing the server closes the connections read here as well.
 */
export function answerPostsOnSockets(server: http.Server, h: HttpHandlers): void {
  const keepAliveMs = h.keepAliveMs ?? KEEP_ALIVE_MS;
  const heads = responseHeads(keepAliveMs);
  const httpListeners = server.listeners('connection') as ((socket: net.Socket) => void)[];
  server.removeAllListeners('connection');
  const open = new Set<net.Socket>();
  const idle = new Set<net.Socket>();

  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    for (const socket of open) socket.destroy();
    closeAll();
  };
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    for (const socket of idle) socket.destroy();
    closeIdle();
  };

  server.on('connection', (socket: net.Socket) => {
    open.add(socket);
    idle.add(socket);
    socket.setNoDelay(true);
    socket.setTimeout(keepAliveMs);
    let pending: Buffer = Buffer.alloc(0);
    // A client sends the same head again and again on a connection (only a body's length changes, if that): the last one's parse is kept.
    let lastHead = '';
    let lastRequest: PostHead | null = null;
    let answering = false;
    let handedOver = false;
    /** The client half-closed: once what it sent is answered, the connection ends (as node:http does). */
    let ended = false;

    const forget = () => {
      open.delete(socket);
      idle.delete(socket);
    };
    // The keep-alive timeout counts between requests only: an answer may take longer (a long trace),
    // and writing it starts the count again.
    const onTimeout = () => answering || socket.destroy();
    const onData = (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      next();
    };
    const onEnd = () => {
      ended = true;
      next();
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('timeout', onTimeout);
    const onError = () => socket.destroy();
    socket.on('close', forget);
    socket.on('error', onError);

    const handOver = () => {
      handedOver = true;
      forget();
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('timeout', onTimeout);
      socket.off('close', forget);
      // node:http has its own error handling for the connection from here on (a 400 for a bad request).
      socket.off('error', onError);
      socket.setTimeout(0);
      socket.pause();
      if (pending.length > 0) socket.unshift(pending);
      pending = Buffer.alloc(0);
      for (const listener of httpListeners) listener.call(server, socket);
      process.nextTick(() => socket.resume());
    };

    /** Answers the next whole request in `pending`, if there is one and none is being answered. */
    const next = () => {
      if (answering || handedOver || socket.destroyed) return;
      const end = pending.indexOf(HEAD_END);
      let request: PostHead | null | undefined;
      if (end >= 0) {
        const headText = pending.toString('latin1', 0, end);
        if (headText !== lastHead) {
          lastRequest = parsePostHead(headText, h.allowedHosts ?? []);
          lastHead = headText;
        }
        request = lastRequest;
      }
      // What is not a POST is known from its first bytes (garbage gets node:http's 400 at once).
      const notPost = request === null || (end < 0 ? pending.length : end) > MAX_HEAD_BYTES || (request === undefined && !startsLikePost(pending));
      if (notPost || !request || pending.length < end + HEAD_END.length + request.bodyLength) {
        if (ended) {
          // After the client's FIN the rest can no longer go to node:http (its stream has ended): what is left was cut short.
          socket.end();
        } else if (notPost) handOver();
        return;
      }
      const total = end + HEAD_END.length + request.bodyLength;
      const body = pending.toString('utf8', end + HEAD_END.length, total);
      pending = pending.subarray(total);
      answering = true;
      idle.delete(socket);
      h.answer(body, request.origin === undefined ? undefined : { origin: request.origin }).then(
        (answer) => finish(answer),
        (e) => {
          console.error('isthmus: request failed:', e);
          socket.write(heads.internalError);
          done();
        },
      );
    };

    const finish = (answer: Awaited<ReturnType<HttpHandlers['answer']>>) => {
      if (socket.destroyed) return;
      if (answer === null) {
        socket.write(heads.noContent);
      } else if (typeof answer === 'string') {
        socket.write(heads.head('200 OK', Buffer.byteLength(answer)) + answer);
      } else if (Symbol.asyncIterator in answer) {
        void streamOnSocket(socket, heads, answer, h.streamStallMs ?? STREAM_STALL_MS, h.sent).then((open) => open && done());
        return;
      } else {
        let length = 0;
        for (const p of answer) length += Buffer.byteLength(p);
        socket.write(heads.head('200 OK', length));
        const sent = h.sent;
        answer.forEach((piece, i) => socket.write(piece, i === answer.length - 1 && sent ? (e) => !e && sent(answer) : undefined));
      }
      done();
    };

    const done = () => {
      answering = false;
      if (socket.destroyed) return;
      idle.add(socket);
      next();
    };
  });
}
