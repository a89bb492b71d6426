/**
 * ProgramInstruction of the Address Lookup Table program, bincode-encoded: a u32 variant, then
 * CreateLookupTable {recent_slot: u64, bump_seed: u8}, FreezeLookupTable, ExtendLookupTable
 * {new_addresses: Vec<Pubkey> (u64 length)}, DeactivateLookupTable, CloseLookupTable.
 * Decoding follows limited_deserialize: trailing bytes allowed, nothing longer than a packet.
 */
import { ByteReader, ByteWriter } from '../../../common/bytes.ts';
import { findProgramAddress } from '../../../common/pda.ts';
import { addressToBytes, bytesToAddress, type Address } from '../../../common/pubkey.ts';
import { ADDRESS_LOOKUP_TABLE_PROGRAM_ID } from './state.ts';

export type LookupTableInstruction =
  | { type: 'createLookupTable'; recentSlot: bigint; bumpSeed: number }
  | { type: 'freezeLookupTable' }
  | { type: 'extendLookupTable'; newAddresses: Address[] }
  | { type: 'deactivateLookupTable' }
  | { type: 'closeLookupTable' };

const PACKET_DATA_SIZE = 1232;

/** The instruction, or null when the data does not decode. */
export function decodeLookupTableInstruction(data: Uint8Array): LookupTableInstruction | null {
  try {
    const r = new ByteReader(data);
    switch (r.u32()) {
      case 0:
        return { type: 'createLookupTable', recentSlot: r.u64(), bumpSeed: r.u8() };
      case 1:
        return { type: 'freezeLookupTable' };
      case 2: {
        const n = r.u64();
        if (n > BigInt(Math.floor(PACKET_DATA_SIZE / 32))) return null;
        const newAddresses: Address[] = [];
        for (let i = 0; i < Number(n); i++) newAddresses.push(bytesToAddress(r.bytesN(32)));
        return { type: 'extendLookupTable', newAddresses };
      }
      case 3:
        return { type: 'deactivateLookupTable' };
      case 4:
        return { type: 'closeLookupTable' };
      default:
        return null;
    }
  } catch {
    return null;
  }
}

export function encodeLookupTableInstruction(ix: LookupTableInstruction): Uint8Array {
  const w = new ByteWriter(16);
  switch (ix.type) {
    case 'createLookupTable':
      return w.u32(0).u64(ix.recentSlot).u8(ix.bumpSeed).finish();
    case 'freezeLookupTable':
      return w.u32(1).finish();
    case 'extendLookupTable':
      w.u32(2).u64(ix.newAddresses.length);
      for (const a of ix.newAddresses) w.bytes(addressToBytes(a));
      return w.finish();
    case 'deactivateLookupTable':
      return w.u32(3).finish();
    case 'closeLookupTable':
      return w.u32(4).finish();
  }
}

/** The seeds of a table's address before its bump: the authority, then the recent slot (u64 LE). */
export const lookupTableSeeds = (authority: Address, recentSlot: bigint | number): Uint8Array[] => [addressToBytes(authority), new ByteWriter(8).u64(recentSlot).finish()];

/** derive_lookup_table_address: the address of `authority`'s table created at `recentSlot`, and its bump seed. */
export function deriveLookupTableAddress(authority: Address, recentSlot: bigint | number): { address: Address; bump: number } {
  const { address, bump } = findProgramAddress(lookupTableSeeds(authority, recentSlot), ADDRESS_LOOKUP_TABLE_PROGRAM_ID);
  return { address, bump };
}
