/**
 * The PubSub server: JSON-RPC 2.0 over WebSocket on `--rpc-pubsub-port` (default 8900).
 * Many connections, many subscriptions each; a heartbeat pings every client and terminates one
 * that did not answer the previous ping; a slow reader is disconnected (connection.ts); closing a
 * connection frees its subscriptions.
 */
import http from 'node:http';
import { WebSocketServer } from 'ws';
import type { Chain } from '../ledger/chain.ts';
import { listen } from '../server/http.ts';
import { forbiddenHostMessage, hostAllowed } from '../server/host-check.ts';
import { Connection, type SendLimits } from './connection.ts';
import { attachNotifier } from './notifier.ts';
import { Registry } from './subscriptions.ts';

export interface PubsubLimits extends SendLimits {
  pingIntervalMs: number;
  /** Largest request message accepted. */
  maxPayloadBytes: number;
  maxActiveSubscriptions: number;
}

export const DEFAULT_PUBSUB_LIMITS: PubsubLimits = {
  highWaterBytes: 1 << 20,
  maxQueuedMessages: 50_000,
  maxQueuedBytes: 64 << 20,
  pingIntervalMs: 30_000,
  maxPayloadBytes: 1 << 20,
  maxActiveSubscriptions: 1_000_000,
};

const CLOSE_GRACE_MS = 500;

export interface PubsubOptions {
  chain: Chain;
  port: number;
  host: string;
  enableVoteSubscription: boolean;
  limits?: Partial<PubsubLimits>;
  /** Where disconnect reasons and notification failures go (default: console.warn). */
  log?: (line: string) => void;
  /** Host names allowed beside localhost and IP addresses (server/host-check.ts). */
  allowedHosts?: readonly string[];
}

export interface PubsubServer {
  port: number;
  /** Live subscriptions over all connections. */
  readonly subscriptionCount: number;
  readonly connectionCount: number;
  /** Connections dropped because they could not keep up. */
  readonly slowReaderDisconnects: number;
  close(): Promise<void>;
}

export async function startPubsubServer(o: PubsubOptions): Promise<PubsubServer> {
  const limits = { ...DEFAULT_PUBSUB_LIMITS, ...o.limits };
  const log = o.log ?? ((line: string) => console.warn(line));
  const registry = new Registry(limits.maxActiveSubscriptions);
  const httpServer = http.createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain; charset=utf-8', upgrade: 'websocket' });
    res.end('This is the PubSub WebSocket endpoint: connect with a WebSocket client\n');
  });
  const port = await listen(httpServer, o.port, o.host, '--rpc-pubsub-port');
  // Attached only once listening: a WebSocketServer re-emits its server's errors (a taken port) as its own.
  const wss = new WebSocketServer({
    server: httpServer,
    maxPayload: limits.maxPayloadBytes,
    perMessageDeflate: false,
    verifyClient: ({ req }, done) => (hostAllowed(req.headers.host, o.allowedHosts ?? []) ? done(true) : done(false, 403, forbiddenHostMessage(req.headers.host).trim())),
  });

  const notifier = attachNotifier(o.chain, registry, log);
  const connections = new Set<Connection>();
  let slowReaderDisconnects = 0;
  wss.on('connection', (ws, req) => {
    const remote = `${req.socket.remoteAddress}:${req.socket.remotePort}`;
    const conn = new Connection(ws, remote, {
      registry,
      notifier,
      enableVoteSubscription: o.enableVoteSubscription,
      limits,
      log,
      onSlowReader: () => slowReaderDisconnects++,
    });
    connections.add(conn);
    ws.on('close', () => connections.delete(conn));
  });

  const heartbeat = setInterval(() => {
    for (const conn of connections) {
      if (!conn.alive) {
        conn.drop(`no answer to the last ping within ${limits.pingIntervalMs} ms`);
        connections.delete(conn);
        continue;
      }
      conn.alive = false;
      conn.ping();
    }
  }, limits.pingIntervalMs);
  heartbeat.unref();

  let closing: Promise<void> | null = null;
  return {
    port,
    get subscriptionCount() {
      return registry.size;
    },
    get connectionCount() {
      return connections.size;
    },
    get slowReaderDisconnects() {
      return slowReaderDisconnects;
    },
    close: () =>
      (closing ??= (async () => {
        clearInterval(heartbeat);
        notifier.detach();
        // "Going away" first, so clients know; whoever has not closed after a moment is cut off.
        const open = [...wss.clients];
        const closed = Promise.all(open.map((ws) => new Promise<void>((r) => (ws.readyState === ws.CLOSED ? r() : ws.once('close', () => r())))));
        for (const ws of open) ws.close(1001, 'node shutting down');
        await Promise.race([closed, new Promise((r) => setTimeout(r, CLOSE_GRACE_MS).unref())]);
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        await new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        });
      })()),
  };
}
