/** jsonParsed for nonce accounts (system-owned), as Agave's `parse_nonce`. */
import { SYSTEM_PROGRAM_ID } from '../../../common/pubkey.ts';
import { decodeNonceState } from '../../../runtime/programs/nonce-account.ts';
import type { AccountParser } from './types.ts';

/**
 * Only initialized nonces parse: Agave refuses `Uninitialized` so that any zero-filled system
 * account is not shown as a nonce (the account then falls back to binary encoding).
 */
export const parseNonceAccount: AccountParser = (_address, account) => {
  if (account.owner !== SYSTEM_PROGRAM_ID) return null;
  const state = decodeNonceState(account.data);
  if (!state || state.state !== 'initialized') return null;
  return {
    program: 'nonce',
    parsed: {
      type: 'initialized',
      info: {
        authority: state.data.authority,
        blockhash: state.data.blockhash,
        // UiFeeCalculator carries the u64 as a string.
        feeCalculator: { lamportsPerSignature: String(state.data.lamportsPerSignature) },
      },
    },
    space: account.data.length,
  };
};
