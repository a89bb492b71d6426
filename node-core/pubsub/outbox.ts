/**
 * The connections that hold messages back until they are sent together: one socket write per
 * connection for all the notifications one chain event gives it. They are sent when the
 * event's notifications are all queued (the notifier calls `flush` as each handler ends), and in any
 * case in a microtask, for the answers to requests.
 *
 * Flushing as the handler ends rather than in that microtask matters: the chain event is emitted in the
 * middle of the chain's own synchronous work (after a slot's notifications the chain votes; after a
 * confirmed bank it roots the banks below it), and a microtask waits until all of it has run.
 */
export interface Held {
  /** Sends what the connection held back. */
  flush(): void;
}

export class Outbox {
  private held: Held[] = [];
  private scheduled = false;

  /** `c` holds messages back from now until the next flush. */
  hold(c: Held): void {
    this.held.push(c);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(this.flush);
  }

  /** Sends everything held back, in the order the connections began holding. */
  readonly flush = (): void => {
    this.scheduled = false;
    if (this.held.length === 0) return;
    const held = this.held;
    this.held = [];
    for (const c of held) c.flush();
  };
}
