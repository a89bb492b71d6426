/**
 * Bank forks (Agave's bank_forks.rs): the banks still in memory, from the root through the sealed,
 * unrooted ones to the working bank, and the reads at a commitment: `processed` is the working
 * bank, `confirmed` the newest sealed and stored one, `finalized` the root. Rooting folds a bank's
 * changes into the shared AccountsDb. Also which slots have a block (the SlotHistory sysvar).
 */
import type { Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import { loadMessageAddresses, type LoadedAddresses } from '../runtime/address-loader.ts';
import { renderSysvar, SLOT_HISTORY_MAX_ENTRIES, SYSVAR_IDS } from '../runtime/sysvars.ts';
import type { Message } from '../runtime/wire.ts';
import { UnrootedChanges, type AccountsDb, type Bank } from './bank.ts';
import { MAX_PROCESSING_AGE, type BlockhashQueue } from './blockhash-queue.ts';
import type { Commitment } from './commitment.ts';
import type { BlockSlotRing } from './slot-history.ts';

export class BankForks {
  private readonly banks = new Map<number, Bank>();
  private workingBank!: Bank;
  private confirmedBank!: Bank;
  private rootBank!: Bank;
  /** What the unrooted banks changed: the banks of these forks are made with it (Bank.get reads it). */
  readonly unrooted = new UnrootedChanges();
  constructor(
    readonly accounts: AccountsDb,
    private readonly blockhashes: BlockhashQueue,
    /** Which slots have a block, for the SlotHistory sysvar. */
    readonly blockSlots: BlockSlotRing,
  ) {}

  /** The bank the chain (re)starts from: everything stored is final, so it is confirmed and the root. */
  openAt(last: Bank): void {
    this.banks.set(last.slot, last);
    this.confirmedBank = last;
    this.rootBank = last;
  }

  get working(): Bank {
    return this.workingBank;
  }
  get confirmed(): Bank {
    return this.confirmedBank;
  }
  get root(): Bank {
    return this.rootBank;
  }

  /** The new working bank (its slot is already in `blockSlots`). */
  insertWorking(bank: Bank): void {
    this.workingBank = bank;
    this.banks.set(bank.slot, bank);
  }

  /** A bank's commit is durable: it is the confirmed bank now. */
  confirm(bank: Bank): void {
    this.confirmedBank = bank;
  }

  /**
   * Roots the sealed banks after the root and below `slot` whose block height is at most
   * `rootHeight`, oldest first; returns them.
   */
  rootUpTo(slot: number, rootHeight: number): Bank[] {
    const rooted: Bank[] = [];
    for (let s = this.rootBank.slot + 1; s < slot; s++) {
      const b = this.banks.get(s);
      if (!b) continue;
      if (b.blockHeight > rootHeight) break;
      for (const [k, a] of b.changes) (a ? this.accounts.set(k, a) : this.accounts.delete(k));
      this.unrooted.folded(b.changes.keys());
      // Its changes stay readable (they now equal the folded state); cutting the parent link keeps
      // older, superseded roots out of every read path.
      b.parent = null;
      this.rootBank.leftForks();
      this.banks.delete(this.rootBank.slot);
      this.rootBank = b;
      rooted.push(b);
    }
    return rooted;
  }

  /** The chain is rebuilt from the store (a revert or reset): these banks are no longer its forks. */
  dropAll(): void {
    for (const bank of this.banks.values()) bank.leftForks();
  }

  /** The sealed banks above the root whose commits are in the store, oldest first. */
  committedAboveRoot(): Bank[] {
    return [...this.banks.values()].filter((b) => b.slot > this.rootBank.slot && b.slot <= this.confirmedBank.slot).sort((a, b) => a.slot - b.slot);
  }

  /**
   * Writes an account before the clock starts, readable at every commitment at once; returns the
   * lamports it adds (removes, when negative), by which every bank's supply has moved too.
   */
  writeAtStart(address: Address, account: Account): number {
    const delta = account.lamports - (this.workingBank.get(address)?.lamports ?? 0);
    // The accounts read the same at every commitment, so the sealed banks' supply follows too.
    for (const bank of this.banks.values()) bank.capitalization += delta;
    if (account.lamports === 0) this.accounts.delete(address);
    else this.accounts.set(address, account);
    this.workingBank.set(address, account);
    return delta;
  }

  // ---- reads ----

  bankAt(commitment: Commitment): Bank {
    return commitment === 'processed' ? this.workingBank : commitment === 'confirmed' ? this.confirmedBank : this.rootBank;
  }

  /** A bank still in memory (the working bank, unrooted ones or the root). */
  bank(slot: number): Bank | undefined {
    return this.banks.get(slot);
  }

  /** An account at the commitment, sysvars included; null when it does not exist. */
  getAccount(address: Address, commitment: Commitment): Account | null {
    const bank = this.bankAt(commitment);
    return bank.get(address) ?? (SYSVAR_IDS.has(address) ? renderSysvar(address, bank.sysvars) : null);
  }

  /**
   * Confirmed blocks at or above `slot` (0 when it is only processed), for a slot still in memory;
   * undefined once it is rooted and forgotten.
   */
  confirmationsOf(slot: number): number | undefined {
    const bank = this.banks.get(slot);
    if (!bank) return undefined;
    return slot <= this.confirmedBank.slot ? this.confirmedBank.blockHeight - bank.blockHeight + 1 : 0;
  }

  /** The signature of the validator's vote on `slot` (the first transaction of the next bank), if it landed. */
  voteSignature(slot: number): string | undefined {
    for (const next of this.banks.values()) {
      if (next.parentSlot === slot && next.slot !== slot) return next.voteTransactions > 0 ? next.transactions[0]?.signature : undefined;
    }
    return undefined;
  }

  /** The SlotHistory of the bank at the commitment: the slots it covers, and which of them have a block. */
  slotHistoryAt(commitment: Commitment): { oldest: number; newest: number; hasBlock: (slot: number) => boolean } {
    const newest = this.bankAt(commitment).slot;
    const oldest = Math.max(0, newest + 1 - SLOT_HISTORY_MAX_ENTRIES);
    return { oldest, newest, hasBlock: (slot) => slot >= oldest && slot <= newest && this.blockSlots.hasBlock(slot) };
  }

  /** The newest blockhash a bank at the commitment knows, with the last block height it stays valid at. */
  latestBlockhash(commitment: Commitment): { blockhash: string; slot: number; lastValidBlockHeight: number; lamportsPerSignature: number } {
    const bank = this.bankAt(commitment);
    const e = bank.blockhash ? this.blockhashes.get(bank.blockhash)! : this.blockhashes.latestAt(bank.slot)!;
    return { blockhash: e.blockhash, slot: e.slot, lastValidBlockHeight: e.blockHeight + MAX_PROCESSING_AGE, lamportsPerSignature: e.lamportsPerSignature };
  }

  /**
   * The addresses a v0 message's lookups load at the bank at `commitment` (what Agave's RPC resolves
   * when it sanitizes a submitted transaction); throws TransactionError for a bad table or index.
   */
  loadAddresses(message: Message, commitment: Commitment): LoadedAddresses {
    const bank = this.bankAt(commitment);
    return loadMessageAddresses(message, (a) => this.getAccount(a, commitment), bank.sysvars);
  }

  /** Whether a blockhash can still be used at the commitment's bank. */
  isBlockhashValid(blockhash: string, commitment: Commitment): boolean {
    const bank = this.bankAt(commitment);
    return this.blockhashes.isValid(blockhash, bank.slot, bank.blockHeight);
  }
}
