/**
 * The slot clock (the timing side of Agave's PoH recorder): it ends the working bank every `slotMs`,
 * catches up after a stall by skipping ahead instead of sealing a burst, and lets the slots led by
 * others pass on the clock.
 */

/** Ends the working bank; resolves with the slot it sealed and the slot of the new working bank. */
export type EndSlot = () => Promise<{ sealed: number; working: number }>;

export class SlotClock {
  private timer: NodeJS.Timeout | null = null;
  private nextSlotAt = 0;
  private stopped = false;
  private pausedNow = false;
  /** A slot is ending (endSlot has not resolved): its callback schedules the next one. */
  private ending = false;
  /** Counts starts, so an end of slot still in flight from before a stop does not schedule twice. */
  private runs = 0;

  constructor(
    private readonly slotMs: number,
    private readonly endSlot: EndSlot,
    /** Called when ending a slot threw: the clock has stopped. */
    private readonly onFailure: (error: unknown) => void = () => {},
  ) {}

  start(): void {
    this.stopped = false;
    this.runs++;
    if (this.timer) clearTimeout(this.timer);
    this.nextSlotAt = Date.now() + this.slotMs;
    this.ending = false;
    if (!this.pausedNow) this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  get paused(): boolean {
    return this.pausedNow;
  }

  /** No slot ends until resume (a slot ending right now still ends). */
  pause(): void {
    this.pausedNow = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The working bank ends one slot time from now, and the clock runs on from there. */
  resume(): void {
    if (!this.pausedNow) return;
    this.pausedNow = false;
    if (this.stopped) return;
    this.nextSlotAt = Date.now() + this.slotMs;
    if (!this.ending) this.schedule();
  }

  private schedule(): void {
    const run = this.runs;
    const delay = Math.max(0, this.nextSlotAt - Date.now());
    this.timer = setTimeout(() => {
      this.nextSlotAt += this.slotMs;
      // A stalled event loop (debugger, suspended laptop) skips ahead instead of sealing a burst of slots.
      if (this.nextSlotAt < Date.now()) this.nextSlotAt = Date.now() + this.slotMs;
      this.ending = true;
      void this.endSlot().then(
        ({ sealed, working }) => {
          // An end still in flight from before a stop and start: the new run schedules itself.
          if (run !== this.runs) return;
          this.ending = false;
          // Slots led by others pass on the clock without a block: the new working bank ends later.
          this.nextSlotAt += (working - sealed - 1) * this.slotMs;
          if (!this.stopped && !this.pausedNow) this.schedule();
        },
        (e: unknown) => {
          this.ending = false;
          this.stop();
          this.onFailure(e);
        },
      );
    }, delay);
  }
}
