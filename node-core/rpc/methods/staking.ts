/** Stake, vote and inflation-reward methods, answered from the stake and vote accounts of a bank (Agave's rpc.rs). */
import type { Commitment } from '../../ledger/commitment.ts';
import { epochOf } from '../../ledger/epoch.ts';
import { firstSlotOfEpoch } from '../../ledger/inflation.ts';
import { activatedStakeByVoter, stakeAccounts, voteAccounts } from '../../ledger/stakes.ts';
import { MINIMUM_DELEGATION, stakeActivatingAndDeactivating, tryDecodeStakeState } from '../../runtime/programs/stake/state.ts';
import { lastVotedSlot } from '../../runtime/programs/vote/state.ts';
import type { Address } from '../../common/pubkey.ts';
import { contextSlot, withContext, type RpcContext } from '../context.ts';
import { blockCleanedUp, blockNotAvailable, invalidParams, INVALID_PARAMS, RpcError } from '../errors.ts';
import { address, arrayOf, bool, commitment, commitmentConfig, config, optional, required, u64 } from '../params.ts';
import { method } from './method.ts';

const MAX_MULTIPLE_ACCOUNTS = 100;
const DELINQUENT_VALIDATOR_SLOT_DISTANCE = 128;
const MAX_RPC_VOTE_ACCOUNT_INFO_EPOCH_CREDITS_HISTORY = 5;

const epochStakeCache = new WeakMap<object, { epoch: number; total: number }>();

/**
 * The active stake of the root bank's epoch (Bank::total_epoch_stake, getBlockCommitment's
 * totalStake). Effective stake only changes at epoch boundaries, so it is computed once an epoch.
 */
export function totalEpochStake(ctx: RpcContext): number {
  const bank = ctx.chain.bankAt('finalized');
  const epoch = epochOf(ctx.chain.genesis.epochSchedule, bank.slot).epoch;
  const cached = epochStakeCache.get(ctx.chain);
  if (cached?.epoch === epoch) return cached.total;
  const history = bank.sysvars.stakeHistory ?? ctx.chain.currentStakeHistory();
  let total = 0;
  for (const stake of activatedStakeByVoter(stakeAccounts(bank), epoch, history).values()) total += stake;
  epochStakeCache.set(ctx.chain, { epoch, total });
  return total;
}

export const getStakeMinimumDelegation = method([optional('config', commitmentConfig)], ([cfg = {}], ctx) => {
  const slot = contextSlot(ctx, cfg.commitment ?? 'finalized', cfg.minContextSlot);
  return withContext(slot, MINIMUM_DELEGATION);
});

/** getStakeActivation's answer (removed in Agave 2.0, which points to the stake account and StakeHistory sysvar instead). */
export interface StakeActivationJson {
  state: 'active' | 'inactive' | 'activating' | 'deactivating';
  active: number;
  inactive: number;
}

export const getStakeActivation = method([required('pubkey', address), optional('config', config({ commitment, epoch: u64, minContextSlot: u64 }))], ([pubkey, cfg = {}], ctx): StakeActivationJson => {
  const c = cfg.commitment ?? 'finalized';
  contextSlot(ctx, c, cfg.minContextSlot);
  const bank = ctx.chain.bankAt(c);
  const current = epochOf(ctx.chain.genesis.epochSchedule, bank.slot).epoch;
  const epoch = cfg.epoch ?? current;
  if (epoch !== current) throw invalidParams(`Invalid param: epoch ${epoch}. Only the current epoch (${current}) is supported`);
  const account = bank.get(pubkey);
  if (!account) throw invalidParams('Invalid param: account not found');
  const state = tryDecodeStakeState(account.data);
  if (!state) throw invalidParams('Invalid param: not a stake account');
  if (state.kind !== 'stake' && state.kind !== 'initialized') throw invalidParams('Invalid param: stake account not initialized');
  const reserve = state.meta.rentExemptReserve;
  if (state.kind === 'initialized') return { state: 'inactive', active: 0, inactive: Math.max(0, account.lamports - reserve) };
  const s = stakeActivatingAndDeactivating(state.stake.delegation, epoch, bank.sysvars.stakeHistory ?? ctx.chain.currentStakeHistory());
  const kind = s.deactivating > 0 ? 'deactivating' : s.activating > 0 ? 'activating' : s.effective > 0 ? 'active' : 'inactive';
  return { state: kind, active: s.effective, inactive: Math.max(0, account.lamports - s.effective - reserve) };
});

