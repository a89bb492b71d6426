/** Recent blockhashes with their block heights: what makes a transaction's blockhash valid or expired. */

/** A transaction's blockhash may be at most this many blocks old. */
export const MAX_PROCESSING_AGE = 150;
/** Blockhashes kept for lookups (getFeeCalculatorForBlockhash, isBlockhashValid). */
export const MAX_RECENT_BLOCKHASHES = 300;

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
    while (this.entries.length > MAX_RECENT_BLOCKHASHES) this.byHash.delete(this.entries.shift()!.blockhash);
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
