/**
 * The one loader of the native `secp256k1` addon (~30x @noble's recovery on this machine): public-key
 * recovery decides the EVM's throughput, and the Secp256k1 precompile recovers keys too.
 */
import { createRequire } from 'node:module';

interface Secp256k1Native {
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed?: boolean): Uint8Array;
}
const secp256k1 = createRequire(import.meta.url)('secp256k1') as Secp256k1Native;

/** The public key that signed `messageHash` (64-byte r‖s, recovery id 0 or 1); throws on a bad signature. */
export const ecdsaRecover = (signature: Uint8Array, recoveryId: number, messageHash: Uint8Array, compressed: boolean): Uint8Array =>
  secp256k1.ecdsaRecover(signature, recoveryId, messageHash, compressed);
