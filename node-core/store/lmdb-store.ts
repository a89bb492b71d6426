/**
 * The durable store on LMDB (lmdb-js). One environment, one named database per record kind, keys in
 * ordered-binary so `[slot, index]` range-scans in ledger order (the address index: lmdb-address-index.ts).
 *
 * Durability: lmdb-js defaults are kept (no noSync / noMetaSync / useWritemap / mapAsync). On
 * Linux and macOS that means overlappingSync. Commits use lmdb-js's own sync-write flags
 * (ABORTABLE | SYNCHRONOUS_COMMIT, plus NO_SYNC_FLUSH under overlappingSync, as its putSync does):
 * the transaction writes its pages and a meta page marked unflushed, releases the write lock, then
 * fsyncs and writes a flushed meta page before transactionSync returns (about 0.3 ms of the JS
 * thread on an SSD). LMDB is copy-on-write and only switches to a meta page after that page's data
 * is written, so a `kill -9` at any instant leaves exactly the last committed transaction, and a
 * resolved commitSlot has been fsynced: there is never a torn slot.
 */
import { asBinary, open, type Database, type RootDatabase } from 'lmdb';
import { tryDecodeBase58 } from '../common/base58.ts';
import type { Address } from '../common/pubkey.ts';
import type { Keypair } from '../keys/keypair.ts';
import type { Account } from '../runtime/account.ts';
import { SignatureIndex } from './lmdb-signature-index.ts';
import { DuplicateAddressIndex, KeyedAddressIndex, type AddressIndex, type KeyedAddressKey } from './lmdb-address-index.ts';
import {
  decodeAccount,
  decodeHeader,
  decodeTx,
  encodeAccount,
  encodeHeader,
  encodeTx,
  HEADER_BLOCK_TIME,
  HEADER_PREVIOUS_BLOCKHASH,
  HEADER_VOTE,
  headerBlockhash,
  plainBytes,
  txRecordErr,
  txRecordSignature,
  type AccountRecord,
  type AddressRecord,
  type HeaderRecord,
  type TxRecord,
} from './lmdb-codec.ts';
import { OwnVotes, type CompactVote } from './lmdb-own-votes.ts';
import type {
  AddressSignature,
  BlockHeader,
  BlockStatuses,
  ChainMeta,
  ExtraKey,
  ExtraRange,
  RevertedRecords,
  SignatureQuery,
  SnapshotBook,
  SlotCommit,
  Store,
  StoredBlock,
  StoredTransaction,
  TransactionLocation,
  TransactionStatusEntry,
} from './store.ts';
import { comparePositions, distinctKeys, signatureScan, type Position, type SignatureScan } from './store-query.ts';
import type { AddressEntry } from './lmdb-address-index.ts';

type TxKey = [number, number] | [number];
type ExtraRecordKey = [string, ...Array<string | number>];

const extraRecordKey = (table: string, key: ExtraKey): ExtraRecordKey => (Array.isArray(key) ? [table, ...key] : [table, key as string | number]);
/** What an undo record is of, as one string (LmdbStore.undoKept). */
const undoKey = (kind: UNDO_ACCOUNT | UNDO_EXTRA | UNDO_META, target: Address | ExtraRecordKey | null): string => `${kind}${typeof target === 'string' ? target : JSON.stringify(target)}`;

/**
 * An undo record: what a commit after the undo floor overwrote (the value's stored bytes, null when
 * absent), and what its block's transactions indexed (so a revert deletes them without reading them back).
 */
type UndoRecord =
  | [UNDO_ACCOUNT, Address, Uint8Array | null]
  | [UNDO_EXTRA, ExtraRecordKey, Uint8Array | null]
  | [UNDO_META, null, Uint8Array | null]
  | [UNDO_INDEXED, null, IndexedTx[]];
type UNDO_ACCOUNT = 0;
type UNDO_EXTRA = 1;
type UNDO_META = 2;
type UNDO_INDEXED = 3;
/** A transaction's signature, its wire up to the end of the first signature, its distinct keys, and whether it failed and has a memo. */
type IndexedTx = [string, Uint8Array, Address[], boolean, boolean];
/** Of a discarded slot: its transactions as its undo record indexed them, and whether the first is a compact vote. */
type DiscardedSlot = [IndexedTx[], boolean];

