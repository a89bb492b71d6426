/**
 * Reading the signature-offsets structs and the byte ranges they point at. Ed25519 and Secp256r1 use
 * 14-byte structs of seven u16 (instruction index u16::MAX = the precompile's own data); Secp256k1
 * uses an 11-byte bincode struct with u8 instruction indexes.
 */
import { PrecompileError, fail, type PrecompileErrorCode } from './errors.ts';

export const CURRENT_INSTRUCTION = 0xffff;

export interface SignatureOffsets {
  signatureOffset: number;
  signatureInstructionIndex: number;
  publicKeyOffset: number;
  publicKeyInstructionIndex: number;
  messageDataOffset: number;
  messageDataSize: number;
  messageInstructionIndex: number;
}

/** Ed25519SignatureOffsets / Secp256r1SignatureOffsets at `start` (the caller checked the length). */
export function readU16Offsets(data: Uint8Array, start: number): SignatureOffsets {
  const v = new DataView(data.buffer, data.byteOffset + start, 14);
  return {
    signatureOffset: v.getUint16(0, true),
    signatureInstructionIndex: v.getUint16(2, true),
    publicKeyOffset: v.getUint16(4, true),
    publicKeyInstructionIndex: v.getUint16(6, true),
    messageDataOffset: v.getUint16(8, true),
    messageDataSize: v.getUint16(10, true),
    messageInstructionIndex: v.getUint16(12, true),
  };
}

/** SecpSignatureOffsets (bincode: u16, u8, u16, u8, u16, u16, u8) at `start`. */
export function readSecpOffsets(data: Uint8Array, start: number) {
  const v = new DataView(data.buffer, data.byteOffset + start, 11);
  return {
    signatureOffset: v.getUint16(0, true),
    signatureInstructionIndex: v.getUint8(2),
    ethAddressOffset: v.getUint16(3, true),
    ethAddressInstructionIndex: v.getUint8(5),
    messageDataOffset: v.getUint16(6, true),
    messageDataSize: v.getUint16(8, true),
    messageInstructionIndex: v.getUint8(10),
  };
}

/**
 * `size` bytes at `offset` of the instruction `index` refers to (u16::MAX: `own`), or the error the
 * precompile gives for a reference out of range (`outOfRange`; InvalidDataOffsets for Ed25519 and
 * Secp256r1, InvalidSignature for Secp256k1's byte ranges).
 */
export function dataSlice(
  own: Uint8Array | null,
  datas: readonly Uint8Array[],
  index: number,
  offset: number,
  size: number,
  outOfRange: PrecompileErrorCode = PrecompileError.InvalidDataOffsets,
): Uint8Array {
  let source: Uint8Array;
  if (own !== null && index === CURRENT_INSTRUCTION) source = own;
  else {
    if (index >= datas.length) fail(PrecompileError.InvalidDataOffsets);
    source = datas[index]!;
  }
  const end = offset + size;
  if (end > source.length) fail(outOfRange);
  return source.subarray(offset, end);
}
