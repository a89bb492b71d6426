/**
 * The `jsonParsed` registries: instruction parsers by program id, account parsers by owner.
 * Agave parses no Compute Budget instructions, so those stay partially decoded here too.
 */
import { MEMO_PROGRAM_ID, MEMO_V1_PROGRAM_ID, SYSTEM_PROGRAM_ID, SYSVAR_OWNER_ID, type Address } from '../../../common/pubkey.ts';
import type { Account } from '../../../runtime/account.ts';
import { parseMemoInstruction } from './memo.ts';
import { parseNonceAccount } from './nonce.ts';
import { parseSystemInstruction } from './system.ts';
import { parseSysvarAccount } from './sysvar.ts';
import { parseAssociatedTokenInstruction, parseTokenAccount, parseTokenInstruction } from './token.ts';
import type { AccountParser, InstructionParser, ParseContext, ParsedAccountValue, ParsedInstructionValue } from './types.ts';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../../runtime/programs/token/state.ts';
import { ADDRESS_LOOKUP_TABLE_PROGRAM_ID } from '../../../runtime/programs/address-lookup-table/state.ts';
import { parseLookupTableAccount, parseLookupTableInstruction } from './address-lookup-table.ts';
import { CONFIG_PROGRAM_ID, STAKE_PROGRAM_ID, VOTE_PROGRAM_ID } from '../../../common/pubkey.ts';
import { parseStakeAccount, parseStakeConfigAccount, parseStakeInstruction } from './stake.ts';
import { parseVoteAccount, parseVoteInstruction } from './vote.ts';
import { EVM_PROGRAM_ID } from '../../../evm/constants.ts';
import { parseEvmInstruction } from './evm.ts';
import { BPF_LOADER_2_ID } from '../../../common/pubkey.ts';
import { BPF_LOADER_UPGRADEABLE_ID } from '../../../runtime/programs/bpf-loader/upgradeable-state.ts';
import { parseBpfLoaderInstruction, parseUpgradeableLoaderAccount, parseUpgradeableLoaderInstruction } from './bpf-loader.ts';

export interface InstructionParserEntry {
  /** Program name as Agave reports it (kebab-case), e.g. "system", "spl-memo". */
  program: string;
  parse: InstructionParser;
}

export const instructionParsers = new Map<Address, InstructionParserEntry>([
  [SYSTEM_PROGRAM_ID, { program: 'system', parse: parseSystemInstruction }],
  [MEMO_V1_PROGRAM_ID, { program: 'spl-memo', parse: parseMemoInstruction }],
  [MEMO_PROGRAM_ID, { program: 'spl-memo', parse: parseMemoInstruction }],
  [TOKEN_PROGRAM_ID, { program: 'spl-token', parse: parseTokenInstruction }],
  [ASSOCIATED_TOKEN_PROGRAM_ID, { program: 'spl-associated-token-account', parse: parseAssociatedTokenInstruction }],
]);
instructionParsers.set(STAKE_PROGRAM_ID, { program: 'stake', parse: parseStakeInstruction });
instructionParsers.set(VOTE_PROGRAM_ID, { program: 'vote', parse: parseVoteInstruction });

/** Keyed by the account's owner; each parser returns null for data it does not recognise. */
export const accountParsers = new Map<Address, AccountParser>([
  [SYSTEM_PROGRAM_ID, parseNonceAccount],
  [SYSVAR_OWNER_ID, parseSysvarAccount],
  [TOKEN_PROGRAM_ID, parseTokenAccount],
]);
accountParsers.set(STAKE_PROGRAM_ID, parseStakeAccount);
accountParsers.set(VOTE_PROGRAM_ID, parseVoteAccount);
accountParsers.set(CONFIG_PROGRAM_ID, parseStakeConfigAccount);

instructionParsers.set(ADDRESS_LOOKUP_TABLE_PROGRAM_ID, { program: 'address-lookup-table', parse: parseLookupTableInstruction });
accountParsers.set(ADDRESS_LOOKUP_TABLE_PROGRAM_ID, parseLookupTableAccount);

instructionParsers.set(BPF_LOADER_2_ID, { program: 'bpf-loader', parse: parseBpfLoaderInstruction });
instructionParsers.set(BPF_LOADER_UPGRADEABLE_ID, { program: 'bpf-upgradeable-loader', parse: parseUpgradeableLoaderInstruction });
accountParsers.set(BPF_LOADER_UPGRADEABLE_ID, parseUpgradeableLoaderAccount);

// Velas's name (its ParsableProgram::Evm, kebab-cased as Agave names programs).
instructionParsers.set(EVM_PROGRAM_ID, { program: 'evm', parse: parseEvmInstruction });

/** `{program, parsed}` for an instruction of a parsable program, or null (shown partially decoded). */
export function parseInstruction(
  programId: Address,
  data: Uint8Array,
  accounts: Address[],
): { program: string; parsed: ParsedInstructionValue } | null {
  const entry = instructionParsers.get(programId);
  if (!entry) return null;
  try {
    const parsed = entry.parse(data, accounts);
    return parsed === null ? null : { program: entry.program, parsed };
  } catch {
    return null;
  }
}

/** Parsed account data, or null when no parser understands it (callers fall back to base64). */
export function parseAccountData(address: Address, account: Account, context?: ParseContext): ParsedAccountValue | null {
  const parser = accountParsers.get(account.owner);
  if (!parser) return null;
  try {
    return parser(address, account, context);
  } catch {
    return null;
  }
}
