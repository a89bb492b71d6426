/**
 * Sysvar accounts. The bank does not store them: it renders each one from its own state when a
 * transaction or an RPC read asks for it, so an idle chain writes nothing for them per slot.
 */
import { ByteWriter } from '../common/bytes.ts';
import { decodeBase58 } from '../common/base58.ts';
import { SYSVAR_OWNER_ID, type Address } from '../common/pubkey.ts';
import { minimumBalanceForRentExemption, RENT_EXEMPT_RENT_EPOCH, type Account, type RentConfig } from './account.ts';
import { encodeStakeHistory, type StakeHistory } from './programs/stake/state.ts';

export const SYSVAR_CLOCK_ID: Address = 'SysvarC1ock11111111111111111111111111111111';
export const SYSVAR_RENT_ID: Address = 'SysvarRent111111111111111111111111111111111';
export const SYSVAR_EPOCH_SCHEDULE_ID: Address = 'SysvarEpochSchedu1e111111111111111111111111';
export const SYSVAR_FEES_ID: Address = 'SysvarFees111111111111111111111111111111111';
export const SYSVAR_RECENT_BLOCKHASHES_ID: Address = 'SysvarRecentB1ockHashes11111111111111111111';
export const SYSVAR_SLOT_HASHES_ID: Address = 'SysvarS1otHashes111111111111111111111111111';
export const SYSVAR_STAKE_HISTORY_ID: Address = 'SysvarStakeHistory1111111111111111111111111';
export const SYSVAR_INSTRUCTIONS_ID: Address = 'Sysvar1nstructions1111111111111111111111111';
export const SYSVAR_SLOT_HISTORY_ID: Address = 'SysvarS1otHistory11111111111111111111111111';
export const SYSVAR_LAST_RESTART_SLOT_ID: Address = 'SysvarLastRestartS1ot1111111111111111111111';

export const MAX_RECENT_BLOCKHASHES_SYSVAR_ENTRIES = 150;
export const MAX_SLOT_HASHES_ENTRIES = 512;
/** Slots the SlotHistory bit vector covers (about 5 days of 400 ms slots). */
export const SLOT_HISTORY_MAX_ENTRIES = 1024 * 1024;
/** bincode of SlotHistory: Some(blocks) tag, block count, the u64 blocks, bit count, next slot. */
export const SLOT_HISTORY_SIZE = 1 + 8 + SLOT_HISTORY_MAX_ENTRIES / 8 + 8 + 8;

export interface EpochSchedule {
  slotsPerEpoch: number;
  leaderScheduleSlotOffset: number;
  warmup: boolean;
  firstNormalEpoch: number;
  firstNormalSlot: number;
}

export interface Clock {
  slot: number;
  epochStartTimestamp: number;
  epoch: number;
  leaderScheduleEpoch: number;
  unixTimestamp: number;
}

export interface RecentBlockhashEntry {
  blockhash: string;
  lamportsPerSignature: number;
}

/** What programs may read of the bank they run in. */
export interface Sysvars {
  clock: Clock;
  rent: RentConfig;
  epochSchedule: EpochSchedule;
  /** Newest first, at most 150 entries. */
  recentBlockhashes: RecentBlockhashEntry[];
  /** Newest first: [slot, blockhash]. */
  slotHashes: Array<[number, string]>;
  lamportsPerSignature: number;
  /** Newest epoch first (the StakeHistory sysvar); absent: empty. */
  stakeHistory?: StakeHistory;
  /** The SlotHistory account data (128 KiB), rendered only when read; absent: not served. */
  slotHistory?: () => Uint8Array;
}

export function encodeClock(c: Clock): Uint8Array {
  return new ByteWriter(40).u64(c.slot).i64(c.epochStartTimestamp).u64(c.epoch).u64(c.leaderScheduleEpoch).i64(c.unixTimestamp).finish();
}

export function encodeRent(r: RentConfig): Uint8Array {
  const w = new ByteWriter(17).u64(r.lamportsPerByteYear);
  const f = new Uint8Array(8);
  new DataView(f.buffer).setFloat64(0, r.exemptionThreshold, true);
  return w.bytes(f).u8(r.burnPercent).finish();
}

export function encodeEpochSchedule(e: EpochSchedule): Uint8Array {
  return new ByteWriter(33)
    .u64(e.slotsPerEpoch)
    .u64(e.leaderScheduleSlotOffset)
    .u8(e.warmup ? 1 : 0)
    .u64(e.firstNormalEpoch)
    .u64(e.firstNormalSlot)
    .finish();
}

const RECENT_BLOCKHASHES_SIZE = 8 + MAX_RECENT_BLOCKHASHES_SYSVAR_ENTRIES * 40;
const SLOT_HASHES_SIZE = 8 + MAX_SLOT_HASHES_ENTRIES * 40;

