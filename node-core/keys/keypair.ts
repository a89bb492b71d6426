import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { encodeBase58 } from '../common/base58.ts';
import { ed25519Sign } from '../common/ed25519.ts';

ed.hashes.sha512 = sha512;

export interface Keypair {
  /** 64 bytes: the 32-byte seed followed by the 32-byte public key (the Solana CLI layout). */
  readonly secretKey: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly address: string;
}

export const SEED_LENGTH = 32;
export const SECRET_KEY_LENGTH = 64;

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

export const sign = (keypair: Keypair, message: Uint8Array): Uint8Array => ed25519Sign(keypair.secretKey, message);

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
