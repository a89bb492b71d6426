/**
 * The node's three endpoints, each a transport server wired to what it serves: native JSON-RPC over
 * HTTP (with the health check and the explorer), native PubSub on its own WebSocket port, and the
 * EVM's Ethereum JSON-RPC over HTTP and WebSocket on one port.
 */
import { releaseChunks } from '../common/json-text.ts';
import type { Chain } from '../ledger/chain.ts';
import { DEFAULT_PUBSUB_LIMITS, servePubsub, type PubsubLimits, type PubsubService } from '../pubsub/native-service.ts';
import { serveEvmPubsub } from '../pubsub/evm-service.ts';
import { Dispatcher } from '../rpc/dispatcher.ts';
import { ethMethodNotFound } from '../rpc/errors.ts';
import type { EvmRpcContext } from '../rpc/eth/context.ts';
import { ethMethods } from '../rpc/eth/methods.ts';
import { createExplorerStatic } from '../transport/explorer-static.ts';
import { createHttpServer, type AnswerBody, type HttpHandlers } from '../transport/http-server.ts';
import { answerPostsOnSockets } from '../transport/post-fast-path.ts';
import { closeServer, listen } from '../transport/listen.ts';
import { acceptWebSockets, closeWebSockets, upgradeOnlyServer } from '../transport/websocket.ts';

export interface Endpoint {
  port: number;
  close(): Promise<void>;
}

interface Listening {
  port: number;
  host: string;
  /** Host names allowed beside localhost and IP addresses (transport/host-check.ts) [default: none]. */
  allowedHosts?: readonly string[];
}

/** An HTTP server whose plain JSON-RPC POSTs are answered on the socket (post-fast-path.ts), the rest by node:http. */
function rpcServer(handlers: HttpHandlers) {
  const server = createHttpServer(handlers);
  answerPostsOnSockets(server, handlers);
  return server;
}

/** Native JSON-RPC on POST, GET /health, and the explorer at /explorer/. */
export async function startRpcEndpoint(o: Listening & { answer: AnswerBody; health(): 'ok' | 'behind' | 'unknown'; explorerDir?: string }): Promise<Endpoint> {
  const server = rpcServer({ answer: o.answer, health: o.health, serveStatic: createExplorerStatic(o.explorerDir), allowedHosts: o.allowedHosts ?? [] });
  const port = await listen(server, o.port, o.host, '--rpc-port');
  return { port, close: () => closeServer(server) };
}

/** A clients' grace to close on shutdown before they are cut off. */
const PUBSUB_CLOSE_GRACE_MS = 500;

export type PubsubEndpoint = Endpoint & Omit<PubsubService, 'stop'>;

/** Native PubSub on its own port (`--rpc-pubsub-port`). */
export async function startPubsubEndpoint(
  o: Listening & { chain: Chain; enableVoteSubscription: boolean; limits?: Partial<PubsubLimits>; log?: (line: string) => void },
): Promise<PubsubEndpoint> {
  const limits = { ...DEFAULT_PUBSUB_LIMITS, ...o.limits };
  const server = upgradeOnlyServer('PubSub');
  const port = await listen(server, o.port, o.host, '--rpc-pubsub-port');
  const wss = acceptWebSockets(server, { maxPayload: limits.maxPayloadBytes, allowedHosts: o.allowedHosts ?? [] });
  const service = servePubsub(wss, { chain: o.chain, enableVoteSubscription: o.enableVoteSubscription, limits, log: o.log ?? ((line) => console.warn(line)) });
  let closing: Promise<void> | null = null;
  return {
    port,
    get subscriptionCount() {
      return service.subscriptionCount;
    },
    get connectionCount() {
      return service.connectionCount;
    },
    get slowReaderDisconnects() {
      return service.slowReaderDisconnects;
    },
    close: () =>
      (closing ??= (async () => {
        service.stop();
        await closeWebSockets(wss, PUBSUB_CLOSE_GRACE_MS);
        await closeServer(server);
      })()),
  };
}

/** The largest message the EVM endpoint's WebSocket accepts. */
const EVM_WEBSOCKET_MAX_PAYLOAD = 1 << 20;

/** Ethereum JSON-RPC over HTTP, and over WebSocket with eth_subscribe, on `--evm-rpc-port`. */
export async function startEvmEndpoint(ctx: EvmRpcContext, o: Listening): Promise<Endpoint> {
  const dispatcher = new Dispatcher(ethMethods, ctx, { unknownMethod: ethMethodNotFound });
  const server = rpcServer({ answer: (body, request) => dispatcher.handleBodyInPieces(body, request, { stream: true }), health: () => 'ok', allowedHosts: o.allowedHosts ?? [], sent: releaseChunks });
  const port = await listen(server, o.port, o.host, '--evm-rpc-port');
  const wss = acceptWebSockets(server, { maxPayload: EVM_WEBSOCKET_MAX_PAYLOAD, allowedHosts: o.allowedHosts ?? [] });
  const service = serveEvmPubsub(wss, ctx);
  return {
    port,
    close: async () => {
      service.stop();
      await closeWebSockets(wss, 0);
      await closeServer(server);
    },
  };
}
