/**
 * Notification texts. A `result` is serialized once and spliced into each subscriber's message, so
 * many subscriptions sharing an event (and an encoding) cost one JSON.stringify.
 */
import type { Subscriber, Subscription } from './subscriptions.ts';

const METHODS: Readonly<Record<Subscription['kind'], string>> = {
  account: 'accountNotification',
  program: 'programNotification',
  logs: 'logsNotification',
  signature: 'signatureNotification',
  block: 'blockNotification',
  slot: 'slotNotification',
  root: 'rootNotification',
  slotsUpdates: 'slotsUpdatesNotification',
  vote: 'voteNotification',
};

export const notificationMethod = (kind: Subscription['kind']): string => METHODS[kind];

/** Sends `{"jsonrpc":"2.0","method":…,"params":{"result":<resultJson>,"subscription":id}}`. */
export function deliver(sub: Subscription, resultJson: string): void {
  sub.conn.send(`{"jsonrpc":"2.0","method":"${METHODS[sub.kind]}","params":{"result":${resultJson},"subscription":${sub.id}}}`);
}

/**
 * One chain event's notifications, sent connection by connection, each connection's socket written as
 * soon as its last one is queued: with a thousand to send, the first clients do not wait for the last.
 */
export class ByConnection {
  private readonly byConn = new Map<Subscriber, Array<[Subscription, string]>>();

  add(sub: Subscription, resultJson: string): void {
    const list = this.byConn.get(sub.conn);
    if (list) list.push([sub, resultJson]);
    else this.byConn.set(sub.conn, [[sub, resultJson]]);
  }

  send(): void {
    for (const [conn, list] of this.byConn) {
      for (const [sub, text] of list) deliver(sub, text);
      conn.flush();
    }
    this.byConn.clear();
  }
}

/** `{"context":{"slot":…},"value":…}`, the shape of every notification that carries a context. */
export const withSlot = (slot: number, valueJson: string): string => `{"context":{"slot":${slot}},"value":${valueJson}}`;

/** Result texts of one event, made at most once per key (a subscription's encoding settings). */
export class SharedResults {
  private readonly cache = new Map<string, string | null>();

  /** `make` returns the result text, or null when this key yields no notification. */
  get(key: string, make: () => string | null): string | null {
    let text = this.cache.get(key);
    if (text === undefined) {
      text = make();
      this.cache.set(key, text);
    }
    return text;
  }
}