export const getInflationReward = method(
  [required('addresses', arrayOf(address, MAX_MULTIPLE_ACCOUNTS)), optional('config', config({ commitment, epoch: u64, minContextSlot: u64 }))],
  async ([addresses, cfg = {}], ctx) => {
    const c: Commitment = cfg.commitment ?? 'finalized';
    if (c === 'processed') throw new RpcError(INVALID_PARAMS, 'Method does not support commitment below `confirmed`');
    const schedule = ctx.chain.genesis.epochSchedule;
    const top = contextSlot(ctx, c, cfg.minContextSlot);
    const epoch = cfg.epoch ?? Math.max(0, epochOf(schedule, top).epoch - 1);
    // Rewards for an epoch are paid in the first block of the next one.
    const firstSlot = firstSlotOfEpoch(schedule, epoch + 1);
    const firstAvailable = (await ctx.chain.store.firstAvailableSlot()) ?? 0;
    if (firstSlot < firstAvailable) throw blockCleanedUp(firstSlot, firstAvailable);
    const [slot] = firstSlot <= top ? await ctx.chain.store.getBlockSlots(firstSlot, top, 1) : [];
    if (slot === undefined) throw blockNotAvailable(firstSlot);
    const block = await ctx.chain.store.getBlock(slot);
    if (!block) throw blockNotAvailable(slot);
    return addresses.map((a) => {
      const r = block.rewards.find((x) => x.pubkey === a && (x.rewardType === 'Staking' || x.rewardType === 'Voting'));
      return r ? { epoch, effectiveSlot: slot, amount: Math.abs(r.lamports), postBalance: r.postBalance, commission: r.commission } : null;
    });
  },
);

export const getVoteAccounts = method(
  [optional('config', config({ commitment, votePubkey: address, keepUnstakedDelinquents: bool, delinquentSlotDistance: u64, minContextSlot: u64 }))],
  ([cfg = {}], ctx) => {
    const c = cfg.commitment ?? 'finalized';
    contextSlot(ctx, c, cfg.minContextSlot);
    const bank = ctx.chain.bankAt(c);
    const epoch = epochOf(ctx.chain.genesis.epochSchedule, bank.slot).epoch;
    const history = bank.sysvars.stakeHistory ?? ctx.chain.currentStakeHistory();
    const stakeByVoter = activatedStakeByVoter(stakeAccounts(bank), epoch, history);
    const distance = cfg.delinquentSlotDistance ?? DELINQUENT_VALIDATOR_SLOT_DISTANCE;
    const current: VoteAccountJson[] = [];
    const delinquent: VoteAccountJson[] = [];
    for (const v of voteAccounts(bank)) {
      if (cfg.votePubkey && v.address !== cfg.votePubkey) continue;
      const activatedStake = stakeByVoter.get(v.address) ?? 0;
      const lastVote = lastVotedSlot(v.state) ?? 0;
      const info: VoteAccountJson = {
        votePubkey: v.address,
        nodePubkey: v.state.nodePubkey,
        activatedStake,
        epochVoteAccount: activatedStake > 0,
        commission: v.state.commission,
        lastVote,
        epochCredits: v.state.epochCredits.slice(-MAX_RPC_VOTE_ACCOUNT_INFO_EPOCH_CREDITS_HISTORY),
        rootSlot: v.state.rootSlot ?? 0,
      };
      const isCurrent = bank.slot >= distance ? lastVote > bank.slot - distance : lastVote > 0;
      if (isCurrent) current.push(info);
      else if (activatedStake > 0 || cfg.keepUnstakedDelinquents) delinquent.push(info);
    }
    return { current, delinquent };
  },
);

/** One vote account as getVoteAccounts lists it (Agave 1.18's RpcVoteAccountInfo). */
interface VoteAccountJson {
  votePubkey: Address;
  nodePubkey: Address;
  activatedStake: number;
  epochVoteAccount: boolean;
  commission: number;
  lastVote: number;
  /** [epoch, credits, previous credits] of the last epochs. */
  epochCredits: Array<[number, number, number]>;
  rootSlot: number;
}
