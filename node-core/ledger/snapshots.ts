/**
 * Snapshots of the whole chain, and reverts to them (evm_snapshot/evm_revert, isthmus_snapshot/…).
 *
 * A snapshot is a slot: taking one seals the working bank and records the newest stored slot. While
 * any snapshot is kept, each later commit keeps undo records of what it overwrites (store.ts,
 * SnapshotBook), so a revert is one atomic store write that puts back each value as it stood at the
 * snapshot's slot and deletes the discarded slots' blocks, transactions, statuses and index entries;
 * then the chain drops its banks above the root and continues from the snapshot's slot (Chain.resetTo). The work
 * grows with what changed since the snapshot, not with the ledger. What the chain reads of the slots up to
 * the snapshot (recentChainState) is read when it is taken, for the newest few, not again at their revert.
 *
 * Ids are one counter shared by every port. As Anvil does, a revert deletes the snapshot it reverts
 * to and every one taken after it; those are remembered as gone, so a later revert to one of them can
 * be answered as Anvil answers it (rpc/eth/snapshots.ts). The registry is kept in the store with the
 * undo floor, so snapshots survive a restart.
 *
 * A reset (anvil_reset, surfnet_resetNetwork) returns the whole chain to its genesis: one atomic store
 * write deletes every record and writes the genesis the ledger was made with again, then the chain
 * continues from slot 0. The snapshots are gone then, as after a revert to one taken before them all.
 */
import type { SnapshotBook } from '../store/store.ts';
import type { Chain } from './chain.ts';
import type { ExtensionGenesisRecords } from './chain-extension.ts';
import { genesisRecord, genesisSlotCommit } from './genesis-commit.ts';
import { recentChainState } from './open-chain.ts';

export interface Snapshot {
  id: number;
  /** The newest stored slot when it was taken: what a revert returns to. */
  slot: number;
  blockHeight: number;
  /** The slot's block time (unix seconds). */
  blockTime: number;
  /** When it was taken (unix milliseconds). */
  takenAt: number;
  label: string | null;
  /** The extensions' counters at the slot (the EVM space's newest block), by extension name. */
  extensions: Record<string, unknown>;
}

interface Registry {
  nextId: number;
  live: Snapshot[];
  /** Deleted by a revert to an earlier one, newest last (at most GONE_KEPT). */
  gone: Snapshot[];
}

const GONE_KEPT = 256;
/** Newest snapshots whose recent chain state (recentChainState at their slot) is kept in memory. */
const RECENT_STATES_KEPT = 4;

type RecentChainState = Awaited<ReturnType<typeof recentChainState>>;
/** Longest label accepted. */
export const MAX_LABEL_LENGTH = 200;

export type RevertOutcome = { reverted: Snapshot; discardedSlots: number } | { gone: Snapshot } | { unknown: true };

export class ChainSnapshots {
  /** One operation at a time: takes, reverts and edits of the registry are serialized. */
  private turn: Promise<unknown> = Promise.resolve();
  /**
   * What a revert to each of the newest snapshots reads of the slots up to it (the blockhash queue's
   * headers, the status cache's statuses), read when it was taken: those slots do not change while it
   * lives, so its revert need not read them again. Not kept across a restart; a revert without one reads them.
   */
  private readonly recentStates = new Map<number, RecentChainState>();

  private constructor(
    private readonly chain: Chain,
    private registry: Registry,
  ) {}

  static async open(chain: Chain): Promise<ChainSnapshots> {
    const book = await chain.store.readSnapshots();
    const registry = (book?.registry as Registry | undefined) ?? { nextId: 0, live: [], gone: [] };
    return new ChainSnapshots(chain, registry);
  }

  list(): Snapshot[] {
    return this.registry.live.map((s) => structuredClone(s));
  }

  get(id: number): Snapshot | undefined {
    return this.registry.live.find((s) => s.id === id);
  }

  /** Seals the working bank (what was processed belongs to the snapshot) and records the newest stored slot. */
  take(label: string | null = null): Promise<Snapshot> {
    return this.serialized(() =>
      this.chain.exclusive(async () => {
        this.chain.sealWorkingBank();
        await this.chain.flushed();
        const meta = await this.chain.store.readMeta();
        if (!meta) throw new Error('the ledger has no stored slot');
        const snapshot: Snapshot = {
          id: this.registry.nextId,
          slot: meta.slot,
          blockHeight: meta.blockHeight ?? meta.slot,
          blockTime: meta.blockTime,
          takenAt: Date.now(),
          label,
          extensions: meta.extensions,
        };
        const recent = await recentChainState(this.chain.store, this.chain.genesis, meta);
        await this.write({ nextId: snapshot.id + 1, live: [...this.registry.live, snapshot], gone: this.registry.gone });
        this.recentStates.set(snapshot.id, recent);
        for (const id of this.recentStates.keys()) if (this.recentStates.size > RECENT_STATES_KEPT) this.recentStates.delete(id);
        return structuredClone(snapshot);
      }),
    );
  }

