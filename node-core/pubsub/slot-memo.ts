/**
 * What the confirmed and finalized notifications need of a slot that its Bank no longer tells:
 * accounts closed in the slot as they were written (a Bank keeps only `null` for them, but program
 * subscribers are told of the zero-lamport account under its owner, as Agave does), and the parent's
 * blockhash (for blockNotification's previousBlockhash). Kept from processing until the slot is rooted.
 */
import type { Address } from '../common/pubkey.ts';
import type { Bank } from '../ledger/bank.ts';
import type { Chain } from '../ledger/chain.ts';
import type { Account } from '../runtime/account.ts';

export class SlotMemo {
  private readonly closed = new Map<number, Map<Address, Account>>();
  private readonly previousBlockhashes = new Map<number, string>();

  constructor(private readonly chain: Chain) {}

  onTransaction(slot: number, writes: ReadonlyArray<[Address, Account]>): void {
    for (const [address, account] of writes) {
      if (account.lamports !== 0) continue;
      let m = this.closed.get(slot);
      if (!m) this.closed.set(slot, (m = new Map()));
      m.set(address, account);
    }
  }

  onSealed(bank: Bank): void {
    const parent = this.chain.bank(bank.parentSlot);
    if (parent?.blockhash) this.previousBlockhashes.set(bank.slot, parent.blockhash);
  }

  /** The zero-lamport account as last written in the slot. */
  closedAccount(slot: number, address: Address): Account | undefined {
    return this.closed.get(slot)?.get(address);
  }

  previousBlockhash(bank: Bank): string {
    return this.previousBlockhashes.get(bank.slot) ?? this.chain.bank(bank.parentSlot)?.blockhash ?? bank.blockhash!;
  }

  /** Drops everything of slots after `slot` (a revert discarded them). */
  forgetAfter(slot: number): void {
    for (const s of this.closed.keys()) if (s > slot) this.closed.delete(s);
    for (const s of this.previousBlockhashes.keys()) if (s > slot) this.previousBlockhashes.delete(s);
  }

  /** Drops everything of slots up to `slot` (called once they are rooted and notified). */
  forgetThrough(slot: number): void {
    for (const s of this.closed.keys()) if (s <= slot) this.closed.delete(s);
    for (const s of this.previousBlockhashes.keys()) if (s <= slot) this.previousBlockhashes.delete(s);
  }
}
