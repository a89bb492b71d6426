/**
 * The EVM space as a chain extension: a state layer per native bank (EVM transactions run inside
 * native transactions, all or nothing), one virtual EVM block per sealed slot that ran EVM
 * transactions (never an empty one), and the records of both written in the slot's atomic commit:
 * the flat state, state-trie nodes, the block, its transactions and receipts, and an address index.
 * A block becomes visible once its slot is durable (confirmed), and final once that slot is rooted.
 */
import { EventEmitter } from 'node:events';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { decodeBase58 } from '../common/base58.ts';
import { UnrootedChanges, type Bank } from '../ledger/bank.ts';
import type { ExtensionGenesisRecords, ExtensionSeal, ChainExtension } from '../ledger/chain-extension.ts';
import { genesisBlockhash } from '../ledger/genesis-commit.ts';
import type { GenesisConfig } from '../ledger/genesis-config.ts';
import { evmGenesisOf, evmGenesisRecords } from './genesis.ts';
import type { Chain } from '../ledger/chain.ts';
import type { Commitment } from '../ledger/commitment.ts';
import type { RevertedRecords, SlotCommit, Store } from '../store/store.ts';
import { EvmBankLayer } from './bank-layer.ts';
import { findByHash, recordWithIndex } from './hash-index.ts';
import { buildBlock } from './block-builder.ts';
import { BASE_FEE_PER_GAS } from './constants.ts';
import { EvmMachine } from './machine.ts';
import { EVM_EXTENSION } from './program.ts';
import {
  ACCOUNT_TABLE,
  ADDRESS_TX_TABLE,
  BLOCK_HASH_TABLE,
  BLOCK_TABLE,
  CODE_TABLE,
  CREATOR_TABLE,
  NONCE_TABLE,
  decodeAccountRecord,
  decodeBlockRecord,
  decodeTxRecord,
  encodeAccountRecord,
  encodeBlockRecord,
  encodeTxRecord,
  LEGACY_TX_TABLE,
  STORAGE_TABLE,
  TX_INDEX_TABLE,
  TX_TABLE,
  txRecordHash,
  type EvmBlockRecord,
  type EvmSpaceMeta,
  type EvmTxRecord,
  type Hex,
  type TxTuple,
} from './records.ts';
import { EvmBaseState, type EvmAccount, type EvmStateReader, type EvmStateSource } from './state.ts';
import { EvmStateTrie, STORAGE_ROOT_TABLE } from './state-trie.ts';
import { TransactionDecoder } from './transaction.ts';

export type { EvmSpaceMeta } from './records.ts';

/** Blocks kept in memory (BLOCKHASH's 256, the finalized head, and the RPC's usual reads). */
const RECENT_BLOCKS = 300;
/**
 * Transaction records kept with the newest of those blocks, at most: a block of a burst holds over a
 * thousand, so 300 blocks' worth would be hundreds of MB. Older blocks' transactions are read from
 * the store. The newest block keeps its own whatever its size. Each record held costs ~0.5 KB of
 * heap for as long as its block is among the newest 300 (two minutes): 4,096 of them kept ~1.5 MB
 * more of a burst resident after it than 1,024.
 */
const RECENT_TXS = 1_024;

interface Deferred<T> {
  promise: Promise<T>;
  resolve(v: T): void;
}
function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export interface EvmSpaceEvents {
  /** A block became visible (its slot is confirmed). */
  block: [EvmBlockRecord, EvmTxRecord[]];
}

