/**
 * The supply's bookkeeping (Agave's capitalization): genesis supply + minted + adjusted = total + burned. Fees
 * burn, an epoch's inflation rewards mint, and accounts written directly (at start, or by a chain-control edit) move the total; each
 * sealed bank keeps the figures as they stood when it was sealed.
 */
import type { Bank } from './bank.ts';

export class Supply {
  constructor(
    public total: number,
    public burned: number,
    /** Lamports created by inflation rewards since genesis. */
    public minted: number,
    /** Lamports added (less those removed) by accounts written directly: at start over an existing ledger, and by the chain-control edits (anvil_setBalance, surfnet_setAccount, …). */
    public adjusted = 0,
  ) {}

  burn(lamports: number): void {
    this.burned += lamports;
    this.total -= lamports;
  }

  mint(lamports: number): void {
    this.total += lamports;
    this.minted += lamports;
  }

  /** Lamports added (or removed, when negative) by writing an account directly. */
  adjust(delta: number): void {
    this.total += delta;
    this.adjusted += delta;
  }

  /** Records the figures in a bank being sealed (Bank::capitalization and the burned and minted totals). */
  stamp(bank: Bank): void {
    bank.capitalization = this.total;
    bank.burnedTotal = this.burned;
    bank.mintedTotal = this.minted;
  }
}
