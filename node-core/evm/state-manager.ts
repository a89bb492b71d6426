/**
 * @ethereumjs's StateManagerInterface over the layered flat state: checkpoints push a layer, commit
 * folds it into the one below, revert drops it. The lowest layer collects a whole transaction's
 * changes for the native transaction scope to keep or throw away.
 */
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { Account, bytesToHex, type Address } from '@ethereumjs/util';
import { keccak256 } from '../common/hash.ts';
import { EMPTY_BYTES, EMPTY_CODE_HASH, EMPTY_STORAGE_ROOT, EvmChanges, isEmptyCodeHash, layeredAccount, layeredCode, layeredStorage, newEvmAccount, type EvmAccount, type EvmStateSource } from './state.ts';


/** Storage values are kept without leading zeros, as the trie stores them. */
function stripZeros(v: Uint8Array): Uint8Array {
  let i = 0;
  while (i < v.length && v[i] === 0) i++;
  return i === 0 ? v : v.subarray(i);
}

/**
 * Addresses as the flat state's keys, for the last few Address objects asked about. @ethereumjs asks
 * about the same few Address objects (caller, callee) many times in a call, and toString makes the
 * hex string anew each time (~1 µs with hashing the new string for the lookup; ~10 times per eth_call
 * of a view function). Compared by identity: an Address's bytes are never changed after it is made
 * (@ethereumjs makes a new one for each value). A WeakMap cost as much again in its write barriers,
 * as each call brings new Address objects.
 */
const RECENT_ADDRESSES = 4;
const recentAddresses: (Address | undefined)[] = new Array(RECENT_ADDRESSES).fill(undefined);
const recentKeys: string[] = new Array(RECENT_ADDRESSES).fill('');
let nextRecent = 0;
function addressKey(address: Address): string {
  for (let i = 0; i < RECENT_ADDRESSES; i++) if (recentAddresses[i] === address) return recentKeys[i]!;
  const key = address.toString();
  recentAddresses[nextRecent] = address;
  recentKeys[nextRecent] = key;
  nextRecent = (nextRecent + 1) % RECENT_ADDRESSES;
  return key;
}

export class FlatStateManager implements StateManagerInterface {
  /** Lowest first: the transaction's changes, then one layer per open checkpoint. */
  private layers: EvmChanges[];
  private below: EvmStateSource;
  /** Values of slots at the start of the transaction (EIP-2200 gas), by address+slot. */
  private readonly originals = new Map<string, Uint8Array>();

  readonly originalStorageCache = {
    get: async (address: Address, key: Uint8Array): Promise<Uint8Array> => {
      const a = addressKey(address);
      const k = bytesToHex(key);
      const id = a + k;
      let v = this.originals.get(id);
      if (v === undefined) {
        // The state below the transaction's own changes.
        v = await this.below.storage(a, k);
        this.originals.set(id, v);
      }
      return v;
    },
    clear: (): void => this.originals.clear(),
  };

  constructor(
    below: EvmStateSource,
    txChanges: EvmChanges = new EvmChanges(),
    /** Storage roots as of the last sealed slot (CREATE's collision check reads them). */
    private readonly storageRootOf: (address: string) => Uint8Array = () => EMPTY_STORAGE_ROOT,
  ) {
    this.layers = [txChanges];
    this.below = below;
  }

  /** Points the manager at another state (one VM serves many transactions): writes go to `changes`. */
  use(below: EvmStateSource, changes: EvmChanges): void {
    this.layers = [changes];
    this.below = below;
    this.originals.clear();
  }

  /** The transaction's changes (the lowest layer). */
  get changes(): EvmChanges {
    return this.layers[0]!;
  }

  private get top(): EvmChanges {
    return this.layers[this.layers.length - 1]!;
  }

  private async readAccount(address: string): Promise<EvmAccount | null> {
    const a = layeredAccount(this.layers, address);
    return a !== undefined ? a : this.below.account(address);
  }

  private async readStorage(address: string, slot: string): Promise<Uint8Array> {
    return layeredStorage(this.layers, address, slot) ?? this.below.storage(address, slot);
  }

  private async readCode(codeHash: string): Promise<Uint8Array | undefined> {
    return layeredCode(this.layers, codeHash) ?? this.below.code(codeHash);
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const key = addressKey(address);
    const a = await this.readAccount(key);
    return a ? new Account(a.nonce, a.balance, this.storageRootOf(key), a.codeHash) : undefined;
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address);
    this.top.accounts.set(addressKey(address), { nonce: account.nonce, balance: account.balance, codeHash: account.codeHash });
  }

  async deleteAccount(address: Address): Promise<void> {
    this.top.accounts.set(addressKey(address), null);
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const key = addressKey(address);
    const a = (await this.readAccount(key)) ?? newEvmAccount();
    this.top.accounts.set(key, {
      nonce: fields.nonce ?? a.nonce,
      balance: fields.balance ?? a.balance,
      codeHash: fields.codeHash ?? a.codeHash,
    });
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    const hash = value.length === 0 ? EMPTY_CODE_HASH : keccak256(value);
    if (value.length > 0) this.top.code.set(bytesToHex(hash), value);
    await this.modifyAccountFields(address, { codeHash: hash });
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const a = await this.readAccount(addressKey(address));
    if (!a || isEmptyCodeHash(a.codeHash)) return EMPTY_BYTES;
    return (await this.readCode(bytesToHex(a.codeHash))) ?? EMPTY_BYTES;
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    return this.readStorage(addressKey(address), bytesToHex(key));
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    this.top.putStorage(addressKey(address), bytesToHex(key), stripZeros(value));
  }

  async clearStorage(address: Address): Promise<void> {
    this.top.clearStorage(addressKey(address));
  }

  async checkpoint(): Promise<void> {
    this.layers.push(new EvmChanges());
  }

  async commit(): Promise<void> {
    const top = this.layers.pop()!;
    this.top.absorb(top);
  }

  async revert(): Promise<void> {
    this.layers.pop();
  }

  async flush(): Promise<void> {}

  clearCaches(): void {}

  async getStateRoot(): Promise<Uint8Array> {
    throw new Error('the EVM state root is computed when a slot is sealed, not during execution');
  }

  async setStateRoot(): Promise<void> {
    throw new Error('historical EVM state is read through the state trie, not by resetting a state manager');
  }

  async hasStateRoot(): Promise<boolean> {
    return false;
  }

  shallowCopy(): StateManagerInterface {
    const view = { account: (a: string) => this.readAccount(a), storage: (a: string, k: string) => this.readStorage(a, k), code: (h: string) => this.readCode(h) };
    return new FlatStateManager(view, new EvmChanges(), this.storageRootOf);
  }
}
