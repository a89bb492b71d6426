/**
 * A transaction whose blockhash is not recent may still be valid: when its first instruction is
 * AdvanceNonceAccount and that nonce account holds the transaction's blockhash as its nonce.
 */
import { SYSTEM_PROGRAM_ID, type Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import { decodeNonceState } from '../runtime/programs/nonce-account.ts';
import type { Transaction } from '../runtime/wire.ts';

const ADVANCE_NONCE_ACCOUNT = 4;

export function durableNonceOf(tx: Transaction, read: (a: Address) => Account | null): Address | null {
  const m = tx.message;
  const ix = m.instructions[0];
  if (!ix || m.accountKeys[ix.programIdIndex] !== SYSTEM_PROGRAM_ID) return null;
  if (ix.data.length !== 4 || new DataView(ix.data.buffer, ix.data.byteOffset).getUint32(0, true) !== ADVANCE_NONCE_ACCOUNT) return null;
  const nonceKey = m.accountKeys[ix.accounts[0] ?? -1];
  if (!nonceKey) return null;
  const account = read(nonceKey);
  if (!account || account.owner !== SYSTEM_PROGRAM_ID) return null;
  const state = decodeNonceState(account.data);
  return state?.state === 'initialized' && state.data.blockhash === m.recentBlockhash ? nonceKey : null;
}
