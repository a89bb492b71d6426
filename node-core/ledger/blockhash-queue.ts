/** Recent blockhashes with their block heights: what makes a transaction's blockhash valid or expired. */

/** A transaction's blockhash may be at most this many blocks old. */
export const MAX_PROCESSING_AGE = 150;
/** Blockhashes kept for lookups (getFeeCalculatorForBlockhash, isBlockhashValid). */
export const MAX_RECENT_BLOCKHASHES = 300;
/**
 * Entries kept in all: the slot hashes sysvar holds the newest 512 slots (slot_hashes::MAX_ENTRIES),
 * which the address lookup table program's recent-slot and deactivation rules read.
 */
export const BLOCKHASH_QUEUE_ENTRIES = 512;

export interface BlockhashEntry {
  blockhash: string;
  slot: number;
  blockHeight: number;
  lamportsPerSignature: number;
}

export class BlockhashQueue {
  private readonly entries: BlockhashEntry[] = [];
  private readonly byHash = new Map<string, BlockhashEntry>();

  push(entry: BlockhashEntry): void {
    this.entries.push(entry);
    this.byHash.set(entry.blockhash, entry);
    // Only the newest MAX_RECENT_BLOCKHASHES stay findable by hash; older entries serve the slot hashes.
    const leaving = this.entries[this.entries.length - 1 - MAX_RECENT_BLOCKHASHES];
    if (leaving) this.byHash.delete(leaving.blockhash);
    while (this.entries.length > BLOCKHASH_QUEUE_ENTRIES) this.entries.shift();
  }

  get(blockhash: string): BlockhashEntry | undefined {
    return this.byHash.get(blockhash);
  }

  /** The newest entry at or below `slot`. */
  latestAt(slot: number): BlockhashEntry | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i]!.slot <= slot) return this.entries[i];
    return undefined;
  }

  /** Entries at or below `slot`, newest first, at most `limit`. */
  recent(slot: number, limit: number): BlockhashEntry[] {
    const out: BlockhashEntry[] = [];
    for (let i = this.entries.length - 1; i >= 0 && out.length < limit; i--) if (this.entries[i]!.slot <= slot) out.push(this.entries[i]!);
    return out;
  }

  /** Whether `blockhash` is usable by a transaction processed at block height `height` seen from `slot`. */
  isValid(blockhash: string, slot: number, height: number): boolean {
    const e = this.byHash.get(blockhash);
    return !!e && e.slot <= slot && height - e.blockHeight <= MAX_PROCESSING_AGE;
  }
}
