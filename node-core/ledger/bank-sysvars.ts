/**
 * The sysvars of a bank, as Agave's bank keeps them: set when the bank opens (its Clock, the
 * RecentBlockhashes and SlotHashes of the blocks before it, the fee, the stake history, its
 * SlotHistory drawn when read), and the sealed bank's own blockhash put in front of its
 * RecentBlockhashes.
 */
import type { RentConfig } from '../runtime/account.ts';
import { MAX_RECENT_BLOCKHASHES_SYSVAR_ENTRIES, MAX_SLOT_HASHES_ENTRIES, type EpochSchedule, type Sysvars } from '../runtime/sysvars.ts';
import type { StakeHistory } from '../runtime/programs/stake/state.ts';
import type { Bank } from './bank.ts';
import type { BlockhashQueue } from './blockhash-queue.ts';
import { epochOf } from './epoch.ts';
import type { BlockSlotRing } from './slot-history.ts';

export interface ClockTimes {
  unixTimestamp: number;
  epochStartTimestamp: number;
}

/** What a new bank's sysvars are drawn from. */
export interface SysvarSources {
  rent: RentConfig;
  epochSchedule: EpochSchedule;
  blockhashes: BlockhashQueue;
  blockSlots: BlockSlotRing;
  lamportsPerSignature: number;
  stakeHistory: StakeHistory;
}

export function bankSysvars(slot: number, times: ClockTimes, s: SysvarSources): Sysvars {
  const { epoch } = epochOf(s.epochSchedule, slot);
  const recent = s.blockhashes.recent(slot - 1, MAX_SLOT_HASHES_ENTRIES);
  const blockSlots = s.blockSlots;
  return {
    clock: { slot, epochStartTimestamp: times.epochStartTimestamp, epoch, leaderScheduleEpoch: epoch + 1, unixTimestamp: times.unixTimestamp },
    rent: s.rent,
    epochSchedule: s.epochSchedule,
    recentBlockhashes: recent.slice(0, MAX_RECENT_BLOCKHASHES_SYSVAR_ENTRIES).map((e) => ({ blockhash: e.blockhash, lamportsPerSignature: e.lamportsPerSignature })),
    slotHashes: recent.map((e) => [e.slot, e.blockhash]),
    lamportsPerSignature: s.lamportsPerSignature,
    stakeHistory: s.stakeHistory,
    slotHistory: () => blockSlots.sysvarDataAt(slot),
  };
}

/**
 * The Clock's times for a bank opened at `slot` over `parent` whose slot begins at `beginsMs` (the
 * chain's time; the slots between them are others', so it begins that many slot times from now), never before
 * the parent's; the epoch's start is its first bank's time (the genesis time in epoch 0).
 */
export function clockAfter(parent: Bank, slot: number, beginsMs: number, schedule: EpochSchedule): ClockTimes {
  const begins = beginsMs;
  const unixTimestamp = Math.max(parent.sysvars.clock.unixTimestamp, Math.floor(begins / 1000));
  const sameEpoch = epochOf(schedule, slot).epoch === epochOf(schedule, parent.slot).epoch;
  return { unixTimestamp, epochStartTimestamp: sameEpoch ? parent.sysvars.clock.epochStartTimestamp : unixTimestamp };
}

/**
 * As Agave's register_recent_blockhash: a frozen bank runs (simulations) with its own blockhash as
 * the newest, so a nonce set in it can advance when simulated at its commitment.
 */
export function registerOwnBlockhash(sealed: Bank, lamportsPerSignature: number): void {
  sealed.sysvars.recentBlockhashes = [{ blockhash: sealed.blockhash!, lamportsPerSignature }, ...sealed.sysvars.recentBlockhashes].slice(0, MAX_RECENT_BLOCKHASHES_SYSVAR_ENTRIES);
}
