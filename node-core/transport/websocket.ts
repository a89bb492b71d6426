/**
 * WebSocket endpoints: upgrades on an HTTP server with the Host check, a server that only upgrades
 * (the PubSub port), and closing every client on shutdown. What the sockets carry is not this layer's.
 */
import http from 'node:http';
import { WebSocketServer } from 'ws';
import { forbiddenHostMessage, hostAllowed } from './host-check.ts';

export interface WebSocketOptions {
  /** Largest message accepted. */
  maxPayload: number;
  /** Host names allowed beside localhost and IP addresses (host-check.ts). */
  allowedHosts: readonly string[];
}

/**
 * Accepts WebSocket upgrades on `server`; a Host the check refuses gets 403. Attach it once the
 * server listens: a WebSocketServer re-emits its server's errors (a taken port) as its own.
 */
export function acceptWebSockets(server: http.Server, o: WebSocketOptions): WebSocketServer {
  return new WebSocketServer({
    server,
    maxPayload: o.maxPayload,
    perMessageDeflate: false,
    verifyClient: ({ req }, done) => (hostAllowed(req.headers.host, o.allowedHosts) ? done(true) : done(false, 403, forbiddenHostMessage(req.headers.host).trim())),
  });
}

/** An HTTP server for a WebSocket-only port: a plain request gets 426 and a line saying what the port is. */
export function upgradeOnlyServer(what: string): http.Server {
  return http.createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain; charset=utf-8', upgrade: 'websocket' });
    res.end(`This is the ${what} WebSocket endpoint: connect with a WebSocket client\n`);
  });
}

/**
 * Closes every client: "going away" (1001) first so clients know, then whoever has not closed after
 * `graceMs` is cut off (0: at once); then the WebSocket server itself.
 */
export async function closeWebSockets(wss: WebSocketServer, graceMs: number): Promise<void> {
  if (graceMs > 0) {
    const open = [...wss.clients];
    const closed = Promise.all(open.map((ws) => new Promise<void>((r) => (ws.readyState === ws.CLOSED ? r() : ws.once('close', () => r())))));
    for (const ws of open) ws.close(1001, 'node shutting down');
    await Promise.race([closed, new Promise((r) => setTimeout(r, graceMs).unref())]);
  }
  for (const ws of wss.clients) ws.terminate();
  wss.close();
}
