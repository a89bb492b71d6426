/**
 * Runs one sanitized transaction against a bank's accounts: fee, account loading, the instructions in
 * order with Agave's per-instruction account rules, rent-state checks, and all-or-nothing results
 * (the fee is charged even when an instruction fails). Load failures throw TransactionError and the
 * transaction never enters a block.
 */
import { SYSTEM_PROGRAM_ID, NATIVE_LOADER_ID, type Address } from '../common/pubkey.ts';
import { cloneAccount, minimumBalanceForRentExemption, type Account } from './account.ts';
import { InstructionError, TransactionError, instructionErrorMessage, type TransactionErrorValue } from './errors.ts';
import type { InstructionAccount, InstructionContext, ProgramRegistry, TransactionExtension } from './program.ts';
import { computeBudgetOf, prioritizationFee, type ComputeBudget } from './programs/compute-budget.ts';
import { SYSVAR_IDS, type Sysvars } from './sysvars.ts';
import { isSignerIndex, isWritableIndex, sanitizeTransaction, type Transaction } from './wire.ts';

export interface ExecutionEnv {
  /** An account of the bank (sysvars included), or null when it does not exist. */
  readAccount(address: Address): Account | null;
  sysvars: Sysvars;
  programs: ProgramRegistry;
  simulation: boolean;
  /** Set when the transaction's blockhash is a durable nonce: its first instruction advances that nonce. */
  durableNonce: boolean;
}

export interface ExecutedTransaction {
  err: TransactionErrorValue | null;
  fee: number;
  logs: string[];
  accountKeys: Address[];
  preBalances: number[];
  postBalances: number[];
  computeUnitsConsumed: number;
  /** Accounts to store: every writable account on success; the fee payer (and an advanced nonce) on failure. */
  writes: Array<[Address, Account]>;
}

/** Agave truncates program logs past 10 KB. */
const LOG_BYTES_LIMIT = 10_000;

const EMPTY_ACCOUNT = (): Account => ({ lamports: 0, data: new Uint8Array(0), owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: 0 });

export function transactionFee(tx: Transaction, budget: ComputeBudget, lamportsPerSignature: number): number {
  return tx.signatures.length * lamportsPerSignature + prioritizationFee(budget);
}

type RentState = { kind: 'uninitialized' } | { kind: 'exempt' } | { kind: 'paying'; size: number; lamports: number };

function rentState(env: ExecutionEnv, a: Account): RentState {
  if (a.lamports === 0) return { kind: 'uninitialized' };
  if (a.lamports >= minimumBalanceForRentExemption(env.sysvars.rent, a.data.length)) return { kind: 'exempt' };
  return { kind: 'paying', size: a.data.length, lamports: a.lamports };
}

function rentTransitionAllowed(pre: RentState, post: RentState): boolean {
  if (post.kind !== 'paying') return true;
  return pre.kind === 'paying' && pre.size === post.size && post.lamports <= pre.lamports;
}

class Logs {
  readonly lines: string[] = [];
  private bytes = 0;
  private truncated = false;
  push(line: string): void {
    if (this.truncated) return;
    this.bytes += line.length;
    if (this.bytes > LOG_BYTES_LIMIT) {
      this.truncated = true;
      this.lines.push('Log truncated');
      return;
    }
    this.lines.push(line);
  }
}

class Scope {
  private readonly extensions = new Map<string, TransactionExtension>();
  extension<T extends TransactionExtension>(key: string, create: () => T): T {
    let ext = this.extensions.get(key);
    if (!ext) this.extensions.set(key, (ext = create()));
    return ext as T;
  }
  finish(commit: boolean): void {
    for (const ext of this.extensions.values()) (commit ? ext.commit() : ext.rollback());
  }
}

/** Validates the fee payer and returns its account after the fee (Agave's validate_fee_payer). */
function chargeFeePayer(env: ExecutionEnv, payerKey: Address, fee: number): Account {
  const payer = env.readAccount(payerKey);
  if (!payer) throw new TransactionError('AccountNotFound');
  if (payer.owner !== SYSTEM_PROGRAM_ID) throw new TransactionError('InvalidAccountForFee');
  // A nonce account paying its own fee must keep its rent-exempt reserve.
  const reserve = payer.data.length === 0 ? 0 : minimumBalanceForRentExemption(env.sysvars.rent, payer.data.length);
  if (payer.lamports - reserve < fee) throw new TransactionError('InsufficientFundsForFee');
  const charged = cloneAccount(payer);
  charged.lamports -= fee;
  if (!rentTransitionAllowed(rentState(env, payer), rentState(env, charged))) {
    throw new TransactionError({ InsufficientFundsForRent: { account_index: 0 } });
  }
  return charged;
}

function checkPrograms(tx: Transaction, env: ExecutionEnv): void {
  const keys = tx.message.accountKeys;
  for (const ix of tx.message.instructions) {
    const programId = keys[ix.programIdIndex]!;
    if (env.programs.has(programId)) continue;
    const account = env.readAccount(programId);
    if (!account) throw new TransactionError('ProgramAccountNotFound');
    throw new TransactionError('InvalidProgramForExecution');
  }
}

