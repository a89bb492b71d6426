/**
 * Solana's Inflation schedule (solana-inflation): the total rate tapers from `initial` by `taper` a
 * year down to `terminal`; the foundation's share applies for `foundationTerm` years; validators get
 * the rest. Years are counted in slots of this chain's slot duration.
 */
import type { InflationConfig } from './genesis-config.ts';
import type { EpochSchedule } from '../runtime/sysvars.ts';

const SECONDS_PER_YEAR = 365.25 * 24 * 60 * 60;

export function slotsPerYear(slotMs: number): number {
  return (SECONDS_PER_YEAR * 1000) / slotMs;
}

export function totalRate(i: InflationConfig, year: number): number {
  const tapered = i.initial * Math.pow(1 - i.taper, year);
  return tapered > i.terminal ? tapered : i.terminal;
}

export function foundationRate(i: InflationConfig, year: number): number {
  return year < i.foundationTerm ? i.foundation * totalRate(i, year) : 0;
}

export function validatorRate(i: InflationConfig, year: number): number {
  return totalRate(i, year) - foundationRate(i, year);
}

/** Bank::slot_in_year_for_inflation: the first slot of `epoch` in years (inflation starts at genesis). */
export function yearOfEpoch(schedule: EpochSchedule, epoch: number, slotMs: number): number {
  return firstSlotOfEpoch(schedule, epoch) / slotsPerYear(slotMs);
}

export function firstSlotOfEpoch(schedule: EpochSchedule, epoch: number): number {
  if (schedule.warmup && epoch <= schedule.firstNormalEpoch) return (Math.pow(2, epoch) - 1) * 32;
  return (epoch - schedule.firstNormalEpoch) * schedule.slotsPerEpoch + schedule.firstNormalSlot;
}

export function slotsInEpoch(schedule: EpochSchedule, epoch: number): number {
  if (schedule.warmup && epoch < schedule.firstNormalEpoch) return Math.pow(2, epoch + 5);
  return schedule.slotsPerEpoch;
}

/** The lamports validators earn for `epoch` (Bank::calculate_previous_epoch_inflation_rewards). */
export function epochValidatorRewards(i: InflationConfig, schedule: EpochSchedule, slotMs: number, rewardedEpoch: number, capitalization: number): number {
  const rate = validatorRate(i, yearOfEpoch(schedule, rewardedEpoch + 1, slotMs));
  const duration = slotsInEpoch(schedule, rewardedEpoch) / slotsPerYear(slotMs);
  return Math.floor(rate * capitalization * duration);
}
