/**
 * The Ed25519 signature-verification precompile (Agave's ed25519 verify): data is
 * `[count u8, padding u8, count × Ed25519SignatureOffsets, …]`; each entry names a 64-byte
 * signature, a 32-byte public key and a message, each in any instruction of the transaction.
 * Checked as ed25519-dalek's verify_strict does: keys and R of small order are refused, S must be
 * canonical (OpenSSL's check), and the equation is cofactorless (OpenSSL's).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { Point } from '@noble/ed25519';
import { PrecompileError, fail } from './errors.ts';
import { dataSlice, readU16Offsets } from './offsets.ts';

export const ED25519_PROGRAM_ID = 'Ed25519SigVerify111111111111111111111111111';

const OFFSETS_START = 2;
const OFFSETS_SIZE = 14;
const PUBKEY_SIZE = 32;
const SIGNATURE_SIZE = 64;
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

type KeyState = { key: KeyObject; weak: boolean } | null;
const KEY_CACHE_LIMIT = 10_000;
const keyCache = new Map<string, KeyState>();

/** dalek's VerifyingKey::from_bytes (null: not a curve point) and whether the point has small order. */
function publicKey(bytes: Uint8Array): KeyState {
  const id = Buffer.from(bytes).toString('hex');
  let state = keyCache.get(id);
  if (state !== undefined) return state;
  try {
    const weak = Point.fromBytes(bytes, true).isSmallOrder();
    state = { key: createPublicKey({ key: Buffer.concat([SPKI_PREFIX, bytes]), format: 'der', type: 'spki' }), weak };
  } catch {
    state = null;
  }
  if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.delete(keyCache.keys().next().value!);
  keyCache.set(id, state);
  return state;
}

function smallOrderOrInvalid(r: Uint8Array): boolean {
  try {
    return Point.fromBytes(r, true).isSmallOrder();
  } catch {
    return true;
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
    const key = publicKey(pubkey);
    if (!key) fail(PrecompileError.InvalidPublicKey);
    const message = dataSlice(data, instructionDatas, o.messageInstructionIndex, o.messageDataOffset, o.messageDataSize);
    if (key!.weak || smallOrderOrInvalid(signature.subarray(0, 32))) fail(PrecompileError.InvalidSignature);
    let ok = false;
    try {
      ok = verify(null, message, key!.key, signature);
    } catch {
      ok = false;
    }
    if (!ok) fail(PrecompileError.InvalidSignature);
  }
}
