/** Cluster, epoch, leader, identity and inflation methods. */
import { epochOf } from '../../ledger/epoch.ts';
import { SOLANA_RPC_COMPATIBILITY, contextSlot, withContext, type RpcContext } from '../context.ts';
import { invalidParams, noSnapshot } from '../errors.ts';
import { healthError } from '../health.ts';
import { address, commitment, commitmentConfig, config, optional, parseParams, required, u64 } from '../params.ts';

const SECONDS_PER_YEAR = 365.25 * 24 * 60 * 60;
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
  contextSlot(ctx, cfg.commitment ?? 'finalized', cfg.minContextSlot);
  return ctx.identity;
}

export function getSlotLeaders(params: unknown, ctx: RpcContext) {
  const [, limit] = parseParams(params, [required('startSlot', u64), required('limit', u64)]);
  if (limit > MAX_SLOT_LEADERS_LIMIT) throw invalidParams(`Invalid limit; max ${MAX_SLOT_LEADERS_LIMIT}`);
  return new Array<string>(limit).fill(ctx.identity);
}

/** The one validator leads every slot of the epoch. */
export function getLeaderSchedule(params: unknown, ctx: RpcContext) {
  const raw = Array.isArray(params) ? params : [];
  // The slot may be omitted with the config in first place (current clients send [null, {..}] or [{..}]).
  const shifted = raw.length >= 1 && typeof raw[0] === 'object' && raw[0] !== null ? [undefined, raw[0]] : raw;
  const [slotArg, cfg = {}] = parseParams(shifted, [optional('slot', u64), optional('config', config({ commitment, identity: address }))]);
  const schedule = ctx.chain.genesis.epochSchedule;
  const current = ctx.chain.slotAt(cfg.commitment ?? 'finalized');
  const epoch = epochOf(schedule, slotArg ?? current).epoch;
  // Leader schedules are known for the current epoch and the next one (leaderScheduleSlotOffset = one epoch).
  if (epoch > epochOf(schedule, current).epoch + 1) return null;
  if (cfg.identity && cfg.identity !== ctx.identity) return {};
  return { [ctx.identity]: Array.from({ length: schedule.slotsPerEpoch }, (_, i) => i) };
}

export function getBlockProduction(params: unknown, ctx: RpcContext) {
  const [cfg = {}] = parseParams(params, [
    optional('config', config({ commitment, identity: address, range: config({ firstSlot: u64, lastSlot: u64 }) })),
  ]);
  const c = cfg.commitment ?? 'finalized';
  const top = ctx.chain.slotAt(c);
  const firstSlot = cfg.range?.firstSlot ?? epochOf(ctx.chain.genesis.epochSchedule, top).firstSlot;
  const lastSlot = Math.min(cfg.range?.lastSlot ?? top, top);
  if (firstSlot > lastSlot) throw invalidParams(`Invalid params: range.lastSlot: lastSlot, ${lastSlot}, cannot be less than firstSlot, ${firstSlot}`);
  const produced = lastSlot - Math.max(firstSlot, ctx.chain.firstAvailableSlot) + 1;
  const byIdentity = cfg.identity && cfg.identity !== ctx.identity ? {} : { [ctx.identity]: [lastSlot - firstSlot + 1, Math.max(0, produced)] };
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
  const slotsPerYear = (SECONDS_PER_YEAR * 1000) / g.slotMs;
  const year = (epoch * g.epochSchedule.slotsPerEpoch) / slotsPerYear;
  const i = g.inflation;
  const total = Math.max(i.initial * Math.pow(1 - i.taper, year), i.terminal);
  const foundation = year < i.foundationTerm ? total * i.foundation : 0;
  return { total, validator: total - foundation, foundation, epoch };
}

export function minimumLedgerSlot(params: unknown, ctx: RpcContext) {
  parseParams(params, []);
  return ctx.chain.store.firstAvailableSlot().then((s) => s ?? ctx.chain.rootSlot);
}
export const getFirstAvailableBlock = minimumLedgerSlot;