export class EvmSpace extends EventEmitter<EvmSpaceEvents> implements ChainExtension {
  readonly name = EVM_EXTENSION;
  readonly base = new EvmBaseState();
  /**
   * What the unrooted layers changed (EvmBankLayer reads skip the walk for any other address). A
   * revert or reset starts a new one, as the chain then opens all its banks again: layers of the
   * dropped banks keep the old one, so a read still running over one of them answers as before.
   */
  private unrooted = new UnrootedChanges<string>();
  readonly decoder: TransactionDecoder;
  private chainRef: Chain | null = null;
  /** The newest sealed block (its slot may not be durable yet). */
  private sealedHead: { number: number; hash: Hex };
  /** The newest block whose slot is durable: what the RPC shows. */
  private visible: EvmBlockRecord;
  /** The newest blocks, oldest first; `txs` null once the block has left the transaction budget. */
  private readonly recent = new Map<number, { block: EvmBlockRecord; txs: EvmTxRecord[] | null }>();
  /** Transaction records held in `recent`. */
  private recentTxs = 0;
  private readonly hashesPending = new Map<number, Deferred<Uint8Array>>();
  private readonly nodeKeysBySlot = new Map<number, string[]>();
  private nextNumberAtStart: number;

  private constructor(
    readonly chainId: number,
    readonly store: Store,
    /** Runs the chain's EVM transactions (one at a time, in the working bank). */
    readonly machine: EvmMachine,
    /** Runs eth_call and eth_estimateGas, beside the chain's machine. */
    readonly callMachine: EvmMachine,
    readonly trie: EvmStateTrie,
    meta: EvmSpaceMeta,
    head: EvmBlockRecord,
  ) {
    super();
    this.decoder = new TransactionDecoder(machine.common);
    this.sealedHead = meta.head;
    this.visible = head;
    this.nextNumberAtStart = meta.nextBlockNumber;
  }

  /** The space as the store left it: the flat state, the trie at its last root, the newest blocks. */
  static async open(store: Store, chainId: number, meta: EvmSpaceMeta): Promise<EvmSpace> {
    const trie = await EvmStateTrie.open(store, hexToBytes(meta.stateRoot));
    let space!: EvmSpace;
    const blockHash = (n: bigint) => space.blockHash(Number(n));
    const storageRoot = (address: string) => trie.storageRoot(address);
    const machine = await EvmMachine.create(chainId, blockHash, storageRoot);
    const callMachine = await EvmMachine.create(chainId, blockHash, storageRoot);
    const headRecord = await readBlock(store, meta.head.number);
    if (!headRecord) throw new Error(`the EVM space's newest block ${meta.head.number} is missing from the store`);
    space = new EvmSpace(chainId, store, machine, callMachine, trie, meta, headRecord);
    await space.loadState();
    const blocks: EvmBlockRecord[] = [];
    for (let n = Math.max(0, meta.head.number - RECENT_BLOCKS + 1); n <= meta.head.number; n++) {
      const block = await readBlock(store, n);
      if (block) blocks.push(block);
    }
    // Only the newest blocks within the budget are read with their transactions.
    let budget = RECENT_TXS;
    const withTxs = new Set<number>();
    for (let i = blocks.length - 1; i >= 0 && blocks[i]!.transactions.length <= budget; i--) {
      budget -= blocks[i]!.transactions.length;
      withTxs.add(blocks[i]!.number);
    }
    for (const block of blocks) space.remember(block, withTxs.has(block.number) ? await space.readTxs(block) : null);
    return space;
  }

  private async loadState(): Promise<void> {
    for await (const [key, value] of this.store.scanExtras(ACCOUNT_TABLE)) this.base.accounts.set(key as string, decodeAccountRecord(value as Uint8Array));
    for await (const [key, value] of this.store.scanExtras(STORAGE_TABLE)) {
      const [address, slot] = key as [string, string];
      let slots = this.base.storageByAddress.get(address);
      if (!slots) this.base.storageByAddress.set(address, (slots = new Map()));
      slots.set(slot, value as Uint8Array);
    }
    for await (const [key, value] of this.store.scanExtras(CODE_TABLE)) this.base.codes.set(key as string, value as Uint8Array);
  }

  attach(chain: Chain): void {
    this.chainRef = chain;
  }

  private get chain(): Chain {
    if (!this.chainRef) throw new Error('the EVM space is not attached to a chain');
    return this.chainRef;
  }

