/** The hashes the node uses: SHA-256 on Node's crypto, keccak256 on the native `keccak` addon. */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

export function sha256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

interface KeccakHash {
  update(data: Buffer): KeccakHash;
  digest(): Buffer;
}
const createKeccakHash = createRequire(import.meta.url)('keccak') as (algorithm: 'keccak256') => KeccakHash;

/**
 * keccak256 on the native `keccak` addon (3x @noble's on trie-node-sized inputs here); it falls back
 * to its own JS where no build exists. The EVM's state trie, transaction hashes and the VM use it, and
 * so does the Secp256k1 precompile.
 */
export function keccak256(data: Uint8Array): Uint8Array {
  const digest = createKeccakHash('keccak256').update(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest();
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
}
