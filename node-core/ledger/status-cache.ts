/**
 * The status cache (Agave's status_cache.rs): the outcome of each transaction of the newest slots by
 * signature. It refuses a duplicate (AlreadyProcessed) and answers getSignatureStatuses; a slot's
 * signatures are forgotten once no blockhash of that slot can be used any more.
 */
import type { TransactionErrorValue } from '../runtime/errors.ts';
import { MAX_RECENT_BLOCKHASHES } from './blockhash-queue.ts';

export interface SignatureStatus {
  slot: number;
  index: number;
  err: TransactionErrorValue | null;
}

export class StatusCache {
  private readonly bySignature = new Map<string, SignatureStatus>();
  /** The signatures of each slot, oldest slot first. */
  private readonly bySlot: Array<[number, string[]]> = [];

  has(signature: string): boolean {
    return this.bySignature.has(signature);
  }

  get(signature: string): SignatureStatus | undefined {
    return this.bySignature.get(signature);
  }

  /** Statuses arrive in slot order (a bank's transactions, then the next bank's). */
  insert(signature: string, status: SignatureStatus): void {
    this.bySignature.set(signature, status);
    const last = this.bySlot[this.bySlot.length - 1];
    if (last && last[0] === status.slot) last[1].push(signature);
    else this.bySlot.push([status.slot, [signature]]);
  }

  /** Forgets the slots older than a bank at `currentSlot` can still see a blockhash of. */
  purgeOldSlots(currentSlot: number): void {
    while (this.bySlot.length && this.bySlot[0]![0] < currentSlot - MAX_RECENT_BLOCKHASHES) {
      for (const sig of this.bySlot.shift()![1]) this.bySignature.delete(sig);
    }
  }
}
