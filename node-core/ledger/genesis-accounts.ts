/**
 * Data of the bootstrap validator's vote and stake accounts, made by the vote and stake programs'
 * own state codecs (VoteState V3, StakeStateV2::Stake with the bootstrap activation epoch u64::MAX,
 * so its stake is active from the start), and the StakeHistory sysvar account the epoch boundaries
 * write into.
 */
import type { Address } from '../common/pubkey.ts';
import { encodeVoteState, newVoteState, VOTE_STATE_V3_SIZE } from '../runtime/programs/vote/state.ts';
import { encodeStakeState, newDelegation, defaultLockup, encodeStakeHistory, EPOCH_MAX, STAKE_STATE_SIZE as STAKE_SIZE, STAKE_HISTORY_SIZE } from '../runtime/programs/stake/state.ts';

export const VOTE_STATE_SIZE = VOTE_STATE_V3_SIZE;
export const STAKE_STATE_SIZE = STAKE_SIZE;
export { STAKE_HISTORY_SIZE };

export function voteStateData(node: Address, withdrawer: Address, commission: number): Uint8Array {
  return encodeVoteState(newVoteState({ nodePubkey: node, authorizedVoter: node, authorizedWithdrawer: withdrawer, commission }, 0), VOTE_STATE_SIZE, 2);
}

export function stakeStateData(p: { rentExemptReserve: number; authority: Address; voter: Address; stake: number }): Uint8Array {
  return encodeStakeState(
    {
      kind: 'stake',
      meta: { rentExemptReserve: p.rentExemptReserve, staker: p.authority, withdrawer: p.authority, lockup: defaultLockup() },
      stake: { delegation: newDelegation(p.voter, p.stake, EPOCH_MAX), creditsObserved: 0 },
      flags: 0,
    },
    new Uint8Array(STAKE_STATE_SIZE),
  );
}

export const emptyStakeHistoryData = (): Uint8Array => encodeStakeHistory([]);

/** The stake config account Agave's genesis holds (StakeConfig111…): no config keys, warmup_cooldown_rate 0.25, slash_penalty 12. */
export const STAKE_CONFIG_ID = 'StakeConfig11111111111111111111111111111111';
export function stakeConfigData(): Uint8Array {
  const out = new Uint8Array(10);
  new DataView(out.buffer).setFloat64(1, 0.25, true);
  out[9] = 12;
  return out;
}