const META_KEY = 'chain';
const BOOK_KEY = 'book';
const GENESIS_KEY = 'genesis';
/** Write operations per purge transaction; the event loop runs between chunks. */
const PURGE_CHUNK_OPS = 2000;

// lmdb-js TransactionFlags: ABORTABLE | SYNCHRONOUS_COMMIT, plus NO_SYNC_FLUSH with overlappingSync.
const TXN_SYNC = 0x3;
const TXN_NO_SYNC_FLUSH = 0x10000;

export class LmdbStore implements Store {
  private readonly blocks: Database<HeaderRecord, number>;
  private readonly txs: Database<TxRecord, TxKey>;
  private readonly sigsDb: Database<unknown, string | [number, number, number]>;
  private readonly sigs: SignatureIndex;
  private readonly addrs: AddressIndex;
  /** Both layouts' indexes (one of them empty), cleared together by a reset. */
  private readonly addressIndexes: AddressIndex[];
  readonly addressIndexLayout: AddressIndexLayout;
  private readonly accounts: Database<AccountRecord, Address>;
  private readonly meta: Database<ChainMeta, string>;
  private readonly genesis: Database<unknown, string>;
  private readonly extras: Database<unknown, ExtraRecordKey>;
  private readonly ownVotes: OwnVotes;
  /** Undo records of each commit after the floor, one value per commit, by [slot, sequence] (snapshots). */
  private readonly undo: Database<UndoRecord[], [number, number] | [number]>;
  private readonly snapshots: Database<SnapshotBook, string>;
  /**
   * The index entries (signatures, own votes' signatures, addresses) of slots a revert discarded, by
   * slot. The revert leaves those entries in place, as their keys are random: on a long ledger deleting
   * them was most of a revert's page writes. They are deleted when the chain writes that slot, or a
   * later one, again. Until then they lie above the newest block: a signature entry pointing at a slot
   * with no block is stale, and address scans stop at the newest block.
   */
  private readonly discardedIndex: Database<DiscardedSlot, number>;
  private discardedIndexLeft: boolean;
  private undoFrom: number | null;
  /**
   * The accounts, extras and meta (by undoKey) with an undo record since the book was last written
   * (at a snapshot's slot, so after every live snapshot's) or a revert (which deletes the records after
   * its slot). A revert puts back only a key's first record after the snapshot's slot, so later commits
   * keep none for these (the vote account's, the payer's and the meta's in every slot were most of the
   * undo records). Empty after opening: records are kept again, which is only redundant.
   */
  private readonly undoKept = new Set<string>();
  private readonly txnFlags: number;
  private closed: Promise<void> | null = null;

  constructor(
    private readonly root: RootDatabase,
    /** The address index layout a ledger without entries starts in ('keyed' only to test ledgers written before). */
    newLedgerLayout: AddressIndexLayout = 'duplicates',
  ) {
    this.blocks = root.openDB('blocks', {});
    this.txs = root.openDB('txs', {});
    this.sigsDb = root.openDB('sigs', {});
    this.sigs = new SignatureIndex(this.sigsDb, this.txs);
    // A ledger with entries in the keyed layout keeps it; every other ledger uses duplicates.
    const keyed = root.openDB<AddressRecord, KeyedAddressKey>('addr', {});
    const duplicates = DuplicateAddressIndex.open(root, this.txs);
    this.addressIndexLayout = keyed.getKeysCount({ limit: 1 }) > 0 || (newLedgerLayout === 'keyed' && duplicates.isEmpty()) ? 'keyed' : 'duplicates';
    const keyedIndex = new KeyedAddressIndex(keyed);
    this.addrs = this.addressIndexLayout === 'keyed' ? keyedIndex : duplicates;
    this.addressIndexes = [keyedIndex, duplicates];
    this.accounts = root.openDB('accounts', {});
    this.meta = root.openDB('meta', {});
    this.genesis = root.openDB('genesis', {});
    this.extras = root.openDB('extras', {});
    this.ownVotes = new OwnVotes(root);
    this.undo = root.openDB('undo', {});
    this.snapshots = root.openDB('snapshots', {});
    this.discardedIndex = root.openDB('discarded-index', {});
    this.discardedIndexLeft = this.readDiscardedIndexLeft();
    this.undoFrom = this.snapshots.get(BOOK_KEY)?.undoFrom ?? null;
    // lmdb-js exposes the effective option (false when an existing env was created without it).
    const overlapping = (root as unknown as { overlappingSync?: boolean }).overlappingSync === true;
    this.txnFlags = overlapping ? TXN_SYNC | TXN_NO_SYNC_FLUSH : TXN_SYNC;
  }