  /**
   * Reverts the chain to snapshot `id`, deleting it and the snapshots taken after it. An id deleted
   * by an earlier revert answers `gone` (once, as Anvil forgets it then); an id never issued, or
   * deleted, answers `unknown`. Neither changes anything else.
   */
  revert(id: number): Promise<RevertOutcome> {
    return this.serialized(async (): Promise<RevertOutcome> => {
      const target = this.get(id);
      if (!target) {
        const gone = this.registry.gone.find((s) => s.id === id);
        if (!gone) return { unknown: true };
        await this.write({ ...this.registry, gone: this.registry.gone.filter((s) => s !== gone) });
        return { gone: structuredClone(gone) };
      }
      return this.chain.exclusive(async () => {
        const live = this.registry.live.filter((s) => s.id < id);
        const deleted = this.registry.live.filter((s) => s.id >= id);
        const next: Registry = { nextId: this.registry.nextId, live, gone: [...this.registry.gone, ...deleted.filter((s) => s.id !== id)].slice(-GONE_KEPT) };
        const kept = this.recentStates.get(id);
        for (const s of deleted) this.recentStates.delete(s.id);
        const restored = await this.chain.store.revertTo(target.slot, this.bookOf(next));
        this.registry = next;
        const recent = (kept && (await this.stillStored(kept))) || (await recentChainState(this.chain.store, this.chain.genesis, restored.meta));
        await this.chain.resetTo({ meta: restored.meta, ...recent }, restored);
        return { reverted: structuredClone(target), discardedSlots: restored.discardedSlots.length };
      });
    });
  }

  /**
   * Resets the whole chain to its genesis: the genesis record, slot 0 with the genesis accounts and
   * each extension's genesis records (the EVM space's state and block 0), and nothing else; every
   * snapshot is deleted (remembered as gone, as a revert deletes later ones). A kill at any instant
   * leaves the chain before or the reset one.
   */
  reset(): Promise<void> {
    return this.serialized(() =>
      this.chain.exclusive(async () => {
        const { store, genesis, genesisHash } = this.chain;
        const extensions: ExtensionGenesisRecords[] = [];
        for (const ext of this.chain.extensions) if (ext.genesisRecords) extensions.push(await ext.genesisRecords(genesis, genesisHash));
        const next: Registry = { nextId: this.registry.nextId, live: [], gone: [...this.registry.gone, ...this.registry.live].slice(-GONE_KEPT) };
        // The record as stored (it is what the genesis hash was taken of), else the one the chain runs on.
        const record = (await store.readGenesis()) ?? genesisRecord(genesis, genesisHash);
        await store.resetToGenesis(record, genesisSlotCommit(genesis, genesisHash, extensions), this.bookOf(next));
        this.registry = next;
        this.recentStates.clear();
        const meta = await store.readMeta();
        if (!meta) throw new Error('reset: the ledger has no chain record after writing its genesis');
        await this.chain.resetToGenesis({ meta, ...(await recentChainState(store, genesis, meta)) });
      }),
    );
  }

  /** Sets (or, with null, clears) a snapshot's label; undefined when there is no such snapshot. */
  label(id: number, label: string | null): Promise<Snapshot | undefined> {
    return this.serialized(async () => {
      const target = this.get(id);
      if (!target) return undefined;
      const live = this.registry.live.map((s) => (s.id === id ? { ...s, label } : s));
      await this.write({ ...this.registry, live });
      return structuredClone(live.find((s) => s.id === id));
    });
  }

  /** Deletes a snapshot (the chain is not changed); false when there is no such snapshot. */
  delete(id: number): Promise<boolean> {
    return this.serialized(async () => {
      if (!this.get(id)) return false;
      await this.write({ ...this.registry, live: this.registry.live.filter((s) => s.id !== id) });
      this.recentStates.delete(id);
      return true;
    });
  }

  /** `recent` if every slot it read is stored still (a ledger size limit may have purged the oldest since). */
  private async stillStored(recent: RecentChainState): Promise<RecentChainState | null> {
    const oldest = recent.recentHeaders[0]?.slot;
    const firstStored = await this.chain.store.firstAvailableSlot();
    return oldest === undefined || (firstStored !== null && firstStored <= oldest) ? recent : null;
  }

  private bookOf(registry: Registry): SnapshotBook {
    const slots = registry.live.map((s) => s.slot);
    return { undoFrom: slots.length ? Math.min(...slots) : null, registry };
  }

  private async write(registry: Registry): Promise<void> {
    await this.chain.store.writeSnapshots(this.bookOf(registry));
    this.registry = registry;
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(work, work);
    this.turn = run.catch(() => {});
    return run;
  }
}
