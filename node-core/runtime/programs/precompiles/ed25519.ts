/**
 * The Ed25519 signature-verification precompile (Agave's ed25519 verify): data is
 * `[count u8, padding u8, count × Ed25519SignatureOffsets, …]`; each entry names a 64-byte
 * signature, a 32-byte public key and a message, each in any instruction of the transaction.
 * Checked as ed25519-dalek's verify_strict does: keys and R of small order are refused, S must be
 * canonical (OpenSSL's check), and the equation is cofactorless (OpenSSL's).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { Point } from '@noble/ed25519';
import { BoundedMap } from '../../../common/bounded-map.ts';
import { hasSmallOrder } from '../../../common/ed25519-small-order.ts';
import { PrecompileError, PrecompileFailure, fail } from './errors.ts';
import { dataSlice, readU16Offsets } from './offsets.ts';

export const ED25519_PROGRAM_ID = 'Ed25519SigVerify111111111111111111111111111';

const OFFSETS_START = 2;
const OFFSETS_SIZE = 14;
const PUBKEY_SIZE = 32;
const SIGNATURE_SIZE = 64;

const KEY_CACHE_LIMIT = 10_000;
const keyCache = new BoundedMap<string, KeyObject | null>(KEY_CACHE_LIMIT);

function keyObject(bytes: Uint8Array): KeyObject | null {
  const id = Buffer.from(bytes).toString('hex');
  let key = keyCache.get(id);
  if (key !== undefined) return key;
  try {
    // The JWK form imports ~15x faster than SPKI DER in Node's OpenSSL binding (measured here).
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(bytes).toString('base64url') }, format: 'jwk' });
  } catch {
    key = null;
  }
  keyCache.set(id, key);
  return key;
}

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
    if (hasSmallOrder(pubkey) || hasSmallOrder(signature.subarray(0, 32))) fail(PrecompileError.InvalidSignature);
    const key = keyObject(pubkey);
    let ok = false;
    try {
      ok = key !== null && verify(null, message, key, signature);
    } catch {
      ok = false;
    }
    if (!ok) fail(keyError() ?? PrecompileError.InvalidSignature);
  }
}
