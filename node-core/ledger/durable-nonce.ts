/**
 * A transaction whose blockhash is not recent may still be valid: when its first instruction is
 * AdvanceNonceAccount on a writable nonce account that holds the transaction's blockhash as its
 * nonce, and the nonce's authority signs that instruction (Agave's check_load_and_advance_message_nonce_account).
 */
import { SYSTEM_PROGRAM_ID, type Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import { decodeNonceState, durableNonceFromBlockhash } from '../runtime/programs/nonce-account.ts';
import { isSignerIndex, isWritableIndex, type Transaction } from '../runtime/wire.ts';

const ADVANCE_NONCE_ACCOUNT = 4;

export function durableNonceOf(tx: Transaction, read: (a: Address) => Account | null, bankBlockhash?: string): Address | null {
  const m = tx.message;
  if (bankBlockhash !== undefined && durableNonceFromBlockhash(bankBlockhash) === m.recentBlockhash) return null;
  const ix = m.instructions[0];
  if (!ix || m.accountKeys[ix.programIdIndex] !== SYSTEM_PROGRAM_ID) return null;
  // bincode's limited_deserialize: the u32 tag, bytes after it allowed.
  if (ix.data.length < 4 || new DataView(ix.data.buffer, ix.data.byteOffset).getUint32(0, true) !== ADVANCE_NONCE_ACCOUNT) return null;
  const nonceIndex = ix.accounts[0];
  if (nonceIndex === undefined || !isWritableIndex(m, nonceIndex)) return null;
  const nonceKey = m.accountKeys[nonceIndex];
  if (!nonceKey) return null;
  const account = read(nonceKey);
  if (!account || account.owner !== SYSTEM_PROGRAM_ID) return null;
  const state = decodeNonceState(account.data);
  if (state?.state !== 'initialized' || state.version !== 'current' || state.data.blockhash !== m.recentBlockhash) return null;
  const authority = state.data.authority;
  return ix.accounts.some((i) => isSignerIndex(m, i) && m.accountKeys[i] === authority) ? nonceKey : null;
}
