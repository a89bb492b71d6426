/**
 * The dashboard's live model: the last blocks and transactions (kept to a fixed number, so memory stays
 * bounded however long the chain runs), pushed by blockSubscribe and caught up by polling when the
 * socket is down or the node has no blockSubscribe.
 */
import { writable, type Readable } from 'svelte/store';
import { COUNTER_CALLS, EARLY_DASHBOARD, MAX_BLOCKS, readBlocks, readDashboardFirst, type DashboardFirstRead, type RpcBlock, type SlotBlock } from './dashboard-read.ts';
import { takeEarly } from './early.ts';
import type { PubSubClient } from './pubsub.ts';
import { errorText, unwrap, type RpcClient } from './rpc.ts';

/** What the dashboard reads through: the node's RPC and its PubSub socket. */
export interface DashboardSource {
  rpc: RpcClient;
  pubsub: PubSubClient;
}

export interface BlockSummary {
  slot: number;
  parentSlot: number;
  blockhash: string;
  blockTime: number | null;
  txCount: number;
}

export interface TxSummary {
  signature: string;
  slot: number;
}

export interface DashboardState {
  blocks: BlockSummary[];
  txs: TxSummary[];
  transactionCount: number | null;
  blockHeight: number | null;
  supply: { total: number; circulating: number; nonCirculating: number } | null;
  samples: { slot: number; numTransactions: number; numSlots: number; samplePeriodSecs: number }[];
  loaded: boolean;
  error: string | null;
  live: boolean;
}

export const MAX_TXS = 25;
const CATCH_UP_MS = 1_500;

export class DashboardModel {
  private readonly store = writable<DashboardState>({ blocks: [], txs: [], transactionCount: null, blockHeight: null, supply: null, samples: [], loaded: false, error: null, live: false });
  readonly state: Readable<DashboardState> = this.store;
  private s: DashboardState;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private unsubscribe: (() => void) | undefined;
  private unwatchSocket: (() => void) | undefined;
  private lastPush = 0;
  /** The confirmed slot `transactionCount` was read at; newer blocks add their transactions to it. */
  private countedSlot = Infinity;

  constructor(private readonly c: DashboardSource) {
    this.s = { blocks: [], txs: [], transactionCount: null, blockHeight: null, supply: null, samples: [], loaded: false, error: null, live: false };
  }

