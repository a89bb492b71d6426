/**
 * The crypto @ethereumjs is given through Common's customCrypto (sender recovery on the native
 * secp256k1 addon, so transactions and the ecrecover precompile both use it), and EVM words.
 */
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import { ecdsaRecover } from '../common/secp256k1.ts';

/** @ethereumjs's ecrecover contract: the 64-byte public key (no 0x04 prefix); throws on a bad signature. */
export function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const recovery = v === 0n || v === 1n ? v : chainId === undefined ? v - 27n : v - (chainId * 2n + 35n);
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value');
  const signature = new Uint8Array(64);
  signature.set(setLengthLeft(r, 32), 0);
  signature.set(setLengthLeft(s, 32), 32);
  return ecdsaRecover(signature, Number(recovery), msgHash, false).subarray(1);
}

/** bigint → 32 big-endian bytes. */
export const word = (n: bigint): Uint8Array => setLengthLeft(bigIntToBytes(n), 32);