  // ---- chain extension ----

  openBank(bank: Bank, parent: Bank | null): void {
    const parentLayer = parent ? (parent.extensions.get(EVM_EXTENSION) as EvmBankLayer) : null;
    const number = parentLayer ? parentLayer.nextBlockNumber : BigInt(this.nextNumberAtStart);
    // The parent was just sealed: a block it made gets its hash when its seal runs.
    if (parentLayer && parentLayer.makesBlock) this.hashesPending.set(Number(parentLayer.blockNumber), deferred());
    const prevRandao = decodeBase58((parent ?? bank).blockhash!);
    const env = { number, timestamp: BigInt(bank.sysvars.clock.unixTimestamp), prevRandao, baseFeePerGas: BASE_FEE_PER_GAS };
    bank.extensions.set(EVM_EXTENSION, new EvmBankLayer(bank.slot, parentLayer, this.base, env, this.unrooted));
  }

  async seal(bank: Bank): Promise<ExtensionSeal> {
    const layer = bank.extensions.get(EVM_EXTENSION) as EvmBankLayer;
    if (!layer.makesBlock && layer.changes.isEmpty) return { extras: [], meta: this.meta(bytesToHex(this.trie.root)) };
    const extras: NonNullable<SlotCommit['extras']> = [];
    await this.flatStateRecords(layer, extras);
    const trieSeal = await this.trie.apply(bank.slot, layer.changes, layer);
    extras.push(...trieSeal.extras);
    this.nodeKeysBySlot.set(bank.slot, trieSeal.nodeKeys);
    // State edited without a block (anvil_setBalance, …): the next block's state root includes it.
    if (!layer.makesBlock) return { extras, meta: this.meta(bytesToHex(trieSeal.stateRoot)) };
    const block = await buildBlock(this.machine.common, {
      number: Number(layer.blockNumber),
      parentHash: this.sealedHead.hash,
      env: layer.env,
      stateRoot: trieSeal.stateRoot,
      transactions: layer.transactions,
      nativeSlot: bank.slot,
      nativeBlockhash: bank.blockhash!,
    });
    extras.push({ table: BLOCK_TABLE, key: block.number, value: encodeBlockRecord(block) });
    extras.push({ table: BLOCK_HASH_TABLE, key: block.hash, value: block.number });
    for (const t of layer.transactions) {
      extras.push(...recordWithIndex(TX_TABLE, TX_INDEX_TABLE, t.hash, [t.blockNumber, t.index], encodeTxRecord(t)));
      const { nonce, to } = envelopeOf(t.raw);
      for (const address of involvedAddresses(t, to)) extras.push({ table: ADDRESS_TX_TABLE, key: [address, t.blockNumber, t.index], value: 0 });
      for (const c of t.created) extras.push({ table: CREATOR_TABLE, key: c.address, value: [c.creator, t.hash] });
      extras.push({ table: NONCE_TABLE, key: [t.from, Number(nonce)], value: [t.blockNumber, t.index] });
    }
    this.sealedHead = { number: block.number, hash: block.hash };
    this.remember(block, layer.transactions);
    this.hashesPending.get(block.number)?.resolve(hexToBytes(block.hash));
    this.hashesPending.delete(block.number);
    return { extras, meta: this.meta(bytesToHex(trieSeal.stateRoot)) };
  }

  committed(bank: Bank): void {
    const keys = this.nodeKeysBySlot.get(bank.slot);
    if (keys) {
      this.trie.written(keys);
      this.nodeKeysBySlot.delete(bank.slot);
    }
    const layer = bank.extensions.get(EVM_EXTENSION) as EvmBankLayer | undefined;
    if (!layer || !layer.makesBlock) return;
    const entry = this.recent.get(Number(layer.blockNumber));
    if (!entry) return;
    this.visible = entry.block;
    this.emit('block', entry.block, entry.txs ?? layer.transactions);
  }

