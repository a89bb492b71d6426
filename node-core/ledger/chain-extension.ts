/**
 * A chain extension keeps state of its own beside the accounts (the EVM space does): a layer per
 * bank over its parent's, records that go into each slot's atomic store commit, and counters kept in
 * the chain meta so a restart resumes where the store left off.
 */
import type { RevertedRecords, SlotCommit } from '../store/store.ts';
import type { Bank } from './bank.ts';
import type { GenesisAccount, GenesisConfig } from './genesis-config.ts';

/** What an extension adds to a new ledger's genesis record (hashed into the genesis hash). */
export interface ExtensionGenesisSection {
  /** The extension's name: its section of the genesis record is kept under it. */
  name: string;
  section: unknown;
  /** Native accounts the extension needs from genesis on (its program and state accounts). */
  accounts: GenesisAccount[];
}

/** What an extension writes into slot 0's commit, once the genesis hash is known. */
export interface ExtensionGenesisRecords {
  name: string;
  extras: NonNullable<SlotCommit['extras']>;
  /** Its counters after slot 0 (kept in ChainMeta.extensions under its name). */
  meta: unknown;
}

export interface ExtensionSeal {
  /** Records written in the slot's commit. */
  extras: NonNullable<SlotCommit['extras']>;
  /** The extension's counters after this slot (kept in ChainMeta.extensions under its name). */
  meta: unknown;
}

export interface ChainExtension {
  readonly name: string;
  /** A bank opened over `parent` (null for the first bank after a start): attach its layer. */
  openBank(bank: Bank, parent: Bank | null): void;
  /**
   * The records of a sealed bank. Runs in the store's commit queue, in slot order, so it may await
   * work of earlier slots (state roots); the bank no longer changes.
   */
  seal(bank: Bank): Promise<ExtensionSeal> | ExtensionSeal;
  /** The working bank's Clock time was set (chain control): follow it (the EVM block's timestamp). */
  retimed?(bank: Bank): void;
  /** The bank's commit is durable: it is now the confirmed bank. */
  committed?(bank: Bank): void;
  /** Banks that became rooted, oldest first (their parent links are already cut). */
  rooted?(banks: Bank[]): void;
  /**
   * The store was reverted to a snapshot's slot (ledger/snapshots.ts), before the chain reopens its
   * banks there: `banks` are the committed banks above the root being dropped (their changes were
   * in the store, and are undone there), `extras` the records the revert put back, `meta` the
   * extension's counters at that slot.
   */
  reverted?(r: { banks: Bank[]; extras: RevertedRecords['extras']; meta: unknown }): Promise<void> | void;
  /**
   * Its records of slot 0, as the ledger's creation wrote them (a chain reset writes them again):
   * made from the genesis record alone, never from what the store holds now.
   */
  genesisRecords?(genesis: GenesisConfig, genesisHash: string): Promise<ExtensionGenesisRecords>;
  /**
   * The store was reset to genesis (ledger/snapshots.ts), before the chain reopens its banks at slot
   * 0: everything the extension keeps in memory is read again from the store; `meta` is its counters
   * at slot 0.
   */
  resetToGenesis?(meta: unknown): Promise<void> | void;
}
