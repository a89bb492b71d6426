/**
 * The current slot as the status bar shows it, from two sources: slotSubscribe's pushes and the
 * once-a-second poll. Each source alone is ordered (pushes arrive in order on one socket; a poll is
 * asked only after the previous one answered), so a slot lower than that source's previous one means
 * the chain went back: a revert (isthmus_revert, evm_revert) by this explorer or any other client.
 * Then the slot shown goes back too, and `rewinds` counts it so pages reload what they show.
 *
 * One revert is usually seen by both sources; counting the larger of their two counts makes it one
 * rewind, not two. A poll asked before a rewind was seen answers a slot from before it: it is ignored.
 */
export class SlotFollower {
  slot: number | null = null;
  private lastPushed: number | null = null;
  private lastPolled: number | null = null;
  private pushedRewinds = 0;
  private polledRewinds = 0;

  /** Rewinds seen so far. */
  get rewinds(): number {
    return Math.max(this.pushedRewinds, this.polledRewinds);
  }

  /** A slotSubscribe push. */
  pushed(slot: number): void {
    const back = this.lastPushed !== null && slot < this.lastPushed;
    this.lastPushed = slot;
    if (back) this.pushedRewinds++;
    this.follow(slot, back);
  }

  /** A poll's answer; `askedAt` is `rewinds` when the poll was asked. */
  polled(slot: number, askedAt: number): void {
    if (askedAt !== this.rewinds) return;
    const back = this.lastPolled !== null && slot < this.lastPolled;
    this.lastPolled = slot;
    if (back) this.polledRewinds++;
    this.follow(slot, back);
  }

  private follow(slot: number, back: boolean): void {
    if (back || this.slot === null || slot > this.slot) this.slot = slot;
  }
}