  retimed(bank: Bank): void {
    const layer = bank.extensions.get(EVM_EXTENSION) as EvmBankLayer;
    layer.env.timestamp = BigInt(bank.sysvars.clock.unixTimestamp);
  }

  rooted(banks: Bank[]): void {
    for (const bank of banks) {
      const layer = bank.extensions.get(EVM_EXTENSION) as EvmBankLayer;
      this.base.fold(layer.changes);
      layer.uncount();
      layer.parent = null;
    }
  }

  /**
   * The chain was reverted to a snapshot's slot: the flat state is brought to the store's (the dropped
   * committed layers folded in, then the records the revert put back over them), the trie to the
   * state root of then, and the newest block to the one of then.
   */
  async reverted(r: { banks: Bank[]; extras: RevertedRecords['extras']; meta: unknown }): Promise<void> {
    const meta = r.meta as EvmSpaceMeta;
    for (const bank of r.banks) {
      const layer = bank.extensions.get(EVM_EXTENSION) as EvmBankLayer | undefined;
      if (layer) this.base.fold(layer.changes);
    }
    this.unrooted = new UnrootedChanges<string>();
    const storageRoots: Array<[string, Uint8Array | null]> = [];
    for (const { table, key, value } of r.extras) {
      if (table === ACCOUNT_TABLE) (value ? this.base.accounts.set(key as string, decodeAccountRecord(value as Uint8Array)) : this.base.accounts.delete(key as string));
      else if (table === CODE_TABLE) (value ? this.base.codes.set(key as string, value as Uint8Array) : this.base.codes.delete(key as string));
      else if (table === STORAGE_ROOT_TABLE) storageRoots.push([key as string, value as Uint8Array | null]);
      else if (table === STORAGE_TABLE) {
        const [address, slot] = key as [string, string];
        let slots = this.base.storageByAddress.get(address);
        if (value) {
          if (!slots) this.base.storageByAddress.set(address, (slots = new Map()));
          slots.set(slot, value as Uint8Array);
        } else if (slots) {
          slots.delete(slot);
          if (slots.size === 0) this.base.storageByAddress.delete(address);
        }
      }
    }
    this.trie.revertTo(hexToBytes(meta.stateRoot), storageRoots);
    const head = await readBlock(this.store, meta.head.number);
    if (!head) throw new Error(`the EVM space's block ${meta.head.number} is missing from the store after a revert`);
    for (const n of [...this.recent.keys()]) if (n > meta.head.number) this.forgetRecent(n);
    this.hashesPending.clear();
    this.nodeKeysBySlot.clear();
    this.sealedHead = meta.head;
    this.visible = head;
    this.nextNumberAtStart = meta.nextBlockNumber;
  }

  /** The space's records of slot 0, made from the genesis record alone (a chain reset writes them again). */
  async genesisRecords(genesis: GenesisConfig, genesisHash: string): Promise<ExtensionGenesisRecords> {
    const evm = evmGenesisOf(genesis);
    if (!evm) throw new Error('the genesis record has no EVM section');
    const records = await evmGenesisRecords(evm, { creationTime: genesis.creationTime, blockhash: genesisBlockhash(genesisHash) });
    return { name: EVM_EXTENSION, ...records };
  }

  /** The store was reset to genesis: the flat state, the trie and the newest block are read again from it. */
  async resetToGenesis(meta: unknown): Promise<void> {
    const m = meta as EvmSpaceMeta;
    this.base.accounts.clear();
    this.base.storageByAddress.clear();
    this.base.codes.clear();
    this.unrooted = new UnrootedChanges<string>();
    await this.loadState();
    await this.trie.reopen(this.store, hexToBytes(m.stateRoot));
    const head = await readBlock(this.store, m.head.number);
    if (!head) throw new Error(`the EVM space's block ${m.head.number} is missing from the store after a reset`);
    this.recent.clear();
    this.hashesPending.clear();
    this.nodeKeysBySlot.clear();
    this.remember(head, []);
    this.sealedHead = m.head;
    this.visible = head;
    this.nextNumberAtStart = m.nextBlockNumber;
  }

