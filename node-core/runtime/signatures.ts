/**
 * Ed25519 signature checks, the node's hottest loop: libsodium (common/ed25519.ts), on the
 * submission worker's thread for sendTransaction, on the event loop only until that worker is ready.
 */
import { ed25519Verify } from '../common/ed25519.ts';
import { addressBytes } from '../common/key-cache.ts';
import type { Address } from '../common/pubkey.ts';
import type { Transaction } from './wire.ts';

/** Signer keys come from the key cache: payers sign again and again, and base-58 is ~2 µs of a ~50 µs check. */
export const verifySignature = (address: Address, message: Uint8Array, signature: Uint8Array): boolean =>
  ed25519Verify(addressBytes(address), message, signature);

/** Every required signature checks out against its signer key. */
export function verifyTransactionSignatures(tx: Transaction): boolean {
  const m = tx.message;
  if (tx.signatures.length !== m.header.numRequiredSignatures || tx.signatures.length > m.accountKeys.length) return false;
  for (let i = 0; i < tx.signatures.length; i++) {
    if (!verifySignature(m.accountKeys[i]!, m.bytes, tx.signatures[i]!)) return false;
  }
  return true;
}