interface PreState {
  lamports: number;
  owner: Address;
  executable: boolean;
  rentEpoch: number;
  data: Uint8Array;
}

/** Agave's PreAccount::verify: what an instruction may and may not change in an account. */
function verifyAccount(programId: Address, ia: InstructionAccount, pre: PreState): void {
  const post = ia.account;
  const ownedByProgram = pre.owner === programId;
  if (pre.owner !== post.owner) {
    const zeroed = post.data.every((b) => b === 0);
    if (!ownedByProgram || !ia.isWritable || pre.executable || !zeroed) throw new InstructionError('ModifiedProgramId');
  }
  if (post.lamports < pre.lamports && !ownedByProgram) throw new InstructionError('ExternalAccountLamportSpend');
  if (post.lamports !== pre.lamports) {
    if (!ia.isWritable) throw new InstructionError('ReadonlyLamportChange');
    if (pre.executable) throw new InstructionError('ExecutableLamportChange');
  }
  if (post.data.length !== pre.data.length && !(ownedByProgram && ia.isWritable)) throw new InstructionError('AccountDataSizeChanged');
  if (post.data !== pre.data || post.data.length !== pre.data.length) {
    if (!bytesSame(post.data, pre.data)) {
      if (pre.executable) throw new InstructionError('ExecutableDataModified');
      if (!ia.isWritable) throw new InstructionError('ReadonlyDataModified');
      if (!ownedByProgram) throw new InstructionError('ExternalAccountDataModified');
    }
  }
  if (post.executable !== pre.executable) throw new InstructionError('ExecutableModified');
  if (post.rentEpoch !== pre.rentEpoch) throw new InstructionError('RentEpochModified');
}

