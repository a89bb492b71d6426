/**
 * The EVM state trie (Ethereum's secure Merkle-Patricia trie over accounts, one storage trie per
 * contract), updated once per sealed slot from that slot's flat changes (evm/trie-batch.ts: each
 * changed node encoded, hashed and stored once): execution never touches it. Its nodes are
 * content-addressed, stored in the slot's atomic commit in write order with a hash index
 * (evm/hash-index.ts) and never deleted, so the state at any past EVM block can be read through its
 * state root (@ethereumjs/mpt reads them).
 */
import { createMPT, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToHex, bytesToUnprefixedHex, hexToBytes, ValueEncoding, type BatchDBOp, type DB } from '@ethereumjs/util';
import { BoundedMap } from '../common/bounded-map.ts';
import { keccak256 } from '../common/hash.ts';
import type { SlotCommit, Store } from '../store/store.ts';
import { findByHash, recordWithIndex } from './hash-index.ts';
import { EMPTY_CODE_HASH, EMPTY_STORAGE_ROOT, type EvmAccount, type EvmChanges, type EvmStateReader } from './state.ts';
import { encodeRlp } from './rlp-encode.ts';
import { EMPTY_TRIE_ROOT, TrieBatch, type TrieNodeSource } from './trie-batch.ts';

/** [slot, index] → a node the slot's commit wrote. */
export const TRIE_NODE_TABLE = 'evm-tnode';
/** [first 48 bits of a node's hash, slot, index] → 0. */
export const TRIE_INDEX_TABLE = 'evm-tindex';
/** Node hash (hex) → node: where ledgers written before the index kept their nodes (read only). */
export const LEGACY_TRIE_TABLE = 'evm-trie';
export const STORAGE_ROOT_TABLE = 'evm-sroot';
/**
 * Stored trie nodes kept in memory beside the store (least recently used out, by count). A node
 * costs ~200-700 bytes there (a 64-character key, a leaf of ~110 bytes or a branch of up to 532):
 * 16,384 keep the four levels nearest the root (4,369 branches, what every update reads) for up to
 * ~65,000 accounts, and the nodes recent slots wrote.
 */
const NODE_CACHE = 16_384;

/** What the trie reads of the store: its nodes and the storage roots. */
export type TrieSource = Pick<Store, 'getExtra' | 'scanExtras'>;

/**
 * The store as the trie's node database; new nodes stay in memory until their slot's commit is
 * durable. Updates come through TrieBatch (read, putNode); @ethereumjs/mpt reads past states.
 */
class StoreNodeDb implements DB<string, string | Uint8Array>, TrieNodeSource {
  private readonly unwritten = new Map<string, Uint8Array>();
  private readonly cached = new BoundedMap<string, Uint8Array>(NODE_CACHE);
  private batchKeys: string[] = [];

