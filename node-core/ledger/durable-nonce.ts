/**
 * A transaction whose blockhash is not recent may still be valid: when its first instruction is
 * AdvanceNonceAccount on a writable nonce account that holds the transaction's blockhash as its
 * nonce, and the nonce's authority signs that instruction (Agave's check_load_and_advance_message_nonce_account).
 */
import { SYSTEM_PROGRAM_ID, type Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import { decodeNonceState, durableNonceFromBlockhash } from '../runtime/programs/nonce-account.ts';
import { decodeSystemInstruction } from '../runtime/programs/system-instruction.ts';
import { isSignerIndex, isWritableIndex, type Transaction } from '../runtime/wire.ts';

export function durableNonceOf(tx: Transaction, read: (a: Address) => Account | null, bankBlockhash?: string): Address | null {
  const m = tx.message;
  if (bankBlockhash !== undefined && durableNonceFromBlockhash(bankBlockhash) === m.recentBlockhash) return null;
  const ix = m.instructions[0];
  if (!ix || m.accountKeys[ix.programIdIndex] !== SYSTEM_PROGRAM_ID) return null;
  // bincode's limited_deserialize: bytes after the instruction are allowed.
  if (decodeSystemInstruction(ix.data, { allowTrailingBytes: true })?.type !== 'advanceNonceAccount') return null;
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
