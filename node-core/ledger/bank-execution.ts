/**
 * Running a transaction on a bank (Agave's Bank::load_execute_and_commit_transactions): the checks
 * before execution (the blockhash's age or a durable nonce, then the status cache), the environment
 * the executor reads the bank through, and the record of the outcome in the bank (the stored
 * transaction, its writes, fee and signatures) and in the status cache. Simulations run the same
 * checks on a bank and keep nothing.
 */
import type { Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import { TransactionError } from '../runtime/errors.ts';
import { executeTransaction, executeTransactionAsync, needsAsyncExecution, type ExecutedTransaction, type ExecutionEnv } from '../runtime/executor.ts';
import type { ProgramRegistry } from '../runtime/program.ts';
import { extractMemos } from '../runtime/programs/memo.ts';
import { renderSysvar, SYSVAR_IDS } from '../runtime/sysvars.ts';
import type { Transaction } from '../runtime/wire.ts';
import type { StoredTransaction } from '../store/store.ts';
import type { Bank } from './bank.ts';
import type { BlockhashQueue } from './blockhash-queue.ts';
import { durableNonceOf } from './durable-nonce.ts';
import type { StatusCache } from './status-cache.ts';
import { WireSlab } from './wire-slab.ts';

/** A transaction that entered a bank. */
export interface RecordedTransaction {
  slot: number;
  transaction: StoredTransaction;
  writes: Array<[Address, Account]>;
}

export class TransactionProcessor {
  /** Where the kept transactions' wire bytes go. */
  private readonly wires = new WireSlab();
  constructor(
    private readonly blockhashes: BlockhashQueue,
    private readonly statuses: StatusCache,
    private readonly programs: ProgramRegistry,
    private readonly onRecorded: (recorded: RecordedTransaction) => void,
  ) {}

  /** Executes into `bank`; throws TransactionError when the transaction cannot enter the block. */
  process(bank: Bank, tx: Transaction): ExecutedTransaction {
    return this.record(bank, tx, executeTransaction(tx, this.checkedEnv(bank, tx, false)));
  }

  /** `process` for a transaction with an asynchronous program (EVM); `bank` must wait for it to seal. */
  async processAsync(bank: Bank, tx: Transaction): Promise<void> {
    const env = this.checkedEnv(bank, tx, false);
    this.record(bank, tx, await executeTransactionAsync(tx, env));
  }

  /** Runs `tx` on `bank` keeping nothing (synchronous programs only); a transaction still `queued` is a duplicate too. */
  simulate(bank: Bank, tx: Transaction, queued: boolean): ExecutedTransaction {
    return executeTransaction(tx, this.simulationEnv(bank, tx, queued));
  }

  /** `simulate` for any transaction, the EVM's included (the checks throw before it returns a promise). */
  simulateAsync(bank: Bank, tx: Transaction, queued: boolean): Promise<ExecutedTransaction> {
    const env = this.simulationEnv(bank, tx, queued);
    return needsAsyncExecution(tx, this.programs) ? executeTransactionAsync(tx, env) : Promise.resolve(executeTransaction(tx, env));
  }

  private simulationEnv(bank: Bank, tx: Transaction, queued: boolean): ExecutionEnv {
    const env = this.checkedEnv(bank, tx, true);
    if (queued) throw new TransactionError('AlreadyProcessed');
    return env;
  }

  private checkedEnv(bank: Bank, tx: Transaction, simulation: boolean): ExecutionEnv {
    // Agave checks the blockhash's age before the status cache: an expired duplicate is BlockhashNotFound.
    const env = executionEnv(bank, tx, this.blockhashes, this.programs, simulation);
    if (this.statuses.has(tx.id)) throw new TransactionError('AlreadyProcessed');
    return env;
  }

  private record(bank: Bank, tx: Transaction, result: ExecutedTransaction): ExecutedTransaction {
    const index = bank.transactions.length;
    const stored = recordInBank(bank, tx, result, this.wires.copy(tx.wire));
    this.statuses.insert(tx.id, { slot: bank.slot, index, err: result.err });
    this.onRecorded({ slot: bank.slot, transaction: stored, writes: result.writes });
    return result;
  }
}

/**
 * The executor's view of `bank` for `tx`; throws BlockhashNotFound when the blockhash is too old
 * for the bank and the transaction is not a durable-nonce one.
 */
function executionEnv(bank: Bank, tx: Transaction, blockhashes: BlockhashQueue, programs: ProgramRegistry, simulation: boolean): ExecutionEnv {
  const blockhash = tx.message.recentBlockhash;
  let durableNonce = false;
  if (!blockhashes.isValid(blockhash, bank.slot, bank.blockHeight)) {
    const bankBlockhash = bank.sysvars.recentBlockhashes[0]?.blockhash;
    if (!durableNonceOf(tx, (a) => bank.get(a), bankBlockhash)) throw new TransactionError('BlockhashNotFound');
    durableNonce = true;
  }
  return {
    readAccount: (address) => bank.get(address) ?? (SYSVAR_IDS.has(address) ? renderSysvar(address, bank.sysvars) : null),
    sysvars: bank.sysvars,
    programs,
    simulation,
    durableNonce,
    bankExtension: <T>(name: string) => bank.extensions.get(name) as T | undefined,
  };
}

/** Puts an executed transaction into the bank: its writes, its stored form (returned, with `wire`: the bytes it keeps) and its fee and signatures. */
function recordInBank(bank: Bank, tx: Transaction, result: ExecutedTransaction, wire: Uint8Array): StoredTransaction {
  for (const [k, a] of result.writes) bank.set(k, a);
  const stored: StoredTransaction = {
    signature: tx.id,
    wire,
    meta: {
      err: result.err,
      fee: result.fee,
      preBalances: result.preBalances,
      postBalances: result.postBalances,
      logMessages: result.logs,
      computeUnitsConsumed: result.computeUnitsConsumed,
      preTokenBalances: result.preTokenBalances,
      postTokenBalances: result.postTokenBalances,
      innerInstructions: result.innerInstructions,
      loadedAddresses: result.loadedAddresses,
      ...(result.returnData ? { returnData: result.returnData } : {}),
    },
    accountKeys: result.accountKeys,
    memo: extractMemos(tx.message.instructions.map((ix) => ({ programId: tx.message.accountKeys[ix.programIdIndex]!, data: ix.data }))),
  };
  bank.transactions.push(stored);
  bank.feesCollected += result.fee;
  bank.signatureCount += tx.signatures.length;
  return stored;
}
