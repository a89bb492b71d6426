/**
 * The store held in memory: the reference model of the Store semantics, and the backend of unit
 * tests. Values are cloned on the way in and out, so callers see the isolation a real store gives.
 */
import type { Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import type { TransactionErrorValue } from '../runtime/errors.ts';
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
  TransactionLocation,
  TransactionStatusEntry,
} from './store.ts';
import { compareExtraKeys, comparePositions, distinctKeys, lowerBound, signatureScan, type Position } from './store-query.ts';

interface AddressEntry {
  slot: number;
  index: number;
  signature: string;
  err: TransactionErrorValue | null;
  memo: string | null;
}

const entryPosition = (e: AddressEntry): Position => [e.slot, e.index];
const slotPosition = (slot: number): Position => [slot];
const clone = structuredClone;

export class MemoryStore implements Store {
  private genesis: unknown = null;
  private meta: ChainMeta | null = null;
  private readonly accounts = new Map<Address, Account>();
  private readonly blocks = new Map<number, StoredBlock>();
  /** Slots of `blocks`, ascending. */
  private slots: number[] = [];
  private readonly sigs = new Map<string, { slot: number; index: number; err: TransactionErrorValue | null }>();
  /** Per address, entries ascending by (slot, index). */
  private readonly byAddress = new Map<Address, AddressEntry[]>();
  private readonly extras = new Map<string, unknown>();
  private book: SnapshotBook | null = null;
  /** Undo records, oldest first: what each commit after the undo floor overwrote (undefined: absent). */
  private undo: Array<{ slot: number; kind: 'account' | 'extra' | 'meta'; key: string; prev: unknown }> = [];

  async readGenesis(): Promise<unknown | null> {
    return clone(this.genesis);
  }

  async writeGenesis(genesis: unknown): Promise<void> {
    this.genesis = clone(genesis);
  }

  async readMeta(): Promise<ChainMeta | null> {
    return clone(this.meta);
  }

  *loadAccounts(): Iterable<[Address, Account]> {
    for (const [address, account] of [...this.accounts]) yield [address, clone(account)];
  }

  /** Everything is captured when called, so the caller may reuse the commit's objects at once. */
  async commitSlot(commit: SlotCommit): Promise<void> {
    const { block, accounts, meta, extras } = clone(commit);
    const slot = block.slot;
    const undoFrom = this.book?.undoFrom ?? null;
    const keep = undoFrom !== null && slot > undoFrom;
    const at = lowerBound(this.slots, [slot], slotPosition);
    if (this.blocks.has(slot)) this.dropSlotRecords(slot);
    else this.slots.splice(at, 0, slot);
    this.blocks.set(slot, block);
    block.transactions.forEach((tx, index) => {
      this.sigs.set(tx.signature, { slot, index, err: tx.meta.err });
      for (const address of distinctKeys(tx.accountKeys)) {
        const entry: AddressEntry = { slot, index, signature: tx.signature, err: tx.meta.err, memo: tx.memo };
        const list = this.byAddress.get(address) ?? [];
        list.splice(lowerBound(list, [slot, index], entryPosition), 0, entry);
        this.byAddress.set(address, list);
      }
    });
    for (const [address, account] of accounts) {
      if (keep) this.undo.push({ slot, kind: 'account', key: address, prev: this.accounts.get(address) });
      if (account === null) this.accounts.delete(address);
      else this.accounts.set(address, account);
    }
    if (keep) this.undo.push({ slot, kind: 'meta', key: '', prev: this.meta });
    this.meta = meta;
    for (const { table, key, value } of extras ?? []) {
      const k = extraKey(table, key);
      if (keep) this.undo.push({ slot, kind: 'extra', key: k, prev: this.extras.get(k) });
      if (value === null) this.extras.delete(k);
      else this.extras.set(k, value);
    }
  }

  async readSnapshots(): Promise<SnapshotBook | null> {
    return clone(this.book);
  }

  async writeSnapshots(book: SnapshotBook): Promise<void> {
    this.book = clone(book);
    const floor = book.undoFrom;
    this.undo = floor === null ? [] : this.undo.filter((u) => u.slot > floor);
  }

  async revertTo(slot: number, book: SnapshotBook): Promise<RevertedRecords> {
    const floor = this.book?.undoFrom ?? null;
    if (floor === null || slot < floor) throw new Error(`revertTo(${slot}): no undo records are kept from that slot`);
    const accounts = new Set<Address>();
    const extras = new Set<string>();
    while (this.undo.length > 0 && this.undo[this.undo.length - 1]!.slot > slot) {
      const { kind, key, prev } = this.undo.pop()!;
      if (kind === 'account') {
        accounts.add(key);
        if (prev === undefined) this.accounts.delete(key);
        else this.accounts.set(key, prev as Account);
      } else if (kind === 'extra') {
        extras.add(key);
        if (prev === undefined) this.extras.delete(key);
        else this.extras.set(key, prev);
      } else this.meta = prev as ChainMeta;
    }
    const at = lowerBound(this.slots, [slot + 1], slotPosition);
    const discardedSlots = this.slots.splice(at);
    for (const s of discardedSlots) this.dropSlotRecords(s);
    this.book = clone(book);
    return clone({
      meta: this.meta!,
      accounts: [...accounts].map((a): [Address, Account | null] => [a, this.accounts.get(a) ?? null]),
      extras: [...extras].map((k) => {
        const [table, key] = JSON.parse(k) as [string, ExtraKey];
        return { table, key, value: this.extras.get(k) ?? null };
      }),
      discardedSlots,
    });
  }

