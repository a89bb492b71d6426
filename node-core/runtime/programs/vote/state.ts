/**
 * The vote account state in the vote program's bincode layouts (solana-vote-interface): VoteStateVersions
 * with V1_14_11 (3,731 bytes, lockouts without latency) and V3 "Current" (3,762 bytes, LandedVote with
 * latency), and the tower rules that change it: lockouts doubling, the root popping off at 31 votes,
 * timely vote credits (16 for a vote landing within 2 slots, one fewer per later slot), epoch credits,
 * authorized voters per epoch and vote timestamps.
 */
import { ByteReader, ByteWriter, DecodeError } from '../../../common/bytes.ts';
import { DEFAULT_PUBKEY, addressToBytes, bytesToAddress, type Address } from '../../../common/pubkey.ts';
import { InstructionError } from '../../errors.ts';

export const VOTE_STATE_V3_SIZE = 3762;
export const VOTE_STATE_V1_14_11_SIZE = 3731;
export const MAX_LOCKOUT_HISTORY = 31;
export const INITIAL_LOCKOUT = 2;
export const MAX_EPOCH_CREDITS_HISTORY = 64;
export const VOTE_CREDITS_GRACE_SLOTS = 2;
export const VOTE_CREDITS_MAXIMUM_PER_SLOT = 16;
const PRIOR_VOTERS_MAX = 32;

/** VoteError, returned as Custom(code). */
export const VoteError = {
  VoteTooOld: 0,
  SlotsMismatch: 1,
  SlotHashMismatch: 2,
  EmptySlots: 3,
  TimestampTooOld: 4,
  TooSoonToReauthorize: 5,
  LockoutConflict: 6,
  NewVoteStateLockoutMismatch: 7,
  SlotsNotOrdered: 8,
  ConfirmationsNotOrdered: 9,
  ZeroConfirmations: 10,
  ConfirmationTooLarge: 11,
  RootRollBack: 12,
  ConfirmationRollBack: 13,
  SlotSmallerThanRoot: 14,
  TooManyVotes: 15,
  VotesTooOldAllFiltered: 16,
  RootOnDifferentFork: 17,
  ActiveVoteAccountClose: 18,
  CommissionUpdateTooLate: 19,
  AssertionFailed: 20,
} as const;

export const voteError = (code: number) => InstructionError.custom(code);

export interface LandedVote {
  latency: number;
  slot: number;
  confirmationCount: number;
}

export interface PriorVoter {
  pubkey: Address;
  start: number;
  end: number;
}

export interface VoteState {
  nodePubkey: Address;
  authorizedWithdrawer: Address;
  commission: number;
  votes: LandedVote[];
  rootSlot: number | null;
  /** epoch → authorized voter, ascending by epoch. */
  authorizedVoters: Array<[number, Address]>;
  priorVoters: { buf: PriorVoter[]; idx: number; isEmpty: boolean };
  /** [epoch, credits, prevCredits] */
  epochCredits: Array<[number, number, number]>;
  lastTimestamp: { slot: number; timestamp: number };
}

export function newVoteState(p: { nodePubkey: Address; authorizedVoter: Address; authorizedWithdrawer: Address; commission: number }, epoch: number): VoteState {
  return {
    nodePubkey: p.nodePubkey,
    authorizedWithdrawer: p.authorizedWithdrawer,
    commission: p.commission,
    votes: [],
    rootSlot: null,
    authorizedVoters: [[epoch, p.authorizedVoter]],
    priorVoters: emptyPriorVoters(),
    epochCredits: [],
    lastTimestamp: { slot: 0, timestamp: 0 },
  };
}

function emptyPriorVoters(): VoteState['priorVoters'] {
  return { buf: Array.from({ length: PRIOR_VOTERS_MAX }, () => ({ pubkey: DEFAULT_PUBKEY, start: 0, end: 0 })), idx: PRIOR_VOTERS_MAX - 1, isEmpty: true };
}

