/**
 * Native PubSub: JSON-RPC 2.0 subscriptions over the WebSockets of `--rpc-pubsub-port` (default 8900).
 * Many connections, many subscriptions each; a heartbeat pings every client and terminates one that
 * did not answer the previous ping; a slow reader is disconnected (connection.ts); closing a
 * connection frees its subscriptions. The sockets come from whichever server the node serves it on.
 */
import type { WebSocketServer } from 'ws';
import type { Chain } from '../ledger/chain.ts';
import { Connection, type SendLimits } from './connection.ts';
import { attachNotifier } from './notifier.ts';
import { Outbox } from './outbox.ts';
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

export interface PubsubOptions {
  chain: Chain;
  enableVoteSubscription: boolean;
  limits: PubsubLimits;
  /** Where disconnect reasons and notification failures go. */
  log: (line: string) => void;
}

export interface PubsubService {
  /** Live subscriptions over all connections. */
  readonly subscriptionCount: number;
  readonly connectionCount: number;
  /** Connections dropped because they could not keep up. */
  readonly slowReaderDisconnects: number;
  /** Stops the heartbeat and detaches from the chain (the sockets are closed by their server). */
  stop(): void;
}

/** Serves native PubSub on every socket `wss` accepts. */
export function servePubsub(wss: WebSocketServer, o: PubsubOptions): PubsubService {
  const { limits, log } = o;
  const registry = new Registry(limits.maxActiveSubscriptions);
  const outbox = new Outbox();
  const notifier = attachNotifier(o.chain, registry, log, outbox.flush);
  const connections = new Set<Connection>();
  let slowReaderDisconnects = 0;
  wss.on('connection', (ws, req) => {
    const remote = `${req.socket.remoteAddress}:${req.socket.remotePort}`;
    const conn = new Connection(ws, remote, {
      registry,
      notifier,
      enableVoteSubscription: o.enableVoteSubscription,
      limits,
      outbox,
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

  return {
    get subscriptionCount() {
      return registry.size;
    },
    get connectionCount() {
      return connections.size;
    },
    get slowReaderDisconnects() {
      return slowReaderDisconnects;
    },
    stop() {
      clearInterval(heartbeat);
      notifier.detach();
    },
  };
}
