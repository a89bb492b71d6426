/** Epochs of a fixed length (no warm-up epochs, as solana-test-validator): which epoch a slot is in. */
import type { EpochSchedule } from '../runtime/sysvars.ts';

/** A schedule without warmup: every epoch has `slotsPerEpoch` slots. */
export function fixedEpochSchedule(slotsPerEpoch: number): EpochSchedule {
  return { slotsPerEpoch, leaderScheduleSlotOffset: slotsPerEpoch, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 };
}

export function epochOf(schedule: EpochSchedule, slot: number): { epoch: number; slotIndex: number; firstSlot: number } {
  const epoch = Math.floor(slot / schedule.slotsPerEpoch);
  const firstSlot = epoch * schedule.slotsPerEpoch;
  return { epoch, slotIndex: slot - firstSlot, firstSlot };
}