/** The state's version tag: 0 uninitialized (V0_23_5 zeroes), 1 V1_14_11, 2 V3. */
export function voteStateVersion(data: Uint8Array): number {
  if (data.length < 4) return -1;
  return data[0]! | (data[1]! << 8) | (data[2]! << 16) | (data[3]! << 24);
}

const num = (v: bigint) => {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new DecodeError('u64 beyond 2^53');
  return Number(v);
};

/**
 * Decodes a vote account's data; null for an uninitialized account (tag 0 with no authorized voter).
 * Throws InvalidAccountData for bytes that are not a vote state.
 */
export function decodeVoteState(data: Uint8Array): VoteState | null {
  try {
    const r = new ByteReader(data);
    const tag = r.u32();
    if (tag === 0) {
      // V0_23_5: node, authorized_voter, authorized_voter_epoch, ...; uninitialized when the voter is default.
      r.bytesN(32);
      const voter = bytesToAddress(r.bytesN(32));
      if (voter === DEFAULT_PUBKEY) return null;
      throw new DecodeError('VoteState 0.23.5 accounts are not supported');
    }
    if (tag !== 1 && tag !== 2) throw new DecodeError(`vote state version ${tag}`);
    const nodePubkey = bytesToAddress(r.bytesN(32));
    const authorizedWithdrawer = bytesToAddress(r.bytesN(32));
    const commission = r.u8();
    const nVotes = num(r.u64());
    if (nVotes > 1000) throw new DecodeError('too many votes');
    const votes: LandedVote[] = [];
    for (let i = 0; i < nVotes; i++) {
      const latency = tag === 2 ? r.u8() : 0;
      votes.push({ latency, slot: num(r.u64()), confirmationCount: r.u32() });
    }
    const rootSlot = r.u8() === 1 ? num(r.u64()) : null;
    const nVoters = num(r.u64());
    if (nVoters > 1000) throw new DecodeError('too many authorized voters');
    const authorizedVoters: Array<[number, Address]> = [];
    for (let i = 0; i < nVoters; i++) authorizedVoters.push([num(r.u64()), bytesToAddress(r.bytesN(32))]);
    const buf: PriorVoter[] = [];
    for (let i = 0; i < PRIOR_VOTERS_MAX; i++) buf.push({ pubkey: bytesToAddress(r.bytesN(32)), start: num(r.u64()), end: num(r.u64()) });
    const idx = num(r.u64());
    const isEmpty = r.u8() !== 0;
    const nCredits = num(r.u64());
    if (nCredits > 1000) throw new DecodeError('too many epoch credits');
    const epochCredits: Array<[number, number, number]> = [];
    for (let i = 0; i < nCredits; i++) epochCredits.push([num(r.u64()), num(r.u64()), num(r.u64())]);
    const lastTimestamp = { slot: num(r.u64()), timestamp: Number(r.i64()) };
    const state: VoteState = { nodePubkey, authorizedWithdrawer, commission, votes, rootSlot, authorizedVoters, priorVoters: { buf, idx, isEmpty }, epochCredits, lastTimestamp };
    return state.authorizedVoters.length === 0 ? null : state;
  } catch (e) {
    if (e instanceof DecodeError) throw new InstructionError('InvalidAccountData');
    throw e;
  }
}

