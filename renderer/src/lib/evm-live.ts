/**
 * The dashboard's EVM side: the newest EVM blocks, pushed by eth_subscribe("newHeads") where the node
 * has an EVM WebSocket and polled otherwise, their finality refreshed until final. A fixed number is kept.
 */
import { writable, type Readable } from 'svelte/store';
import { takeEarly } from './early.ts';
import type { PubSubClient } from './pubsub.ts';
import { errorText, unwrap, type RpcClient } from './rpc.ts';

/** What the EVM list reads through: the node's Ethereum RPC and, where it has one, its EVM socket. */
export interface EvmLiveSource {
  evm: RpcClient;
  evmSocket: PubSubClient | null;
}

export interface EvmBlockSummary {
  number: number;
  hash: string;
  txCount: number;
  timestamp: number;
  nativeSlot: number | null;
  isFinalized: boolean | null;
}

export interface EvmLiveState {
  blocks: EvmBlockSummary[];
  loaded: boolean;
  error: string | null;
  live: boolean;
}

export const MAX_EVM_BLOCKS = 8;
const REFRESH_MS = 1_500;
const hex = (n: number) => '0x' + n.toString(16);

function summary(b: any): EvmBlockSummary {
  return {
    number: Number(BigInt(b.number)),
    hash: b.hash,
    txCount: b.transactions.length,
    timestamp: Number(BigInt(b.timestamp)),
    nativeSlot: b.nativeSlot !== undefined ? Number(BigInt(b.nativeSlot)) : null,
    isFinalized: typeof b.isFinalized === 'boolean' ? b.isFinalized : null,
  };
}

/** The name main.ts starts the first read under (lib/early.ts), for the model to take. */
export const EARLY_EVM_BLOCKS = 'evm-blocks';

/**
 * The blocks to add to those `shown`: up to the newest (the socket may be down or absent), the ones
 * shown not yet final (to refresh their finality), and any missing between those shown. Needs nothing
 * but the Ethereum RPC, so the first read (nothing shown) can start before the app has mounted.
 */
export async function readEvmBlocks(evm: RpcClient, shown: readonly EvmBlockSummary[]): Promise<EvmBlockSummary[]> {
  const latest = Number(BigInt(await evm.call<string>('eth_blockNumber')));
  const newest = shown[0]?.number ?? -1;
  const wanted = new Set<number>();
  for (let n = latest; n > newest && n >= 0 && wanted.size < MAX_EVM_BLOCKS; n--) wanted.add(n);
  for (const b of shown) if (b.isFinalized === false) wanted.add(b.number);
  // EVM block numbers have no holes: one missing between those shown was pushed past before the poll reached it.
  const numbers = new Set(shown.map((b) => b.number));
  for (let n = newest - 1; n > (shown.at(-1)?.number ?? newest); n--) if (!numbers.has(n)) wanted.add(n);
  const blocks = unwrap<any[]>(await evm.batch([...wanted].map((n) => ['eth_getBlockByNumber', [hex(n), false]] as const)));
  return blocks.filter(Boolean).map(summary);
}

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