  private meta(stateRoot: Hex): EvmSpaceMeta {
    return { nextBlockNumber: this.sealedHead.number + 1, head: this.sealedHead, stateRoot };
  }

  /** The slot's flat-state records: changed accounts, storage slots (a cleared account's old ones deleted) and new code. */
  private async flatStateRecords(layer: EvmBankLayer, extras: NonNullable<SlotCommit['extras']>): Promise<void> {
    const changes = layer.changes;
    for (const address of changes.cleared) {
      // The store holds every slot up to the parent's, so its keys are exactly what to delete.
      for await (const [key] of this.store.scanExtras(STORAGE_TABLE, { start: [address], end: [address, '~'] })) {
        if (!changes.storage.get(address)?.has((key as [string, string])[1])) extras.push({ table: STORAGE_TABLE, key: key as [string, string], value: null });
      }
    }
    for (const [address, slots] of changes.storage) {
      for (const [slot, value] of slots) extras.push({ table: STORAGE_TABLE, key: [address, slot], value: value.length === 0 ? null : value });
    }
    for (const [address, account] of changes.accounts) extras.push({ table: ACCOUNT_TABLE, key: address, value: account ? encodeAccountRecord(account) : null });
    for (const [hash, code] of changes.code) extras.push({ table: CODE_TABLE, key: hash, value: code });
  }

  private remember(block: EvmBlockRecord, txs: EvmTxRecord[] | null): void {
    this.recent.set(block.number, { block, txs });
    this.recentTxs += txs?.length ?? 0;
    this.forgetRecent(block.number - RECENT_BLOCKS);
    // The oldest blocks give up their transactions first; the newest block keeps its own.
    for (const [n, entry] of this.recent) {
      if (this.recentTxs <= RECENT_TXS || n === block.number) break;
      if (!entry.txs) continue;
      this.recentTxs -= entry.txs.length;
      entry.txs = null;
    }
  }

  private forgetRecent(number: number): void {
    const entry = this.recent.get(number);
    if (!entry) return;
    this.recentTxs -= entry.txs?.length ?? 0;
    this.recent.delete(number);
  }

  // ---- reads ----

  /** The hash of a block (BLOCKHASH); waits for the seal of a block sealed moments ago. */
  async blockHash(number: number): Promise<Uint8Array> {
    const pending = this.hashesPending.get(number);
    if (pending) return pending.promise;
    const block = this.recent.get(number)?.block ?? (await readBlock(this.store, number));
    return block ? hexToBytes(block.hash) : new Uint8Array(32);
  }

  /** The newest visible block. */
  get head(): EvmBlockRecord {
    return this.visible;
  }

  isFinalized(block: EvmBlockRecord): boolean {
    return block.nativeSlot <= this.chain.rootSlot;
  }

  /** The state a bank at `commitment` sees: latest = confirmed (the newest block's), pending = processed, safe/finalized = rooted. */
  stateAt(commitment: Commitment): EvmBankLayer {
    return this.chain.bankAt(commitment).extensions.get(EVM_EXTENSION) as EvmBankLayer;
  }

  /** The newest block a bank at `commitment` contains. */
  headAt(commitment: Commitment): EvmBlockRecord {
    if (commitment === 'confirmed' || commitment === 'processed') return this.visible;
    const rootSlot = this.chain.rootSlot;
    for (let n = this.visible.number; n >= 0 && this.recent.has(n); n--) {
      const b = this.recent.get(n)!.block;
      if (b.nativeSlot <= rootSlot) return b;
    }
    return this.recent.get(Math.min(...this.recent.keys()))!.block;
  }

  async block(number: number): Promise<EvmBlockRecord | null> {
    if (number > this.visible.number) return null;
    return this.recent.get(number)?.block ?? readBlock(this.store, number);
  }