/** Encodes in V3 (tag 2) or, for accounts too small for it, V1_14_11 (tag 1); zero-padded to `size`. */
export function encodeVoteState(s: VoteState, size: number, version: 1 | 2 = size >= VOTE_STATE_V3_SIZE ? 2 : 1): Uint8Array {
  const w = new ByteWriter(size).u32(version).bytes(addressToBytes(s.nodePubkey)).bytes(addressToBytes(s.authorizedWithdrawer)).u8(s.commission).u64(s.votes.length);
  for (const v of s.votes) {
    if (version === 2) w.u8(v.latency);
    w.u64(v.slot).u32(v.confirmationCount);
  }
  if (s.rootSlot === null) w.u8(0);
  else w.u8(1).u64(s.rootSlot);
  w.u64(s.authorizedVoters.length);
  for (const [epoch, voter] of s.authorizedVoters) w.u64(epoch).bytes(addressToBytes(voter));
  for (const p of s.priorVoters.buf) w.bytes(addressToBytes(p.pubkey)).u64(p.start).u64(p.end);
  w.u64(s.priorVoters.idx).u8(s.priorVoters.isEmpty ? 1 : 0);
  w.u64(s.epochCredits.length);
  for (const [e, c, p] of s.epochCredits) w.u64(e).u64(c).u64(p);
  w.u64(s.lastTimestamp.slot).i64(s.lastTimestamp.timestamp);
  const bytes = w.finish();
  if (bytes.length > size) throw new InstructionError('AccountDataTooSmall');
  const out = new Uint8Array(size);
  out.set(bytes);
  return out;
}

// ---- credits ------------------------------------------------------------------------------------

export function credits(s: VoteState): number {
  return s.epochCredits.length ? s.epochCredits[s.epochCredits.length - 1]![1] : 0;
}

export function incrementCredits(s: VoteState, epoch: number, amount: number): void {
  const ec = s.epochCredits;
  if (ec.length === 0) ec.push([epoch, 0, 0]);
  else if (epoch !== ec[ec.length - 1]![0]) {
    const last = ec[ec.length - 1]!;
    if (last[1] !== last[2]) ec.push([epoch, last[1], last[1]]);
    else last[0] = epoch;
    if (ec.length > MAX_EPOCH_CREDITS_HISTORY) ec.shift();
  }
  ec[ec.length - 1]![1] += amount;
}

/** Timely vote credits: the maximum within the grace slots, one fewer for each slot later, at least 1. */
export function creditsForLatency(latency: number): number {
  if (latency === 0) return 1;
  const late = latency - VOTE_CREDITS_GRACE_SLOTS;
  if (late <= 0) return VOTE_CREDITS_MAXIMUM_PER_SLOT;
  return Math.max(1, VOTE_CREDITS_MAXIMUM_PER_SLOT - late);
}

// ---- tower -------------------------------------------------------------------------------------

const lastLockedOutSlot = (v: LandedVote) => v.slot + Math.pow(INITIAL_LOCKOUT, v.confirmationCount);

export function lastVotedSlot(s: VoteState): number | null {
  return s.votes.length ? s.votes[s.votes.length - 1]!.slot : null;
}

/** process_next_vote_slot: pops expired lockouts, roots the oldest at 31 votes (earning its credits), doubles lockouts. */
export function processNextVoteSlot(s: VoteState, slot: number, epoch: number, currentSlot: number): void {
  const last = lastVotedSlot(s);
  if (last !== null && last >= slot) return;
  while (s.votes.length && lastLockedOutSlot(s.votes[s.votes.length - 1]!) < slot) s.votes.pop();
  const landed: LandedVote = { latency: Math.min(255, Math.max(0, currentSlot - slot)), slot, confirmationCount: 1 };
  if (s.votes.length === MAX_LOCKOUT_HISTORY) {
    const rooted = s.votes.shift()!;
    s.rootSlot = rooted.slot;
    incrementCredits(s, epoch, creditsForLatency(rooted.latency));
  }
  s.votes.push(landed);
  const depth = s.votes.length;
  s.votes.forEach((v, i) => {
    if (depth > i + v.confirmationCount) v.confirmationCount++;
  });
}

/** check_slots_are_valid against the SlotHashes sysvar (newest first). */
export function checkSlotsAreValid(s: VoteState, voteSlots: number[], hash: string, slotHashes: Array<[number, string]>): void {
  const last = lastVotedSlot(s);
  let i = 0;
  let j = slotHashes.length;
  while (i < voteSlots.length && j > 0) {
    if (last !== null && voteSlots[i]! <= last) {
      i++;
      continue;
    }
    if (voteSlots[i] !== slotHashes[j - 1]![0]) {
      j--;
      continue;
    }
    i++;
    j--;
  }
  if (j === slotHashes.length) throw voteError(VoteError.VoteTooOld);
  if (i !== voteSlots.length) throw voteError(VoteError.SlotsMismatch);
  if (slotHashes[j]![1] !== hash) throw voteError(VoteError.SlotHashMismatch);
}

