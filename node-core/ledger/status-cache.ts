/**
 * The status cache (Agave's status_cache.rs): the outcome of each transaction of the newest slots by
 * signature. It refuses a duplicate (AlreadyProcessed) and answers getSignatureStatuses; a slot's
 * signatures are forgotten once no blockhash of that slot can be used any more.
 *
 * It holds every signature of ~150 slots (tens of thousands under load), each as one number (its slot
 * and index in the block) rather than an object: the error of a failed transaction is kept beside it.
 */
import type { TransactionErrorValue } from '../runtime/errors.ts';
import { MAX_RECENT_BLOCKHASHES } from './blockhash-queue.ts';

export interface SignatureStatus {
  slot: number;
  index: number;
  err: TransactionErrorValue | null;
}

/** A status's number: slot × INDEX_RANGE + index (exact below 2^53 for any slot below 2^33). */
const INDEX_RANGE = 2 ** 20;

export class StatusCache {
  private readonly bySignature = new Map<string, number>();
  /** The errors of the failed transactions among them. */
  private readonly errors = new Map<string, TransactionErrorValue>();
  /** Statuses whose index does not fit the number (a block of a million transactions or more). */
  private readonly large = new Map<string, SignatureStatus>();
  /** The signatures of each slot, oldest slot first. */
  private readonly bySlot: Array<[number, string[]]> = [];

  has(signature: string): boolean {
    return this.bySignature.has(signature) || (this.large.size > 0 && this.large.has(signature));
  }

  get(signature: string): SignatureStatus | undefined {
    const n = this.bySignature.get(signature);
    if (n === undefined) return this.large.size > 0 ? this.large.get(signature) : undefined;
    const slot = Math.floor(n / INDEX_RANGE);
    return { slot, index: n - slot * INDEX_RANGE, err: (this.errors.size > 0 && this.errors.get(signature)) || null };
  }

  /** Statuses arrive in slot order (a bank's transactions, then the next bank's). */
  insert(signature: string, status: SignatureStatus): void {
    if (status.index < INDEX_RANGE) {
      this.bySignature.set(signature, status.slot * INDEX_RANGE + status.index);
      if (status.err !== null) this.errors.set(signature, status.err);
      else if (this.errors.size > 0) this.errors.delete(signature);
    } else {
      this.bySignature.delete(signature);
      this.large.set(signature, { ...status });
    }
    const last = this.bySlot[this.bySlot.length - 1];
    if (last && last[0] === status.slot) last[1].push(signature);
    else this.bySlot.push([status.slot, [signature]]);
  }

  /** Forgets the slots older than a bank at `currentSlot` can still see a blockhash of. */
  purgeOldSlots(currentSlot: number): void {
    while (this.bySlot.length && this.bySlot[0]![0] < currentSlot - MAX_RECENT_BLOCKHASHES) {
      for (const sig of this.bySlot.shift()![1]) this.forget(sig);
    }
  }

  private forget(signature: string): void {
    this.bySignature.delete(signature);
    if (this.errors.size > 0) this.errors.delete(signature);
    if (this.large.size > 0) this.large.delete(signature);
  }
}
