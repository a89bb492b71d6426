/**
 * secp256k1 public-key recovery on the native `secp256k1` addon (~30x @noble's in this machine's
 * measurements): sender recovery decides the EVM's throughput. Plugged into @ethereumjs through
 * Common's customCrypto, so transactions and the ecrecover precompile both use it.
 */
import { createRequire } from 'node:module';
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util';

interface Secp256k1Native {
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed?: boolean): Uint8Array;
}
const secp256k1 = createRequire(import.meta.url)('secp256k1') as Secp256k1Native;

/** @ethereumjs's ecrecover contract: the 64-byte public key (no 0x04 prefix); throws on a bad signature. */
export function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const recovery = v === 0n || v === 1n ? v : chainId === undefined ? v - 27n : v - (chainId * 2n + 35n);
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value');
  const signature = new Uint8Array(64);
  signature.set(setLengthLeft(r, 32), 0);
  signature.set(setLengthLeft(s, 32), 32);
  return secp256k1.ecdsaRecover(signature, Number(recovery), msgHash, false).subarray(1);
}

/** bigint → 32 big-endian bytes. */
export const word = (n: bigint): Uint8Array => setLengthLeft(bigIntToBytes(n), 32);
