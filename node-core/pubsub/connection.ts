/**
 * One WebSocket client: its JSON-RPC requests, its subscriptions, and a bounded send queue.
 * Messages go straight to the socket while it keeps up (`bufferedAmount` under the high-water
 * mark); past it they wait in the queue, and a queue past its bound (messages or bytes) means a
 * reader too slow to follow the chain: the connection is dropped with a logged reason rather
 * than letting it hold memory or slow anyone else.
 */
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { Dispatcher } from '../rpc/dispatcher.ts';
import { framesOf, type FramedTexts } from './ws-frames.ts';
import { pubsubMethods, type PubsubContext } from './methods.ts';
import type { Notifier } from './notifier.ts';
import type { Outbox } from './outbox.ts';
import type { Registry, Subscriber } from './subscriptions.ts';

export interface SendLimits {
  /** Bytes the socket may hold unsent before messages wait in our queue. */
  highWaterBytes: number;
  /** Queue bounds past which the client is disconnected. */
  maxQueuedMessages: number;
  maxQueuedBytes: number;
}

export interface ConnectionDeps {
  registry: Registry;
  notifier: Notifier;
  enableVoteSubscription: boolean;
  limits: SendLimits;
  /** Where a connection's held messages wait to be flushed. */
  outbox: Outbox;
  log(line: string): void;
  onSlowReader(): void;
}

export class Connection implements Subscriber {
  readonly subscriptions = new Set<number>();
  /** Set by any sign of life (pong or message); the heartbeat clears it. */
  alive = true;
  private closed = false;
  private queue: string[] = [];
  private head = 0;
  private queuedBytes = 0;
  private readonly ctx: PubsubContext;
  private readonly dispatcher: Dispatcher<PubsubContext>;

  constructor(
    private readonly ws: WebSocket,
    readonly remote: string,
    private readonly deps: ConnectionDeps,
  ) {
    this.ctx = { conn: this, registry: deps.registry, notifier: deps.notifier, enableVoteSubscription: deps.enableVoteSubscription };
    this.dispatcher = new Dispatcher(pubsubMethods, this.ctx);
    ws.on('message', (data) => {
      this.alive = true;
      // Text or binary frames alike carry UTF-8 JSON (binaryType is nodebuffer: one Buffer).
      this.handle(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8'));
    });
    ws.on('pong', () => {
      this.alive = true;
    });
    ws.on('close', () => this.dispose());
    ws.on('error', () => this.dispose());
  }

  private handle(text: string): void {
    // Frames already read when the connection was dropped must not subscribe anything.
    if (this.closed) return;
    this.dispatcher.handleBody(text).then(
      (answer) => {
        if (answer !== null) this.send(answer);
      },
      (e) => this.deps.log(`isthmus: pubsub: request from ${this.remote} failed: ${String(e)}`),
    );
  }

  ping(): void {
    if (!this.closed) this.ws.ping();
  }

  send(json: string): void {
    if (this.closed) return;
    if (this.mayBatch()) {
      this.batch(json);
      return;
    }
    this.queue.push(json);
    this.queuedBytes += json.length;
    const { maxQueuedMessages, maxQueuedBytes } = this.deps.limits;
    const queued = this.queue.length - this.head;
    if (queued > maxQueuedMessages || this.queuedBytes > maxQueuedBytes) {
      this.drop(
        `slow reader: ${queued} notifications (${this.queuedBytes} bytes) waiting behind ${this.unsentBytes()} unsent bytes ` +
          `(bounds: ${maxQueuedMessages} notifications, ${maxQueuedBytes} bytes)`,
      );
      this.deps.onSlowReader();
    }
  }

  sendFramed(framed: FramedTexts): void {
    if (this.closed) return;
    if (this.mayBatch()) this.batch(framed);
    else for (const text of framed.texts) this.send(text);
  }

  /**
   * Whether a message may join the batch rather than the queue: nothing queued, and the socket keeps
   * up. A batch already held this turn was let through with nothing queued, and nothing is written
   * until it leaves: the socket's unsent bytes are what they were then.
   */
  private mayBatch(): boolean {
    return this.head === this.queue.length && (this.batched.length > 0 || this.unsentBytes() < this.deps.limits.highWaterBytes);
  }

  /** Messages to leave together at the next flush: texts, or runs of them already framed. */
  private batched: Array<string | FramedTexts> = [];

  /**
   * Holds a message until the outbox flushes (a slot's notifications to one client are often many):
   * the notifier flushes as each chain event's handler ends, the outbox in a microtask otherwise
   * (outbox.ts).
   */
  private batch(message: string | FramedTexts): void {
    if (this.batched.length === 0) this.deps.outbox.hold(this);
    this.batched.push(message);
  }

  /**
   * Writes the held messages as one buffer of frames straight to ws's socket (`_socket`; ws's server
   * here negotiates no extension, so its frames are plain). A socket ws no longer has open gets them
   * through ws.send, which reports why they cannot leave.
   */
  flush(): void {
    const held = this.batched;
    if (held.length === 0) return;
    this.batched = [];
    const socket = (this.ws as unknown as { _socket?: Socket })._socket;
    if (this.ws.readyState === this.ws.OPEN && socket) socket.write(framesOf(held), this.onWritten);
    else for (const m of held) for (const text of typeof m === 'string' ? [m] : m.texts) this.ws.send(text, this.onWritten);
  }

  /** Bytes the peer has not taken yet (what the socket holds; this turn's batch is not written yet). */
  private unsentBytes(): number {
    return this.ws.bufferedAmount;
  }

  /** Called as each write leaves for the socket: room for more of the queue. */
  private readonly onWritten = (err?: Error | null): void => {
    if (err || this.head === this.queue.length) return;
    const high = this.deps.limits.highWaterBytes;
    // The batch counts as unsent: it leaves at the next flush.
    let batchedBytes = 0;
    for (const m of this.batched) batchedBytes += typeof m === 'string' ? m.length : m.frames.length;
    while (this.head < this.queue.length && this.unsentBytes() + batchedBytes < high) {
      const json = this.queue[this.head]!;
      this.queue[this.head++] = '';
      this.queuedBytes -= json.length;
      batchedBytes += json.length;
      this.batch(json);
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  };

  /** Closes the connection at once, logging why. */
  drop(reason: string): void {
    if (this.closed) return;
    this.deps.log(`isthmus: pubsub: disconnecting ${this.remote}: ${reason}`);
    this.closed = true;
    this.queue = [];
    this.head = 0;
    this.queuedBytes = 0;
    this.batched = [];
    this.ws.terminate();
    this.dispose();
  }

  /** Frees everything of the connection. */
  dispose(): void {
    this.closed = true;
    this.queue = [];
    this.head = 0;
    this.batched = [];
    this.deps.registry.removeAll(this);
  }
}