  /**
   * Lets the validator's own votes, signed by `identity`, be stored compactly and read back (they are
   * signed again on read). A store not given the key writes every vote whole, and cannot read the
   * compact ones.
   */
  signOwnVotesWith(identity: Keypair): void {
    this.ownVotes.addSigner(identity);
  }

  async readGenesis(): Promise<unknown | null> {
    return this.genesis.get(GENESIS_KEY) ?? null;
  }

  async writeGenesis(genesis: unknown): Promise<void> {
    this.write(() => this.genesis.putSync(GENESIS_KEY, genesis));
  }

  async readMeta(): Promise<ChainMeta | null> {
    return this.meta.get(META_KEY) ?? null;
  }

  *loadAccounts(): Iterable<[Address, Account]> {
    for (const { key, value } of this.accounts.getRange({})) yield [key, decodeAccount(value)];
  }

  /** Runs as one LMDB transaction before returning, so the commit is captured when called. */
  async commitSlot(commit: SlotCommit): Promise<void> {
    const kept = new Set<string>();
    try {
      this.write(() => this.writeSlot(commit, kept));
      for (const key of kept) this.undoKept.add(key);
    } catch (e) {
      // A template added in the aborted transaction is not in the ledger, nor the discarded entries it dropped.
      this.ownVotes.load();
      this.discardedIndexLeft = this.readDiscardedIndexLeft();
      throw e;
    }
  }

  /**
   * commitSlot's writes, in the open write transaction. `kept` collects the keys this commit kept an
   * undo record of (added to undoKept once the transaction has committed).
   */
  private writeSlot(commit: SlotCommit, kept: Set<string>): void {
    const { block, accounts, meta, extras } = commit;
    const slot = block.slot;
    const undo: UndoRecord[] | null = this.undoFrom !== null && slot > this.undoFrom ? [] : null;
    const keep = undo && ((record: UndoRecord) => undo.push(record));
    /** Whether a record of `key` is to be kept: the first since the book was written. */
    const firstRecord = (key: string): boolean => {
      if (this.undoKept.has(key) || kept.has(key)) return false;
      kept.add(key);
      return true;
    };
    if (this.discardedIndexLeft) this.dropDiscardedIndex(slot);
    if (this.blocks.doesExist(slot)) this.dropSlotRecords(slot);
    const parent = block.parentSlot < slot ? this.blocks.get(block.parentSlot) : undefined;
    const parentHashKept = parent !== undefined && headerBlockhash(parent) === block.previousBlockhash;
    const first = block.transactions[0];
    const vote = (first && this.ownVotes.compact(first, block)) || undefined;
    // Slots only grow: appending (MDB_APPEND) fills pages whole instead of splitting them in half.
    const leaderFee = vote && this.ownVotes.leaderFeeOf(vote, block.rewards);
    this.blocks.putSync(slot, encodeHeader(block, { parentHashKept, vote, leaderFee }), { append: isAfterLast(this.blocks.getKeys({ reverse: true, limit: 1 }), slot) });
    // Every transaction in its place (a compact vote too: dropIndexedSlot finds it in the header).
    keep?.([3, null, block.transactions.map((tx): IndexedTx => [tx.signature, tx.wire.slice(0, 65), distinctKeys(tx.accountKeys), tx.meta.err !== null, tx.memo !== null])]);
    const appendTxs = isAfterLast(this.txs.getKeys({ reverse: true, limit: 1 }), slot);
    block.transactions.forEach((tx, index) => {
      if (index === 0 && vote) return;
      this.txs.putSync([slot, index], encodeTx(tx), { append: appendTxs });
      this.sigs.put(tx.wire, slot, index, tx.meta.err);
      this.addrs.add(distinctKeys(tx.accountKeys), slot, index, tx);
    });
    for (const [address, account] of accounts) {
      if (keep && firstRecord(undoKey(0, address))) keep([0, address, this.accounts.getBinary(address) ?? null]);
      if (account === null) this.accounts.removeSync(address);
      else this.accounts.putSync(address, encodeAccount(account));
    }
    if (keep && firstRecord(undoKey(2, null))) keep([2, null, this.meta.getBinary(META_KEY) ?? null]);
    this.meta.putSync(META_KEY, meta);
    for (const { table, key, value } of extras ?? []) {
      const recordKey = extraRecordKey(table, key);
      if (keep && firstRecord(undoKey(1, recordKey))) keep([1, recordKey, this.extras.getBinary(recordKey) ?? null]);
      if (value === null) this.extras.removeSync(recordKey);
      else this.extras.putSync(recordKey, value);
    }
    if (undo) this.undo.putSync([slot, this.nextUndoSequence(slot)], undo);
  }