  start(): void {
    void this.first();
    this.unsubscribe = this.c.pubsub.subscribe(
      'blockSubscribe',
      ['all', { commitment: 'confirmed', encoding: 'json', transactionDetails: 'signatures', showRewards: false, maxSupportedTransactionVersion: 0 }],
      (r: { value: { slot: number; block: RpcBlock | null } }) => {
        if (!r.value.block) return;
        this.lastPush = Date.now();
        this.add([{ slot: r.value.slot, ...r.value.block }]);
        this.s.live = true;
        this.publish();
      },
    );
    // A dropped socket pushes nothing: the list says so until the first push after it reconnects.
    this.unwatchSocket = this.c.pubsub.state.subscribe((state) => {
      if (state === 'open' || !this.s.live) return;
      this.s.live = false;
      this.lastPush = 0;
      this.publish();
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe?.();
    this.unwatchSocket?.();
  }

  private publish(): void {
    if (!this.stopped) this.store.set({ ...this.s });
  }

  private add(blocks: SlotBlock[]): void {
    const known = new Set(this.s.blocks.map((b) => b.slot));
    const fresh = blocks.filter((b) => !known.has(b.slot));
    if (!fresh.length) return;
    const summaries = fresh.map((b) => ({ slot: b.slot, parentSlot: b.parentSlot, blockhash: b.blockhash, blockTime: b.blockTime, txCount: b.signatures?.length ?? 0 }));
    this.s.blocks = [...summaries, ...this.s.blocks].sort((a, b) => b.slot - a.slot).slice(0, MAX_BLOCKS);
    const txs: TxSummary[] = [];
    for (const b of fresh.sort((x, y) => y.slot - x.slot)) for (const sig of [...(b.signatures ?? [])].reverse()) txs.push({ signature: sig, slot: b.slot });
    this.s.txs = [...txs, ...this.s.txs].sort((a, b) => b.slot - a.slot).slice(0, MAX_TXS);
    // The counters follow the blocks as they come, between two polls of the totals.
    for (const b of [...fresh].sort((x, y) => x.slot - y.slot)) {
      if (typeof b.blockHeight === 'number') this.s.blockHeight = Math.max(this.s.blockHeight ?? 0, b.blockHeight);
      if (b.slot > this.countedSlot && this.s.transactionCount !== null) {
        this.s.transactionCount += b.signatures?.length ?? 0;
        this.countedSlot = b.slot;
      }
    }
  }

  /**
   * Ranges of slots whose blocks the list lacks although a block it holds names one as its parent:
   * blocks confirmed after the first load read its range and before PubSub's first push, or while
   * the socket reconnected. Skipped slots make no gap (a block's parent is the block before it).
   */
  private gaps(): Array<[number, number]> {
    const known = new Set(this.s.blocks.map((b) => b.slot));
    const oldest = this.s.blocks.at(-1)?.slot ?? Infinity;
    return this.s.blocks.filter((b) => b.parentSlot >= oldest && !known.has(b.parentSlot)).map((b) => [b.parentSlot, b.slot - 1]);
  }

  private async fetchBlocks(from: number, upTo: number): Promise<void> {
    this.add(await readBlocks(this.c.rpc, from, upTo));
  }

  private async counters(): Promise<number> {
    return this.setCounters(await this.c.rpc.batch(COUNTER_CALLS));
  }

  /** Takes COUNTER_CALLS' answers; returns the confirmed slot they were read at. */
  private setCounters(answers: unknown[]): number {
    const [confirmed, count, height] = unwrap<[number, number, number]>(answers);
    this.s.transactionCount = count;
    this.countedSlot = confirmed;
    this.s.blockHeight = height;
    return confirmed;
  }

  private async first(): Promise<void> {
    try {
      // The read main.ts started at boot, when this is the page shown first; else one now.
      const read = await (takeEarly<DashboardFirstRead>(EARLY_DASHBOARD, this.c.rpc.url) ?? readDashboardFirst(this.c.rpc));
      this.setCounters(read.header.slice(0, COUNTER_CALLS.length));
      const [, supply, samples] = read.header.slice(COUNTER_CALLS.length);
      if (!(supply instanceof Error)) this.s.supply = (supply as { value: DashboardState['supply'] }).value;
      if (!(samples instanceof Error)) this.s.samples = samples as DashboardState['samples'];
      this.add(read.blocks);
      this.s.loaded = true;
      this.s.error = null;
    } catch (e) {
      this.s.error = errorText(e);
    }
    this.publish();
    this.schedule();
  }

  private schedule(): void {
    if (!this.stopped) this.timer = setTimeout(() => void this.catchUp(), CATCH_UP_MS);
  }

  private async catchUp(): Promise<void> {
    try {
      if (!this.s.loaded) return void (await this.first());
      const confirmed = await this.counters();
      for (const [from, to] of this.gaps()) await this.fetchBlocks(from, to);
      const newest = this.s.blocks[0]?.slot ?? -1;
      // PubSub keeps up on its own; poll the gap only when it has not pushed for a while.
      if (Date.now() - this.lastPush > 3 * CATCH_UP_MS && confirmed > newest) {
        this.s.live = false;
        await this.fetchBlocks(Math.max(newest + 1, confirmed - (MAX_BLOCKS - 1)), confirmed);
      }
      this.s.error = null;
    } catch (e) {
      this.s.error = errorText(e);
    }
    this.publish();
    this.schedule();
  }
}

/** Transactions per second over the blocks held, from their slots' spacing. */
export function tps(blocks: BlockSummary[], slotMs: number | undefined): number | null {
  if (blocks.length < 2) return null;
  const txs = blocks.reduce((n, b) => n + b.txCount, 0);
  const newest = blocks[0]!;
  const oldest = blocks[blocks.length - 1]!;
  const seconds = slotMs ? ((newest.slot - oldest.slot + 1) * slotMs) / 1000 : newest.blockTime && oldest.blockTime ? newest.blockTime - oldest.blockTime : 0;
  return seconds > 0 ? txs / seconds : null;
}
