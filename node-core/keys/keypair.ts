import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { encodeBase58 } from '../common/base58.ts';

ed.hashes.sha512 = sha512;

export interface Keypair {
  /** 64 bytes: the 32-byte seed followed by the 32-byte public key (the Solana CLI layout). */
  readonly secretKey: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly address: string;
}

export const SEED_LENGTH = 32;
export const SECRET_KEY_LENGTH = 64;

// PKCS#8 DER header for a raw Ed25519 seed (RFC 8410); the seed follows it.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function nodePrivateKey(seed: Uint8Array): crypto.KeyObject {
  return crypto.createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
}

// Node's OpenSSL signs about 9x faster than noble (≈28µs vs ≈250µs per signature), so it is used
// whenever this runtime's crypto supports Ed25519 KeyObjects; noble is the fallback.
const nodeSigning: boolean = (() => {
  try {
    const key = nodePrivateKey(new Uint8Array(SEED_LENGTH));
    return crypto.sign(null, new Uint8Array(1), key).length === 64;
  } catch {
    return false;
  }
})();

const keyObjects = new WeakMap<Keypair, crypto.KeyObject>();

export function keypairFromSeed(seed: Uint8Array): Keypair {
  if (!(seed instanceof Uint8Array) || seed.length !== SEED_LENGTH) {
    throw new RangeError(`an Ed25519 seed must be ${SEED_LENGTH} bytes`);
  }
  const publicKey = ed.getPublicKey(seed);
  const secretKey = new Uint8Array(SECRET_KEY_LENGTH);
  secretKey.set(seed, 0);
  secretKey.set(publicKey, SEED_LENGTH);
  return { secretKey, publicKey, address: encodeBase58(publicKey) };
}

export const generateKeypair = (): Keypair => keypairFromSeed(crypto.randomBytes(SEED_LENGTH));

export function sign(keypair: Keypair, message: Uint8Array): Uint8Array {
  const seed = keypair.secretKey.subarray(0, SEED_LENGTH);
  if (!nodeSigning) return ed.sign(message, seed);
  let key = keyObjects.get(keypair);
  if (key === undefined) {
    key = nodePrivateKey(seed);
    keyObjects.set(keypair, key);
  }
  const sig = crypto.sign(null, message, key);
  return new Uint8Array(sig.buffer, sig.byteOffset, sig.length);
}

export const verify = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean =>
  ed.verify(signature, message, publicKey);

/** Reads a Solana CLI keypair file (a JSON array of the 64 secret-key bytes), checking it fully. */
export function readKeypairFile(file: string): Keypair {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read keypair file ${file}: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`keypair file ${file} is not valid JSON (expected an array of 64 bytes)`);
  }
  if (!Array.isArray(parsed) || parsed.length !== SECRET_KEY_LENGTH) {
    const got = Array.isArray(parsed) ? `${parsed.length} elements` : typeof parsed;
    throw new Error(`keypair file ${file} must hold a JSON array of 64 bytes, got ${got}`);
  }
  const bytes = new Uint8Array(SECRET_KEY_LENGTH);
  parsed.forEach((b: unknown, i) => {
    if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255) {
      throw new Error(`keypair file ${file} has a bad byte at index ${i}: ${JSON.stringify(b)}`);
    }
    bytes[i] = b;
  });
  const keypair = keypairFromSeed(bytes.subarray(0, SEED_LENGTH));
  if (!bytesEqual(keypair.publicKey, bytes.subarray(SEED_LENGTH))) {
    throw new Error(`keypair file ${file} is corrupt: its public key does not match its secret key`);
  }
  return keypair;
}

export function writeKeypairFile(file: string, keypair: Keypair): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(Array.from(keypair.secretKey)), { mode: 0o600 });
  // `mode` only applies when the file is created; tighten an existing file too.
  fs.chmodSync(file, 0o600);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
