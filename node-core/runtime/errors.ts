/**
 * Transaction and instruction errors as data, in the serde JSON shapes Solana clients parse:
 * unit variants are strings, tuple variants are objects (`{"InstructionError":[0,{"Custom":1}]}`).
 */

export type InstructionErrorValue = string | { Custom: number } | { BorshIoError: string };

export type TransactionErrorValue =
  | string
  | { InstructionError: [number, InstructionErrorValue] }
  | { InsufficientFundsForRent: { account_index: number } }
  | { DuplicateInstruction: number };

/** Thrown by a program to fail its instruction. */
export class InstructionError extends Error {
  constructor(readonly value: InstructionErrorValue) {
    super(instructionErrorMessage(value));
  }
  static custom(code: number): InstructionError {
    return new InstructionError({ Custom: code });
  }
}

/** Thrown by the executor when a transaction fails before or around its instructions. */
export class TransactionError extends Error {
  constructor(readonly value: TransactionErrorValue) {
    super(transactionErrorMessage(value));
  }
}

const INSTRUCTION_ERROR_MESSAGES: Record<string, string> = {
  GenericError: 'generic instruction error',
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  AccountDataTooSmall: 'account data too small for instruction',
  InsufficientFunds: 'insufficient funds for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  UnbalancedInstruction: 'sum of account balances before and after instruction do not match',
  ModifiedProgramId: 'instruction illegally modified the program id of an account',
  ExternalAccountLamportSpend: 'instruction spent from the balance of an account it does not own',
  ExternalAccountDataModified: 'instruction modified data of an account it does not own',
  ReadonlyLamportChange: 'instruction changed the balance of a read-only account',
  ReadonlyDataModified: 'instruction modified data of a read-only account',
  DuplicateAccountIndex: 'instruction contains duplicate accounts',
  ExecutableModified: 'instruction changed executable bit of an account',
  RentEpochModified: 'instruction modified rent epoch of an account',
  NotEnoughAccountKeys: 'insufficient account keys for instruction',
  AccountDataSizeChanged: 'program other than the account\'s owner changed the size of the account data',
  AccountNotExecutable: 'instruction expected an executable account',
  AccountBorrowFailed: 'instruction tries to borrow reference for an account which is already borrowed',
  AccountBorrowOutstanding: 'instruction left account with an outstanding borrowed reference',
  DuplicateAccountOutOfSync: 'instruction modifications of multiply-passed account differ',
  InvalidError: 'program returned invalid error code',
  ExecutableDataModified: 'instruction changed executable accounts data',
  ExecutableLamportChange: 'instruction changed the balance of an executable account',
  ExecutableAccountNotRentExempt: 'executable accounts must be rent exempt',
  UnsupportedProgramId: 'Unsupported program id',
  CallDepth: 'Cross-program invocation call depth too deep',
  MissingAccount: 'An account required by the instruction is missing',
  ReentrancyNotAllowed: 'Cross-program invocation reentrancy not allowed for this instruction',
  MaxSeedLengthExceeded: 'Length of the seed is too long for address generation',
  InvalidSeeds: 'Provided seeds do not result in a valid address',
  InvalidRealloc: 'Failed to reallocate account data',
  ComputationalBudgetExceeded: 'Computational budget exceeded',
  PrivilegeEscalation: 'Cross-program invocation with unauthorized signer or writable account',
  ProgramEnvironmentSetupFailure: 'Failed to create program execution environment',
  ProgramFailedToComplete: 'Program failed to complete',
  ProgramFailedToCompile: 'Program failed to compile',
  Immutable: 'Account is immutable',
  IncorrectAuthority: 'Incorrect authority provided',
  AccountNotRentExempt: 'An account does not have enough lamports to be rent-exempt',
  InvalidAccountOwner: 'Invalid account owner',
  ArithmeticOverflow: 'Program arithmetic overflowed',
  UnsupportedSysvar: 'Unsupported sysvar',
  IllegalOwner: 'Provided owner is not allowed',
  MaxAccountsDataAllocationsExceeded: 'Accounts data allocations exceeded the maximum allowed per transaction',
  MaxAccountsExceeded: 'Max accounts exceeded',
  MaxInstructionTraceLengthExceeded: 'Max instruction trace length exceeded',
  BuiltinProgramsMustConsumeComputeUnits: 'Builtin programs must consume compute units',
};

export function instructionErrorMessage(value: InstructionErrorValue): string {
  if (typeof value === 'string') return INSTRUCTION_ERROR_MESSAGES[value] ?? value;
  if ('Custom' in value) return `custom program error: 0x${value.Custom.toString(16)}`;
  return `Failed to serialize or deserialize account data: ${value.BorshIoError}`;
}

const TRANSACTION_ERROR_MESSAGES: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountLoadedTwice: 'Account loaded twice',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  DuplicateSignature: 'The bank has seen this signature before',
  BlockhashNotFound: 'Blockhash not found',
  CallChainTooDeep: 'Loader call chain is too deep',
  MissingSignatureForFee: 'Transaction requires a fee but has no signature present',
  InvalidAccountIndex: 'Transaction contains an invalid account reference',
  SignatureFailure: 'Transaction did not pass signature verification',
  InvalidProgramForExecution: 'This program may not be used for executing instructions',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  ClusterMaintenance: 'Transactions are currently disabled due to cluster maintenance',
  AddressLookupTableNotFound: 'Transaction loads an address table account that doesn\'t exist',
  InvalidAddressLookupTableOwner: 'Transaction loads an address table account with an invalid owner',
  InvalidAddressLookupTableData: 'Transaction loads an address table account with invalid data',
  InvalidAddressLookupTableIndex: 'Transaction address table lookup uses an invalid index',
  UnsupportedVersion: 'Transaction version is unsupported',
  InvalidWritableAccount: 'Transaction loads a writable account that cannot be written',
  TooManyAccountLocks: 'Transaction locked too many accounts',
  WouldExceedMaxBlockCostLimit: 'Transaction would exceed max Block Cost Limit',
};

export function transactionErrorMessage(value: TransactionErrorValue): string {
  if (typeof value === 'string') return TRANSACTION_ERROR_MESSAGES[value] ?? value;
  if ('InstructionError' in value) {
    const [index, err] = value.InstructionError;
    return `Error processing Instruction ${index}: ${instructionErrorMessage(err)}`;
  }
  if ('InsufficientFundsForRent' in value) {
    return `Transaction results in an account (${value.InsufficientFundsForRent.account_index}) with insufficient funds for rent`;
  }
  return `Transaction contains a duplicate instruction (${value.DuplicateInstruction}) that is not allowed`;
}
