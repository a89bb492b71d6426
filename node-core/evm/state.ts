/**
 * The EVM's flat state: accounts, storage slots and code in maps, layered like the native banks.
 * A layer holds the changes of one slot (or of one transaction, or of one call frame) over the
 * view below it; the rooted state is the base. Reads walk the layers top-down, so execution never
 * touches the state trie, which is only updated once per sealed slot (state-trie.ts).
 *
 * Keys: addresses and storage slots as lowercase 0x-hex strings (Address.toString(), bytesToHex).
 */
import { KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import { bytesEqual } from '../common/bytes.ts';

/** An account of the flat state; its storage root lives with the state trie (state-trie.ts). */
export interface EvmAccount {
  readonly nonce: bigint;
  readonly balance: bigint;
  readonly codeHash: Uint8Array;
}

export const EMPTY_CODE_HASH = KECCAK256_NULL;
export const EMPTY_STORAGE_ROOT = KECCAK256_RLP;
export const EMPTY_BYTES = new Uint8Array(0);

export const isEmptyCodeHash = (h: Uint8Array): boolean => h === EMPTY_CODE_HASH || (h[0] === 0xc5 && h[1] === 0xd2 && h[31] === 0x70 && bytesEqual(h, EMPTY_CODE_HASH));

export const newEvmAccount = (balance = 0n): EvmAccount => ({ nonce: 0n, balance, codeHash: EMPTY_CODE_HASH });

type MaybePromise<T> = T | Promise<T>;

/** A view of the state that may answer asynchronously (a past block's, read through the trie). */
export interface EvmStateSource {
  account(address: string): MaybePromise<EvmAccount | null>;
  storage(address: string, slot: string): MaybePromise<Uint8Array>;
  code(codeHash: string): MaybePromise<Uint8Array | undefined>;
}

/** What every in-memory view of the state answers at once. */
export interface EvmStateReader extends EvmStateSource {
  account(address: string): EvmAccount | null;
  /** A storage value without leading zeros; empty when zero or unset. */
  storage(address: string, slot: string): Uint8Array;
  /** Code by its keccak256 (0x-hex). */
  code(codeHash: string): Uint8Array | undefined;
}

/** Changes over a view below: the unit a slot, a transaction and a call frame each keep. */
export class EvmChanges {
  /** null: the account was deleted. */
  readonly accounts = new Map<string, EvmAccount | null>();
  /** Per address, slot → value (empty = zero). */
  readonly storage = new Map<string, Map<string, Uint8Array>>();
  /** Addresses whose storage below this layer is gone (self-destruct, contract re-creation). */
  readonly cleared = new Set<string>();
  readonly code = new Map<string, Uint8Array>();

  get isEmpty(): boolean {
    return this.accounts.size === 0 && this.storage.size === 0 && this.cleared.size === 0 && this.code.size === 0;
  }

  putStorage(address: string, slot: string, value: Uint8Array): void {
    let slots = this.storage.get(address);
    if (!slots) this.storage.set(address, (slots = new Map()));
    slots.set(slot, value);
  }

  clearStorage(address: string): void {
    this.storage.delete(address);
    this.cleared.add(address);
  }

  /** Applies `top` (changes made over this layer) onto this layer. */
  absorb(top: EvmChanges): void {
    for (const address of top.cleared) this.clearStorage(address);
    for (const [address, slots] of top.storage) for (const [slot, value] of slots) this.putStorage(address, slot, value);
    for (const [address, account] of top.accounts) this.accounts.set(address, account);
    for (const [hash, code] of top.code) this.code.set(hash, code);
  }
}

/** An account in change layers, top-down: null when deleted there, undefined when no layer has it. */
export function layeredAccount(layers: readonly EvmChanges[], address: string): EvmAccount | null | undefined {
  for (let i = layers.length - 1; i >= 0; i--) {
    const a = layers[i]!.accounts.get(address);
    if (a !== undefined) return a;
  }
  return undefined;
}

/** A storage value in change layers, top-down: empty when a layer cleared the account, undefined when no layer knows. */
export function layeredStorage(layers: readonly EvmChanges[], address: string, slot: string): Uint8Array | undefined {
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i]!;
    const v = layer.storage.get(address)?.get(slot);
    if (v !== undefined) return v;
    if (layer.cleared.has(address)) return EMPTY_BYTES;
  }
  return undefined;
}

export function layeredCode(layers: readonly EvmChanges[], codeHash: string): Uint8Array | undefined {
  for (let i = layers.length - 1; i >= 0; i--) {
    const c = layers[i]!.code.get(codeHash);
    if (c !== undefined) return c;
  }
  return undefined;
}

/** A stack of change layers over a base reader; the top layer takes writes. */
export class LayeredState implements EvmStateReader {
  constructor(
    /** Lowest first. */
    readonly layers: EvmChanges[],
    readonly below: EvmStateReader,
  ) {}

  get top(): EvmChanges {
    return this.layers[this.layers.length - 1]!;
  }

  account(address: string): EvmAccount | null {
    const a = layeredAccount(this.layers, address);
    return a !== undefined ? a : this.below.account(address);
  }

  storage(address: string, slot: string): Uint8Array {
    return layeredStorage(this.layers, address, slot) ?? this.below.storage(address, slot);
  }

  code(codeHash: string): Uint8Array | undefined {
    return layeredCode(this.layers, codeHash) ?? this.below.code(codeHash);
  }
}

/** The rooted state: plain maps, changed only by folding rooted slots in. */
export class EvmBaseState implements EvmStateReader {
  readonly accounts = new Map<string, EvmAccount>();
  readonly storageByAddress = new Map<string, Map<string, Uint8Array>>();
  readonly codes = new Map<string, Uint8Array>();

  account(address: string): EvmAccount | null {
    return this.accounts.get(address) ?? null;
  }

  storage(address: string, slot: string): Uint8Array {
    return this.storageByAddress.get(address)?.get(slot) ?? EMPTY_BYTES;
  }

  code(codeHash: string): Uint8Array | undefined {
    return this.codes.get(codeHash);
  }

  fold(changes: EvmChanges): void {
    for (const address of changes.cleared) this.storageByAddress.delete(address);
    for (const [address, slots] of changes.storage) {
      let mine = this.storageByAddress.get(address);
      if (!mine) this.storageByAddress.set(address, (mine = new Map()));
      for (const [slot, value] of slots) (value.length === 0 ? mine.delete(slot) : mine.set(slot, value));
      if (mine.size === 0) this.storageByAddress.delete(address);
    }
    for (const [address, account] of changes.accounts) (account ? this.accounts.set(address, account) : this.accounts.delete(address));
    for (const [hash, code] of changes.code) this.codes.set(hash, code);
  }
}
