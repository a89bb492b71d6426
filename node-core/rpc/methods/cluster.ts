/** Cluster, epoch, leader, identity and inflation methods. */
import { epochOf } from '../../ledger/epoch.ts';
import { foundationRate, totalRate, yearOfEpoch } from '../../ledger/inflation.ts';
import type { Commitment } from '../../ledger/commitment.ts';
import { SOLANA_RPC_COMPATIBILITY, contextSlot, withContext, type RpcContext } from '../context.ts';
import { invalidParams, noSnapshot } from '../errors.ts';
import { healthError } from '../health.ts';
import { address, commitment, commitmentConfig, config, optional, parseParams, required, u64 } from '../params.ts';

const MAX_SLOT_LEADERS_LIMIT = 5_000;
const MAX_PERFORMANCE_SAMPLES = 720;


export function getSlot(params: unknown, ctx: RpcContext) {
  const [cfg = {}] = parseParams(params, [optional('config', commitmentConfig)]);
  return contextSlot(ctx, cfg.commitment ?? 'finalized', cfg.minContextSlot);
}

export function getBlockHeight(params: unknown, ctx: RpcContext) {
  const [cfg = {}] = parseParams(params, [optional('config', commitmentConfig)]);
  contextSlot(ctx, cfg.commitment ?? 'finalized', cfg.minContextSlot);
  return ctx.chain.blockHeightAt(cfg.commitment ?? 'finalized');
}

export function getTransactionCount(params: unknown, ctx: RpcContext) {
  const [cfg = {}] = parseParams(params, [optional('config', commitmentConfig)]);
  contextSlot(ctx, cfg.commitment ?? 'finalized', cfg.minContextSlot);
  return ctx.chain.totalTransactionCount;
}

export function getGenesisHash(params: unknown, ctx: RpcContext) {
  parseParams(params, []);
  return ctx.chain.genesisHash;
}

export function getIdentity(params: unknown, ctx: RpcContext) {
  parseParams(params, []);
  return { identity: ctx.identity };
}

export function getVersion(params: unknown, ctx: RpcContext) {
  parseParams(params, []);
  return { 'solana-core': SOLANA_RPC_COMPATIBILITY, 'feature-set': ctx.featureSet, 'node-core': ctx.version };
}

/** `ok`, or -32005 when the node is behind its known validators or none of them answers (rpc/health.ts). */
export function getHealth(params: unknown, ctx: RpcContext) {
  parseParams(params, []);
  const error = ctx.health ? healthError(ctx.health()) : null;
  if (error) throw error;
  return 'ok';
}

export function getClusterNodes(params: unknown, ctx: RpcContext) {
  parseParams(params, []);
  return [
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
  ];
}

export function getEpochSchedule(params: unknown, ctx: RpcContext) {
  parseParams(params, []);
  return ctx.chain.genesis.epochSchedule;
}

export function getEpochInfo(params: unknown, ctx: RpcContext) {
  const [cfg = {}] = parseParams(params, [optional('config', commitmentConfig)]);
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
}

export function getSlotLeader(params: unknown, ctx: RpcContext) {
  const [cfg = {}] = parseParams(params, [optional('config', commitmentConfig)]);
  const slot = contextSlot(ctx, cfg.commitment ?? 'finalized', cfg.minContextSlot);
  return ctx.chain.leaders.leaderAt(slot);
}

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

export function getSlotLeaders(params: unknown, ctx: RpcContext) {
  const [start, limit] = parseParams(params, [required('startSlot', u64), required('limit', u64)]);
  if (limit > MAX_SLOT_LEADERS_LIMIT) throw invalidParams(`Invalid limit; max ${MAX_SLOT_LEADERS_LIMIT}`);
  return slotLeaders(ctx, start, limit, 'finalized');
}

/** The epoch's leaders by identity (slot indexes in the epoch); null for an epoch without a known schedule. */
export function getLeaderSchedule(params: unknown, ctx: RpcContext) {
  const raw = Array.isArray(params) ? params : [];
  // The slot may be omitted with the config in first place (current clients send [null, {..}] or [{..}]).
  const shifted = raw.length >= 1 && typeof raw[0] === 'object' && raw[0] !== null ? [undefined, raw[0]] : raw;
  const [slotArg, cfg = {}] = parseParams(shifted, [optional('slot', u64), optional('config', config({ commitment, identity: address }))]);
  const c = cfg.commitment ?? 'finalized';
  const epoch = epochOf(ctx.chain.genesis.epochSchedule, slotArg ?? ctx.chain.slotAt(c)).epoch;
  const leaders = knownSchedule(ctx, epoch, c);
  if (!leaders) return null;
  const byIdentity = leaders.byIdentity();
  if (!cfg.identity) return byIdentity;
  return byIdentity[cfg.identity] ? { [cfg.identity]: byIdentity[cfg.identity] } : {};
}

/** Leader slots and blocks made per identity over a range (by default the bank's epoch so far). */
/** Agave's getBlockProduction: leader slots from the schedule, blocks from the bank's SlotHistory, which also bounds the range. */
export function getBlockProduction(params: unknown, ctx: RpcContext) {
  const [cfg = {}] = parseParams(params, [
    optional('config', config({ commitment, identity: address, range: config({ firstSlot: u64, lastSlot: u64 }) })),
  ]);
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
}

export function getRecentPerformanceSamples(params: unknown, ctx: RpcContext) {
  const [limit = MAX_PERFORMANCE_SAMPLES] = parseParams(params, [optional('limit', u64)]);
  if (limit > MAX_PERFORMANCE_SAMPLES) throw invalidParams(`Invalid limit; max ${MAX_PERFORMANCE_SAMPLES}`);
  return ctx.chain.performanceSamples(limit);
}

/** This node only makes slots; nothing is retransmitted or inserted from shreds, so both are the newest slot. */
export function getMaxRetransmitSlot(params: unknown, ctx: RpcContext) {
  parseParams(params, []);
  return ctx.chain.processedSlot;
}
export const getMaxShredInsertSlot = getMaxRetransmitSlot;

/** The node keeps its history in the store and takes no snapshots. */
export function getSnapshotSlot(params: unknown) {
  parseParams(params, []);
  throw noSnapshot();
}
export const getHighestSnapshotSlot = getSnapshotSlot;

export function getInflationGovernor(params: unknown, ctx: RpcContext) {
  parseParams(params, [optional('config', commitmentConfig)]);
  return ctx.chain.genesis.inflation;
}

/** Solana's Inflation::total/validator/foundation at the current epoch's age in years. */
export function getInflationRate(params: unknown, ctx: RpcContext) {
  parseParams(params, []);
  const g = ctx.chain.genesis;
  const slot = ctx.chain.slotAt('finalized');
  const { epoch } = epochOf(g.epochSchedule, slot);
  // The same schedule the epoch boundaries pay rewards by (ledger/inflation.ts).
  const year = yearOfEpoch(g.epochSchedule, epoch, g.slotMs);
  const total = totalRate(g.inflation, year);
  const foundation = foundationRate(g.inflation, year);
  return { total, validator: total - foundation, foundation, epoch };
}

export function minimumLedgerSlot(params: unknown, ctx: RpcContext) {
  parseParams(params, []);
  return ctx.chain.store.firstAvailableSlot().then((s) => s ?? ctx.chain.rootSlot);
}
export const getFirstAvailableBlock = minimumLedgerSlot;