  /** Every named database is emptied (LMDB frees their pages) and the genesis written, in one transaction. */
  async resetToGenesis(genesis: unknown, slot0: SlotCommit, book: SnapshotBook): Promise<void> {
    this.undoKept.clear();
    try {
      this.write(() => {
        for (const db of [this.blocks, this.txs, this.sigsDb, this.accounts, this.meta, this.genesis, this.extras, this.undo, this.snapshots, this.discardedIndex]) db.clearSync();
        for (const index of this.addressIndexes) index.clear();
        this.ownVotes.clear();
        this.discardedIndexLeft = false;
        this.undoFrom = null;
        this.genesis.putSync(GENESIS_KEY, genesis);
        this.writeSlot(slot0, new Set());
        this.snapshots.putSync(BOOK_KEY, book);
        this.undoFrom = book.undoFrom;
      });
    } catch (e) {
      this.ownVotes.load();
      this.undoFrom = this.snapshots.get(BOOK_KEY)?.undoFrom ?? null;
      this.discardedIndexLeft = this.readDiscardedIndexLeft();
      throw e;
    }
  }

  /** The sequence number of a slot's next undo value (a slot committed twice has two). */
  private nextUndoSequence(slot: number): number {
    for (const key of this.undo.getKeys({ start: [slot + 1], end: [slot], reverse: true, limit: 1 })) return (key as [number, number])[1] + 1;
    return 0;
  }

  async readSnapshots(): Promise<SnapshotBook | null> {
    return this.snapshots.get(BOOK_KEY) ?? null;
  }

  async writeSnapshots(book: SnapshotBook): Promise<void> {
    this.undoKept.clear();
    this.write(() => {
      if (book.undoFrom === null) this.undo.clearSync();
      else for (const key of Array.from(this.undo.getKeys({ end: [book.undoFrom + 1] }))) this.undo.removeSync(key);
      this.snapshots.putSync(BOOK_KEY, book);
      this.undoFrom = book.undoFrom;
    });
  }

  async revertTo(slot: number, book: SnapshotBook): Promise<RevertedRecords> {
    if (this.undoFrom === null || slot < this.undoFrom) throw new Error(`revertTo(${slot}): no undo records are kept from that slot`);
    this.undoKept.clear();
    try {
      return this.write(() => this.revertRecords(slot, book));
    } catch (e) {
      this.discardedIndexLeft = this.readDiscardedIndexLeft();
      throw e;
    }
  }

