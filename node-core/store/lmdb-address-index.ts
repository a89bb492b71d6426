/**
 * The address index behind getSignaturesForAddress: for each address, the transactions that name it.
 *
 * Ledgers keep it as LMDB duplicates (`addr-dup`): the address is the key, each entry a 77-byte value
 * `slot (u64 BE) | index (u32 BE) | signature (64) | flags`, sorted by LMDB as bytes, so in ledger
 * order. New entries land at the end of their address's own sub-tree, which keeps its pages full;
 * one `[address, slot, index]` key per entry (the layout before, `addr`) grew each address's range in
 * the middle of one shared tree and left its pages half empty, 1.3 KB per idle slot instead of 0.5.
 * A ledger written in that layout keeps it (read and written as before); only new ledgers take the new one.
 */
import type { Database, DatabaseOptions, RootDatabase } from 'lmdb';
import { encodeBase58 } from '../common/base58.ts';
import type { Address } from '../common/pubkey.ts';
import type { TransactionErrorValue } from '../runtime/errors.ts';
import { addressEntrySignature, encodeAddressEntry, txRecordErr, type AddressRecord, type TxRecord } from './lmdb-codec.ts';
import type { Position, SignatureScan } from './store-query.ts';
import type { StoredTransaction } from './store.ts';

/** One entry of a scan, newest first; the block time is the store's to add. */
export interface AddressEntry {
  signature: string;
  slot: number;
  index: number;
  err: TransactionErrorValue | null;
  memo: string | null;
}

export interface AddressIndex {
  /** Adds `tx` at (slot, index) under each of `addresses`, in the open write transaction. */
  add(addresses: readonly Address[], slot: number, index: number, tx: StoredTransaction): void;
  /** Removes those entries, in the open write transaction. */
  remove(addresses: readonly Address[], slot: number, index: number, tx: StoredTransaction): void;
  scan(address: Address, scan: SignatureScan): AddressEntry[];
  /** Removes every entry, in the open write transaction. */
  clear(): void;
}

export type KeyedAddressKey = [Address, number, number] | [Address, number] | [Address];

/** The layout before: one key `[address, slot, index]` per entry, the value `[signature, err, memo]`. */
export class KeyedAddressIndex implements AddressIndex {
  constructor(private readonly db: Database<AddressRecord, KeyedAddressKey>) {}

  add(addresses: readonly Address[], slot: number, index: number, tx: StoredTransaction): void {
    const entry = encodeAddressEntry(tx);
    for (const address of addresses) this.db.putSync([address, slot, index], entry);
  }

  remove(addresses: readonly Address[], slot: number, index: number): void {
    for (const address of addresses) this.db.removeSync([address, slot, index]);
  }

  clear(): void {
    this.db.clearSync();
  }

  scan(address: Address, scan: SignatureScan): AddressEntry[] {
    const range = this.db.getRange({
      start: [address, ...scan.upper] as KeyedAddressKey,
      end: (scan.lower ? [address, ...scan.lower] : [address]) as KeyedAddressKey,
      exclusiveStart: true,
      reverse: true,
      limit: scan.limit,
    });
    const out: AddressEntry[] = [];
    for (const { key, value } of range) {
      const [, slot, index] = key as [Address, number, number];
      out.push({ signature: addressEntrySignature(value), slot, index, err: value[1], memo: value[2] });
    }
    return out;
  }
}

interface RecordReader<K, V> {
  get(key: K): V | undefined;
}

const ENTRY_SIZE = 8 + 4 + 64 + 1;
const HAS_ERR = 1;
const HAS_MEMO = 2;

/** The bytes every entry at `pos` sorts above: a bare slot is below all its indexes, (slot, index) below that entry. */
function positionFloor(pos: Position): Uint8Array {
  const out = new Uint8Array(pos.length === 1 ? 8 : 12);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(pos[0]));
  if (pos.length === 2) view.setUint32(8, pos[1]);
  return out;
}

/** The bytes every entry at `pos` sorts below: (slot, index) followed by the highest signature and flags. */
function positionCeiling(pos: readonly [number, number]): Uint8Array {
  const out = new Uint8Array(ENTRY_SIZE).fill(0xff);
  out.set(positionFloor(pos));
  return out;
}

function entryOf(slot: number, index: number, tx: StoredTransaction): Uint8Array {
  const entry = new Uint8Array(ENTRY_SIZE);
  entry.set(positionFloor([slot, index]));
  entry.set(tx.wire.subarray(1, 65), 12);
  entry[76] = (tx.meta.err !== null ? HAS_ERR : 0) | (tx.memo !== null ? HAS_MEMO : 0);
  return entry;
}

/** Entries as LMDB duplicates under the address (see the file comment). */
export class DuplicateAddressIndex implements AddressIndex {
  constructor(
    private readonly db: Database<Uint8Array, Address>,
    /** Where an entry's error and memo are read back, when its flags say it has one (rare). */
    private readonly txs: RecordReader<[number, number], TxRecord>,
  ) {}

  static open(root: RootDatabase, txs: RecordReader<[number, number], TxRecord>): DuplicateAddressIndex {
    // A custom encoder (an lmdb-js option its typings leave out) keeps values raw bytes, so value ranges
    // compare bytes; lmdb-js reads values into a shared buffer, so decode copies out `end` bytes.
    const encoder = { encode: (v: Uint8Array) => v, decode: (b: Uint8Array, end: number) => b.slice(0, end) };
    return new DuplicateAddressIndex(root.openDB<Uint8Array, Address>('addr-dup', { dupSort: true, encoder } as DatabaseOptions), txs);
  }

  isEmpty(): boolean {
    return this.db.getKeysCount({ limit: 1 }) === 0;
  }

  add(addresses: readonly Address[], slot: number, index: number, tx: StoredTransaction): void {
    const entry = entryOf(slot, index, tx);
    for (const address of addresses) this.db.putSync(address, entry);
  }

  remove(addresses: readonly Address[], slot: number, index: number, tx: StoredTransaction): void {
    const entry = entryOf(slot, index, tx);
    for (const address of addresses) this.db.removeSync(address, entry);
  }

  clear(): void {
    this.db.clearSync();
  }

  scan(address: Address, scan: SignatureScan): AddressEntry[] {
    const values = this.db.getValues(address, {
      start: positionFloor(scan.upper),
      ...(scan.lower ? { end: scan.lower.length === 1 ? positionFloor(scan.lower) : positionCeiling(scan.lower as [number, number]) } : {}),
      reverse: true,
      limit: scan.limit,
    });
    const out: AddressEntry[] = [];
    for (const v of values) {
      const view = new DataView(v.buffer, v.byteOffset, v.byteLength);
      const slot = Number(view.getBigUint64(0));
      const index = view.getUint32(8);
      const signature = encodeBase58(v.subarray(12, 76));
      const flags = v[76]!;
      const record = flags & (HAS_ERR | HAS_MEMO) ? this.txs.get([slot, index]) : undefined;
      const err = flags & HAS_ERR && record ? txRecordErr(record) : null;
      const memo = flags & HAS_MEMO ? (record?.[4] ?? null) : null;
      out.push({ signature, slot, index, err, memo });
    }
    return out;
  }
}
