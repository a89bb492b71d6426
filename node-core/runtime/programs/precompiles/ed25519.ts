/**
 * The Ed25519 signature-verification precompile (Agave's ed25519 verify): data is
 * `[count u8, padding u8, count × Ed25519SignatureOffsets, …]`; each entry names a 64-byte
 * signature, a 32-byte public key and a message, each in any instruction of the transaction.
 * Checked as ed25519-dalek's verify_strict does (libsodium's check, common/ed25519.ts): keys and R
 * of small order are refused, S must be canonical, and the equation is cofactorless.
 */
import { Point } from '@noble/ed25519';
import { ed25519Verify } from '../../../common/ed25519.ts';
import { PrecompileError, PrecompileFailure, fail } from './errors.ts';
import { dataSlice, readU16Offsets } from './offsets.ts';

export const ED25519_PROGRAM_ID = 'Ed25519SigVerify111111111111111111111111111';

const OFFSETS_START = 2;
const OFFSETS_SIZE = 14;
const PUBKEY_SIZE = 32;
const SIGNATURE_SIZE = 64;

/** dalek's VerifyingKey::from_bytes: whether the bytes decompress to a curve point (slow: only on failure paths). */
function isCurvePoint(bytes: Uint8Array): boolean {
  try {
    Point.fromBytes(bytes, true);
    return true;
  } catch {
    return false;
  }
}

export function verifyEd25519(data: Uint8Array, instructionDatas: readonly Uint8Array[]): void {
  if (data.length < OFFSETS_START) fail(PrecompileError.InvalidInstructionDataSize);
  const count = data[0]!;
  if (count === 0 && data.length > OFFSETS_START) fail(PrecompileError.InvalidInstructionDataSize);
  if (data.length < count * OFFSETS_SIZE + OFFSETS_START) fail(PrecompileError.InvalidInstructionDataSize);
  for (let i = 0; i < count; i++) {
    const o = readU16Offsets(data, OFFSETS_START + i * OFFSETS_SIZE);
    const signature = dataSlice(data, instructionDatas, o.signatureInstructionIndex, o.signatureOffset, SIGNATURE_SIZE);
    const pubkey = dataSlice(data, instructionDatas, o.publicKeyInstructionIndex, o.publicKeyOffset, PUBKEY_SIZE);
    // Agave parses the key before it reads the message; the (slow) point check runs only when something failed.
    const keyError = () => (isCurvePoint(pubkey) ? null : PrecompileError.InvalidPublicKey);
    let message: Uint8Array;
    try {
      message = dataSlice(data, instructionDatas, o.messageInstructionIndex, o.messageDataOffset, o.messageDataSize);
    } catch (e) {
      const invalidKey = e instanceof PrecompileFailure ? keyError() : null;
      if (invalidKey !== null) fail(invalidKey);
      throw e;
    }
    if (!ed25519Verify(pubkey, message, signature)) fail(keyError() ?? PrecompileError.InvalidSignature);
  }
}