  /** revertTo's writes, in the open write transaction. */
  private revertRecords(slot: number, book: SnapshotBook): RevertedRecords {
    // Oldest first: the first record of a key holds its value at `slot`; later ones are skipped.
    const accounts = new Set<Address>();
    const extras = new Map<string, ExtraRecordKey>();
    const indexed = new Map<number, IndexedTx[]>();
    let metaRestored = false;
    // With no snapshot left, no undo record is needed any more: the table is emptied at once below.
    const undoLeft = book.undoFrom !== null;
    for (const { key, value } of Array.from(this.undo.getRange({ start: [slot + 1] }))) {
      if (undoLeft) this.undo.removeSync(key);
      for (const record of value) {
        if (record[0] === 3) {
          const txs = indexed.get(key[0]);
          if (txs) for (const tx of record[2]) txs.push(tx);
          else indexed.set(key[0], record[2]);
          continue;
        }
        const [kind, target, prev] = record;
        // Only a key's first record is put back: most records repeat a key (the vote account's in every slot).
        const bytes = () => (prev === null ? null : asBinary(Buffer.from(prev)));
        if (kind === 0) {
          if (accounts.has(target)) continue;
          accounts.add(target);
          const restored = bytes();
          if (restored) this.accounts.putSync(target, restored as unknown as AccountRecord);
          else this.accounts.removeSync(target);
        } else if (kind === 1) {
          const id = JSON.stringify(target);
          if (extras.has(id)) continue;
          extras.set(id, target);
          const restored = bytes();
          if (restored) this.extras.putSync(target, restored);
          else this.extras.removeSync(target);
        } else if (!metaRestored) {
          metaRestored = true;
          const restored = bytes();
          if (restored) this.meta.putSync(META_KEY, restored as unknown as ChainMeta);
        }
      }
    }
    if (!undoLeft) this.undo.clearSync();
    // One scan of the discarded headers (each slot's compact vote, if any), not a lookup per slot.
    const discarded = Array.from(this.blocks.getRange({ start: slot + 1 }), ({ key, value }): [number, CompactVote | undefined] => [key, value[HEADER_VOTE]]);
    const discardedSlots = discarded.map(([s]) => s);
    // Newest first: a compact vote's header reads its parent's blockhash, so a parent goes after its child.
    for (let i = discarded.length - 1; i >= 0; i--) {
      const [s, vote] = discarded[i]!;
      const txs = indexed.get(s);
      if (txs) this.dropIndexedSlot(s, vote, txs);
      else this.dropSlotRecords(s);
    }
    this.snapshots.putSync(BOOK_KEY, book);
    this.undoFrom = book.undoFrom;
    const meta = this.meta.get(META_KEY);
    if (!meta) throw new Error('revertTo: the ledger has no chain record');
    return {
      meta,
      accounts: [...accounts].map((a): [Address, Account | null] => {
        const rec = this.accounts.get(a);
        return [a, rec ? decodeAccount(rec) : null];
      }),
      extras: [...extras.values()].map((k) => {
        const v = this.extras.get(k);
        return { table: k[0], key: k.length === 2 ? k[1]! : k.slice(1), value: v === undefined ? null : plainRecord(v) };
      }),
      discardedSlots,
    };
  }

  async getBlock(slot: number): Promise<StoredBlock | null> {
    const rec = this.blocks.get(slot);
    if (!rec) return null;
    const header = this.decodeHeader(slot, rec);
    const transactions: StoredTransaction[] = [];
    const vote = rec[HEADER_VOTE];
    if (vote) transactions.push(this.ownVotes.rebuild(vote, header));
    for (const { value } of this.txs.getRange({ start: [slot], end: [slot + 1] })) {
      transactions.push(decodeTx(value));
    }
    return { ...header, transactions };
  }

  async getBlockHeader(slot: number): Promise<BlockHeader | null> {
    return this.readHeader(slot);
  }

  async getBlockSlots(start: number, end: number, limit: number): Promise<number[]> {
    if (!(limit > 0) || end < start) return [];
    return Array.from(this.blocks.getKeys({ start, end, inclusiveEnd: true, limit }));
  }

  async getBlockStatuses(start: number, end: number, statusesFrom: number): Promise<BlockStatuses[]> {
    if (end < start) return [];
    const out: BlockStatuses[] = [];
    let previous: BlockHeader | undefined;
    for (const { key: slot, value: rec } of this.blocks.getRange({ start, end, inclusiveEnd: true })) {
      // A record that leaves out its previous blockhash usually follows its parent's in this scan, whose
      // blockhash is text already (base-58 encoding is most of what reading a header costs).
      const parent = previous;
      const header = decodeHeader(
        slot,
        rec,
        (parentSlot) => (parent?.slot === parentSlot ? parent.blockhash : this.parentBlockhash(slot, parentSlot)),
        (vote, lamports) => this.ownVotes.leaderFee(vote, lamports),
      );
      previous = header;
      if (slot < statusesFrom) {
        out.push({ header, statuses: null });
        continue;
      }
      const statuses: TransactionStatusEntry[] = [];
      const vote = rec[HEADER_VOTE];
      if (vote) statuses.push([this.ownVotes.signature(vote, header), 0, null]);
      for (const { key, value } of this.txs.getRange({ start: [slot], end: [slot + 1] })) statuses.push([txRecordSignature(value), key[1]!, txRecordErr(value)]);
      out.push({ header, statuses });
    }
    return out;
  }

