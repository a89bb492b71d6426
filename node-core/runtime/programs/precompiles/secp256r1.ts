/**
 * The Secp256r1 (P-256) signature-verification precompile (Agave's secp256r1 verify): data is
 * `[count u8 (1 to 8), padding u8, count × Secp256r1SignatureOffsets (14 bytes), …]`; each entry
 * names a 64-byte r‖s signature, a 33-byte compressed public key and a message, hashed with SHA-256.
 * As Agave, r must lie in [1, n-1] and s in [1, n/2] (low S), else InvalidSignature.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { PrecompileError, fail } from './errors.ts';
import { dataSlice, readU16Offsets } from './offsets.ts';

export const SECP256R1_PROGRAM_ID = 'Secp256r1SigVerify1111111111111111111111111';

const OFFSETS_START = 2;
const OFFSETS_SIZE = 14;
const MAX_SIGNATURES = 8;
const PUBKEY_SIZE = 33;
const SIGNATURE_SIZE = 64;
const ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const HALF_ORDER = ORDER / 2n;
// SubjectPublicKeyInfo of an id-ecPublicKey on prime256v1, before its 33-byte compressed point.
const SPKI_PREFIX = Buffer.from('3039301306072a8648ce3d020106082a8648ce3d030107032200', 'hex');

const toBigInt = (b: Uint8Array): bigint => BigInt('0x' + Buffer.from(b).toString('hex'));

function publicKey(bytes: Uint8Array): KeyObject | null {
  if (bytes[0] !== 2 && bytes[0] !== 3) return null;
  try {
    return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, bytes]), format: 'der', type: 'spki' });
  } catch {
    return null;
  }
}

export function verifySecp256r1(data: Uint8Array, instructionDatas: readonly Uint8Array[]): void {
  if (data.length < OFFSETS_START) fail(PrecompileError.InvalidInstructionDataSize);
  const count = data[0]!;
  if (count === 0 || count > MAX_SIGNATURES) fail(PrecompileError.InvalidInstructionDataSize);
  if (data.length < count * OFFSETS_SIZE + OFFSETS_START) fail(PrecompileError.InvalidInstructionDataSize);
  for (let i = 0; i < count; i++) {
    const o = readU16Offsets(data, OFFSETS_START + i * OFFSETS_SIZE);
    const signature = dataSlice(data, instructionDatas, o.signatureInstructionIndex, o.signatureOffset, SIGNATURE_SIZE);
    const pubkey = dataSlice(data, instructionDatas, o.publicKeyInstructionIndex, o.publicKeyOffset, PUBKEY_SIZE);
    const message = dataSlice(data, instructionDatas, o.messageInstructionIndex, o.messageDataOffset, o.messageDataSize);
    const r = toBigInt(signature.subarray(0, 32));
    const s = toBigInt(signature.subarray(32));
    if (r < 1n || r > ORDER - 1n || s < 1n || s > HALF_ORDER) fail(PrecompileError.InvalidSignature);
    const key = publicKey(pubkey);
    if (!key) fail(PrecompileError.InvalidPublicKey);
    let ok = false;
    try {
      ok = verify('sha256', message, { key: key!, dsaEncoding: 'ieee-p1363' }, signature);
    } catch {
      ok = false;
    }
    if (!ok) fail(PrecompileError.InvalidSignature);
  }
}
