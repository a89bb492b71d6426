/**
 * A PubSub WebSocket client (Solana's numeric subscription ids, or Ethereum's eth_subscribe with hex ids) that reconnects by itself (backoff up to 5 s) and subscribes again after
 * each reconnect. Its state is a store the status bar shows, so a dropped socket is visible.
 */
import { writable, type Readable } from 'svelte/store';

export type SocketState = 'connecting' | 'open' | 'reconnecting' | 'closed';

interface Sub {
  method: string;
  params: unknown[];
  onNotify: (result: any) => void;
  serverId?: number | string;
  requestId?: number;
}

export class PubSubClient {
  private ws: WebSocket | null = null;
  private readonly subs = new Set<Sub>();
  private readonly pending = new Map<number, Sub>();
  private readonly byServerId = new Map<number | string, Sub>();
  private nextId = 1;
  private retryMs = 250;
  private closed = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly stateStore = writable<SocketState>('connecting');
  readonly state: Readable<SocketState> = this.stateStore;

  constructor(readonly url: string) {
    this.connect();
  }

  private connect(): void {
    if (this.closed) return;
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.stateStore.set('closed');
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.retryMs = 250;
      this.stateStore.set('open');
      for (const s of this.subs) this.sendSubscribe(s);
    };
    ws.onmessage = (ev) => this.onMessage(String(ev.data));
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.pending.clear();
      this.byServerId.clear();
      for (const s of this.subs) s.serverId = undefined;
      if (this.closed) return;
      this.stateStore.set('reconnecting');
      this.timer = setTimeout(() => this.connect(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 5_000);
    };
  }

  private onMessage(text: string): void {
    let msg: any;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof msg.id === 'number' && this.pending.has(msg.id)) {
      const sub = this.pending.get(msg.id)!;
      this.pending.delete(msg.id);
      if ((typeof msg.result === 'number' || typeof msg.result === 'string') && this.subs.has(sub)) {
        sub.serverId = msg.result;
        this.byServerId.set(msg.result, sub);
      }
      return;
    }
    if (msg.method && msg.params && (typeof msg.params.subscription === 'number' || typeof msg.params.subscription === 'string')) {
      this.byServerId.get(msg.params.subscription)?.onNotify(msg.params.result);
    }
  }

  private sendSubscribe(s: Sub): void {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    const id = this.nextId++;
    s.requestId = id;
    this.pending.set(id, s);
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: s.method, params: s.params }));
  }

  /** Subscribes now (or on connect) and after every reconnect; returns the unsubscribe. */
  subscribe(method: string, params: unknown[], onNotify: (result: any) => void): () => void {
    const sub: Sub = { method, params, onNotify };
    this.subs.add(sub);
    this.sendSubscribe(sub);
    return () => {
      this.subs.delete(sub);
      if (sub.serverId !== undefined) {
        this.byServerId.delete(sub.serverId);
        if (this.ws?.readyState === WebSocket.OPEN) {
          this.ws.send(JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method: method === 'eth_subscribe' ? 'eth_unsubscribe' : method.replace('Subscribe', 'Unsubscribe'), params: [sub.serverId] }));
        }
      }
    };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.ws?.close();
    this.ws = null;
    this.stateStore.set('closed');
  }
}