  async blockByHash(hash: string): Promise<EvmBlockRecord | null> {
    const n = (await this.store.getExtra(BLOCK_HASH_TABLE, hash.toLowerCase())) as number | null;
    return n === null ? null : this.block(n);
  }

  /** A visible transaction by hash. */
  async transaction(hash: string): Promise<EvmTxRecord | null> {
    return this.ifVisible(await this.readTx(hash.toLowerCase()));
  }

  private ifVisible(t: EvmTxRecord | null): EvmTxRecord | null {
    return t && t.blockNumber <= this.visible.number ? t : null;
  }

  async blockTransactions(block: EvmBlockRecord): Promise<EvmTxRecord[]> {
    return this.recent.get(block.number)?.txs ?? this.readTxs(block);
  }

  private async readTxs(block: EvmBlockRecord): Promise<EvmTxRecord[]> {
    const inOrder: EvmTxRecord[] = [];
    for await (const [, v] of this.store.scanExtras(TX_TABLE, { start: [block.number], end: [block.number + 1] })) inOrder.push(decodeTxRecord(v as TxTuple));
    if (inOrder.length === block.transactions.length) return inOrder;
    // A block of a ledger written before transactions were kept in block order.
    const txs = await Promise.all(block.transactions.map((h) => this.readTx(h)));
    return txs.filter((t): t is EvmTxRecord => t !== null);
  }

  private async readTxAt(block: number, index: number): Promise<EvmTxRecord | null> {
    const v = await this.store.getExtra(TX_TABLE, [block, index]);
    return v ? decodeTxRecord(v as TxTuple) : null;
  }

  private async readTx(hash: string): Promise<EvmTxRecord | null> {
    const v =
      (await findByHash(this.store, TX_TABLE, TX_INDEX_TABLE, hash, (record) => (txRecordHash(record) === hash ? record : null))) ??
      (await this.store.getExtra(LEGACY_TX_TABLE, hash));
    return v ? decodeTxRecord(v as TxTuple) : null;
  }

  /**
   * Visible transactions that involve `address` (the address index), as [block, index, hash]: newest
   * first from below block `below` (exclusive; undefined = from the newest), or oldest first from
   * above block `above` (exclusive). Stop iterating to stop reading.
   */
  async *addressHistory(address: string, from: { below?: number } | { above: number }): AsyncGenerator<[number, number, Hex]> {
    const a = address.toLowerCase();
    const range =
      'above' in from
        ? { start: [a, from.above + 1], end: [a, Number.MAX_SAFE_INTEGER] }
        : { start: [a, from.below ?? Number.MAX_SAFE_INTEGER], end: [a], reverse: true };
    for await (const [key, value] of this.store.scanExtras(ADDRESS_TX_TABLE, range)) {
      const [, block, index] = key as [string, number, number];
      if (block > this.visible.number) {
        if ('above' in from) return;
        continue;
      }
      // Older ledgers keep the hash beside the position.
      const hash = typeof value === 'string' ? (value as Hex) : txRecordHash(await this.store.getExtra(TX_TABLE, [block, index]));
      yield [block, index, hash];
    }
  }

  /** The visible transaction `sender` signed with `nonce` (deposits: the bridge's nonce), or null. */
  async transactionBySenderAndNonce(sender: string, nonce: bigint): Promise<EvmTxRecord | null> {
    const found = (await this.store.getExtra(NONCE_TABLE, [sender.toLowerCase(), Number(nonce)])) as [number, number] | string | null;
    if (typeof found === 'string') return this.transaction(found); // an older ledger's: the hash
    return found ? this.ifVisible(await this.readTxAt(found[0], found[1])) : null;
  }