  async getTransaction(signature: string): Promise<TransactionLocation | null> {
    const found = this.sigs.find(signature);
    if (!found) {
      const vote = this.findOwnVote(signature);
      return vote && { slot: vote.slot, index: 0, blockTime: vote.blockTime, transaction: vote.transaction };
    }
    const [slot, index] = found.location;
    const tx = found.record ?? this.txs.get([slot, index]);
    const blockTime = this.blockTime(slot);
    if (!tx || blockTime === null) return null;
    return { slot, index, blockTime, transaction: decodeTx(tx) };
  }

  async getSignatureLocation(signature: string) {
    const loc = this.sigs.get(signature);
    // A stale entry (see discardedIndex) points at a discarded slot; getTransaction finds no transaction there.
    if (loc && (!this.discardedIndexLeft || this.blocks.doesExist(loc[0]))) return { slot: loc[0], index: loc[1], err: loc[2] };
    const vote = this.findOwnVote(signature);
    return vote && { slot: vote.slot, index: 0, err: null };
  }

  async getSignaturesForAddress(address: Address, query: SignatureQuery): Promise<AddressSignature[]> {
    const scan = signatureScan(query);
    if (!scan) return [];
    // Entries a revert left (see discardedIndex) lie above the newest block.
    if (this.discardedIndexLeft) {
      const above: Position = [(this.newestSlot() ?? -1) + 1];
      if (comparePositions(scan.upper, above) > 0) scan.upper = above;
    }
    const blockTimes = new Map<number, number | null>();
    let entries = this.addrs.scan(address, scan);
    if (this.ownVotes.namesAny(address)) entries = mergeNewestFirst(entries, this.ownVoteEntries(address, scan), scan.limit);
    return entries.map((entry) => {
      let blockTime = blockTimes.get(entry.slot);
      if (blockTime === undefined) blockTimes.set(entry.slot, (blockTime = this.blockTime(entry.slot)));
      return { ...entry, blockTime };
    });
  }

  async getExtra(table: string, key: ExtraKey): Promise<unknown | null> {
    const value = this.extras.get(extraRecordKey(table, key));
    return value === undefined ? null : plainRecord(value);
  }

  *scanExtras(table: string, range: ExtraRange = {}): Iterable<[ExtraKey, unknown]> {
    // [table] sorts before every [table, ...] key, and [table + '\0'] after all of them.
    const low: ExtraRecordKey = range.reverse ? (range.end === undefined ? [table] : extraRecordKey(table, range.end)) : range.start === undefined ? [table] : extraRecordKey(table, range.start);
    const high: ExtraRecordKey = range.reverse ? (range.start === undefined ? [table + '\0'] : extraRecordKey(table, range.start)) : range.end === undefined ? [table + '\0'] : extraRecordKey(table, range.end);
    const entries = this.extras.getRange(range.reverse ? { start: high, end: low, reverse: true, limit: range.limit } : { start: low, end: high, limit: range.limit });
    for (const { key, value } of entries) {
      if (key.length === 1) continue; // [table] itself is never a record key
      yield [key.length === 2 ? key[1]! : key.slice(1), plainRecord(value)];
    }
  }

  async firstAvailableSlot(): Promise<number | null> {
    for (const slot of this.blocks.getKeys({ limit: 1 })) return slot;
    return null;
  }

  /** Whole slots per transaction, a bounded number of writes each, yielding to the event loop between. */
  async purgeSlotsBelow(slot: number): Promise<void> {
    while (!this.write(() => this.purgeChunk(slot))) await new Promise((resolve) => setImmediate(resolve));
  }

  async close(): Promise<void> {
    this.closed ??= (async () => {
      await this.root.flushed;
      await this.root.close();
    })();
    return this.closed;
  }

  private write<T>(action: () => T): T {
    return this.root.transactionSync(action, this.txnFlags);
  }

  private readHeader(slot: number): BlockHeader | null {
    const rec = this.blocks.get(slot);
    return rec ? this.decodeHeader(slot, rec) : null;
  }

  private decodeHeader(slot: number, rec: HeaderRecord): BlockHeader {
    return decodeHeader(slot, rec, (parentSlot) => this.parentBlockhash(slot, parentSlot), (vote, lamports) => this.ownVotes.leaderFee(vote, lamports));
  }

