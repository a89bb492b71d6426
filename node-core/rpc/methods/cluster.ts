/** Cluster, epoch, leader, identity and inflation methods. */
import { epochOf } from '../../ledger/epoch.ts';
import { foundationRate, totalRate, yearOfEpoch } from '../../ledger/inflation.ts';
import type { Commitment } from '../../ledger/commitment.ts';
import { SOLANA_RPC_COMPATIBILITY, contextSlot, withContext, type RpcContext } from '../context.ts';
import { invalidParams, noSnapshot } from '../errors.ts';
import { healthError } from '../health.ts';
import { address, commitment, commitmentConfig, config, optional, required, u64 } from '../params.ts';
import { method } from './method.ts';
import { sbfEngineStatus } from '../../runtime/sbf/load-engine.ts';

const MAX_SLOT_LEADERS_LIMIT = 5_000;
const MAX_PERFORMANCE_SAMPLES = 720;

export const getSlot = method([optional('config', commitmentConfig)], ([cfg = {}], ctx) => contextSlot(ctx, cfg.commitment ?? 'finalized', cfg.minContextSlot));

export const getBlockHeight = method([optional('config', commitmentConfig)], ([cfg = {}], ctx) => {
  contextSlot(ctx, cfg.commitment ?? 'finalized', cfg.minContextSlot);
  return ctx.chain.blockHeightAt(cfg.commitment ?? 'finalized');
});

export const getTransactionCount = method([optional('config', commitmentConfig)], ([cfg = {}], ctx) => {
  contextSlot(ctx, cfg.commitment ?? 'finalized', cfg.minContextSlot);
  return ctx.chain.totalTransactionCount;
});

export const getGenesisHash = method([], (_, ctx) => ctx.chain.genesisHash);

export const getIdentity = method([], (_, ctx) => ({ identity: ctx.identity }));

/** `node-core` is Isthmus's own version beside the Solana generation it answers as; `isthmus_sbfEngine` runs deployed programs (or why it cannot). */
export const getVersion = method([], (_, ctx) => ({ 'solana-core': SOLANA_RPC_COMPATIBILITY, 'feature-set': ctx.featureSet, 'node-core': ctx.version, isthmus_sbfEngine: sbfEngineStatus() }));

/** `ok`, or -32005 when the node is behind its known validators or none of them answers (rpc/health.ts). */
export const getHealth = method([], (_, ctx) => {
  const error = ctx.health ? healthError(ctx.health()) : null;
  if (error) throw error;
  return 'ok' as const;
});

export const getClusterNodes = method([], (_, ctx) => [
  {
    pubkey: ctx.identity,
    gossip: null,
    tpu: null,
    tpuQuic: null,
    rpc: ctx.rpcAddress,
    pubsub: ctx.pubsubAddress,
    version: ctx.version,
    featureSet: ctx.featureSet,
    shredVersion: 0,
  },
  // Known validators that told their identity, with the RPC address they are polled at.
  ...(ctx.knownValidators?.() ?? [])
    .filter((v) => v.identity !== null && v.identity !== ctx.identity)
    .map((v) => ({ pubkey: v.identity!, gossip: null, tpu: null, tpuQuic: null, rpc: v.rpc, pubsub: null, version: v.version, featureSet: v.featureSet, shredVersion: 0 })),
]);

export const getEpochSchedule = method([], (_, ctx) => ctx.chain.genesis.epochSchedule);