export function processTimestamp(s: VoteState, slot: number, timestamp: number): void {
  const lt = s.lastTimestamp;
  if (slot < lt.slot || timestamp < lt.timestamp || (slot === lt.slot && timestamp !== lt.timestamp && lt.slot !== 0)) throw voteError(VoteError.TimestampTooOld);
  s.lastTimestamp = { slot, timestamp };
}

// ---- authorized voters ---------------------------------------------------------------------------

/** get_and_update_authorized_voter: the voter for `epoch` (cached into the map), older epochs purged. */
export function authorizedVoterFor(s: VoteState, epoch: number): Address {
  const voters = s.authorizedVoters;
  let voter = voters.find(([e]) => e === epoch)?.[1];
  if (voter === undefined) {
    const earlier = voters.filter(([e]) => e < epoch);
    if (!earlier.length) throw new InstructionError('InvalidAccountData');
    voter = earlier[earlier.length - 1]![1];
    voters.push([epoch, voter]);
    voters.sort((a, b) => a[0] - b[0]);
  }
  s.authorizedVoters = voters.filter(([e]) => e >= epoch);
  return voter;
}

/** set_new_authorized_voter: takes effect at `targetEpoch`; the previous voter is kept in prior_voters. */
export function setNewAuthorizedVoter(s: VoteState, authorized: Address, currentEpoch: number, targetEpoch: number, verify: (epochVoter: Address) => void): void {
  const epochVoter = authorizedVoterFor(s, currentEpoch);
  verify(epochVoter);
  if (s.authorizedVoters.some(([e]) => e === targetEpoch)) throw voteError(VoteError.TooSoonToReauthorize);
  const [, latest] = s.authorizedVoters[s.authorizedVoters.length - 1]!;
  if (latest !== authorized) {
    const pv = s.priorVoters;
    const lastSwitch = pv.isEmpty ? 0 : pv.buf[pv.idx]!.end;
    pv.idx = (pv.idx + 1) % PRIOR_VOTERS_MAX;
    pv.buf[pv.idx] = { pubkey: latest, start: lastSwitch, end: targetEpoch };
    pv.isEmpty = false;
  }
  s.authorizedVoters.push([targetEpoch, authorized]);
  s.authorizedVoters.sort((a, b) => a[0] - b[0]);
}

// ---- a whole proposed tower (UpdateVoteState, CompactUpdateVoteState, TowerSync) ------------------

export interface ProposedTower {
  lockouts: Array<{ slot: number; confirmationCount: number }>;
  root: number | null;
  hash: string;
  timestamp: number | null;
}

