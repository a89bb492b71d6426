/** Parsers behind the `jsonParsed` encoding: one per program, registered in ./index.ts. */
import type { Address } from '../../../common/pubkey.ts';
import type { Account } from '../../../runtime/account.ts';

/** `{type, info}` for most programs; memo parses to a plain string. */
export type ParsedInstructionValue = { type: string; info: Record<string, unknown> } | string;

/**
 * Parses one instruction of a program. `accounts` are the instruction's account keys in order.
 * Returns null when the data does not decode (the instruction is then shown unparsed).
 */
export type InstructionParser = (data: Uint8Array, accounts: Address[]) => ParsedInstructionValue | null;

export interface ParsedAccountValue {
  /** Parser name as Solana reports it, e.g. "nonce", "sysvar". */
  program: string;
  parsed: unknown;
  space: number;
}

/** What a parser may read beside the account: other accounts of the same bank (a token account's mint). */
export interface ParseContext {
  readAccount?(address: Address): Account | null;
}

/** Parses an account's data; null when this parser does not understand it. */
export type AccountParser = (address: Address, account: Account, context?: ParseContext) => ParsedAccountValue | null;