/**
 * Blockhashes decoded once each: every bank's SlotHashes lists the 512 blocks before it, of which
 * one is new, and the validator's vote reads it every slot (decoding all 512 was most of a slot's work).
 */
const decodedBlockhashes = new Map<string, Uint8Array>();
const DECODED_BLOCKHASHES_KEPT = 2 * MAX_SLOT_HASHES_ENTRIES;

function blockhashBytes(blockhash: string): Uint8Array {
  let bytes = decodedBlockhashes.get(blockhash);
  if (!bytes) {
    bytes = decodeBase58(blockhash);
    if (decodedBlockhashes.size >= DECODED_BLOCKHASHES_KEPT) decodedBlockhashes.delete(decodedBlockhashes.keys().next().value!);
    decodedBlockhashes.set(blockhash, bytes);
  }
  return bytes;
}

export function encodeRecentBlockhashes(entries: RecentBlockhashEntry[]): Uint8Array {
  const w = new ByteWriter(RECENT_BLOCKHASHES_SIZE).u64(entries.length);
  for (const e of entries) w.bytes(blockhashBytes(e.blockhash)).u64(e.lamportsPerSignature);
  const out = new Uint8Array(RECENT_BLOCKHASHES_SIZE);
  out.set(w.finish());
  return out;
}

export function encodeSlotHashes(entries: Array<[number, string]>): Uint8Array {
  const w = new ByteWriter(SLOT_HASHES_SIZE).u64(entries.length);
  for (const [slot, hash] of entries) w.u64(slot).bytes(blockhashBytes(hash));
  const out = new Uint8Array(SLOT_HASHES_SIZE);
  out.set(w.finish());
  return out;
}

/** `bits`: bit i (slot i mod 2^20) at byte i/8, bit i%8, which is the u64 little-endian blocks' layout. */
export function encodeSlotHistory(bits: Uint8Array, nextSlot: number): Uint8Array {
  if (bits.length !== SLOT_HISTORY_MAX_ENTRIES / 8) throw new RangeError('slot history bits must cover 2^20 slots');
  return new ByteWriter(SLOT_HISTORY_SIZE)
    .u8(1)
    .u64(SLOT_HISTORY_MAX_ENTRIES / 64)
    .bytes(bits)
    .u64(SLOT_HISTORY_MAX_ENTRIES)
    .u64(nextSlot)
    .finish();
}

function sysvarAccount(rent: RentConfig, data: Uint8Array): Account {
  const lamports = Math.max(1, minimumBalanceForRentExemption(rent, data.length));
  return { lamports, data, owner: SYSVAR_OWNER_ID, executable: false, rentEpoch: RENT_EXEMPT_RENT_EPOCH };
}

/** Renders a sysvar account, or null when the address is not a sysvar this node serves. */
export function renderSysvar(address: Address, s: Sysvars): Account | null {
  switch (address) {
    case SYSVAR_CLOCK_ID:
      return sysvarAccount(s.rent, encodeClock(s.clock));
    case SYSVAR_RENT_ID:
      return sysvarAccount(s.rent, encodeRent(s.rent));
    case SYSVAR_EPOCH_SCHEDULE_ID:
      return sysvarAccount(s.rent, encodeEpochSchedule(s.epochSchedule));
    case SYSVAR_FEES_ID:
      return sysvarAccount(s.rent, new ByteWriter(8).u64(s.lamportsPerSignature).finish());
    case SYSVAR_RECENT_BLOCKHASHES_ID:
      return sysvarAccount(s.rent, encodeRecentBlockhashes(s.recentBlockhashes));
    case SYSVAR_SLOT_HASHES_ID:
      return sysvarAccount(s.rent, encodeSlotHashes(s.slotHashes));
    case SYSVAR_STAKE_HISTORY_ID:
      return sysvarAccount(s.rent, encodeStakeHistory(s.stakeHistory ?? []));
    case SYSVAR_SLOT_HISTORY_ID:
      return s.slotHistory ? sysvarAccount(s.rent, s.slotHistory()) : null;
    case SYSVAR_LAST_RESTART_SLOT_ID:
      // The slot of the newest hard fork at or below the bank's slot: this chain never has one.
      return sysvarAccount(s.rent, new ByteWriter(8).u64(0).finish());
    default:
      return null;
  }
}

export const SYSVAR_IDS: ReadonlySet<Address> = new Set([
  SYSVAR_CLOCK_ID,
  SYSVAR_RENT_ID,
  SYSVAR_EPOCH_SCHEDULE_ID,
  SYSVAR_FEES_ID,
  SYSVAR_RECENT_BLOCKHASHES_ID,
  SYSVAR_SLOT_HASHES_ID,
  SYSVAR_STAKE_HISTORY_ID,
  SYSVAR_SLOT_HISTORY_ID,
  SYSVAR_LAST_RESTART_SLOT_ID,
  SYSVAR_INSTRUCTIONS_ID,
]);
