/**
 * The one storage interface of the node. Each sealed slot is written by one atomic `commitSlot`;
 * everything else reads history. The durable backend is LMDB (lmdb-store.ts); a browser backend
 * on IndexedDB can implement the same interface, which is why every call returns a promise.
 */
import type { Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import type { TransactionErrorValue } from '../runtime/errors.ts';

export type RewardType = 'Fee' | 'Rent' | 'Staking' | 'Voting';

export interface Reward {
  pubkey: Address;
  lamports: number;
  postBalance: number;
  rewardType: RewardType;
  commission: number | null;
}

export interface TransactionStatusMeta {
  err: TransactionErrorValue | null;
  fee: number;
  preBalances: number[];
  postBalances: number[];
  logMessages: string[] | null;
  computeUnitsConsumed: number;
  /** Token balances come with the token program; empty until then. */
  preTokenBalances: unknown[];
  postTokenBalances: unknown[];
  innerInstructions: unknown[];
  loadedAddresses: { writable: Address[]; readonly: Address[] };
  /** The program's return data when the transaction ended with some (sol_set_return_data). */
  returnData?: { programId: Address; data: Uint8Array };
}

export interface StoredTransaction {
  signature: string;
  /** The transaction exactly as received on the wire. */
  wire: Uint8Array;
  meta: TransactionStatusMeta;
  /** Every account key the transaction loaded, static then looked-up (for the address index). */
  accountKeys: Address[];
  /** `[len] text` memos joined by "; ", as getSignaturesForAddress reports them; null when none. */
  memo: string | null;
}

export interface BlockHeader {
  slot: number;
  parentSlot: number;
  blockhash: string;
  previousBlockhash: string;
  blockTime: number;
  blockHeight: number;
  transactionCount: number;
  rewards: Reward[];
}

export interface StoredBlock extends BlockHeader {
  transactions: StoredTransaction[];
}

/** A transaction's signature, its position in its block, and how it ended. */
export type TransactionStatusEntry = [signature: string, index: number, err: TransactionErrorValue | null];

/** A stored block's header, with the statuses of its transactions in block order when they were asked for (else null). */
export interface BlockStatuses {
  header: BlockHeader;
  statuses: TransactionStatusEntry[] | null;
}

/** Chain-wide counters kept with every slot, so a restart resumes exactly where the store left off. */
export interface ChainMeta {
  slot: number;
  blockhash: string;
  blockTime: number;
  transactionCount: number;
  lamportsPerSignature: number;
  totalSupply: number;
  burned: number;
  /** Lamports created by inflation rewards (absent in ledgers made before them: 0). */
  minted?: number;
  /** Lamports added, less those removed, by accounts written directly: at start over an existing ledger (--account, --bpf-program) and by chain-control edits (anvil_setBalance, surfnet_setAccount; absent: 0). */
  adjusted?: number;
  /** The newest block's height (absent in ledgers made before slots could be skipped: the slot). */
  blockHeight?: number;
  /** The stakes each kept epoch's leader schedule is drawn from (absent in older ledgers). */
  epochStakes?: Array<[number, Array<[string, number]>]>;
  /** Opaque state of extensions (e.g. the EVM's latest block), keyed by extension name. */
  extensions: Record<string, unknown>;
}

/** Key of an extension's record: a string, a number, or a tuple of them (ordered element by element). */
export type ExtraKey = string | number | ReadonlyArray<string | number>;

/** Forward: keys in [start, end), lowest first. Reverse: keys in (end, start], highest first (as lmdb-js). */
export interface ExtraRange {
  start?: ExtraKey;
  end?: ExtraKey;
  reverse?: boolean;
  limit?: number;
}

export interface SlotCommit {
  block: StoredBlock;
  /** Accounts changed in the slot; null removes the account (it was closed to zero lamports). */
  accounts: Array<[Address, Account | null]>;
  meta: ChainMeta;
  /** Extra records of extensions, written in the same atomic commit: table name, key, value (null deletes). */
  extras?: Array<{ table: string; key: ExtraKey; value: unknown }>;
}

export interface AddressSignature {
  signature: string;
  slot: number;
  /** Position of the transaction in its block. */
  index: number;
  err: TransactionErrorValue | null;
  memo: string | null;
  blockTime: number | null;
}

export interface SignatureQuery {
  /** Start strictly below this (slot, index), newest first. */
  before?: { slot: number; index: number };
  /** Stop when reaching this (slot, index), exclusive. */
  until?: { slot: number; index: number };
  limit: number;
  /** Only entries at or below this slot (the commitment's bank). */
  maxSlot: number;
  /** Only entries at or above this slot (getConfirmedSignaturesForAddress's range). */
  minSlot?: number;
}

export interface TransactionLocation {
  slot: number;
  index: number;
  blockTime: number;
  transaction: StoredTransaction;
}

/**
 * What the store keeps for snapshots (ledger/snapshots.ts): while `undoFrom` is a slot, every commit of
 * a later slot first records the values it overwrites, so `revertTo` can put them back newest first.
 * `registry` is the snapshot list, opaque to the store.
 */
export interface SnapshotBook {
  undoFrom: number | null;
  registry: unknown;
}

/** What a revert put back: the values as they stood at the slot reverted to (null: absent). */
export interface RevertedRecords {
  meta: ChainMeta;
  accounts: Array<[Address, Account | null]>;
  extras: Array<{ table: string; key: ExtraKey; value: unknown }>;
  /** Slots whose blocks were discarded, ascending. */
  discardedSlots: number[];
}

export interface Store {
  /** The genesis record, written once per ledger. */
  readGenesis(): Promise<unknown | null>;
  writeGenesis(genesis: unknown): Promise<void>;
  readMeta(): Promise<ChainMeta | null>;
  /** Every stored account (used once at start to build the in-memory bank). */
  loadAccounts(): AsyncIterable<[Address, Account]> | Iterable<[Address, Account]>;
  /** One atomic write: the block, its transactions and statuses, the address index, account changes, meta. */
  commitSlot(commit: SlotCommit): Promise<void>;
  getBlock(slot: number): Promise<StoredBlock | null>;
  getBlockHeader(slot: number): Promise<BlockHeader | null>;
  /** Slots with a stored block in [start, end], ascending, at most `limit`. */
  getBlockSlots(start: number, end: number, limit: number): Promise<number[]>;
  /**
   * The stored blocks in [start, end], ascending: each one's header as getBlockHeader gives it, and for
   * those at or above `statusesFrom` the signature, index and error of each of its transactions as
   * getBlock gives them, without building the transactions (no wire parsed, no compact vote rebuilt):
   * the chain's blockhash queue and status cache, at start and after a revert.
   */
  getBlockStatuses(start: number, end: number, statusesFrom: number): Promise<BlockStatuses[]>;
  getTransaction(signature: string): Promise<TransactionLocation | null>;
  /** Where a signature sits, without reading the transaction. */
  getSignatureLocation(signature: string): Promise<{ slot: number; index: number; err: TransactionErrorValue | null } | null>;
  getSignaturesForAddress(address: Address, query: SignatureQuery): Promise<AddressSignature[]>;
  /** An extension's record as written; byte strings in it come back as plain Uint8Arrays (never a backend's Buffer). */
  getExtra(table: string, key: ExtraKey): Promise<unknown | null>;
  /** An extension's records in key order, within `range` (keys of one type per table), read back as getExtra's. */
  scanExtras(table: string, range?: ExtraRange): Iterable<[ExtraKey, unknown]> | AsyncIterable<[ExtraKey, unknown]>;
  /** Lowest slot with a stored block, or null when there is none. */
  firstAvailableSlot(): Promise<number | null>;
  /** Removes blocks, transactions and index entries of slots below `slot`. */
  purgeSlotsBelow(slot: number): Promise<void>;
  /** The snapshot book, or null when none was written. */
  readSnapshots(): Promise<SnapshotBook | null>;
  /** Writes the book; undo records at or below its `undoFrom` (all of them when null) are dropped. */
  writeSnapshots(book: SnapshotBook): Promise<void>;
  /**
   * One atomic write: every slot above `slot` undone (accounts, extras and meta as they stood at
   * `slot`; blocks, transactions, statuses and index entries deleted; their undo records dropped)
   * and `book` written. `slot` must be at or above the book's `undoFrom`, and a slot the book was
   * written at (a snapshot's): the LMDB store keeps each key's first undo record after the book was
   * last written, not after every slot.
   */
  revertTo(slot: number, book: SnapshotBook): Promise<RevertedRecords>;
  /**
   * One atomic write that makes the ledger new again (a chain reset): every record deleted (blocks,
   * transactions, statuses, index entries, accounts, extras, undo records), then `genesis` written as
   * the genesis record, `slot0` committed as the first slot, and `book` written. A kill at any instant
   * leaves either the ledger before or the new one.
   */
  resetToGenesis(genesis: unknown, slot0: SlotCommit, book: SnapshotBook): Promise<void>;
  /** Flushes pending writes to disk and closes. */
  close(): Promise<void>;
}
