/**
 * The EVM space's layer of one native bank: that slot's state changes over its parent's layer, the
 * EVM transactions it executed (in order, with their receipts), and the block they will form.
 * Rooted layers are folded into the base state and cut from their children, as banks are.
 */
import type { UnrootedChanges } from '../ledger/bank.ts';
import type { BlockEnv } from './machine.ts';
import type { EvmTxRecord } from './records.ts';
import { EvmChanges, type EvmAccount, type EvmBaseState, type EvmStateReader } from './state.ts';

export class EvmBankLayer implements EvmStateReader {
  readonly changes = new EvmChanges();
  readonly transactions: EvmTxRecord[] = [];
  gasUsed = 0n;
  /** evm_mine: this slot forms a block even without transactions. */
  mined = false;
  /** Whether this layer's addresses are in `unrooted` (from when a child layer opened over it, its changes final). */
  private counted = false;

  constructor(
    readonly slot: number,
    public parent: EvmBankLayer | null,
    private readonly base: EvmBaseState,
    /** The EVM block number this slot's transactions run in (and form, if there are any). */
    readonly env: BlockEnv,
    /**
     * The addresses some unrooted layer below a working one changed (accounts, storage, cleared
     * storage). A read of any other address skips the walk down the parents to the base: during an
     * EVM burst the chain is ~34 layers of hundreds of addresses each, and every transfer to a new
     * address missed in each of them.
     */
    private readonly unrooted: UnrootedChanges<string>,
  ) {
    if (parent && !parent.counted) {
      parent.counted = true;
      for (const address of parent.changedAddresses()) unrooted.added(address);
    }
  }

  /** Rooted (folded into the base) or dropped: its addresses no longer make reads walk. */
  uncount(): void {
    if (!this.counted) return;
    this.counted = false;
    this.unrooted.folded(this.changedAddresses());
  }

  private changedAddresses(): Set<string> {
    const c = this.changes;
    return new Set([...c.accounts.keys(), ...c.storage.keys(), ...c.cleared]);
  }

  get blockNumber(): bigint {
    return this.env.number;
  }

  /** Whether this slot forms a block: it ran EVM transactions, or it was mined. */
  get makesBlock(): boolean {
    return this.mined || this.transactions.length > 0;
  }

  /** The block number after this slot: the next one when this slot made a block. */
  get nextBlockNumber(): bigint {
    return this.makesBlock ? this.env.number + 1n : this.env.number;
  }

  account(address: string): EvmAccount | null {
    const own = this.changes.accounts.get(address);
    if (own !== undefined) return own;
    if (!this.unrooted.has(address)) return this.base.account(address);
    for (let l = this.parent; l; l = l.parent) {
      if (l.changes.isEmpty) continue;
      const a = l.changes.accounts.get(address);
      if (a !== undefined) return a;
    }
    return this.base.account(address);
  }

  storage(address: string, slot: string): Uint8Array {
    const own = this.changes.storage.get(address)?.get(slot);
    if (own !== undefined) return own;
    if (this.changes.cleared.has(address)) return new Uint8Array(0);
    if (!this.unrooted.has(address)) return this.base.storage(address, slot);
    for (let l = this.parent; l; l = l.parent) {
      if (l.changes.isEmpty) continue;
      const v = l.changes.storage.get(address)?.get(slot);
      if (v !== undefined) return v;
      if (l.changes.cleared.has(address)) return new Uint8Array(0);
    }
    return this.base.storage(address, slot);
  }

  /** Every live account in this layer's view (the base overlaid with the unrooted changes). */
  *accounts(): Iterable<[string, EvmAccount]> {
    const seen = new Set<string>();
    for (let l: EvmBankLayer | null = this; l; l = l.parent) {
      for (const [address, a] of l.changes.accounts) {
        if (seen.has(address)) continue;
        seen.add(address);
        if (a) yield [address, a];
      }
    }
    for (const entry of this.base.accounts) if (!seen.has(entry[0])) yield entry;
  }

  /** Every non-zero storage slot of `address` in this layer's view (anvil_dumpState). */
  storageOf(address: string): Map<string, Uint8Array> {
    const layers: EvmBankLayer[] = [];
    for (let l: EvmBankLayer | null = this; l; l = l.parent) layers.push(l);
    const out = new Map(this.base.storageByAddress.get(address) ?? []);
    for (const l of layers.reverse()) {
      // Within a layer a clear comes before the slots written after it.
      if (l.changes.cleared.has(address)) out.clear();
      for (const [slot, value] of l.changes.storage.get(address) ?? []) (value.length === 0 ? out.delete(slot) : out.set(slot, value));
    }
    return out;
  }

  code(codeHash: string): Uint8Array | undefined {
    for (let l: EvmBankLayer | null = this; l; l = l.parent) {
      const c = l.changes.code.get(codeHash);
      if (c !== undefined) return c;
    }
    return this.base.code(codeHash);
  }
}
