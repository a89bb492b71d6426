/**
 * Stake accounts in the stake program's bincode layout (StakeStateV2, 200 bytes), the StakeHistory
 * sysvar (16,392 bytes, newest epoch first), and the warm-up/cool-down arithmetic of
 * solana-stake-interface: each epoch a delegation's share of the cluster's activating (deactivating)
 * stake may change by 9% of the cluster's effective stake (the rate after reduce_stake_warmup_cooldown,
 * active from epoch 0 on this node as on a test validator), at least 1 lamport an epoch.
 */
import { ByteReader, ByteWriter, DecodeError } from '../../../common/bytes.ts';
import { DEFAULT_PUBKEY, addressToBytes, bytesToAddress, type Address } from '../../../common/pubkey.ts';
import { InstructionError } from '../../errors.ts';

export const STAKE_STATE_SIZE = 200;
export const U64_MAX = 18446744073709551615n;
/** Epochs are u64; u64::MAX (no activation / deactivation yet) is kept as Infinity. */
export const EPOCH_MAX = Number.POSITIVE_INFINITY;
export const WARMUP_COOLDOWN_RATE_BPS = 900n;
const BASIS_POINTS = 10_000n;
/** The minimum delegation (stake_raise_minimum_delegation_to_1_sol, active on a test validator). */
export const MINIMUM_DELEGATION = 1_000_000_000;
export const STAKE_HISTORY_MAX_ENTRIES = 512;
export const STAKE_HISTORY_SIZE = 8 + STAKE_HISTORY_MAX_ENTRIES * 32;

/** StakeError, returned as Custom(code). */
export const StakeError = {
  NoCreditsToRedeem: 0,
  LockupInForce: 1,
  AlreadyDeactivated: 2,
  TooSoonToRedelegate: 3,
  InsufficientStake: 4,
  MergeTransientStake: 5,
  MergeMismatch: 6,
  CustodianMissing: 7,
  CustodianSignatureMissing: 8,
  InsufficientReferenceVotes: 9,
  VoteAddressMismatch: 10,
  MinimumDelinquentEpochsForDeactivationNotMet: 11,
  InsufficientDelegation: 12,
  RedelegateTransientOrInactiveStake: 13,
  RedelegateToSameVoteAccount: 14,
  RedelegatedStakeMustFullyActivateBeforeDeactivationIsPermitted: 15,
  EpochRewardsActive: 16,
} as const;

export const stakeError = (code: number) => InstructionError.custom(code);

export interface Lockup {
  unixTimestamp: number;
  epoch: number;
  custodian: Address;
}

export interface Meta {
  rentExemptReserve: number;
  staker: Address;
  withdrawer: Address;
  lockup: Lockup;
}

export interface Delegation {
  voter: Address;
  stake: number;
  activationEpoch: number;
  deactivationEpoch: number;
  /** The deprecated warmup_cooldown_rate field, kept as stored. */
  reserved: Uint8Array;
}

export interface Stake {
  delegation: Delegation;
  creditsObserved: number;
}

export type StakeState =
  | { kind: 'uninitialized' }
  | { kind: 'initialized'; meta: Meta }
  | { kind: 'stake'; meta: Meta; stake: Stake; flags: number }
  | { kind: 'rewardsPool' };

export interface StakeHistoryEntry {
  effective: number;
  activating: number;
  deactivating: number;
}

export type StakeHistory = ReadonlyArray<readonly [number, StakeHistoryEntry]>;

const epochFrom = (v: bigint) => (v === U64_MAX ? EPOCH_MAX : Number(v));
const epochTo = (e: number) => (e === EPOCH_MAX ? U64_MAX : BigInt(e));

function safe(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new DecodeError('amount beyond 2^53');
  return Number(v);
}

function readMeta(r: ByteReader): Meta {
  const rentExemptReserve = safe(r.u64());
  const staker = bytesToAddress(r.bytesN(32));
  const withdrawer = bytesToAddress(r.bytesN(32));
  const unixTimestamp = Number(r.i64());
  const epoch = epochFrom(r.u64());
  const custodian = bytesToAddress(r.bytesN(32));
  return { rentExemptReserve, staker, withdrawer, lockup: { unixTimestamp, epoch, custodian } };
}

