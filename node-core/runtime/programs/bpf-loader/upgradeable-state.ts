/**
 * The BPF Upgradeable Loader's account layouts (solana-loader-v3-interface UpgradeableLoaderState,
 * bincode): a Buffer, a Program pointing at its ProgramData, and the ProgramData holding the
 * deployment slot, the upgrade authority and the ELF. Read and written here only.
 */
import { ByteReader, ByteWriter, DecodeError } from '../../../common/bytes.ts';
import { findProgramAddress } from '../../../common/pda.ts';
import { addressToBytes, bytesToAddress, type Address } from '../../../common/pubkey.ts';

export const BPF_LOADER_UPGRADEABLE_ID: Address = 'BPFLoaderUpgradeab1e11111111111111111111111';
export const BPF_LOADER_DEPRECATED_ID: Address = 'BPFLoader1111111111111111111111111111111111';

/** Bytes before a Buffer's program bytes: tag, Option tag, authority. */
export const BUFFER_METADATA_SIZE = 37;
/** A Program account's whole data: tag, programdata address. */
export const PROGRAM_SIZE = 36;
/** Bytes before ProgramData's ELF: tag, slot, Option tag, authority. */
export const PROGRAMDATA_METADATA_SIZE = 45;

export type UpgradeableLoaderState =
  | { kind: 'uninitialized' }
  | { kind: 'buffer'; authority: Address | null }
  | { kind: 'program'; programData: Address }
  | { kind: 'programData'; slot: number; authority: Address | null };

const TAG = { uninitialized: 0, buffer: 1, program: 2, programData: 3 } as const;

/** The state at the start of `data` (the bytes after it are the buffer's or programdata's ELF). */
export function decodeUpgradeableState(data: Uint8Array): UpgradeableLoaderState {
  const r = new ByteReader(data);
  const tag = r.u32();
  const optionalKey = (): Address | null => {
    const some = r.u8();
    if (some > 1) throw new DecodeError(`invalid Option tag ${some}`);
    return some === 1 ? bytesToAddress(r.bytesN(32)) : null;
  };
  switch (tag) {
    case TAG.uninitialized:
      return { kind: 'uninitialized' };
    case TAG.buffer:
      return { kind: 'buffer', authority: optionalKey() };
    case TAG.program:
      return { kind: 'program', programData: bytesToAddress(r.bytesN(32)) };
    case TAG.programData: {
      const slot = Number(r.u64());
      return { kind: 'programData', slot, authority: optionalKey() };
    }
    default:
      throw new DecodeError(`unknown upgradeable loader state ${tag}`);
  }
}

/** The state as bincode writes it (an absent authority is the Option's None tag alone, as Agave serializes it). */
export function encodeUpgradeableState(state: UpgradeableLoaderState): Uint8Array {
  const w = new ByteWriter(PROGRAMDATA_METADATA_SIZE).u32(TAG[state.kind]);
  const optionalKey = (key: Address | null) => (key === null ? w.u8(0) : w.u8(1).bytes(addressToBytes(key)));
  if (state.kind === 'buffer') optionalKey(state.authority);
  else if (state.kind === 'program') w.bytes(addressToBytes(state.programData));
  else if (state.kind === 'programData') {
    w.u64(state.slot);
    optionalKey(state.authority);
  }
  return w.finish();
}

/** The ProgramData account of an upgradeable program: the PDA of [program id] under the loader. */
export function programDataAddress(programId: Address): Address {
  return findProgramAddress([addressToBytes(programId)], BPF_LOADER_UPGRADEABLE_ID).address;
}

/** ProgramData's bytes for `elf` deployed at `slot`: the 45-byte metadata, then the ELF. */
export function programDataBytes(slot: number, authority: Address | null, elf: Uint8Array): Uint8Array {
  const out = new Uint8Array(PROGRAMDATA_METADATA_SIZE + elf.length);
  out.set(encodeUpgradeableState({ kind: 'programData', slot, authority }));
  out.set(elf, PROGRAMDATA_METADATA_SIZE);
  return out;
}
