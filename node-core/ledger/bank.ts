/**
 * A bank is one slot's view of the accounts: the changes made in that slot over its parent's view.
 * Rooted banks are folded into the shared AccountsDb, so a read walks at most the unrooted banks
 * (the root depth, 32 by default) before it reaches the rooted map.
 */
import type { Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import type { Sysvars } from '../runtime/sysvars.ts';
import type { Reward, StoredTransaction } from '../store/store.ts';

export type AccountsDb = Map<Address, Account>;

/**
 * The addresses some unrooted bank has changed, each with how many such banks changed it. A read of
 * any other address goes straight to the rooted map: without it, a read of an address no unrooted
 * bank has touched (a new recipient, a program, a sysvar) missed in every bank's map down to the
 * root (up to 32 maps of a thousand entries each under load, cache misses all).
 */
export class UnrootedChanges<K extends string = Address> {
  private readonly counts = new Map<K, number>();

  has(address: K): boolean {
    return this.counts.has(address);
  }

  /** A bank changed `address` for the first time. */
  added(address: K): void {
    this.counts.set(address, (this.counts.get(address) ?? 0) + 1);
  }

  /** A bank was rooted (its changes folded into the rooted map): they no longer count. */
  folded(changes: Iterable<K>): void {
    for (const address of changes) {
      const n = this.counts.get(address);
      if (n === undefined) continue;
      if (n <= 1) this.counts.delete(address);
      else this.counts.set(address, n - 1);
    }
  }

  get size(): number {
    return this.counts.size;
  }
}

export class Bank {
  /** Accounts changed in this slot; null marks an account closed to zero lamports. */
  readonly changes = new Map<Address, Account | null>();
  readonly transactions: StoredTransaction[] = [];
  readonly rewards: Reward[] = [];
  /** Per-bank state of chain extensions (the EVM space's layer), by extension name. */
  readonly extensions = new Map<string, unknown>();
  /** Set when the slot is sealed. */
  blockhash: string | null = null;
  blockTime = 0;
  feesCollected = 0;
  signatureCount = 0;
  /** The supply once this bank is sealed (its fees burned, its epoch's rewards minted). */
  capitalization = 0;
  /** The chain's burned and minted totals once this bank is sealed (capitalization + burned = genesis + minted). */
  burnedTotal = 0;
  mintedTotal = 0;
  /** The validator's own vote transactions among `transactions`. */
  voteTransactions = 0;
  /** Blocks below this one (slots led by other validators have none, so it can trail the slot). */
  blockHeight = 0;

  constructor(
    readonly slot: number,
    readonly parentSlot: number,
    /** The parent bank, or null once the parent is rooted (reads then go to the AccountsDb). */
    public parent: Bank | null,
    private readonly rooted: AccountsDb,
    readonly sysvars: Sysvars,
    /** The chain's index of what unrooted banks changed (BankForks keeps it); absent, every read walks the banks. */
    private unrooted?: UnrootedChanges,
  ) {}

  /**
   * The bank left the forks (a newer root replaced it, or a revert dropped it): its reads walk the
   * banks again, as a bank's reads did before the index, since the index no longer describes its view.
   */
  leftForks(): void {
    this.unrooted = undefined;
  }

  get(address: Address): Account | null {
    if (this.unrooted && !this.unrooted.has(address)) return this.rooted.get(address) ?? null;
    for (let bank: Bank | null = this; bank; bank = bank.parent) {
      if (bank.changes.size === 0) continue;
      const a = bank.changes.get(address);
      if (a !== undefined) return a;
    }
    return this.rooted.get(address) ?? null;
  }

  set(address: Address, account: Account): void {
    if (this.unrooted && !this.changes.has(address)) this.unrooted.added(address);
    this.changes.set(address, account.lamports === 0 ? null : account);
  }

  /** Every live account in this bank's view (rooted map overlaid with the unrooted changes). */
  *entries(): Iterable<[Address, Account]> {
    const chain: Bank[] = [];
    for (let bank: Bank | null = this; bank; bank = bank.parent) chain.push(bank);
    const seen = new Set<Address>();
    for (const bank of chain) {
      for (const [k, a] of bank.changes) {
        if (seen.has(k)) continue;
        seen.add(k);
        if (a) yield [k, a];
      }
    }
    for (const entry of this.rooted) if (!seen.has(entry[0])) yield entry;
  }
}
