/**
 * Durable nonce account data: bincode `Versions { Legacy(State) | Current(State) }`, where
 * `State { Uninitialized | Initialized { authority, durable_nonce, fee_calculator } }` — u32 version,
 * u32 state, 32-byte authority, 32-byte nonce, u64 lamports per signature: 80 bytes. This is the
 * layout @solana/web3.js v1's `NonceAccount.fromAccountData` reads.
 *
 * The stored nonce is Agave's DurableNonce: sha256("DURABLE_NONCE" ‖ blockhash) of the blockhash the
 * bank ran with, so a nonce can never equal a recent blockhash (a legacy account holds a plain
 * blockhash until UpgradeNonceAccount hashes it).
 */
import { encodeBase58, decodeBase58 } from '../../common/base58.ts';
import { ByteReader, ByteWriter, DecodeError } from '../../common/bytes.ts';
import { addressToBytes, bytesToAddress, type Address } from '../../common/pubkey.ts';
import { sha256 } from '../../common/hash.ts';

const DURABLE_NONCE_PREFIX = new TextEncoder().encode('DURABLE_NONCE');

/** DurableNonce::from_blockhash: the nonce a bank running with `blockhash` stores (base-58 in, base-58 out). */
export function durableNonceFromBlockhash(blockhash: string): string {
  return encodeBase58(sha256(DURABLE_NONCE_PREFIX, decodeBase58(blockhash)));
}

export const NONCE_ACCOUNT_LENGTH = 80;

export type NonceVersion = 'legacy' | 'current';

export interface NonceData {
  authority: Address;
  /** The stored durable nonce, base-58 (a plain blockhash in a legacy account). */
  blockhash: string;
  lamportsPerSignature: number;
}

export type NonceState =
  | { version: NonceVersion; state: 'uninitialized' }
  | { version: NonceVersion; state: 'initialized'; data: NonceData };

/**
 * Reads the nonce state at the start of `data` (bincode allows bytes after it, as Agave's
 * `get_state` does). Null when the data does not hold one.
 */
export function decodeNonceState(data: Uint8Array): NonceState | null {
  try {
    const r = new ByteReader(data);
    const versionTag = r.u32();
    if (versionTag > 1) return null;
    const version: NonceVersion = versionTag === 0 ? 'legacy' : 'current';
    const stateTag = r.u32();
    if (stateTag === 0) return { version, state: 'uninitialized' };
    if (stateTag !== 1) return null;
    const authority = bytesToAddress(r.bytesN(32));
    const blockhash = encodeBase58(r.bytesN(32));
    const lamportsPerSignature = Number(r.u64());
    return { version, state: 'initialized', data: { authority, blockhash, lamportsPerSignature } };
  } catch (e) {
    if (e instanceof DecodeError) return null;
    throw e;
  }
}

/** The bincode bytes of a nonce state: 8 bytes when uninitialized, 80 when initialized. */
export function encodeNonceState(s: NonceState): Uint8Array {
  const w = new ByteWriter(NONCE_ACCOUNT_LENGTH).u32(s.version === 'legacy' ? 0 : 1);
  if (s.state === 'uninitialized') return w.u32(0).finish();
  return w
    .u32(1)
    .bytes(addressToBytes(s.data.authority))
    .bytes(decodeBase58(s.data.blockhash))
    .u64(s.data.lamportsPerSignature)
    .finish();
}

/** A full 80-byte nonce account data buffer holding `s`. */
export function nonceAccountData(s: NonceState): Uint8Array {
  const out = new Uint8Array(NONCE_ACCOUNT_LENGTH);
  out.set(encodeNonceState(s));
  return out;
}