  async resetToGenesis(genesis: unknown, slot0: SlotCommit, book: SnapshotBook): Promise<void> {
    this.genesis = clone(genesis);
    this.meta = null;
    for (const map of [this.accounts, this.blocks, this.sigs, this.byAddress, this.extras]) map.clear();
    this.slots = [];
    this.undo = [];
    this.book = null;
    await this.commitSlot(slot0);
    this.book = clone(book);
  }

  async getBlock(slot: number): Promise<StoredBlock | null> {
    const block = this.blocks.get(slot);
    return block ? clone(block) : null;
  }

  async getBlockHeader(slot: number): Promise<BlockHeader | null> {
    const block = this.blocks.get(slot);
    if (!block) return null;
    const { transactions: _, ...header } = block;
    return clone(header);
  }

  async getBlockSlots(start: number, end: number, limit: number): Promise<number[]> {
    if (!(limit > 0) || end < start) return [];
    const from = lowerBound(this.slots, [start], slotPosition);
    const out: number[] = [];
    for (let i = from; i < this.slots.length && out.length < limit && this.slots[i]! <= end; i++) out.push(this.slots[i]!);
    return out;
  }

  async getBlockStatuses(start: number, end: number, statusesFrom: number): Promise<BlockStatuses[]> {
    const out: BlockStatuses[] = [];
    for (let i = lowerBound(this.slots, [start], slotPosition); i < this.slots.length && this.slots[i]! <= end; i++) {
      const { transactions, ...header } = this.blocks.get(this.slots[i]!)!;
      const statuses = header.slot < statusesFrom ? null : transactions.map((t, index): TransactionStatusEntry => [t.signature, index, t.meta.err]);
      out.push(clone({ header, statuses }));
    }
    return out;
  }

  async getTransaction(signature: string): Promise<TransactionLocation | null> {
    const loc = this.sigs.get(signature);
    const block = loc && this.blocks.get(loc.slot);
    const tx = block?.transactions[loc!.index];
    if (!block || !tx) return null;
    return { slot: block.slot, index: loc!.index, blockTime: block.blockTime, transaction: clone(tx) };
  }

  async getSignatureLocation(signature: string) {
    const loc = this.sigs.get(signature);
    return loc ? clone(loc) : null;
  }

  async getSignaturesForAddress(address: Address, query: SignatureQuery): Promise<AddressSignature[]> {
    const scan = signatureScan(query);
    const list = this.byAddress.get(address);
    if (!scan || !list) return [];
    const out: AddressSignature[] = [];
    for (let i = lowerBound(list, scan.upper, entryPosition) - 1; i >= 0 && out.length < scan.limit; i--) {
      const e = list[i]!;
      if (scan.lower && comparePositions(entryPosition(e), scan.lower) <= 0) break;
      const blockTime = this.blocks.get(e.slot)?.blockTime ?? null;
      out.push(clone({ signature: e.signature, slot: e.slot, index: e.index, err: e.err, memo: e.memo, blockTime }));
    }
    return out;
  }

  async getExtra(table: string, key: ExtraKey): Promise<unknown | null> {
    return clone(this.extras.get(extraKey(table, key)) ?? null);
  }

  *scanExtras(table: string, range: ExtraRange = {}): Iterable<[ExtraKey, unknown]> {
    const entries: Array<[ExtraKey, unknown]> = [];
    for (const [k, value] of this.extras) {
      const [t, key] = JSON.parse(k) as [string, ExtraKey];
      if (t !== table) continue;
      const [low, high] = range.reverse ? [range.end, range.start] : [range.start, range.end];
      // Forward: [start, end); reverse: (end, start].
      const aboveLow = low === undefined || (range.reverse ? compareExtraKeys(key, low) > 0 : compareExtraKeys(key, low) >= 0);
      const belowHigh = high === undefined || (range.reverse ? compareExtraKeys(key, high) <= 0 : compareExtraKeys(key, high) < 0);
      if (aboveLow && belowHigh) entries.push([key, value]);
    }
    entries.sort((a, b) => compareExtraKeys(a[0], b[0]) * (range.reverse ? -1 : 1));
    for (const [key, value] of entries.slice(0, range.limit ?? entries.length)) yield [key, clone(value)];
  }

  async firstAvailableSlot(): Promise<number | null> {
    return this.slots[0] ?? null;
  }

  async purgeSlotsBelow(slot: number): Promise<void> {
    const doomed = this.slots.splice(0, lowerBound(this.slots, [slot], slotPosition));
    for (const s of doomed) this.dropSlotRecords(s);
  }

  async close(): Promise<void> {}

  /** Drops a slot's block and index entries (not its place in `slots`). */
  private dropSlotRecords(slot: number): void {
    const block = this.blocks.get(slot);
    if (!block) return;
    block.transactions.forEach((tx, index) => {
      this.sigs.delete(tx.signature);
      for (const address of distinctKeys(tx.accountKeys)) {
        const list = this.byAddress.get(address);
        const at = list ? lowerBound(list, [slot, index], entryPosition) : -1;
        if (list && at < list.length && list[at]!.slot === slot && list[at]!.index === index) list.splice(at, 1);
        if (list?.length === 0) this.byAddress.delete(address);
      }
    });
    this.blocks.delete(slot);
  }
}

// JSON keeps 5 and '5' apart, as LMDB's typed [table, key] keys do.
const extraKey = (table: string, key: ExtraKey): string => JSON.stringify([table, key]);

