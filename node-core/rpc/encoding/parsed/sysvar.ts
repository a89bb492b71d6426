/**
 * jsonParsed view of sysvar accounts, in the shapes of Agave's `parse_sysvar`:
 * `{type: <camelCase sysvar name>, info: ...}`. Fee amounts and rent's lamportsPerByteYear are
 * strings there (StringAmount); slots, epochs and timestamps are numbers.
 */
import { ByteReader } from '../../../common/bytes.ts';
import { encodeBase58 } from '../../../common/base58.ts';
import type { Address } from '../../../common/pubkey.ts';
import type { Account } from '../../../runtime/account.ts';
import {
  SYSVAR_CLOCK_ID,
  SYSVAR_EPOCH_SCHEDULE_ID,
  SYSVAR_FEES_ID,
  SYSVAR_RECENT_BLOCKHASHES_ID,
  SYSVAR_RENT_ID,
  SYSVAR_SLOT_HASHES_ID,
  SYSVAR_STAKE_HISTORY_ID,
  SYSVAR_SLOT_HISTORY_ID,
  SYSVAR_LAST_RESTART_SLOT_ID,
  SLOT_HISTORY_MAX_ENTRIES,
} from '../../../runtime/sysvars.ts';
import type { AccountParser } from './types.ts';

type SysvarValue = { type: string; info: unknown };

const num = (v: bigint): number => Number(v);

/** bincode Vec length, refused when the remaining bytes cannot hold that many entries. */
function vecLen(r: ByteReader, entrySize: number): number {
  const n = r.u64();
  if (n * BigInt(entrySize) > BigInt(r.remaining)) throw new RangeError('vec length exceeds data');
  return Number(n);
}

function readBool(r: ByteReader): boolean {
  const b = r.u8();
  if (b > 1) throw new RangeError('invalid bool');
  return b === 1;
}

/** bv's BitVec<u64> (Option<blocks>, bit count) shown as Agave's SlotHistoryBits: one '1' or '0' per slot of the 2^20. */
function slotHistoryBits(r: ByteReader): string {
  const blocks = readBool(r) ? vecLen(r, 8) : 0;
  const bytes = r.bytesN(blocks * 8);
  const len = r.u64();
  if (len > BigInt(blocks * 64)) throw new RangeError('bit count exceeds the blocks');
  const shown = Math.min(Number(len), SLOT_HISTORY_MAX_ENTRIES);
  const chars = Buffer.alloc(SLOT_HISTORY_MAX_ENTRIES, 0x30);
  for (let i = 0; i < shown; i++) if (bytes[i >>> 3]! & (1 << (i & 7))) chars[i] = 0x31;
  return chars.toString('latin1');
}

const feeCalculator = (lamportsPerSignature: bigint) => ({ lamportsPerSignature: lamportsPerSignature.toString() });

const decoders = new Map<Address, (r: ByteReader) => SysvarValue>(Object.entries({
  [SYSVAR_CLOCK_ID]: (r) => {
    const slot = num(r.u64());
    const epochStartTimestamp = num(r.i64());
    const epoch = num(r.u64());
    const leaderScheduleEpoch = num(r.u64());
    const unixTimestamp = num(r.i64());
    return { type: 'clock', info: { slot, epoch, epochStartTimestamp, leaderScheduleEpoch, unixTimestamp } };
  },
  [SYSVAR_EPOCH_SCHEDULE_ID]: (r) => ({
    type: 'epochSchedule',
    info: {
      slotsPerEpoch: num(r.u64()),
      leaderScheduleSlotOffset: num(r.u64()),
      warmup: readBool(r),
      firstNormalEpoch: num(r.u64()),
      firstNormalSlot: num(r.u64()),
    },
  }),
  [SYSVAR_FEES_ID]: (r) => ({ type: 'fees', info: { feeCalculator: feeCalculator(r.u64()) } }),
  [SYSVAR_RECENT_BLOCKHASHES_ID]: (r) => {
    const n = vecLen(r, 40);
    const info = new Array(n);
    for (let i = 0; i < n; i++) {
      const blockhash = encodeBase58(r.bytesN(32));
      info[i] = { blockhash, feeCalculator: feeCalculator(r.u64()) };
    }
    return { type: 'recentBlockhashes', info };
  },
  [SYSVAR_RENT_ID]: (r) => {
    const lamportsPerByteYear = r.u64().toString();
    const f = r.bytesN(8);
    const exemptionThreshold = new DataView(f.buffer, f.byteOffset, 8).getFloat64(0, true);
    return { type: 'rent', info: { lamportsPerByteYear, exemptionThreshold, burnPercent: r.u8() } };
  },
  [SYSVAR_SLOT_HASHES_ID]: (r) => {
    const n = vecLen(r, 40);
    const info = new Array(n);
    for (let i = 0; i < n; i++) {
      const slot = num(r.u64());
      info[i] = { slot, hash: encodeBase58(r.bytesN(32)) };
    }
    return { type: 'slotHashes', info };
  },
  [SYSVAR_SLOT_HISTORY_ID]: (r) => {
    const bits = slotHistoryBits(r);
    return { type: 'slotHistory', info: { nextSlot: num(r.u64()), bits } };
  },
  [SYSVAR_LAST_RESTART_SLOT_ID]: (r) => ({ type: 'lastRestartSlot', info: { lastRestartSlot: num(r.u64()) } }),
  [SYSVAR_STAKE_HISTORY_ID]: (r) => {
    const n = vecLen(r, 32);
    const info = new Array(n);
    for (let i = 0; i < n; i++) {
      const epoch = num(r.u64());
      const stakeHistory = { effective: num(r.u64()), activating: num(r.u64()), deactivating: num(r.u64()) };
      info[i] = { epoch, stakeHistory };
    }
    return { type: 'stakeHistory', info };
  },
}));

/** Decodes a sysvar by its address; trailing bytes are allowed, as bincode's default deserialize does. */
export function parseSysvar(address: Address, data: Uint8Array): SysvarValue | null {
  const decode = decoders.get(address);
  if (!decode) return null;
  try {
    return decode(new ByteReader(data));
  } catch {
    return null;
  }
}

export const parseSysvarAccount: AccountParser = (address: Address, account: Account) => {
  const parsed = parseSysvar(address, account.data);
  return parsed ? { program: 'sysvar', parsed, space: account.data.length } : null;
};