/** check_and_filter_proposed_vote_state: the proposal against SlotHashes; slots too old to check and not in the tower are dropped. */
export function checkAndFilterProposedTower(s: VoteState, p: ProposedTower, slotHashes: Array<[number, string]>): void {
  const lockouts = p.lockouts;
  if (lockouts.length === 0) throw voteError(VoteError.EmptySlots);
  const lastProposed = lockouts[lockouts.length - 1]!.slot;
  const lastVoted = lastVotedSlot(s);
  if (lastVoted !== null && lastProposed <= lastVoted) throw voteError(VoteError.VoteTooOld);
  if (slotHashes.length === 0) throw voteError(VoteError.SlotsMismatch);
  const earliest = slotHashes[slotHashes.length - 1]![0];
  if (lastProposed < earliest) throw voteError(VoteError.VoteTooOld);
  if (p.root !== null && p.root < earliest) {
    const root = p.root;
    p.root = s.rootSlot;
    for (let i = s.votes.length - 1; i >= 0; i--) {
      if (s.votes[i]!.slot <= root) {
        p.root = s.votes[i]!.slot;
        break;
      }
    }
  }
  let rootToCheck = p.root;
  let li = 0;
  let hi = slotHashes.length;
  const filtered = new Set<number>();
  while (li < lockouts.length && hi > 0) {
    const slot = rootToCheck ?? lockouts[li]!.slot;
    if (rootToCheck === null && li > 0 && slot <= lockouts[li - 1]!.slot) throw voteError(VoteError.SlotsNotOrdered);
    const ancestor = slotHashes[hi - 1]![0];
    if (slot < ancestor) {
      if (hi === slotHashes.length) {
        if (slot >= earliest) throw voteError(VoteError.AssertionFailed);
        if (rootToCheck === null && !s.votes.some((v) => v.slot === slot)) filtered.add(li);
        if (rootToCheck !== null) rootToCheck = null;
        else li++;
        continue;
      }
      throw voteError(rootToCheck !== null ? VoteError.RootOnDifferentFork : VoteError.SlotsMismatch);
    }
    if (slot > ancestor) {
      hi--;
      continue;
    }
    if (rootToCheck !== null) rootToCheck = null;
    else {
      li++;
      hi--;
    }
  }
  if (li !== lockouts.length) throw voteError(VoteError.SlotsMismatch);
  if (slotHashes[hi]![1] !== p.hash) throw voteError(VoteError.SlotHashMismatch);
  p.lockouts = lockouts.filter((_, i) => !filtered.has(i));
}

/** process_new_vote_state: replaces the tower with the proposal, crediting the slots it newly roots. */
export function processNewTower(s: VoteState, p: ProposedTower, epoch: number, currentSlot: number): void {
  const next: LandedVote[] = p.lockouts.map((l) => ({ latency: 0, slot: l.slot, confirmationCount: l.confirmationCount }));
  if (next.length > MAX_LOCKOUT_HISTORY) throw voteError(VoteError.TooManyVotes);
  if (s.rootSlot !== null && (p.root === null || p.root < s.rootSlot)) throw voteError(VoteError.RootRollBack);
  let previous: LandedVote | null = null;
  for (const v of next) {
    if (v.confirmationCount === 0) throw voteError(VoteError.ZeroConfirmations);
    if (v.confirmationCount > MAX_LOCKOUT_HISTORY) throw voteError(VoteError.ConfirmationTooLarge);
    if (p.root !== null && v.slot <= p.root && p.root !== 0) throw voteError(VoteError.SlotSmallerThanRoot);
    if (previous) {
      if (previous.slot >= v.slot) throw voteError(VoteError.SlotsNotOrdered);
      if (previous.confirmationCount <= v.confirmationCount) throw voteError(VoteError.ConfirmationsNotOrdered);
      if (v.slot > lastLockedOutSlot(previous)) throw voteError(VoteError.NewVoteStateLockoutMismatch);
    }
    previous = v;
  }
  let ci = 0;
  let ni = 0;
  let earned = 0;
  if (p.root !== null) {
    for (const current of s.votes) {
      if (current.slot > p.root) break;
      earned += creditsForLatency(current.latency);
      ci++;
    }
  }
  while (ci < s.votes.length && ni < next.length) {
    const current = s.votes[ci]!;
    const proposed = next[ni]!;
    if (current.slot < proposed.slot) {
      if (lastLockedOutSlot(current) >= proposed.slot) throw voteError(VoteError.LockoutConflict);
      ci++;
    } else if (current.slot === proposed.slot) {
      if (proposed.confirmationCount < current.confirmationCount) throw voteError(VoteError.ConfirmationRollBack);
      proposed.latency = current.latency;
      ci++;
      ni++;
    } else {
      ni++;
    }
  }
  for (const v of next) if (v.latency === 0) v.latency = Math.min(255, Math.max(0, currentSlot - v.slot));
  if (s.rootSlot !== p.root) incrementCredits(s, epoch, earned);
  if (p.timestamp !== null) processTimestamp(s, next[next.length - 1]!.slot, p.timestamp);
  s.rootSlot = p.root;
  s.votes = next;
}