/** Decodes StakeStateV2; throws InstructionError InvalidAccountData for anything else. */
export function decodeStakeState(data: Uint8Array): StakeState {
  try {
    const r = new ByteReader(data);
    const tag = r.u32();
    switch (tag) {
      case 0:
        return { kind: 'uninitialized' };
      case 1:
        return { kind: 'initialized', meta: readMeta(r) };
      case 2: {
        const meta = readMeta(r);
        const voter = bytesToAddress(r.bytesN(32));
        const stake = safe(r.u64());
        const activationEpoch = epochFrom(r.u64());
        const deactivationEpoch = epochFrom(r.u64());
        const reserved = r.bytesN(8).slice();
        const creditsObserved = safe(r.u64());
        const flags = r.remaining > 0 ? r.u8() : 0;
        return { kind: 'stake', meta, stake: { delegation: { voter, stake, activationEpoch, deactivationEpoch, reserved }, creditsObserved }, flags };
      }
      case 3:
        return { kind: 'rewardsPool' };
      default:
        throw new DecodeError(`StakeStateV2 ${tag}`);
    }
  } catch (e) {
    if (e instanceof DecodeError) throw new InstructionError('InvalidAccountData');
    throw e;
  }
}

/** Decodes without throwing: null when the bytes are not a stake state (RPC readers). */
export function tryDecodeStakeState(data: Uint8Array): StakeState | null {
  try {
    return decodeStakeState(data);
  } catch {
    return null;
  }
}

function writeMeta(w: ByteWriter, m: Meta): void {
  w.u64(m.rentExemptReserve).bytes(addressToBytes(m.staker)).bytes(addressToBytes(m.withdrawer));
  w.i64(m.lockup.unixTimestamp).u64(epochTo(m.lockup.epoch)).bytes(addressToBytes(m.lockup.custodian));
}

/** Serializes into a copy of `into` (the account's bytes past the state are kept, as bincode's serialize_into does). */
export function encodeStakeState(s: StakeState, into: Uint8Array): Uint8Array {
  const w = new ByteWriter(STAKE_STATE_SIZE);
  switch (s.kind) {
    case 'uninitialized':
      w.u32(0);
      break;
    case 'initialized':
      w.u32(1);
      writeMeta(w, s.meta);
      break;
    case 'stake': {
      w.u32(2);
      writeMeta(w, s.meta);
      const d = s.stake.delegation;
      w.bytes(addressToBytes(d.voter)).u64(d.stake).u64(epochTo(d.activationEpoch)).u64(epochTo(d.deactivationEpoch)).bytes(d.reserved);
      w.u64(s.stake.creditsObserved).u8(s.flags);
      break;
    }
    case 'rewardsPool':
      w.u32(3);
      break;
  }
  const bytes = w.finish();
  if (bytes.length > into.length) throw new InstructionError('AccountDataTooSmall');
  const out = into.slice();
  out.set(bytes);
  return out;
}

/** Delegation::new; 1.18 still writes the deprecated warmup_cooldown_rate field as 0.25. */
export function newDelegation(voter: Address, stake: number, activationEpoch: number): Delegation {
  const reserved = new Uint8Array(8);
  new DataView(reserved.buffer).setFloat64(0, 0.25, true);
  return { voter, stake, activationEpoch, deactivationEpoch: EPOCH_MAX, reserved };
}

export const defaultLockup = (): Lockup => ({ unixTimestamp: 0, epoch: 0, custodian: DEFAULT_PUBKEY });

export function lockupInForce(l: Lockup, clock: { unixTimestamp: number; epoch: number }, custodian: Address | null): boolean {
  if (custodian !== null && custodian === l.custodian) return false;
  return l.unixTimestamp > clock.unixTimestamp || l.epoch > clock.epoch;
}

// ---- stake history ---------------------------------------------------------------------------------

export function historyEntry(history: StakeHistory, epoch: number): StakeHistoryEntry | undefined {
  // Newest first and contiguous in practice: index by distance from the newest, then fall back to a scan.
  const newest = history[0]?.[0];
  if (newest !== undefined) {
    const guess = history[newest - epoch];
    if (guess && guess[0] === epoch) return guess[1];
  }
  return history.find(([e]) => e === epoch)?.[1];
}