  constructor(private readonly store: TrieSource) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    const pending = this.unwritten.get(key) ?? this.cached.get(key);
    if (pending) return pending;
    const stored =
      (await findByHash(this.store, TRIE_NODE_TABLE, TRIE_INDEX_TABLE, key, (node) => (bytesToUnprefixedHex(keccak256(node as Uint8Array)) === key ? (node as Uint8Array) : null))) ??
      ((await this.store.getExtra(LEGACY_TRIE_TABLE, key)) as Uint8Array | null) ??
      undefined;
    if (stored) this.remember(key, stored);
    return stored;
  }

  read(hash: Uint8Array): Promise<Uint8Array | undefined> {
    return this.get(bytesToUnprefixedHex(hash));
  }

  readKept(hash: Uint8Array): Uint8Array | undefined {
    const key = bytesToUnprefixedHex(hash);
    return this.unwritten.get(key) ?? this.cached.get(key);
  }

  /** A node of the slot being sealed. */
  putNode(hash: Uint8Array, encoded: Uint8Array): void {
    this.keep(bytesToUnprefixedHex(hash), encoded);
  }

  async put(key: string, value: string | Uint8Array): Promise<void> {
    this.keep(key, typeof value === 'string' ? hexToBytes(`0x${value}`) : value);
  }

  private keep(key: string, encoded: Uint8Array): void {
    if (this.unwritten.has(key)) return;
    this.unwritten.set(key, encoded);
    this.batchKeys.push(key);
  }

  private remember(key: string, encoded: Uint8Array): void {
    // Deleted and set again: the node becomes the newest (least recently used out).
    this.cached.delete(key);
    this.cached.set(key, encoded);
  }

  /** Nodes are never deleted: older state roots stay readable. */
  async del(): Promise<void> {}

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') await this.put(op.key, op.value);
  }

  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }

  async open(): Promise<void> {}

  /** The nodes written since the last call, as records of `slot`'s commit. */
  takeBatch(slot: number): { extras: NonNullable<SlotCommit['extras']>; keys: string[] } {
    const keys = this.batchKeys;
    this.batchKeys = [];
    return { extras: keys.flatMap((key, i) => recordWithIndex(TRIE_NODE_TABLE, TRIE_INDEX_TABLE, key, [slot, i], this.unwritten.get(key)!)), keys };
  }

  /** A batch is in the store now: its nodes are read from there (the newest from memory). */
  written(keys: string[]): void {
    for (const k of keys) {
      const encoded = this.unwritten.get(k);
      this.unwritten.delete(k);
      if (encoded) this.remember(k, encoded);
    }
  }
}

/** An account as its trie leaf encodes it. */
export const encodeAccountLeaf = (a: EvmAccount, storageRoot: Uint8Array): Uint8Array =>
  encodeRlp([bigIntToUnpaddedBytes(a.nonce), bigIntToUnpaddedBytes(a.balance), storageRoot, a.codeHash]);

export interface TrieSeal {
  stateRoot: Uint8Array;
  extras: NonNullable<SlotCommit['extras']>;
  /** Trie node keys to release from memory once the commit is durable. */
  nodeKeys: string[];
}

export class EvmStateTrie {
  private readonly db: StoreNodeDb;
  private constructor(
    /** For reads of past states. */
    private readonly trie: MerklePatriciaTrie,
    db: StoreNodeDb,
    /** Storage roots of accounts with storage, as of the last sealed slot. */
    private readonly storageRoots: Map<string, Uint8Array>,
    private stateRoot: Uint8Array,
  ) {
    this.db = db;
  }

  static async open(store: TrieSource, stateRoot: Uint8Array | null): Promise<EvmStateTrie> {
    const db = new StoreNodeDb(store);
    // The node cache is the database's (cacheSize 0 here): one copy of each node in memory.
    const trie = await createMPT({ db, useKeyHashing: true, useKeyHashingFunction: keccak256, valueEncoding: ValueEncoding.Bytes, cacheSize: 0 });
    const roots = new Map<string, Uint8Array>();
    for await (const [key, value] of store.scanExtras(STORAGE_ROOT_TABLE)) roots.set(key as string, value as Uint8Array);
    return new EvmStateTrie(trie, db, roots, stateRoot ?? EMPTY_TRIE_ROOT);
  }

  get root(): Uint8Array {
    return this.stateRoot;
  }

  storageRoot(address: string): Uint8Array {
    return this.storageRoots.get(address) ?? EMPTY_STORAGE_ROOT;
  }