export const getEpochInfo = method([optional('config', commitmentConfig)], ([cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const schedule = ctx.chain.genesis.epochSchedule;
  const { epoch, slotIndex } = epochOf(schedule, slot);
  return {
    absoluteSlot: slot,
    blockHeight: ctx.chain.blockHeightAt(c),
    epoch,
    slotIndex,
    slotsInEpoch: schedule.slotsPerEpoch,
    transactionCount: ctx.chain.totalTransactionCount,
  };
});

export const getSlotLeader = method([optional('config', commitmentConfig)], ([cfg = {}], ctx) => {
  const slot = contextSlot(ctx, cfg.commitment ?? 'finalized', cfg.minContextSlot);
  const leader = ctx.chain.leaders.leaderAt(slot);
  // A bank's own epoch always has its schedule; without one the node is broken, not the request.
  if (leader === null) throw new Error(`no leader schedule for slot ${slot}, a bank's own slot`);
  return leader;
});

/** The schedule of an epoch the node knows: kept stakes, and no later than the bank's leader-schedule epoch. */
function knownSchedule(ctx: RpcContext, epoch: number, commitment: Commitment) {
  const bankEpoch = epochOf(ctx.chain.genesis.epochSchedule, ctx.chain.slotAt(commitment)).epoch;
  return epoch > bankEpoch + 1 ? null : ctx.chain.leaders.forEpoch(epoch);
}

/** Leaders of `count` slots from `start` (Agave's get_slot_leaders), or an error naming an epoch without a schedule. */
function slotLeaders(ctx: RpcContext, start: number, count: number, commitment: Commitment): string[] {
  const schedule = ctx.chain.genesis.epochSchedule;
  const out: string[] = [];
  let { epoch, slotIndex } = epochOf(schedule, start);
  while (out.length < count) {
    const leaders = knownSchedule(ctx, epoch, commitment);
    if (!leaders) throw invalidParams(`Invalid slot range: leader schedule for epoch ${epoch} is unavailable`);
    for (let i = slotIndex; i < leaders.slotsInEpoch && out.length < count; i++) out.push(leaders.leaderAt(i));
    epoch++;
    slotIndex = 0;
  }
  return out;
}

export const getSlotLeaders = method([required('startSlot', u64), required('limit', u64)], ([start, limit], ctx) => {
  if (limit > MAX_SLOT_LEADERS_LIMIT) throw invalidParams(`Invalid limit; max ${MAX_SLOT_LEADERS_LIMIT}`);
  return slotLeaders(ctx, start, limit, 'finalized');
});

/** The epoch's leaders by identity (slot indexes in the epoch); null for an epoch without a known schedule. */
export const getLeaderSchedule = method(
  [optional('slot', u64), optional('config', config({ commitment, identity: address }))],
  ([slotArg, cfg = {}], ctx) => {
    const c = cfg.commitment ?? 'finalized';
    const epoch = epochOf(ctx.chain.genesis.epochSchedule, slotArg ?? ctx.chain.slotAt(c)).epoch;
    const leaders = knownSchedule(ctx, epoch, c);
    if (!leaders) return null;
    const byIdentity = leaders.byIdentity();
    if (!cfg.identity) return byIdentity;
    return byIdentity[cfg.identity] ? { [cfg.identity]: byIdentity[cfg.identity] } : {};
  },
  (params) => {
    const raw = Array.isArray(params) ? params : [];
    // The slot may be omitted with the config in first place (current clients send [null, {..}] or [{..}]).
    return raw.length >= 1 && typeof raw[0] === 'object' && raw[0] !== null ? [undefined, raw[0]] : raw;
  },
);

/** Leader slots and blocks made per identity over a range (by default the bank's epoch so far). */
/** Agave's getBlockProduction: leader slots from the schedule, blocks from the bank's SlotHistory, which also bounds the range. */
export const getBlockProduction = method([optional('config', config({ commitment, identity: address, range: config({ firstSlot: u64, lastSlot: u64 }) }))], ([cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const history = ctx.chain.slotHistoryAt(c);
  const top = history.newest;
  const firstSlot = cfg.range?.firstSlot ?? epochOf(ctx.chain.genesis.epochSchedule, top).firstSlot;
  const lastSlot = cfg.range ? (cfg.range.lastSlot ?? top) : top;
  if (lastSlot < firstSlot) throw invalidParams(`lastSlot, ${lastSlot}, cannot be less than firstSlot, ${firstSlot}`);
  if (firstSlot < history.oldest) throw invalidParams(`firstSlot, ${firstSlot}, is too small; min ${history.oldest}`);
  if (lastSlot > top) throw invalidParams(`lastSlot, ${lastSlot}, is too large; max ${top}`);
  const leaders = slotLeaders(ctx, firstSlot, lastSlot - firstSlot + 1, c);
  const byIdentity: Record<string, [number, number]> = {};
  leaders.forEach((identity, i) => {
    if (cfg.identity && identity !== cfg.identity) return;
    const entry = (byIdentity[identity] ??= [0, 0]);
    entry[0]++;
    if (history.hasBlock(firstSlot + i)) entry[1]++;
  });
  return withContext(top, { byIdentity, range: { firstSlot, lastSlot } });
});

export const getRecentPerformanceSamples = method([optional('limit', u64)], ([limit = MAX_PERFORMANCE_SAMPLES], ctx) => {
  if (limit > MAX_PERFORMANCE_SAMPLES) throw invalidParams(`Invalid limit; max ${MAX_PERFORMANCE_SAMPLES}`);
  return ctx.chain.performanceSamples(limit);
});

/** This node only makes slots; nothing is retransmitted or inserted from shreds, so both are the newest slot. */
export const getMaxRetransmitSlot = method([], (_, ctx) => ctx.chain.processedSlot);
export const getMaxShredInsertSlot = getMaxRetransmitSlot;

/** The node keeps its history in the store and takes no snapshots: every call is -32008 "No snapshot". */
export const getHighestSnapshotSlot = method([], (): never => {
  throw noSnapshot();
});
/** getHighestSnapshotSlot's 1.x name; it answered the full snapshot's slot alone (a u64). */
export const getSnapshotSlot = method([], (): never => {
  throw noSnapshot();
});

export const getInflationGovernor = method([optional('config', commitmentConfig)], (_, ctx) => ctx.chain.genesis.inflation);

/** Solana's Inflation::total/validator/foundation at the current epoch's age in years. */
export const getInflationRate = method([], (_, ctx) => {
  const g = ctx.chain.genesis;
  const slot = ctx.chain.slotAt('finalized');
  const { epoch } = epochOf(g.epochSchedule, slot);
  // The same schedule the epoch boundaries pay rewards by (ledger/inflation.ts).
  const year = yearOfEpoch(g.epochSchedule, epoch, g.slotMs);
  const total = totalRate(g.inflation, year);
  const foundation = foundationRate(g.inflation, year);
  return { total, validator: total - foundation, foundation, epoch };
});

export const minimumLedgerSlot = method([], async (_, ctx) => (await ctx.chain.store.firstAvailableSlot()) ?? ctx.chain.rootSlot);
export const getFirstAvailableBlock = minimumLedgerSlot;
