/**
 * Ed25519 signature checks, the node's hottest loop. Node's built-in Ed25519 (OpenSSL) with the
 * public-key object reused is ~20x faster than a pure-JS verifier; the async form runs on libuv's
 * thread pool so both cores verify while the event loop keeps serving.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { Point } from '@noble/ed25519';
import { addressToBytes, type Address } from '../common/pubkey.ts';
import type { Transaction } from './wire.ts';

const SPKI_ED25519_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);
const KEY_CACHE_LIMIT = 50_000;
const keyCache = new Map<Address, KeyObject | null>();

/**
 * Whether the key is a point of small order. OpenSSL's cofactorless check accepts R = A, S = 0 for
 * such a key and any message; Agave verifies with ed25519-dalek's verify_strict, which refuses them.
 */
function isWeakKey(bytes: Uint8Array): boolean {
  try {
    return Point.fromBytes(bytes, true).isSmallOrder();
  } catch {
    return true; // not a point at all
  }
}

/** The public-key object of an address, cached; null when the bytes are not a usable Ed25519 point. */
function publicKeyObject(address: Address): KeyObject | null {
  let key = keyCache.get(address);
  if (key !== undefined) return key;
  const bytes = addressToBytes(address);
  const der = new Uint8Array(44);
  der.set(SPKI_ED25519_PREFIX);
  der.set(bytes, 12);
  try {
    key = isWeakKey(bytes) ? null : createPublicKey({ key: Buffer.from(der.buffer), format: 'der', type: 'spki' });
  } catch {
    key = null;
  }
  if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.delete(keyCache.keys().next().value!);
  keyCache.set(address, key);
  return key;
}

export function verifySignature(address: Address, message: Uint8Array, signature: Uint8Array): boolean {
  const key = publicKeyObject(address);
  if (!key) return false;
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

function verifySignatureAsync(address: Address, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
  const key = publicKeyObject(address);
  if (!key) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      verify(null, message, key, signature, (err, ok) => resolve(!err && ok));
    } catch {
      resolve(false);
    }
  });
}

/** Every required signature checks out against its signer key. */
export function verifyTransactionSignatures(tx: Transaction): boolean {
  const m = tx.message;
  if (tx.signatures.length !== m.header.numRequiredSignatures || tx.signatures.length > m.accountKeys.length) return false;
  for (let i = 0; i < tx.signatures.length; i++) {
    if (!verifySignature(m.accountKeys[i]!, m.bytes, tx.signatures[i]!)) return false;
  }
  return true;
}

/** The same check on the thread pool. */
export async function verifyTransactionSignaturesAsync(tx: Transaction): Promise<boolean> {
  const m = tx.message;
  if (tx.signatures.length !== m.header.numRequiredSignatures || tx.signatures.length > m.accountKeys.length) return false;
  if (tx.signatures.length === 1) return verifySignatureAsync(m.accountKeys[0]!, m.bytes, tx.signatures[0]!);
  const results = await Promise.all(tx.signatures.map((s, i) => verifySignatureAsync(m.accountKeys[i]!, m.bytes, s)));
  return results.every(Boolean);
}