  /**
   * Applies one slot's changes; `after` reads the state as of the end of the slot. Returns the new
   * state root and the records (new nodes, changed storage roots) for the slot's commit.
   */
  async apply(slot: number, changes: EvmChanges, after: EvmStateReader): Promise<TrieSeal> {
    const touched = new Set<string>([...changes.accounts.keys(), ...changes.storage.keys(), ...changes.cleared]);
    const rootRecords: NonNullable<SlotCommit['extras']> = [];
    const accounts = new TrieBatch(this.stateRoot, this.db);
    for (const address of touched) {
      const account = after.account(address);
      const key = keccak256(hexToBytes(address as `0x${string}`));
      if (!account) {
        await accounts.del(key);
        if (this.storageRoots.delete(address)) rootRecords.push({ table: STORAGE_ROOT_TABLE, key: address, value: null });
        continue;
      }
      let storageRoot = this.storageRoot(address);
      if (changes.cleared.has(address) || changes.storage.has(address)) {
        storageRoot = await this.updateStorage(changes.cleared.has(address) ? EMPTY_STORAGE_ROOT : storageRoot, changes.storage.get(address));
        const empty = bytesToHex(storageRoot) === bytesToHex(EMPTY_STORAGE_ROOT);
        if (empty) this.storageRoots.delete(address);
        else this.storageRoots.set(address, storageRoot);
        rootRecords.push({ table: STORAGE_ROOT_TABLE, key: address, value: empty ? null : storageRoot });
      }
      await accounts.put(key, encodeAccountLeaf(account, storageRoot));
    }
    this.stateRoot = accounts.commit((hash, encoded) => this.db.putNode(hash, encoded));
    const { extras, keys } = this.db.takeBatch(slot);
    return { stateRoot: this.stateRoot, extras: [...extras, ...rootRecords], nodeKeys: keys };
  }

  /**
   * After a revert: the trie at `stateRoot` again, with the storage roots the revert put back (null:
   * none). Nodes of the discarded slots may stay in the node cache: they are content-addressed, so
   * no root reached from here names them.
   */
  revertTo(stateRoot: Uint8Array, storageRoots: Iterable<[string, Uint8Array | null]>): void {
    this.stateRoot = stateRoot;
    for (const [address, root] of storageRoots) (root ? this.storageRoots.set(address, root) : this.storageRoots.delete(address));
  }

  /**
   * After a chain reset: the trie at `stateRoot` again, with the storage roots the store holds now.
   * Cached nodes of the state before are content-addressed, as after a revert: no root reached from
   * here names them.
   */
  async reopen(store: TrieSource, stateRoot: Uint8Array): Promise<void> {
    this.stateRoot = stateRoot;
    this.storageRoots.clear();
    for await (const [key, value] of store.scanExtras(STORAGE_ROOT_TABLE)) this.storageRoots.set(key as string, value as Uint8Array);
  }

  written(nodeKeys: string[]): void {
    this.db.written(nodeKeys);
  }

  private async updateStorage(root: Uint8Array, slots: ReadonlyMap<string, Uint8Array> | undefined): Promise<Uint8Array> {
    const storage = new TrieBatch(root, this.db);
    for (const [slot, value] of slots ?? []) {
      const key = keccak256(hexToBytes(slot as `0x${string}`));
      if (value.length === 0) await storage.del(key);
      else await storage.put(key, encodeRlp(value));
    }
    return storage.commit((hash, encoded) => this.db.putNode(hash, encoded));
  }

  /** An account at a past state root (null when absent). */
  async accountAt(stateRoot: Uint8Array, address: string): Promise<{ account: EvmAccount; storageRoot: Uint8Array } | null> {
    const view = this.trie.shallowCopy(false);
    view.root(stateRoot);
    const leaf = await view.get(hexToBytes(address as `0x${string}`));
    if (!leaf) return null;
    const [nonce, balance, storageRoot, codeHash] = RLP.decode(leaf) as Uint8Array[];
    const big = (b: Uint8Array) => (b.length === 0 ? 0n : BigInt(bytesToHex(b)));
    return { account: { nonce: big(nonce!), balance: big(balance!), codeHash: codeHash ?? EMPTY_CODE_HASH }, storageRoot: storageRoot! };
  }

  /** A storage value (no leading zeros) under a past storage root. */
  async storageAt(storageRoot: Uint8Array, slot: string): Promise<Uint8Array> {
    const view = this.trie.shallowCopy(false);
    view.root(storageRoot);
    const v = await view.get(hexToBytes(slot as `0x${string}`));
    return v ? (RLP.decode(v) as Uint8Array) : new Uint8Array(0);
  }
}
