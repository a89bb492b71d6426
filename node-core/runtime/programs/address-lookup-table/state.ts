/**
 * The Address Lookup Table account (Agave's address_lookup_table::state): a 56-byte header — the
 * bincode of ProgramState::LookupTable(LookupTableMeta), zero-padded — followed by up to 256
 * addresses of 32 bytes. Header layout: u32 state (0 Uninitialized, 1 LookupTable), u64
 * deactivation_slot (u64::MAX while active), u64 last_extended_slot, u8 last_extended_slot_start_index,
 * Option<Pubkey> authority (tag byte, then 32 bytes when Some; None = frozen), u16 padding.
 */
import { ByteReader, ByteWriter } from '../../../common/bytes.ts';
import { addressToBytes, bytesToAddress, type Address } from '../../../common/pubkey.ts';
import { InstructionError } from '../../errors.ts';

export const ADDRESS_LOOKUP_TABLE_PROGRAM_ID: Address = 'AddressLookupTab1e1111111111111111111111111';
export const LOOKUP_TABLE_META_SIZE = 56;
export const LOOKUP_TABLE_MAX_ADDRESSES = 256;
/** slot_hashes::MAX_ENTRIES: how long a deactivated table stays usable. */
export const SLOT_HASHES_MAX_ENTRIES = 512;
export const SLOT_MAX = 0xffff_ffff_ffff_ffffn;

export interface LookupTableMeta {
  /** u64::MAX (SLOT_MAX) while the table is active. */
  deactivationSlot: bigint;
  lastExtendedSlot: bigint;
  lastExtendedSlotStartIndex: number;
  /** null once frozen. */
  authority: Address | null;
}

export interface LookupTable {
  meta: LookupTableMeta;
  addresses: Address[];
}

export const newLookupTableMeta = (authority: Address): LookupTableMeta => ({
  deactivationSlot: SLOT_MAX,
  lastExtendedSlot: 0n,
  lastExtendedSlotStartIndex: 0,
  authority,
});

/** The 56-byte header: zero-filled, then the bincode of ProgramState::LookupTable(meta). */
export function encodeLookupTableMeta(meta: LookupTableMeta): Uint8Array {
  const w = new ByteWriter(LOOKUP_TABLE_META_SIZE)
    .u32(1)
    .u64(meta.deactivationSlot)
    .u64(meta.lastExtendedSlot)
    .u8(meta.lastExtendedSlotStartIndex);
  if (meta.authority === null) w.u8(0);
  else w.u8(1).bytes(addressToBytes(meta.authority));
  w.u16(0);
  const out = new Uint8Array(LOOKUP_TABLE_META_SIZE);
  out.set(w.finish());
  return out;
}

/** A whole table account's data. */
export function encodeLookupTable(table: LookupTable): Uint8Array {
  const out = new Uint8Array(LOOKUP_TABLE_META_SIZE + 32 * table.addresses.length);
  out.set(encodeLookupTableMeta(table.meta));
  table.addresses.forEach((a, i) => out.set(addressToBytes(a), LOOKUP_TABLE_META_SIZE + 32 * i));
  return out;
}

/**
 * AddressLookupTable::deserialize's checks without decoding the addresses: a header that does not
 * decode is InvalidInstructionData (limited_deserialize's error), an Uninitialized state
 * UninitializedAccount, address bytes that are missing or not whole addresses InvalidAccountData.
 */
export function decodeLookupTableHeader(data: Uint8Array): { meta: LookupTableMeta; addressCount: number } {
  let meta: LookupTableMeta;
  try {
    const r = new ByteReader(data);
    const state = r.u32();
    if (state === 0) throw new InstructionError('UninitializedAccount');
    if (state !== 1) throw new InstructionError('InvalidInstructionData');
    const deactivationSlot = r.u64();
    const lastExtendedSlot = r.u64();
    const lastExtendedSlotStartIndex = r.u8();
    const tag = r.u8();
    if (tag > 1) throw new InstructionError('InvalidInstructionData');
    const authority = tag === 1 ? bytesToAddress(r.bytesN(32)) : null;
    r.u16();
    meta = { deactivationSlot, lastExtendedSlot, lastExtendedSlotStartIndex, authority };
  } catch (e) {
    if (e instanceof InstructionError) throw e;
    throw new InstructionError('InvalidInstructionData');
  }
  if (data.length < LOOKUP_TABLE_META_SIZE) throw new InstructionError('InvalidAccountData');
  const raw = data.length - LOOKUP_TABLE_META_SIZE;
  if (raw % 32 !== 0) throw new InstructionError('InvalidAccountData');
  return { meta, addressCount: raw / 32 };
}

/** Address `i` of a table's data (checked by decodeLookupTableHeader). */
export function lookupTableAddressAt(data: Uint8Array, i: number): Address {
  const at = LOOKUP_TABLE_META_SIZE + 32 * i;
  return bytesToAddress(data.subarray(at, at + 32));
}

/** AddressLookupTable::deserialize: the header and every address. */
export function decodeLookupTable(data: Uint8Array): LookupTable {
  const { meta, addressCount } = decodeLookupTableHeader(data);
  const addresses = new Array<Address>(addressCount);
  for (let i = 0; i < addressCount; i++) addresses[i] = lookupTableAddressAt(data, i);
  return { meta, addresses };
}

export type LookupTableStatus = { kind: 'activated' } | { kind: 'deactivating'; remainingBlocks: number } | { kind: 'deactivated' };

/**
 * LookupTableMeta::status: a deactivated table stays usable (deactivating) while its deactivation
 * slot is still in the slot hashes sysvar (newest first), so no transaction in flight that saw it
 * active can be replayed against a recreated table.
 */
export function lookupTableStatus(meta: LookupTableMeta, currentSlot: number, slotHashes: ReadonlyArray<readonly [number, string]>): LookupTableStatus {
  if (meta.deactivationSlot === SLOT_MAX) return { kind: 'activated' };
  if (meta.deactivationSlot === BigInt(currentSlot)) return { kind: 'deactivating', remainingBlocks: SLOT_HASHES_MAX_ENTRIES + 1 };
  const position = slotHashPosition(slotHashes, meta.deactivationSlot);
  if (position !== -1) return { kind: 'deactivating', remainingBlocks: SLOT_HASHES_MAX_ENTRIES - position };
  return { kind: 'deactivated' };
}

/** Index of `slot` in the newest-first slot hashes (a binary search, as SlotHashes::position), or -1. */
export function slotHashPosition(slotHashes: ReadonlyArray<readonly [number, string]>, slot: bigint): number {
  let lo = 0;
  let hi = slotHashes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const s = BigInt(slotHashes[mid]![0]);
    if (s === slot) return mid;
    if (s > slot) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/** Addresses transactions may look up: all of them, except those appended in the current slot. */
export function activeAddressCount(meta: LookupTableMeta, addressCount: number, currentSlot: number): number {
  return BigInt(currentSlot) > meta.lastExtendedSlot ? addressCount : meta.lastExtendedSlotStartIndex;
}
