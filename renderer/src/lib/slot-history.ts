/** The SlotHistory sysvar as jsonParsed gives it: one '1' (a block) or '0' per slot, slot s at s mod 2^20. */
export interface ParsedSlotHistory {
  nextSlot: number;
  bits: string;
}

/** The newest `n` slots the history covers, newest first, each with whether it has a block. */
export function newestSlots(h: ParsedSlotHistory, n: number): Array<{ slot: number; block: boolean }> {
  const out: Array<{ slot: number; block: boolean }> = [];
  for (let slot = h.nextSlot - 1; slot >= 0 && out.length < n && h.nextSlot - slot <= h.bits.length; slot--) {
    out.push({ slot, block: h.bits[slot % h.bits.length] === '1' });
  }
  return out;
}
