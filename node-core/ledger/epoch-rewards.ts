/**
 * What the first bank of a new epoch does before any transaction (Bank::process_new_epoch): it adds
 * the ended epoch to the StakeHistory sysvar, then pays that epoch's inflation to stake and vote
 * accounts by points: each delegation earns stake × vote credits earned, the validator rewards are
 * split over all points, and each stake's share is split with its vote account by commission. Stake
 * rewards compound into the delegation. Rewards show in the bank's block as `Staking` and `Voting`.
 * Between the two it keeps the stakes the next epoch's leader schedule is drawn from (update_epoch_stakes).
 */
import { VOTE_PROGRAM_ID, type Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import {
  MINIMUM_DELEGATION,
  addHistoryEntry,
  effectiveStake,
  encodeStakeHistory,
  encodeStakeState,
  type Stake,
  type StakeHistory,
} from '../runtime/programs/stake/state.ts';
import { credits, type VoteState } from '../runtime/programs/vote/state.ts';
import { SYSVAR_STAKE_HISTORY_ID } from '../runtime/sysvars.ts';
import type { Reward } from '../store/store.ts';
import type { Bank } from './bank.ts';
import type { GenesisConfig } from './genesis-config.ts';
import { epochValidatorRewards } from './inflation.ts';
import { stakeAccounts, stakeHistoryEntryFor, tryDecodeVoteState } from './stakes.ts';
import { stakedNodes, type StakedNodes } from './leader-schedule.ts';

export interface EpochBoundaryResult {
  stakeHistory: Array<[number, { effective: number; activating: number; deactivating: number }]>;
  /** Lamports created as rewards (the supply grows by this much). */
  minted: number;
  /** The stake behind each validator at the new epoch, before its rewards: the next epoch's leader schedule stakes. */
  stakedNodes: StakedNodes;
}

/** calculate_stake_points_and_credits */
export function stakePoints(stake: Stake, vote: VoteState, history: StakeHistory): { points: bigint; newCreditsObserved: number; forceCreditsUpdate: boolean } {
  const inStake = stake.creditsObserved;
  const inVote = credits(vote);
  if (inVote < inStake) return { points: 0n, newCreditsObserved: inVote, forceCreditsUpdate: true };
  if (inVote === inStake) return { points: 0n, newCreditsObserved: inStake, forceCreditsUpdate: false };
  let points = 0n;
  let observed = inStake;
  for (const [epoch, final, initial] of vote.epochCredits) {
    const amount = BigInt(effectiveStake(stake.delegation, epoch, history));
    const earned = inStake < initial ? final - initial : inStake < final ? final - observed : 0;
    observed = Math.max(observed, final);
    points += amount * BigInt(earned);
  }
  return { points, newCreditsObserved: observed, forceCreditsUpdate: false };
}

/** VoteState::commission_split: [voter, staker, isSplit]. */
export function commissionSplit(commission: number, rewards: number): [number, number, boolean] {
  const c = Math.min(commission, 100);
  if (c === 0) return [0, rewards, false];
  if (c === 100) return [rewards, 0, false];
  const on = BigInt(rewards);
  return [Number((on * BigInt(c)) / 100n), Number((on * BigInt(100 - c)) / 100n), true];
}

export function processEpochBoundary(p: {
  bank: Bank;
  genesis: GenesisConfig;
  endedEpoch: number;
  /** The bank's epoch (past endedEpoch + 1 when whole epochs had no block). */
  epoch: number;
  history: StakeHistory;
  capitalization: number;
}): EpochBoundaryResult {
  const { bank, endedEpoch } = p;
  const stakes = stakeAccounts(bank);
  const entry = stakeHistoryEntryFor(
    stakes.map((s) => s.state.stake.delegation),
    endedEpoch,
    p.history,
  );
  const history = addHistoryEntry(p.history, endedEpoch, entry);
  writeStakeHistory(bank, history);

  const voteCache = new Map<Address, { account: Account; state: VoteState } | null>();
  const voteOf = (address: Address) => {
    if (!voteCache.has(address)) {
      const account = bank.get(address);
      const state = account && account.owner === VOTE_PROGRAM_ID ? tryDecodeVoteState(account.data) : null;
      voteCache.set(address, account && state ? { account, state } : null);
    }
    return voteCache.get(address)!;
  };
  // Agave snapshots the epoch stakes after activate_epoch and before paying rewards.
  const nextStakes = stakedNodes(stakes, (vote) => voteOf(vote)?.state.nodePubkey ?? null, p.epoch, history);
  const eligible = stakes.filter((s) => s.state.stake.delegation.stake >= MINIMUM_DELEGATION && voteOf(s.state.stake.delegation.voter));
  const calculated = eligible.map((s) => ({ s, ...stakePoints(s.state.stake, voteOf(s.state.stake.delegation.voter)!.state, history) }));
  const totalPoints = calculated.reduce((n, c) => n + c.points, 0n);
  const rewards = epochValidatorRewards(p.genesis.inflation, p.genesis.epochSchedule, p.genesis.slotMs, endedEpoch, p.capitalization);

  const stakeRewards: Reward[] = [];
  const voterRewards = new Map<Address, number>();
  let minted = 0;
  for (const c of calculated) {
    const { s } = c;
    const vote = voteOf(s.state.stake.delegation.voter)!;
    let staker = 0;
    let voter = 0;
    const force = c.forceCreditsUpdate || rewards === 0 || s.state.stake.delegation.activationEpoch === endedEpoch;
    if (!force) {
      if (c.points === 0n || totalPoints === 0n) continue;
      const amount = Number((c.points * BigInt(rewards)) / totalPoints);
      if (amount === 0) continue;
      const [v, st, isSplit] = commissionSplit(vote.state.commission, amount);
      if ((v === 0 || st === 0) && isSplit) continue;
      voter = v;
      staker = st;
    }
    const state = { ...s.state, stake: { ...s.state.stake, creditsObserved: c.newCreditsObserved, delegation: { ...s.state.stake.delegation, stake: s.state.stake.delegation.stake + staker } } };
    const account: Account = { ...s.account, lamports: s.account.lamports + staker, data: encodeStakeState(state, s.account.data) };
    bank.set(s.address, account);
    minted += staker;
    if (staker > 0) stakeRewards.push({ pubkey: s.address, lamports: staker, postBalance: account.lamports, rewardType: 'Staking', commission: vote.state.commission });
    if (voter > 0) voterRewards.set(s.state.stake.delegation.voter, (voterRewards.get(s.state.stake.delegation.voter) ?? 0) + voter);
  }
  for (const [address, lamports] of voterRewards) {
    const vote = voteOf(address)!;
    const current = bank.get(address)!;
    const account: Account = { ...current, lamports: current.lamports + lamports };
    bank.set(address, account);
    minted += lamports;
    bank.rewards.push({ pubkey: address, lamports, postBalance: account.lamports, rewardType: 'Voting', commission: vote.state.commission });
  }
  bank.rewards.push(...stakeRewards);
  return { stakeHistory: history, minted, stakedNodes: nextStakes };
}

/**
 * The sysvar account keeps its genesis-funded balance; only its data changes. (A ledger made before
 * it was in genesis has none: reads render it from the chain's copy of the history.)
 */
function writeStakeHistory(bank: Bank, history: StakeHistory): void {
  const prev = bank.get(SYSVAR_STAKE_HISTORY_ID);
  if (prev) bank.set(SYSVAR_STAKE_HISTORY_ID, { ...prev, data: encodeStakeHistory(history) });
}
