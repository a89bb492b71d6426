/**
 * The interface every builtin program implements: one `process(ctx)` entry that reads and changes
 * the instruction's accounts and throws InstructionError to fail. The executor checks the ownership
 * and balance rules after each instruction, so programs only implement their own logic.
 */
import type { Address } from '../common/pubkey.ts';
import type { Account } from './account.ts';
import type { Sysvars } from './sysvars.ts';

export interface InstructionAccount {
  /** Index of the account in the transaction's loaded key list. */
  index: number;
  key: Address;
  isSigner: boolean;
  isWritable: boolean;
  /**
   * The transaction's working copy. Programs change its fields; accounts passed twice share one
   * object. Data may be replaced or written in place (writable accounts own a private copy).
   */
  account: Account;
}

/**
 * State a program keeps beside the accounts (the EVM's) that must commit or roll back with the
 * transaction that changed it. The executor calls exactly one of commit/rollback per transaction.
 */
export interface TransactionExtension {
  commit(): void;
  rollback(): void;
}

export interface TransactionScope {
  /** The extension under `key` for this transaction, created on first use. */
  extension<T extends TransactionExtension>(key: string, create: () => T): T;
}

export interface InstructionContext {
  readonly programId: Address;
  readonly data: Uint8Array;
  readonly accounts: readonly InstructionAccount[];
  readonly instructionIndex: number;
  readonly sysvars: Sysvars;
  readonly scope: TransactionScope;
  /** Whether the bank runs this transaction for real or only simulates it. */
  readonly simulation: boolean;
  /** Appends `Program log: <message>`. */
  log(message: string): void;
  /** Appends a log line as is (for programs that log without the `Program log:` prefix). */
  logRaw(line: string): void;
  /** Charges compute units; throws ComputationalBudgetExceeded past the transaction's limit. */
  consumeUnits(units: number): void;
  /** Minimum lamports for an account of `dataLength` bytes to be rent-exempt. */
  minimumBalance(dataLength: number): number;
  /** State an extension keeps per bank (the EVM's), by extension name; undefined when absent. */
  bankExtension<T>(name: string): T | undefined;
  /** The transaction's fee payer. */
  readonly feePayer: Address;
  /** The transaction's first signature (its id). */
  readonly signature: string;
  /** The data of every instruction of the transaction, in order (precompiles read across them); top level only. */
  readonly instructionDatas?: readonly Uint8Array[];
  /** 1 for a transaction's instruction, 2 and up inside cross-program invocations. */
  readonly stackHeight?: number;
  /**
   * Invokes another builtin from this one (runtime/invoke.ts): Agave's invoke / invoke_signed, with
   * its privilege rules, logs and inner-instruction record. `signerSeeds` sign for this program's PDAs.
   * Present when the executor runs the instruction.
   */
  invoke?(instruction: CpiInstruction, signerSeeds?: readonly (readonly Uint8Array[])[]): void;
  /** sol_set_return_data (logs `Program return: …`) and sol_get_return_data. */
  setReturnData?(data: Uint8Array): void;
  getReturnData?(): ReturnData | null;
}

/** An instruction one program passes to another (solana Instruction). */
export interface CpiInstruction {
  programId: Address;
  accounts: ReadonlyArray<{ key: Address; isSigner: boolean; isWritable: boolean }>;
  data: Uint8Array;
}

export interface ReturnData {
  programId: Address;
  data: Uint8Array;
}

export interface Program {
  readonly id: Address;
  /** Human name, for logs and parsed output (e.g. "system"). */
  readonly name: string;
  /**
   * Compute units a builtin charges per instruction before `process` runs. Builtins with no BPF
   * counterpart log no `consumed` line; programs that emulate a BPF program set `logsConsumption`.
   */
  readonly computeUnits: number;
  readonly logsConsumption?: boolean;
  /** A signature-verification precompile: runs with no log lines and no compute units, as in Agave. */
  readonly precompile?: boolean;
  /** Set when `process` returns a promise: transactions that call it run on the asynchronous path. */
  readonly async?: boolean;
  process(ctx: InstructionContext): void | Promise<void>;
}

export type ProgramRegistry = ReadonlyMap<Address, Program>;
