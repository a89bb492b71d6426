/** jsonParsed for System program instructions, in the shapes of Agave's `parse_system`. */
import { decodeSystemInstruction } from '../../../runtime/programs/system-instruction.ts';
import type { InstructionParser } from './types.ts';

// u64 fields serialize as JSON numbers in Agave.
const num = (v: bigint) => Number(v);

export const parseSystemInstruction: InstructionParser = (data, accounts) => {
  // Agave deserializes with plain bincode, which accepts trailing bytes.
  const ix = decodeSystemInstruction(data, { allowTrailingBytes: true });
  if (!ix) return null;
  const need = (n: number) => accounts.length >= n;
  const a = (i: number) => accounts[i]!;
  switch (ix.type) {
    case 'createAccount':
      if (!need(2)) return null;
      return { type: 'createAccount', info: { source: a(0), newAccount: a(1), lamports: num(ix.lamports), space: num(ix.space), owner: ix.owner } };
    case 'assign':
      if (!need(1)) return null;
      return { type: 'assign', info: { account: a(0), owner: ix.owner } };
    case 'transfer':
      if (!need(2)) return null;
      return { type: 'transfer', info: { source: a(0), destination: a(1), lamports: num(ix.lamports) } };
    case 'createAccountWithSeed':
      if (!need(2)) return null;
      return {
        type: 'createAccountWithSeed',
        info: { source: a(0), newAccount: a(1), base: ix.base, seed: ix.seed, lamports: num(ix.lamports), space: num(ix.space), owner: ix.owner },
      };
    case 'advanceNonceAccount':
      if (!need(3)) return null;
      return { type: 'advanceNonce', info: { nonceAccount: a(0), recentBlockhashesSysvar: a(1), nonceAuthority: a(2) } };
    case 'withdrawNonceAccount':
      if (!need(5)) return null;
      return {
        type: 'withdrawFromNonce',
        info: { nonceAccount: a(0), destination: a(1), recentBlockhashesSysvar: a(2), rentSysvar: a(3), nonceAuthority: a(4), lamports: num(ix.lamports) },
      };
    case 'initializeNonceAccount':
      if (!need(3)) return null;
      return { type: 'initializeNonce', info: { nonceAccount: a(0), recentBlockhashesSysvar: a(1), rentSysvar: a(2), nonceAuthority: ix.authority } };
    case 'authorizeNonceAccount':
      if (!need(2)) return null;
      return { type: 'authorizeNonce', info: { nonceAccount: a(0), nonceAuthority: a(1), newAuthorized: ix.authority } };
    case 'upgradeNonceAccount':
      if (!need(1)) return null;
      return { type: 'upgradeNonce', info: { nonceAccount: a(0) } };
    case 'allocate':
      if (!need(1)) return null;
      return { type: 'allocate', info: { account: a(0), space: num(ix.space) } };
    case 'allocateWithSeed':
      if (!need(2)) return null;
      return { type: 'allocateWithSeed', info: { account: a(0), base: ix.base, seed: ix.seed, space: num(ix.space), owner: ix.owner } };
    case 'assignWithSeed':
      if (!need(2)) return null;
      return { type: 'assignWithSeed', info: { account: a(0), base: ix.base, seed: ix.seed, owner: ix.owner } };
    case 'transferWithSeed':
      if (!need(3)) return null;
      return {
        type: 'transferWithSeed',
        info: { source: a(0), sourceBase: a(1), destination: a(2), lamports: num(ix.lamports), sourceSeed: ix.fromSeed, sourceOwner: ix.fromOwner },
      };
  }
};
