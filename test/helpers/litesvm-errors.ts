/** LiteSVM's transaction errors in the node's JSON form, for the differential tests. */

/** InstructionError's fieldless variants in their enum order (LiteSVM reports the index). */
export const INSTRUCTION_ERROR_NAMES = (
  'GenericError InvalidArgument InvalidInstructionData InvalidAccountData AccountDataTooSmall InsufficientFunds IncorrectProgramId ' +
  'MissingRequiredSignature AccountAlreadyInitialized UninitializedAccount UnbalancedInstruction ModifiedProgramId ' +
  'ExternalAccountLamportSpend ExternalAccountDataModified ReadonlyLamportChange ReadonlyDataModified DuplicateAccountIndex ' +
  'ExecutableModified RentEpochModified NotEnoughAccountKeys AccountDataSizeChanged AccountNotExecutable AccountBorrowFailed ' +
  'AccountBorrowOutstanding DuplicateAccountOutOfSync InvalidError ExecutableDataModified ExecutableLamportChange ' +
  'ExecutableAccountNotRentExempt UnsupportedProgramId CallDepth MissingAccount ReentrancyNotAllowed MaxSeedLengthExceeded ' +
  'InvalidSeeds InvalidRealloc ComputationalBudgetExceeded PrivilegeEscalation ProgramEnvironmentSetupFailure ' +
  'ProgramFailedToComplete ProgramFailedToCompile Immutable IncorrectAuthority AccountNotRentExempt InvalidAccountOwner ' +
  'ArithmeticOverflow UnsupportedSysvar IllegalOwner MaxAccountsDataAllocationsExceeded MaxAccountsExceeded ' +
  'MaxInstructionTraceLengthExceeded BuiltinProgramsMustConsumeComputeUnits BorshIoError'
).split(' ');

/**
 * A LiteSVM error as the node reports it: `{InstructionError: [index, name | {Custom: code}]}`, or a
 * fieldless TransactionError named by `transactionErrors` (LiteSVM gives its enum index).
 */
export function liteSvmError(e: unknown, transactionErrors: Record<number, string> = {}): unknown {
  if (typeof e === 'number') return transactionErrors[e] ?? `fieldless ${e}`;
  const x = e as { index?: number; err?: () => unknown };
  if (typeof x.err !== 'function' || x.index === undefined) return String(e);
  const inner = x.err();
  return { InstructionError: [x.index, typeof inner === 'number' ? (INSTRUCTION_ERROR_NAMES[inner] ?? `instruction error ${inner}`) : { Custom: (inner as { code: number }).code }] };
}
