/** The hashes the node uses: SHA-256 on Node's crypto, keccak256 on the native `keccak` addon. */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';

export function sha256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

/** The `keccak` package's native sponge (its stream wrapper costs more than the hash on small inputs). */
interface KeccakSponge {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  squeeze(length: number): Buffer;
}

function loadNativeSponge(): KeccakSponge | null {
  try {
    const require = createRequire(import.meta.url);
    const dir = path.dirname(require.resolve('keccak/package.json'));
    const KeccakState = createRequire(path.join(dir, 'index.js'))('node-gyp-build')(dir) as new () => KeccakSponge;
    return new KeccakState();
  } catch {
    return null;
  }
}
const sponge = loadNativeSponge();

/**
 * keccak256 on the native `keccak` addon (3x @noble's on trie-node-sized inputs here), @noble's where
 * no build exists. The EVM's state trie, transaction hashes and the VM use it, and so does the
 * Secp256k1 precompile.
 */
export function keccak256(data: Uint8Array): Uint8Array {
  if (!sponge) return keccak_256(data);
  sponge.initialize(1088, 512);
  sponge.absorb(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  const digest = sponge.squeeze(32);
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
}
