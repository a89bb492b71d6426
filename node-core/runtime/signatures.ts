/**
 * Ed25519 signature checks, the node's hottest loop: libsodium (common/ed25519.ts), on the
 * submission worker's thread for sendTransaction, on the event loop only until that worker is ready.
 */
import { BoundedMap } from '../common/bounded-map.ts';
import { ed25519Verify } from '../common/ed25519.ts';
import { addressToBytes, type Address } from '../common/pubkey.ts';
import type { Transaction } from './wire.ts';

const KEY_CACHE_LIMIT = 50_000;
/** Signer addresses as bytes (decoding base-58 is ~2 µs of a ~50 µs check; payers sign again and again). */
const keyBytes = new BoundedMap<Address, Uint8Array>(KEY_CACHE_LIMIT);

function publicKeyBytes(address: Address): Uint8Array {
  let bytes = keyBytes.get(address);
  if (bytes === undefined) {
    bytes = addressToBytes(address);
    keyBytes.set(address, bytes);
  }
  return bytes;
}

export const verifySignature = (address: Address, message: Uint8Array, signature: Uint8Array): boolean =>
  ed25519Verify(publicKeyBytes(address), message, signature);

/** Every required signature checks out against its signer key. */
export function verifyTransactionSignatures(tx: Transaction): boolean {
  const m = tx.message;
  if (tx.signatures.length !== m.header.numRequiredSignatures || tx.signatures.length > m.accountKeys.length) return false;
  for (let i = 0; i < tx.signatures.length; i++) {
    if (!verifySignature(m.accountKeys[i]!, m.bytes, tx.signatures[i]!)) return false;
  }
  return true;
}
