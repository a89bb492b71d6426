/**
 * EVM PubSub: Ethereum JSON-RPC over the WebSockets of the EVM endpoint, with eth_subscribe
 * (newHeads, logs, newPendingTransactions) and eth_unsubscribe beside every eth_* method, as geth and
 * Anvil serve it. The sockets come from whichever server the node serves it on.
 */
import { randomBytes } from 'node:crypto';
import type { WebSocket, WebSocketServer } from 'ws';
import type { EvmBlockRecord, EvmTxRecord } from '../evm/records.ts';
import type { DecodedTransaction } from '../evm/transaction.ts';
import { Dispatcher, type MethodTable } from '../rpc/dispatcher.ts';
import { ethMethodNotFound, invalidParams } from '../rpc/errors.ts';
import type { EvmRpcContext } from '../rpc/eth/context.ts';
import { formatBlock } from '../rpc/eth/format.ts';
import { blockLogs, criteriaOf, type LogCriteria } from '../rpc/eth/logs.ts';
import { ethMethods } from '../rpc/eth/methods.ts';
import { logFilter } from '../rpc/eth/params.ts';
import { parseParams, required, optional, string } from '../rpc/params.ts';

/** A WebSocket reader this far behind is disconnected rather than buffered without end. */
const MAX_BUFFERED_BYTES = 16 << 20;

type Subscription = { kind: 'newHeads' } | { kind: 'logs'; criteria: LogCriteria } | { kind: 'newPendingTransactions' };

/** The eth_* methods with one socket's subscriptions. */
interface SocketContext extends EvmRpcContext {
  subscriptions: Map<string, Subscription>;
}

function eth_subscribe(params: unknown, ctx: SocketContext): string {
  const [kind, filter] = parseParams(params, [required('subscription', string), optional('filter', (v) => v)]);
  let sub: Subscription;
  switch (kind) {
    case 'newHeads':
      sub = { kind: 'newHeads' };
      break;
    case 'newPendingTransactions':
      sub = { kind: 'newPendingTransactions' };
      break;
    case 'logs':
      sub = { kind: 'logs', criteria: criteriaOf(logFilter(filter ?? {}, 'filter')) };
      break;
    default:
      throw invalidParams(`Invalid params: unsupported subscription ${JSON.stringify(kind)}; supported: newHeads, logs, newPendingTransactions`);
  }
  const id = `0x${randomBytes(16).toString('hex')}`;
  ctx.subscriptions.set(id, sub);
  return id;
}

function eth_unsubscribe(params: unknown, ctx: SocketContext): boolean {
  const [id] = parseParams(params, [required('subscription', string)]);
  return ctx.subscriptions.delete(id.toLowerCase());
}

const socketMethods: MethodTable<SocketContext> = { ...(ethMethods as MethodTable<SocketContext>), eth_subscribe, eth_unsubscribe };

export interface EvmPubsubService {
  /** Stops notifying (the sockets are closed by their server). */
  stop(): void;
}

/** Serves the eth_* methods and subscriptions on every socket `wss` accepts. */
export function serveEvmPubsub(wss: WebSocketServer, ctx: EvmRpcContext): EvmPubsubService {
  const sockets = new Map<WebSocket, Map<string, Subscription>>();

  const send = (ws: WebSocket, text: string) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      ws.terminate();
      return;
    }
    ws.send(text);
  };
  const notify = (ws: WebSocket, subscription: string, result: unknown) => send(ws, JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result } }));

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
    const subscriptions = new Map<string, Subscription>();
    sockets.set(ws, subscriptions);
    const dispatcher = new Dispatcher(socketMethods, { ...ctx, subscriptions }, { unknownMethod: ethMethodNotFound });
    ws.on('close', () => sockets.delete(ws));
    // A socket error (a frame past the payload limit, a broken frame) closes the socket; unheard, it would end the process.
    ws.on('error', () => sockets.delete(ws));
    ws.on('message', (raw) => {
      dispatcher.handleBody(raw.toString()).then(
        (answer) => answer !== null && send(ws, answer),
        (e) => console.error('isthmus: EVM WebSocket request failed:', e),
      );
    });
  });

  return {
    stop() {
      ctx.space.off('block', onBlock);
      ctx.relay.off('pending', onPending);
    },
  };
}
