/**
 * The dashboard's EVM side: the newest EVM blocks, pushed by eth_subscribe("newHeads") where the node
 * has an EVM WebSocket and polled otherwise, their finality refreshed until final. A fixed number is kept.
 */
import { writable, type Readable } from 'svelte/store';
import { takeEarly } from './early.ts';
import { EARLY_EVM_BLOCKS, MAX_EVM_BLOCKS, readEvmBlocks, summary, type EvmBlockSummary } from './evm-live-read.ts';
import type { PubSubClient } from './pubsub.ts';
import { errorText, type RpcClient } from './rpc.ts';

/** What the EVM list reads through: the node's Ethereum RPC and, where it has one, its EVM socket. */
export interface EvmLiveSource {
  evm: RpcClient;
  evmSocket: PubSubClient | null;
}

export interface EvmLiveState {
  blocks: EvmBlockSummary[];
  loaded: boolean;
  error: string | null;
  live: boolean;
}

const REFRESH_MS = 1_500;

export class EvmLiveModel {
  private readonly store = writable<EvmLiveState>({ blocks: [], loaded: false, error: null, live: false });
  readonly state: Readable<EvmLiveState> = this.store;
  private s: EvmLiveState = { blocks: [], loaded: false, error: null, live: false };
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private unsubscribe: (() => void) | undefined;
  private unwatchSocket: (() => void) | undefined;

  constructor(private readonly c: EvmLiveSource) {}

  start(): void {
    this.unsubscribe = this.c.evmSocket?.subscribe('eth_subscribe', ['newHeads'], (head: { hash: string }) => {
      this.s.live = true;
      void this.c.evm.call<any>('eth_getBlockByHash', [head.hash, false]).then((b) => b && this.add([summary(b)]), () => undefined);
    });
    // A dropped socket pushes nothing: not live until the first head after it reconnects (the poll covers meanwhile).
    this.unwatchSocket = this.c.evmSocket?.state.subscribe((state) => {
      if (state === 'open' || !this.s.live) return;
      this.s.live = false;
      this.publish();
    });
    void this.tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe?.();
    this.unwatchSocket?.();
  }

  private add(blocks: EvmBlockSummary[]): void {
    const byNumber = new Map(this.s.blocks.map((b) => [b.number, b]));
    for (const b of blocks) byNumber.set(b.number, b);
    this.s.blocks = [...byNumber.values()].sort((a, b) => b.number - a.number).slice(0, MAX_EVM_BLOCKS);
    this.publish();
  }

  private publish(): void {
    if (!this.stopped) this.store.set({ ...this.s });
  }

  /** Catches up to the newest block (the socket may be down or absent) and refreshes finality of the ones shown. */
  private async tick(): Promise<void> {
    try {
      // The first read main.ts started at boot, when this is the page shown first (and nothing is shown yet).
      const early = this.s.loaded ? undefined : takeEarly<EvmBlockSummary[]>(EARLY_EVM_BLOCKS, this.c.evm.url);
      this.add(await (early ?? readEvmBlocks(this.c.evm, this.s.blocks)));
      this.s.loaded = true;
      this.s.error = null;
    } catch (e) {
      this.s.error = errorText(e);
    }
    this.publish();
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), REFRESH_MS);
  }
}
