/**
 * Who leads each slot, from stake, as Agave decides it: when the first bank of epoch E is made, the
 * stake then effective behind each validator identity is kept as epoch E+1's "staked nodes"
 * (update_epoch_stakes); epoch E+1's schedule draws one leader per 4 slots, weighted by that stake,
 * from a ChaCha20 stream seeded with the epoch (leader_schedule_utils::leader_schedule).
 *
 * This node is one validator: slots led by other identities get no block (they are skipped). Two
 * departures keep a lone node alive where a cluster would halt: an epoch whose stakes were never
 * snapshotted (no block of the epoch before it) takes the newest earlier snapshot, and an epoch
 * whose schedule gives this node no slot at all is led by this node throughout.
 */
import { ChaCha20Rng, WeightedIndex } from '../common/chacha-rng.ts';
import { addressToBytes, VOTE_PROGRAM_ID, type Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import type { EpochSchedule } from '../runtime/sysvars.ts';
import { stakeActivatingAndDeactivating, type StakeHistory } from '../runtime/programs/stake/state.ts';
import { stakeAccounts, tryDecodeVoteState, type AccountSource, type StakeAccountView } from './stakes.ts';
import { epochOf } from './epoch.ts';

export const NUM_CONSECUTIVE_LEADER_SLOTS = 4;
/** Epoch stakes a bank keeps behind its leader-schedule epoch (MAX_LEADER_SCHEDULE_STAKES). */
export const MAX_LEADER_SCHEDULE_STAKES = 5;
/** Schedules kept computed (the current epoch, the next, and a few looked up by RPC). */
const CACHED_SCHEDULES = 8;

/** Stake behind each validator identity, in lamports ([identity, stake]; only identities with stake). */
export type StakedNodes = Array<[Address, number]>;

/**
 * EpochStakes::staked_nodes at `epoch`: each delegation's effective stake, summed per vote account
 * and then per the vote account's node identity. Delegations to accounts that are not vote accounts count for nothing.
 */
export function stakedNodes(stakes: readonly StakeAccountView[], nodeOfVoteAccount: (vote: Address) => Address | null, epoch: number, history: StakeHistory): StakedNodes {
  const byNode = new Map<Address, number>();
  for (const s of stakes) {
    const d = s.state.stake.delegation;
    const effective = stakeActivatingAndDeactivating(d, epoch, history).effective;
    if (effective === 0) continue;
    const node = nodeOfVoteAccount(d.voter);
    if (node) byNode.set(node, (byNode.get(node) ?? 0) + effective);
  }
  return [...byNode];
}

/** stakedNodes over a bank's stake and vote accounts. */
export function stakedNodesOf(bank: AccountSource & { get(address: Address): Account | null }, epoch: number, history: StakeHistory): StakedNodes {
  const nodeOf = (vote: Address) => {
    const account = bank.get(vote);
    return account && account.owner === VOTE_PROGRAM_ID ? (tryDecodeVoteState(account.data)?.nodePubkey ?? null) : null;
  };
  return stakedNodes(stakeAccounts(bank), nodeOf, epoch, history);
}

/** One epoch's leaders, one per group of NUM_CONSECUTIVE_LEADER_SLOTS slots. */
export class EpochLeaders {
  constructor(
    readonly epoch: number,
    readonly firstSlot: number,
    readonly slotsInEpoch: number,
    private readonly groups: readonly Address[],
  ) {}

  leaderAt(slotIndex: number): Address {
    return this.groups[Math.floor(slotIndex / NUM_CONSECUTIVE_LEADER_SLOTS)]!;
  }

  private indexes?: Record<Address, number[]>;

  /** getLeaderSchedule's map: identity → the slot indexes it leads, ascending (made once; do not change it). */
  byIdentity(): Record<Address, number[]> {
    if (this.indexes) return this.indexes;
    const out: Record<Address, number[]> = {};
    for (let i = 0; i < this.slotsInEpoch; i++) (out[this.leaderAt(i)] ??= []).push(i);
    return (this.indexes = out);
  }
}

type ExactStakes = ReadonlyArray<readonly [Address, bigint]>;

/** Stake first, larger first; equal stakes by identity bytes, larger first (sort_stakes). */
function sortStakes(nodes: ExactStakes): ExactStakes {
  const bytes = new Map(nodes.map(([id]) => [id, addressToBytes(id)]));
  return [...nodes].sort(([a, sa], [b, sb]) => (sa !== sb ? (sb > sa ? 1 : -1) : Buffer.compare(bytes.get(b)!, bytes.get(a)!)));
}

/** LeaderSchedule::new for `epoch`: the group leaders drawn by stake (u64 lamports). `nodes` must hold some stake. */
export function drawLeaders(epoch: number, nodes: ExactStakes, slotsInEpoch: number): Address[] {
  const sorted = sortStakes(nodes);
  const seed = new Uint8Array(32);
  new DataView(seed.buffer).setBigUint64(0, BigInt(epoch), true);
  const rng = new ChaCha20Rng(seed);
  const index = new WeightedIndex(sorted.map(([, stake]) => stake));
  const groups = Math.ceil(slotsInEpoch / NUM_CONSECUTIVE_LEADER_SLOTS);
  return Array.from({ length: groups }, () => sorted[index.sample(rng)]![0]);
}

/** The node's view of leader schedules: the stakes snapshotted per epoch, and the schedules drawn from them. */
export class LeaderSchedules {
  private readonly snapshots = new Map<number, StakedNodes>();
  private readonly cache = new Map<number, EpochLeaders>();

  constructor(
    private readonly epochSchedule: EpochSchedule,
    /** This node's identity: the one validator that makes blocks. */
    readonly identity: Address,
    snapshots: Iterable<[number, StakedNodes]> = [],
  ) {
    for (const [epoch, nodes] of snapshots) this.snapshots.set(epoch, nodes);
  }

  /** Keeps `epoch`'s stakes unless already kept (update_epoch_stakes), forgetting those too old. */
  record(epoch: number, nodes: StakedNodes): void {
    if (this.snapshots.has(epoch)) return;
    this.snapshots.set(epoch, nodes);
    for (const e of this.snapshots.keys()) if (e < epoch - MAX_LEADER_SCHEDULE_STAKES) this.snapshots.delete(e);
    // Schedules drawn for this epoch or later from an earlier snapshot are drawn again from this one.
    for (const e of this.cache.keys()) if (e < epoch - MAX_LEADER_SCHEDULE_STAKES || e >= epoch) this.cache.delete(e);
  }

  /** What the ledger keeps to rebuild the schedules after a restart. */
  toJSON(): Array<[number, StakedNodes]> {
    return [...this.snapshots].sort(([a], [b]) => a - b);
  }

  /** The epoch's stakes, else the newest earlier snapshot (an epoch never snapshotted); null when forgotten. */
  private stakesFor(epoch: number): StakedNodes | null {
    const own = this.snapshots.get(epoch);
    if (own) return own;
    const older = [...this.snapshots.keys()].filter((e) => e < epoch);
    return older.length === 0 ? null : this.snapshots.get(Math.max(...older))!;
  }

  /** The epoch's schedule, or null when its stakes are no longer kept. */
  forEpoch(epoch: number): EpochLeaders | null {
    const cached = this.cache.get(epoch);
    if (cached) return cached;
    const nodes = this.stakesFor(epoch);
    if (!nodes) return null;
    const slotsInEpoch = this.epochSchedule.slotsPerEpoch;
    const firstSlot = epoch * slotsInEpoch;
    let groups = nodes.length > 0 ? drawLeaders(epoch, nodes.map(([id, stake]) => [id, BigInt(stake)] as const), slotsInEpoch) : [];
    if (!groups.includes(this.identity)) groups = new Array<Address>(Math.ceil(slotsInEpoch / NUM_CONSECUTIVE_LEADER_SLOTS)).fill(this.identity);
    const leaders = new EpochLeaders(epoch, firstSlot, slotsInEpoch, groups);
    this.cache.set(epoch, leaders);
    if (this.cache.size > CACHED_SCHEDULES) this.cache.delete(this.cache.keys().next().value!);
    return leaders;
  }

  /** The slot's leader, or null when its epoch's stakes are no longer kept. */
  leaderAt(slot: number): Address | null {
    const { epoch, slotIndex } = epochOf(this.epochSchedule, slot);
    return this.forEpoch(epoch)?.leaderAt(slotIndex) ?? null;
  }

  /** The first slot after `slot` this node leads (every schedule gives it one). */
  nextOwnSlot(slot: number): number {
    for (let s = slot + 1; ; s++) {
      const leader = this.leaderAt(s);
      if (leader === null || leader === this.identity) return s;
    }
  }
}
