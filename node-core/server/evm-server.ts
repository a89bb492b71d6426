/**
 * The EVM endpoint (default 8545): Ethereum JSON-RPC over HTTP and, on the same port, over
 * WebSocket with eth_subscribe (newHeads, logs, newPendingTransactions), as geth and Anvil serve it.
 */
import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EvmBlockRecord, EvmTxRecord } from '../evm/records.ts';
import type { DecodedTransaction } from '../evm/transaction.ts';
import { Dispatcher } from '../rpc/dispatcher.ts';
import type { EvmRpcContext } from '../rpc/eth/context.ts';
import { formatBlock } from '../rpc/eth/format.ts';
import { blockLogs, criteriaOf, type LogCriteria } from '../rpc/eth/logs.ts';
import { ethMethods } from '../rpc/eth/methods.ts';
import { logFilter } from '../rpc/eth/params.ts';
import { forbiddenHostMessage, hostAllowed } from './host-check.ts';
import { createHttpServer, listen } from './http.ts';

/** A WebSocket reader this far behind is disconnected rather than buffered without end. */
const MAX_BUFFERED_BYTES = 16 << 20;

type Subscription = { kind: 'newHeads' } | { kind: 'logs'; criteria: LogCriteria } | { kind: 'newPendingTransactions' };

export interface EvmServer {
  port: number;
  dispatcher: Dispatcher<EvmRpcContext>;
  close(): Promise<void>;
}

export async function startEvmServer(ctx: EvmRpcContext, o: { port: number; host: string; allowedHosts: readonly string[] }): Promise<EvmServer> {
  const dispatcher = new Dispatcher(ethMethods, ctx);
  const server: http.Server = createHttpServer({ dispatcher: dispatcher as Dispatcher<unknown>, health: () => 'ok', allowedHosts: o.allowedHosts });
  const port = await listen(server, o.port, o.host, '--evm-rpc-port');
  const wss = new WebSocketServer({
    server,
    maxPayload: 1 << 20,
    perMessageDeflate: false,
    verifyClient: ({ req }, done) => (hostAllowed(req.headers.host, o.allowedHosts) ? done(true) : done(false, 403, forbiddenHostMessage(req.headers.host).trim())),
  });
  const sockets = new Map<WebSocket, Map<string, Subscription>>();

  const send = (ws: WebSocket, message: unknown) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      ws.terminate();
      return;
    }
    ws.send(JSON.stringify(message));
  };
  const notify = (ws: WebSocket, subscription: string, result: unknown) => send(ws, { jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result } });

  const onBlock = (block: EvmBlockRecord, txs: EvmTxRecord[]) => {
    let header: Record<string, unknown> | null = null;
    for (const [ws, subs] of sockets) {
      for (const [id, sub] of subs) {
        if (sub.kind === 'newHeads') {
          header ??= (({ transactions: _t, ...rest }) => rest)(formatBlock(block, ctx.space.isFinalized(block), []));
          notify(ws, id, header);
        } else if (sub.kind === 'logs') {
          for (const log of blockLogs(block, txs, sub.criteria)) notify(ws, id, log);
        }
      }
    }
  };
  const onPending = (d: DecodedTransaction) => {
    for (const [ws, subs] of sockets) for (const [id, sub] of subs) if (sub.kind === 'newPendingTransactions') notify(ws, id, d.hash);
  };
  ctx.space.on('block', onBlock);
  ctx.relay.on('pending', onPending);

  wss.on('connection', (ws) => {
    const subs = new Map<string, Subscription>();
    sockets.set(ws, subs);
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (raw) => {
      const text = raw.toString();
      let request: { id?: unknown; method?: unknown; params?: unknown } | null = null;
      try {
        const parsed = JSON.parse(text);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) request = parsed;
      } catch {
        // the dispatcher answers the parse error
      }
      if (request?.method === 'eth_subscribe' || request?.method === 'eth_unsubscribe') {
        send(ws, subscriptionAnswer(request, subs));
        return;
      }
      dispatcher.handleBody(text).then(
        (answer) => answer !== null && ws.readyState === ws.OPEN && ws.send(answer),
        (e) => console.error('isthmus: EVM WebSocket request failed:', e),
      );
    });
  });

  return {
    port,
    dispatcher,
    close: async () => {
      ctx.space.off('block', onBlock);
      ctx.relay.off('pending', onPending);
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function subscriptionAnswer(req: { id?: unknown; method?: unknown; params?: unknown }, subs: Map<string, Subscription>): object {
  const id = req.id ?? null;
  const error = (code: number, message: string) => ({ jsonrpc: '2.0', id, error: { code, message } });
  const params = Array.isArray(req.params) ? req.params : [];
  if (req.method === 'eth_unsubscribe') {
    const sub = typeof params[0] === 'string' ? params[0].toLowerCase() : '';
    return { jsonrpc: '2.0', id, result: subs.delete(sub) };
  }
  let sub: Subscription;
  switch (params[0]) {
    case 'newHeads':
      sub = { kind: 'newHeads' };
      break;
    case 'newPendingTransactions':
      sub = { kind: 'newPendingTransactions' };
      break;
    case 'logs':
      try {
        sub = { kind: 'logs', criteria: criteriaOf(logFilter(params[1] ?? {}, 'filter')) };
      } catch (e) {
        return error(-32602, (e as Error).message);
      }
      break;
    default:
      return error(-32602, `Invalid params: unsupported subscription ${JSON.stringify(params[0])}; supported: newHeads, logs, newPendingTransactions`);
  }
  const subscriptionId = `0x${randomBytes(16).toString('hex')}`;
  subs.set(subscriptionId, sub);
  return { jsonrpc: '2.0', id, result: subscriptionId };
}
