/**
 * The status bar's data: one batch a second (slots at each commitment, epoch, EVM block and chain id)
 * and the health check, with the processed slot also pushed by slotSubscribe. Errors are kept, not
 * thrown: the bar shows them and the next poll recovers.
 */
import { get, writable } from 'svelte/store';
import { connection, refreshInfo, type Connection, type LedgerInfo } from './connection.ts';
import { RpcError, errorText } from './rpc.ts';
import { SlotFollower } from './slot-follower.ts';

export interface ChainStatus {
  slot: number | null;
  confirmed: number | null;
  finalized: number | null;
  epoch: { epoch: number; slotIndex: number; slotsInEpoch: number } | null;
  evmBlock: number | null;
  evmChainId: number | null;
  genesisHash: string | null;
  /** An Isthmus node's ledger on disk (its size changes as it grows and is trimmed). */
  ledger: LedgerInfo | null;
  health: string;
  error: string | null;
  updatedAt: number;
}

const empty = (): ChainStatus => ({ slot: null, confirmed: null, finalized: null, epoch: null, evmBlock: null, evmChainId: null, genesisHash: null, ledger: null, health: 'unknown', error: null, updatedAt: 0 });

export const status = writable<ChainStatus>(empty());

/** How many times the chain was seen to go back (a revert): pages keyed on it reload what they show. */
export const rewinds = writable(0);

const POLL_MS = 1_000;

async function health(c: Connection): Promise<string> {
  try {
    const res = await fetch(c.network.rpcUrl.replace(/\/$/, '') + '/health', { signal: AbortSignal.timeout(5_000) });
    return res.ok ? (await res.text()).trim() : `HTTP ${res.status}`;
  } catch {
    return 'unreachable';
  }
}

/** `infoFresh`: the connection's isthmus_getNodeInfo was just read (the first poll), so its ledger is not asked again. */
async function poll(c: Connection, follower: SlotFollower, infoFresh: boolean): Promise<void> {
  const askedAt = follower.rewinds;
  const calls: [string, unknown[]][] = [
    ['getSlot', [{ commitment: 'processed' }]],
    ['getSlot', [{ commitment: 'confirmed' }]],
    ['getSlot', [{ commitment: 'finalized' }]],
    ['getEpochInfo', [{ commitment: 'processed' }]],
    // An Isthmus node tells its ledger's size on disk.
    ...(c.info && !infoFresh ? [['isthmus_getNodeInfo', []] as [string, unknown[]]] : []),
  ];
  const [native, evmAnswers, h] = await Promise.all([
    c.rpc.batch(calls).catch((e) => e as Error),
    c.evm.batch([['eth_blockNumber', []], ['eth_chainId', []]]).catch((e) => e as Error),
    health(c),
  ]);
  if (get(connection) !== c) return;
  const prev = get(status);
  const next: ChainStatus = { ...prev, health: h, updatedAt: Date.now(), error: null };
  if (native instanceof Error) {
    next.error = errorText(native);
  } else {
    const [slot, confirmed, finalized, epoch, info] = native as unknown[];
    if (slot instanceof RpcError) next.error = errorText(slot);
    else {
      follower.polled(slot as number, askedAt);
      next.slot = follower.slot;
      if (!(confirmed instanceof Error)) next.confirmed = confirmed as number;
      if (!(finalized instanceof Error)) next.finalized = finalized as number;
      if (!(epoch instanceof Error)) next.epoch = epoch as ChainStatus['epoch'];
      if (infoFresh && c.info) next.ledger = c.info.ledger ?? null;
      else if (info && !(info instanceof Error)) next.ledger = (info as { ledger?: LedgerInfo }).ledger ?? null;
    }
  }
  if (!(evmAnswers instanceof Error)) {
    const [bn, id] = evmAnswers as [string, string];
    next.evmBlock = typeof bn === 'string' ? Number(BigInt(bn)) : null;
    next.evmChainId = typeof id === 'string' ? Number(BigInt(id)) : null;
  }
  if (!next.genesisHash && !next.error) next.genesisHash = c.info?.genesisHash ?? ((await c.rpc.call<string>('getGenesisHash').catch(() => null)) as string | null);
  status.set(next);
  publishRewinds(follower);
  if (!next.error && !c.info) void refreshInfo();
}

function publishRewinds(follower: SlotFollower): void {
  if (get(rewinds) !== follower.rewinds) rewinds.set(follower.rewinds);
}

/** Starts polling for this connection; returns the stop. */
export function watchStatus(c: Connection): () => void {
  let stopped = false;
  const follower = new SlotFollower();
  rewinds.set(0);
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (get(status).genesisHash !== c.info?.genesisHash) status.set(empty());
  let polls = 0;
  const loop = async () => {
    try {
      await poll(c, follower, polls++ === 0);
    } finally {
      if (!stopped) timer = setTimeout(loop, POLL_MS);
    }
  };
  void loop();
  const unsubscribe = c.pubsub.subscribe('slotSubscribe', [], (r: { slot: number }) => {
    follower.pushed(r.slot);
    status.update((s) => (s.slot === follower.slot ? s : { ...s, slot: follower.slot }));
    publishRewinds(follower);
  });
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    unsubscribe();
  };
}
