/**
 * The engine's errors in the node's shapes (runtime/errors.ts). litesvm reports fieldless variants by
 * their index in Agave's enums (solana-instruction-error InstructionError, solana-transaction-error
 * TransactionError, as in litesvm's dist/internal.d.ts); its generated enums are type-only, so the
 * names are listed here in that order.
 */
import type { InstructionErrorValue, TransactionErrorValue } from '../errors.ts';

const INSTRUCTION_ERRORS = (
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

const TRANSACTION_ERRORS = (
  'AccountInUse AccountLoadedTwice AccountNotFound ProgramAccountNotFound InsufficientFundsForFee InvalidAccountForFee ' +
  'AlreadyProcessed BlockhashNotFound CallChainTooDeep MissingSignatureForFee InvalidAccountIndex SignatureFailure ' +
  'InvalidProgramForExecution SanitizeFailure ClusterMaintenance AccountBorrowOutstanding WouldExceedMaxBlockCostLimit ' +
  'UnsupportedVersion InvalidWritableAccount WouldExceedMaxAccountCostLimit WouldExceedAccountDataBlockLimit ' +
  'TooManyAccountLocks AddressLookupTableNotFound InvalidAddressLookupTableOwner InvalidAddressLookupTableData ' +
  'InvalidAddressLookupTableIndex InvalidRentPayingAccount WouldExceedMaxVoteCostLimit WouldExceedAccountDataTotalLimit ' +
  'MaxLoadedAccountsDataSizeExceeded ResanitizationNeeded InvalidLoadedAccountsDataSizeLimit UnbalancedTransaction ' +
  'ProgramCacheHitMaxLimit CommitCancelled'
).split(' ');

function instructionError(e: unknown): InstructionErrorValue {
  if (typeof e === 'number') return INSTRUCTION_ERRORS[e] ?? 'GenericError';
  const x = e as { code?: number; msg?: string };
  if (typeof x.code === 'number') return { Custom: x.code };
  return { BorshIoError: x.msg ?? '' };
}

/** An engine transaction error as the node's TransactionErrorValue. */
export function engineTransactionError(e: unknown): TransactionErrorValue {
  if (typeof e === 'number') return TRANSACTION_ERRORS[e] ?? 'InvalidProgramForExecution';
  const x = e as { index?: number; err?: () => unknown; accountIndex?: number; constructor: { name: string } };
  switch (x.constructor.name) {
    case 'TransactionErrorInstructionError':
      return { InstructionError: [x.index!, instructionError(x.err!())] };
    case 'TransactionErrorDuplicateInstruction':
      return { DuplicateInstruction: x.index! };
    case 'TransactionErrorInsufficientFundsForRent':
      return { InsufficientFundsForRent: { account_index: x.accountIndex! } };
    default:
      return 'ProgramExecutionTemporarilyRestricted';
  }
}

/** Errors a transaction ends with after executing (fee charged, in the block); any other is a load failure. */
export function isExecutionError(e: TransactionErrorValue): boolean {
  return typeof e === 'object' || e === 'ProgramExecutionTemporarilyRestricted';
}