function bytesSame(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

interface Loaded {
  keys: Address[];
  writable: boolean[];
  accounts: Account[];
}

function loadAccounts(tx: Transaction, env: ExecutionEnv, chargedPayer: Account): Loaded {
  const m = tx.message;
  const keys = m.accountKeys;
  const programIds = new Set(m.instructions.map((ix) => keys[ix.programIdIndex]!));
  const writable = keys.map((k, i) => isWritableIndex(m, i) && !SYSVAR_IDS.has(k) && !env.programs.has(k) && !programIds.has(k));
  const accounts = keys.map((k, i) => {
    if (i === 0) return chargedPayer;
    const a = env.readAccount(k);
    if (!a) return EMPTY_ACCOUNT();
    // Writable accounts get a private copy so a failed transaction leaves the bank untouched.
    return writable[i] ? cloneAccount(a) : a;
  });
  return { keys, writable, accounts };
}

/**
 * Executes `tx`. Throws TransactionError for failures that keep it out of the block (sanitize,
 * fee payer, programs). Instruction failures come back as `err` with the fee charged.
 */
export function executeTransaction(tx: Transaction, env: ExecutionEnv): ExecutedTransaction {
  sanitizeTransaction(tx);
  if (tx.message.addressTableLookups.length > 0) throw new TransactionError('AddressLookupTableNotFound');
  const budget = computeBudgetOf(tx.message);
  const fee = transactionFee(tx, budget, env.sysvars.lamportsPerSignature);
  const payerKey = tx.message.accountKeys[0]!;
  const payerBefore = env.readAccount(payerKey);
  const chargedPayer = chargeFeePayer(env, payerKey, fee);
  checkPrograms(tx, env);

  const loaded = loadAccounts(tx, env, chargedPayer);
  const preBalances = loaded.keys.map((k, i) => (i === 0 ? payerBefore!.lamports : loaded.accounts[i]!.lamports));
  const preRent = loaded.accounts.map((a, i) => (i === 0 ? rentState(env, payerBefore!) : rentState(env, a)));
  const logs = new Logs();
  const scope = new Scope();
  let unitsUsed = 0;
  let err: TransactionErrorValue | null = null;

  const m = tx.message;
  for (let ixIndex = 0; ixIndex < m.instructions.length && err === null; ixIndex++) {
    const ix = m.instructions[ixIndex]!;
    const programId = m.accountKeys[ix.programIdIndex]!;
    const program = env.programs.get(programId)!;
    logs.push(`Program ${programId} invoke [1]`);
    const unitsAtStart = unitsUsed;
    try {
      const consume = (units: number) => {
        unitsUsed += units;
        if (unitsUsed > budget.unitLimit) {
          unitsUsed = budget.unitLimit;
          throw new InstructionError('ComputationalBudgetExceeded');
        }
      };
      consume(program.computeUnits);
      const ixAccounts: InstructionAccount[] = ix.accounts.map((i) => ({
        index: i,
        key: loaded.keys[i]!,
        isSigner: isSignerIndex(m, i),
        isWritable: loaded.writable[i]!,
        account: loaded.accounts[i]!,
      }));
      const pre = new Map<number, PreState>();
      for (const ia of ixAccounts) {
        if (pre.has(ia.index)) continue;
        const a = ia.account;
        pre.set(ia.index, { lamports: a.lamports, owner: a.owner, executable: a.executable, rentEpoch: a.rentEpoch, data: ia.isWritable ? a.data.slice() : a.data });
      }
      const ctx: InstructionContext = {
        programId,
        data: ix.data,
        accounts: ixAccounts,
        instructionIndex: ixIndex,
        sysvars: env.sysvars,
        scope,
        simulation: env.simulation,
        log: (message) => logs.push(`Program log: ${message}`),
        logRaw: (line) => logs.push(line),
        consumeUnits: consume,
        minimumBalance: (len) => minimumBalanceForRentExemption(env.sysvars.rent, len),
      };
      program.process(ctx);
      let before = 0;
      let after = 0;
      for (const [index, p] of pre) {
        const ia = ixAccounts.find((a) => a.index === index)!;
        verifyAccount(programId, ia, p);
        before += p.lamports;
        after += ia.account.lamports;
      }
      if (before !== after) throw new InstructionError('UnbalancedInstruction');
      if (program.logsConsumption) logs.push(`Program ${programId} consumed ${unitsUsed - unitsAtStart} of ${budget.unitLimit - unitsAtStart} compute units`);
      logs.push(`Program ${programId} success`);
    } catch (e) {
      if (!(e instanceof InstructionError)) throw e;
      if (program.logsConsumption) logs.push(`Program ${programId} consumed ${unitsUsed - unitsAtStart} of ${budget.unitLimit - unitsAtStart} compute units`);
      logs.push(`Program ${programId} failed: ${instructionErrorMessage(e.value)}`);
      err = { InstructionError: [ixIndex, e.value] };
    }
  }

  if (err === null) {
    for (let i = 0; i < loaded.keys.length; i++) {
      if (!loaded.writable[i]) continue;
      if (!rentTransitionAllowed(preRent[i]!, rentState(env, loaded.accounts[i]!))) {
        err = { InsufficientFundsForRent: { account_index: i } };
        break;
      }
    }
  }
  scope.finish(err === null);

  let writes: Array<[Address, Account]>;
  let postBalances: number[];
  if (err === null) {
    writes = [];
    for (let i = 0; i < loaded.keys.length; i++) if (loaded.writable[i]) writes.push([loaded.keys[i]!, loaded.accounts[i]!]);
    postBalances = loaded.accounts.map((a) => a.lamports);
  } else {
    writes = [[payerKey, chargedPayer]];
    const nonceWrite = env.durableNonce ? advancedNonceAfterFailure(tx, env, chargedPayer) : null;
    if (nonceWrite) writes.push(nonceWrite);
    postBalances = preBalances.slice();
    postBalances[0] = chargedPayer.lamports;
  }
  return { err, fee, logs: logs.lines, accountKeys: loaded.keys, preBalances, postBalances, computeUnitsConsumed: unitsUsed, writes };
}

/**
 * A failed durable-nonce transaction still advances its nonce, so it cannot be replayed: run the
 * AdvanceNonceAccount instruction alone on fresh copies and keep the nonce account it produced.
 */
function advancedNonceAfterFailure(tx: Transaction, env: ExecutionEnv, chargedPayer: Account): [Address, Account] | null {
  const m = tx.message;
  const ix = m.instructions[0]!;
  const nonceIndex = ix.accounts[0];
  if (nonceIndex === undefined) return null;
  const program = env.programs.get(SYSTEM_PROGRAM_ID)!;
  const copies = new Map<number, Account>();
  const accountAt = (i: number) => {
    let a = copies.get(i);
    if (!a) {
      a = i === 0 ? cloneAccount(chargedPayer) : cloneAccount(env.readAccount(m.accountKeys[i]!) ?? EMPTY_ACCOUNT());
      copies.set(i, a);
    }
    return a;
  };
  const ctx: InstructionContext = {
    programId: SYSTEM_PROGRAM_ID,
    data: ix.data,
    accounts: ix.accounts.map((i) => ({ index: i, key: m.accountKeys[i]!, isSigner: isSignerIndex(m, i), isWritable: isWritableIndex(m, i), account: accountAt(i) })),
    instructionIndex: 0,
    sysvars: env.sysvars,
    scope: new Scope(),
    simulation: env.simulation,
    log: () => {},
    logRaw: () => {},
    consumeUnits: () => {},
    minimumBalance: (len) => minimumBalanceForRentExemption(env.sysvars.rent, len),
  };
  try {
    program.process(ctx);
  } catch {
    return null;
  }
  const nonceKey = m.accountKeys[nonceIndex]!;
  if (nonceIndex === 0) return null; // the payer write already carries it
  return [nonceKey, copies.get(nonceIndex)!];
}

/** Builtin program accounts as genesis creates them: executable, owned by the native loader. */
export function builtinProgramAccount(name: string): Account {
  return { lamports: 1, data: new TextEncoder().encode(name), owner: NATIVE_LOADER_ID, executable: true, rentEpoch: 0 };
}
