/**
 * The cluster's stakes read from a bank: every stake delegation, every vote account, the effective
 * stake behind each vote account at an epoch (getVoteAccounts, the leader schedule), and the
 * StakeHistory entry an epoch ends with (Stakes::activate_epoch).
 */
import { STAKE_PROGRAM_ID, VOTE_PROGRAM_ID, type Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import {
  stakeActivatingAndDeactivating,
  tryDecodeStakeState,
  type Delegation,
  type StakeHistory,
  type StakeHistoryEntry,
  type StakeState,
} from '../runtime/programs/stake/state.ts';
import { decodeVoteState, type VoteState } from '../runtime/programs/vote/state.ts';

export interface StakeAccountView {
  address: Address;
  account: Account;
  state: Extract<StakeState, { kind: 'stake' }>;
}

export interface VoteAccountView {
  address: Address;
  account: Account;
  state: VoteState;
}

export interface AccountSource {
  entries(): Iterable<[Address, Account]>;
}

/** Stake accounts holding a delegation. */
export function stakeAccounts(bank: AccountSource): StakeAccountView[] {
  const out: StakeAccountView[] = [];
  for (const [address, account] of bank.entries()) {
    if (account.owner !== STAKE_PROGRAM_ID) continue;
    const state = tryDecodeStakeState(account.data);
    if (state?.kind === 'stake') out.push({ address, account, state });
  }
  return out;
}

export function tryDecodeVoteState(data: Uint8Array): VoteState | null {
  try {
    return decodeVoteState(data);
  } catch {
    return null;
  }
}

/** Initialized vote accounts. */
export function voteAccounts(bank: AccountSource): VoteAccountView[] {
  const out: VoteAccountView[] = [];
  for (const [address, account] of bank.entries()) {
    if (account.owner !== VOTE_PROGRAM_ID) continue;
    const state = tryDecodeVoteState(account.data);
    if (state) out.push({ address, account, state });
  }
  return out;
}

/** The sum of every delegation's status at `epoch`: the StakeHistory entry for that epoch. */
export function stakeHistoryEntryFor(delegations: Iterable<Delegation>, epoch: number, history: StakeHistory): StakeHistoryEntry {
  const sum = { effective: 0, activating: 0, deactivating: 0 };
  for (const d of delegations) {
    const s = stakeActivatingAndDeactivating(d, epoch, history);
    sum.effective += s.effective;
    sum.activating += s.activating;
    sum.deactivating += s.deactivating;
  }
  return sum;
}

/** Effective stake delegated to each vote account at `epoch`. */
export function activatedStakeByVoter(stakes: StakeAccountView[], epoch: number, history: StakeHistory): Map<Address, number> {
  const out = new Map<Address, number>();
  for (const s of stakes) {
    const d = s.state.stake.delegation;
    const effective = stakeActivatingAndDeactivating(d, epoch, history).effective;
    out.set(d.voter, (out.get(d.voter) ?? 0) + effective);
  }
  return out;
}