  /** Who created the contract at `address` (at any depth) and in which visible transaction; null for an address no transaction created. */
  async contractCreator(address: string): Promise<{ creator: Hex; hash: Hex } | null> {
    const v = (await this.store.getExtra(CREATOR_TABLE, address.toLowerCase())) as [Hex, Hex] | null;
    if (!v) return null;
    return (await this.transaction(v[1])) ? { creator: v[0], hash: v[1] } : null;
  }

  /**
   * The state of a past block: a reader over the state trie at its root (async), for block tags
   * older than what the banks hold.
   */
  historicalState(block: EvmBlockRecord): HistoricalState {
    return new HistoricalState(this.trie, hexToBytes(block.stateRoot), (hash) => this.codeByHash(hash));
  }

  async codeByHash(hash: string): Promise<Uint8Array | undefined> {
    const c = this.base.code(hash);
    if (c) return c;
    const stored = await this.store.getExtra(CODE_TABLE, hash);
    return (stored as Uint8Array | null) ?? undefined;
  }

  /** Reads for the RPC at a commitment: a bank layer (synchronous). */
  readerAt(commitment: Commitment): EvmStateReader {
    return this.stateAt(commitment);
  }
}

/**
 * Addresses a transaction involves, for the address index: sender, receiver (`to`, from its
 * envelope) or created contract, log emitters, and the callers, callees and contracts created of its
 * inner calls.
 */
function involvedAddresses(t: EvmTxRecord, to: string | null): Set<string> {
  const out = new Set<string>([t.from]);
  if (to) out.add(to);
  if (t.contractAddress) out.add(t.contractAddress);
  for (const log of t.logs) out.add(log.address);
  for (const c of t.created) out.add(c.address);
  for (const a of t.internal) out.add(a);
  return out;
}

/** The `to` of a raw transaction, or null for a contract creation. */
export function recipientOf(raw: Uint8Array): string | null {
  return envelopeOf(raw).to;
}

/** The nonce and `to` (null for a contract creation) of a raw transaction. */
export function envelopeOf(raw: Uint8Array): { nonce: bigint; to: string | null } {
  // Decoding is cheaper than parsing field positions of five envelope types by hand.
  const type = raw[0]! <= 0x7f ? raw[0]! : 0;
  const list = (type === 0 ? rlpDecode(raw) : rlpDecode(raw.subarray(1))) as Uint8Array[];
  const toIndex = type === 0 ? 3 : type === 1 ? 4 : 5;
  const to = list[toIndex]!;
  const nonce = list[type === 0 ? 0 : 1]!;
  return { nonce: nonce.length ? BigInt(bytesToHex(nonce)) : 0n, to: to.length === 20 ? bytesToHex(to) : null };
}

const rlpDecode = (b: Uint8Array) => RLP.decode(b);

async function readBlock(store: Store, number: number): Promise<EvmBlockRecord | null> {
  const v = await store.getExtra(BLOCK_TABLE, number);
  return v ? decodeBlockRecord(v as Parameters<typeof decodeBlockRecord>[0]) : null;
}

/** The state at a past block, read through the trie. */
export class HistoricalState implements EvmStateSource {
  private readonly accounts = new Map<string, Promise<{ account: EvmAccount; storageRoot: Uint8Array } | null>>();

  constructor(
    private readonly trie: EvmStateTrie,
    private readonly root: Uint8Array,
    private readonly codeOf: (hash: string) => Promise<Uint8Array | undefined>,
  ) {}

  private entry(address: string) {
    let e = this.accounts.get(address);
    if (!e) this.accounts.set(address, (e = this.trie.accountAt(this.root, address)));
    return e;
  }

  async account(address: string): Promise<EvmAccount | null> {
    return (await this.entry(address))?.account ?? null;
  }

  async storage(address: string, slot: string): Promise<Uint8Array> {
    const a = await this.entry(address);
    return a ? this.trie.storageAt(a.storageRoot, slot) : new Uint8Array(0);
  }

  code(codeHash: string): Promise<Uint8Array | undefined> {
    return this.codeOf(codeHash);
  }
}
