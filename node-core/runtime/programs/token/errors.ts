/** TokenError codes (returned as Custom(code)) and the lines the program logs for each failure. */
import { InstructionError, type InstructionErrorValue } from '../../errors.ts';

export const TokenError = {
  NotRentExempt: 0,
  InsufficientFunds: 1,
  InvalidMint: 2,
  MintMismatch: 3,
  OwnerMismatch: 4,
  FixedSupply: 5,
  AlreadyInUse: 6,
  InvalidNumberOfProvidedSigners: 7,
  InvalidNumberOfRequiredSigners: 8,
  UninitializedState: 9,
  NativeNotSupported: 10,
  NonNativeHasBalance: 11,
  InvalidInstruction: 12,
  InvalidState: 13,
  Overflow: 14,
  AuthorityTypeNotSupported: 15,
  MintCannotFreeze: 16,
  AccountFrozen: 17,
  MintDecimalsMismatch: 18,
  NonNativeNotSupported: 19,
} as const;

/** TokenError's `to_str`/`print` texts, by code. */
const MESSAGES = [
  'Error: Lamport balance below rent-exempt threshold',
  'Error: insufficient funds',
  'Error: Invalid Mint',
  'Error: Account not associated with this Mint',
  'Error: owner does not match',
  'Error: the total supply of this token is fixed',
  'Error: account or token already in use',
  'Error: Invalid number of provided signers',
  'Error: Invalid number of required signers',
  'Error: State is uninitialized',
  'Error: Instruction does not support native tokens',
  'Error: Non-native account can only be closed if its balance is zero',
  'Error: Invalid instruction',
  'Error: Invalid account state for operation',
  'Error: Operation overflowed',
  'Error: Account does not support specified authority type',
  'Error: This token mint cannot freeze accounts',
  'Error: Account is frozen',
  'Error: decimals different from the Mint decimals',
  'Error: Instruction does not support non-native tokens',
];

export const tokenError = (code: number) => InstructionError.custom(code);

/** What the program's entrypoint logs for a failure (ProgramError::to_str::<TokenError>). */
export function tokenErrorLog(value: InstructionErrorValue): string {
  if (typeof value === 'string') return `Error: ${value}`;
  if ('Custom' in value) return MESSAGES[value.Custom] ?? 'Error: Unknown';
  return 'Error: BorshIoError';
}