export function encodeStakeHistory(history: StakeHistory): Uint8Array {
  const w = new ByteWriter(STAKE_HISTORY_SIZE).u64(history.length);
  for (const [epoch, e] of history) w.u64(epoch).u64(e.effective).u64(e.activating).u64(e.deactivating);
  const out = new Uint8Array(STAKE_HISTORY_SIZE);
  out.set(w.finish());
  return out;
}

export function decodeStakeHistory(data: Uint8Array): Array<[number, StakeHistoryEntry]> {
  const r = new ByteReader(data);
  const n = Math.min(Number(r.u64()), STAKE_HISTORY_MAX_ENTRIES);
  const out: Array<[number, StakeHistoryEntry]> = [];
  for (let i = 0; i < n; i++) out.push([Number(r.u64()), { effective: Number(r.u64()), activating: Number(r.u64()), deactivating: Number(r.u64()) }]);
  return out;
}

/** StakeHistory::add: newest first, at most 512 entries. */
export function addHistoryEntry(history: StakeHistory, epoch: number, entry: StakeHistoryEntry): Array<[number, StakeHistoryEntry]> {
  const out = history.filter(([e]) => e !== epoch).map(([e, v]) => [e, v] as [number, StakeHistoryEntry]);
  out.push([epoch, entry]);
  out.sort((a, b) => b[0] - a[0]);
  return out.slice(0, STAKE_HISTORY_MAX_ENTRIES);
}

// ---- warm-up and cool-down ---------------------------------------------------------------------------

function allowance(accountPortion: number, clusterPortion: number, clusterEffective: number): number {
  if (accountPortion === 0 || clusterPortion === 0 || clusterEffective === 0) return 0;
  const delta = (BigInt(accountPortion) * BigInt(clusterEffective) * WARMUP_COOLDOWN_RATE_BPS) / (BigInt(clusterPortion) * BASIS_POINTS);
  return delta > BigInt(accountPortion) ? accountPortion : Number(delta);
}

/** [effective, activating] of a delegation at `epoch` (stake_and_activating). */
function stakeAndActivating(d: Delegation, epoch: number, history: StakeHistory): [number, number] {
  const delegated = d.stake;
  if (d.activationEpoch === EPOCH_MAX) return [delegated, 0]; // bootstrap stake
  if (d.activationEpoch === d.deactivationEpoch) return [0, 0];
  if (epoch === d.activationEpoch) return [0, delegated];
  if (epoch < d.activationEpoch) return [0, 0];
  let prevEpoch = d.activationEpoch;
  let prev = historyEntry(history, prevEpoch);
  if (!prev) return [delegated, 0];
  let activated = 0;
  for (;;) {
    const current = prevEpoch + 1;
    if (prev.activating === 0) break;
    activated += Math.max(1, allowance(delegated - activated, prev.activating, prev.effective));
    if (activated >= delegated) {
      activated = delegated;
      break;
    }
    if (current >= epoch || current >= d.deactivationEpoch) break;
    const next = historyEntry(history, current);
    if (!next) break;
    prevEpoch = current;
    prev = next;
  }
  return [activated, delegated - activated];
}

/** Delegation::stake_activating_and_deactivating: effective, activating and deactivating stake at `epoch`. */
export function stakeActivatingAndDeactivating(d: Delegation, epoch: number, history: StakeHistory): StakeHistoryEntry {
  const [effective, activating] = stakeAndActivating(d, epoch, history);
  if (epoch < d.deactivationEpoch) return { effective, activating, deactivating: 0 };
  if (epoch === d.deactivationEpoch) return { effective, activating: 0, deactivating: effective };
  let prevEpoch = d.deactivationEpoch;
  let prev = historyEntry(history, prevEpoch);
  if (!prev) return { effective: 0, activating: 0, deactivating: 0 };
  let remaining = effective;
  for (;;) {
    const current = prevEpoch + 1;
    if (prev.deactivating === 0) break;
    remaining = Math.max(0, remaining - Math.max(1, allowance(remaining, prev.deactivating, prev.effective)));
    if (remaining === 0) break;
    if (current >= epoch) break;
    const next = historyEntry(history, current);
    if (!next) break;
    prevEpoch = current;
    prev = next;
  }
  return { effective: remaining, activating: 0, deactivating: remaining };
}

export function effectiveStake(d: Delegation, epoch: number, history: StakeHistory): number {
  return stakeActivatingAndDeactivating(d, epoch, history).effective;
}
