/**
 * Which slots have a block, for the SlotHistory sysvar: a bank at slot S sees the slots of the last
 * 2^20 (S included, as Agave adds a bank's own slot when it opens it) with a bit each.
 *
 * The chain keeps one ring of twice that many bits, so a bank a few blocks behind the newest can
 * still be shown as it saw the chain (the newer slots' bits do not overwrite its window).
 */
import { SLOT_HISTORY_MAX_ENTRIES, encodeSlotHistory } from '../runtime/sysvars.ts';

const RING_BITS = 2 * SLOT_HISTORY_MAX_ENTRIES;

export class BlockSlotRing {
  private readonly bits = new Uint8Array(RING_BITS / 8);
  /** One past the newest slot added. */
  private next = 0;
  get nextSlot(): number {
    return this.next;
  }
  private cached: { slot: number; data: Uint8Array } | null = null;

  /** Marks `slot` as having a block and the slots since the last one added as skipped. */
  add(slot: number): void {
    if (slot < this.next) throw new RangeError(`slot ${slot} added after slot ${this.next - 1}`);
    if (slot - this.next >= RING_BITS) this.bits.fill(0);
    else for (let s = this.next; s < slot; s++) this.clear(s % RING_BITS);
    const i = slot % RING_BITS;
    this.bits[i >>> 3]! |= 1 << (i & 7);
    this.next = slot + 1;
  }

  /** Forgets the slots after `slot` (a revert): the next slot added may be `slot + 1` again. */
  rewindTo(slot: number): void {
    if (slot >= this.next) return;
    for (let s = Math.max(slot + 1, this.next - RING_BITS); s < this.next; s++) this.clear(s % RING_BITS);
    this.next = slot + 1;
    this.cached = null;
  }

  /** Whether `slot` has a block; only slots among the newest 2^21 added are known. */
  hasBlock(slot: number): boolean {
    if (slot >= this.next || slot < this.next - RING_BITS) throw new RangeError(`slot ${slot} is outside the slot history`);
    const i = slot % RING_BITS;
    return (this.bits[i >>> 3]! & (1 << (i & 7))) !== 0;
  }

  /** The SlotHistory account data of the bank at `slot`, which must be within the newest 2^20 slots added. */
  sysvarDataAt(slot: number): Uint8Array {
    if (this.cached?.slot === slot) return this.cached.data;
    if (slot >= this.next || slot < this.next - SLOT_HISTORY_MAX_ENTRIES) throw new RangeError(`slot ${slot} is outside the slot history`);
    const view = new Uint8Array(SLOT_HISTORY_MAX_ENTRIES / 8);
    for (let s = Math.max(0, slot + 1 - SLOT_HISTORY_MAX_ENTRIES); s <= slot; s++) {
      if (this.hasBlock(s)) {
        const j = s % SLOT_HISTORY_MAX_ENTRIES;
        view[j >>> 3]! |= 1 << (j & 7);
      }
    }
    const data = encodeSlotHistory(view, slot + 1);
    this.cached = { slot, data };
    return data;
  }

  private clear(i: number): void {
    this.bits[i >>> 3]! &= ~(1 << (i & 7));
  }
}