  /** The blockhash of `slot`'s parent, for a record that leaves out its previous blockhash. */
  private parentBlockhash(slot: number, parentSlot: number): string {
    const parent = this.blocks.get(parentSlot);
    if (!parent) throw new Error(`slot ${slot}'s record leaves out its previous blockhash, and its parent ${parentSlot} is not stored`);
    return headerBlockhash(parent);
  }

  /** The compactly stored own vote with this signature, rebuilt, and where it sits. */
  private findOwnVote(signature: string): { slot: number; blockTime: number; transaction: StoredTransaction } | null {
    const bytes = tryDecodeBase58(signature);
    if (!bytes) return null;
    for (const slot of this.ownVotes.candidateSlots(bytes)) {
      const rec = this.blocks.get(slot);
      const vote = rec?.[HEADER_VOTE];
      if (!rec || !vote) continue;
      const header = this.decodeHeader(slot, rec);
      const transaction = this.ownVotes.rebuild(vote, header);
      if (transaction.signature === signature) return { slot, blockTime: header.blockTime, transaction };
    }
    return null;
  }

  /** The address-index entries of the compactly stored own votes that name `address`, within the scan, newest first. */
  private ownVoteEntries(address: Address, scan: SignatureScan): AddressEntry[] {
    const out: AddressEntry[] = [];
    for (const { key: slot, value: rec } of this.blocks.getRange({ start: scan.upper[0], reverse: true })) {
      const position: Position = [slot, 0];
      if (comparePositions(position, scan.upper) >= 0) continue;
      if (scan.lower && comparePositions(position, scan.lower) <= 0) break;
      const vote = rec[HEADER_VOTE];
      if (!vote || !this.ownVotes.names(vote[0], address)) continue;
      const { signature } = this.ownVotes.rebuild(vote, this.decodeHeader(slot, rec));
      out.push({ signature, slot, index: 0, err: null, memo: null });
      if (out.length >= scan.limit) break;
    }
    return out;
  }

  private blockTime(slot: number): number | null {
    return this.blocks.get(slot)?.[HEADER_BLOCK_TIME] ?? null;
  }

  /** Purges slots below `below` until about PURGE_CHUNK_OPS writes; true when none are left. */
  private purgeChunk(below: number): boolean {
    let ops = 0;
    for (;;) {
      const slots = Array.from(this.blocks.getKeys({ end: below, limit: 256 }));
      if (slots.length === 0) return true;
      for (const slot of slots) {
        ops += this.dropSlotRecords(slot);
        if (ops >= PURGE_CHUNK_OPS) return false;
      }
    }
  }

  /** dropSlotRecords from what the slot's undo record kept and its header's compact vote, without reading its transactions back. */
  /** Deletes a discarded slot's block and transactions; its index entries are left to dropDiscardedIndex (see discardedIndex). */
  private dropIndexedSlot(slot: number, vote: CompactVote | undefined, txs: IndexedTx[]): void {
    for (let index = vote ? 1 : 0; index < txs.length; index++) this.txs.removeSync([slot, index]);
    this.blocks.removeSync(slot);
    this.discardedIndex.putSync(slot, [txs, vote !== undefined]);
    this.discardedIndexLeft = true;
  }

  /** Deletes the index entries a revert left of the slots up to `slot` (see discardedIndex), in the open transaction. */
  private dropDiscardedIndex(slot: number): void {
    for (const { key, value } of Array.from(this.discardedIndex.getRange({ end: slot + 1 }))) {
      const [txs, compactVote] = value;
      // The undo record kept the vote's wire up to the end of its signature.
      if (compactVote && txs[0]) this.ownVotes.removeSignature(txs[0][1].subarray(1, 65), key);
      txs.forEach(([signature, wire, keys, failed, memo], index) => {
        if (index === 0 && compactVote) return;
        // The same transaction may have landed elsewhere since: that entry is kept.
        this.sigs.remove(signature, key, index);
        // What the address index reads of a transaction to find its entry: the signature in the wire, whether it failed, whether it has a memo.
        const entryOf = { wire: plainBytes(wire), meta: { err: failed ? 'failed' : null }, memo: memo ? '' : null } as unknown as StoredTransaction;
        this.addrs.remove(keys, key, index, entryOf);
      });
      this.discardedIndex.removeSync(key);
    }
    this.discardedIndexLeft = this.readDiscardedIndexLeft();
  }

