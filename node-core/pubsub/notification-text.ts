/**
 * Notification texts. A `result` is serialized once and spliced into each subscriber's message, so
 * many subscriptions sharing an event (and an encoding) cost one JSON.stringify.
 */
import type { Subscription } from './subscriptions.ts';

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

/** `{"jsonrpc":"2.0","method":…,"params":{"result":<resultJson>,"subscription":id}}`. */
export const notificationText = (sub: Subscription, resultJson: string): string =>
  `{"jsonrpc":"2.0","method":"${METHODS[sub.kind]}","params":{"result":${resultJson},"subscription":${sub.id}}}`;

/** Sends `sub` its notification of `resultJson`. */
export function deliver(sub: Subscription, resultJson: string): void {
  sub.conn.send(notificationText(sub, resultJson));
}

/** `{"context":{"slot":…},"value":…}`, the shape of every notification that carries a context. */
export const withSlot = (slot: number, valueJson: string): string => `{"context":{"slot":${slot}},"value":${valueJson}}`;

/**
 * Result texts of one event, made at most once per key (a subscription's encoding settings). The
 * first key's text is held in fields: most accounts have one subscriber, and a Map each would be
 * allocated per account per slot.
 */
export class SharedResults {
  private firstKey: string | undefined;
  private firstText: string | null = null;
  private more: Map<string, string | null> | undefined;

  /** `make` returns the result text, or null when this key yields no notification. */
  get(key: string, make: () => string | null): string | null {
    if (key === this.firstKey) return this.firstText;
    if (this.firstKey === undefined) {
      this.firstKey = key;
      return (this.firstText = make());
    }
    this.more ??= new Map();
    let text = this.more.get(key);
    if (text === undefined) {
      text = make();
      this.more.set(key, text);
    }
    return text;
  }
}