  /** Whether any discarded slot's entries are left (kept in discardedIndexLeft: every commit and signature lookup asks). */
  private readDiscardedIndexLeft(): boolean {
    return this.discardedIndex.getKeysCount({ limit: 1 }) > 0;
  }

  private newestSlot(): number | null {
    for (const slot of this.blocks.getKeys({ reverse: true, limit: 1 })) return slot;
    return null;
  }

  /** Deletes a slot's block, transactions and index entries in the open transaction; returns the write count. */
  private dropSlotRecords(slot: number): number {
    let ops = 1;
    const rec = this.blocks.get(slot);
    const vote: CompactVote | undefined = rec?.[HEADER_VOTE];
    if (rec && vote) {
      this.ownVotes.remove(vote, this.decodeHeader(slot, rec));
      ops++;
    }
    const txs = Array.from(this.txs.getRange({ start: [slot], end: [slot + 1] }));
    for (const { key, value } of txs) {
      const index = key[1]!;
      const tx = decodeTx(value);
      const { signature, accountKeys } = tx;
      this.sigs.remove(signature, slot, index);
      this.addrs.remove(distinctKeys(accountKeys), slot, index, tx);
      this.txs.removeSync(key);
      ops += 2 + accountKeys.length;
    }
    // A child that reads its previous blockhash from this block gets it written out first.
    if (rec) {
      for (const { key: child, value: childRec } of this.blocks.getRange({ start: slot + 1, limit: 1 })) {
        if (childRec[HEADER_PREVIOUS_BLOCKHASH] !== null || child - childRec[0] !== slot) continue;
        const patched: HeaderRecord = [...childRec];
        patched[HEADER_PREVIOUS_BLOCKHASH] = rec[1];
        this.blocks.putSync(child, patched);
        ops++;
      }
    }
    this.blocks.removeSync(slot);
    return ops;
  }
}

/** Whether `slot`'s records sort after `lastKeys` (a table's last key, or none), so they may be appended. */
function isAfterLast(lastKeys: Iterable<number | TxKey>, slot: number): boolean {
  for (const last of lastKeys) return (typeof last === 'number' ? last : last[0]) < slot;
  return true;
}

/** Two newest-first lists of entries as one, at most `limit` long. */
function mergeNewestFirst(a: AddressEntry[], b: AddressEntry[], limit: number): AddressEntry[] {
  if (b.length === 0) return a;
  const out: AddressEntry[] = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < a.length || j < b.length)) {
    const takeA = j >= b.length || (i < a.length && comparePositions([a[i]!.slot, a[i]!.index], [b[j]!.slot, b[j]!.index]) > 0);
    out.push(takeA ? a[i++]! : b[j++]!);
  }
  return out;
}

export type AddressIndexLayout = 'keyed' | 'duplicates';

/**
 * The data file's memory map, reserved once (address space only: the file still grows as it fills,
 * and untouched pages cost nothing). lmdb-js otherwise starts at 128 KiB and doubles the map as the
 * file grows, and keeps every earlier map mapped until the store closes (for readers still in them):
 * the pages read through each stay resident, so a ledger of 53 MB showed 143 MB of file-backed RSS
 * over nine maps. A ledger past this size still grows the map the same way.
 */
const MAP_SIZE = 8 * 1024 ** 3;
/**
 * Only where a data file is sparse for certain: LMDB on Windows sizes the file to the map, and some
 * macOS file systems are not sparse; there lmdb-js's growing map stays.
 */
const RESERVED_MAP_SIZE = process.platform === 'linux' ? MAP_SIZE : undefined;

export async function openLmdbStore(dir: string, options: { newLedgerLayout?: AddressIndexLayout } = {}): Promise<LmdbStore> {
  // maxDbs leaves room for a few more named databases in later versions of the layout.
  const root = open({ path: dir, maxDbs: 16, ...(RESERVED_MAP_SIZE ? { mapSize: RESERVED_MAP_SIZE } : {}) });
  return new LmdbStore(root, options.newLedgerLayout);
}

/** An extension's record as the Store promises it: every byte string (at any depth of its tuples) a plain Uint8Array. */
function plainRecord(value: unknown): unknown {
  if (value instanceof Uint8Array) return plainBytes(value);
  if (!Array.isArray(value)) return value;
  for (let i = 0; i < value.length; i++) value[i] = plainRecord(value[i]);
  return value;
}
