/**
 * Runs one sanitized transaction against a bank's accounts: fee, account loading, the instructions in
 * order with Agave's per-instruction account rules, rent-state checks, and all-or-nothing results
 * (the fee is charged even when an instruction fails). Load failures throw TransactionError and the
 * transaction never enters a block.
 */
import { BoundedMap } from '../common/bounded-map.ts';
import { INCINERATOR_ID, SYSTEM_PROGRAM_ID, NATIVE_LOADER_ID, type Address } from '../common/pubkey.ts';
import { cloneAccount, copyData, markRentExempt, NO_DATA, minimumBalanceForRentExemption, MAX_PERMITTED_DATA_LENGTH, RENT_EXEMPT_RENT_EPOCH, type Account } from './account.ts';
import { InstructionError, TransactionError, instructionErrorMessage, type TransactionErrorValue } from './errors.ts';
import type { InstructionAccount, InstructionContext, Program, ProgramRegistry, TransactionExtension } from './program.ts';
import { computeBudgetOf, prioritizationFee, type ComputeBudget } from './programs/compute-budget.ts';
import { decodeNonceState, NONCE_ACCOUNT_LENGTH } from './programs/nonce-account.ts';
import { SYSVAR_IDS, type Sysvars } from './sysvars.ts';
import { isSignerIndex, isWritableIndex, sanitizeTransaction, type Message, type Transaction } from './wire.ts';
import { loadMessageAddresses, messageAccountKeys, validateAccountLocks, type LoadedAddresses } from './address-loader.ts';
import { Invocations, type InnerInstructions } from './invoke.ts';
import { collectTokenBalances, NO_TOKEN_BALANCES, type TokenBalance } from './token-balances.ts';
import type { ReturnData } from './program.ts';
import { precompileSignatureCount } from './programs/precompiles/index.ts';
import { executeOnEngine } from './sbf/engine-execution.ts';
import { SbfEngine } from './sbf/engine.ts';
import { ENGINE_BUILTIN_PROGRAM_IDS, isEngineProgram, runsOnEngine } from './sbf/routing.ts';

export interface ExecutionEnv {
  /** An account of the bank (sysvars included), or null when it does not exist. */
  readAccount(address: Address): Account | null;
  sysvars: Sysvars;
  programs: ProgramRegistry;
  simulation: boolean;
  /** Set when the transaction's blockhash is a durable nonce: its first instruction advances that nonce. */
  durableNonce: boolean;
  /** State an extension keeps per bank (the EVM's), by extension name; none when absent. */
  bankExtension?<T>(name: string): T | undefined;
}

const noBankExtension = () => undefined;

export interface ExecutedTransaction {
  err: TransactionErrorValue | null;
  fee: number;
  logs: string[];
  /** Every account key: the static ones, then those loaded from address lookup tables. */
  accountKeys: Address[];
  loadedAddresses: LoadedAddresses;
  preBalances: number[];
  postBalances: number[];
  computeUnitsConsumed: number;
  /** Accounts to store: every writable account on success; the fee payer (and an advanced nonce) on failure. */
  writes: Array<[Address, Account]>;
  /** Cross-program invocations, per top-level instruction (runtime/invoke.ts). */
  innerInstructions: InnerInstructions[];
  returnData: ReturnData | null;
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
}

/**
 * The top-level `invoke [1]` and `success` lines of a program, made once per program: every
 * transaction's logs hold (and the bank keeps until the slot is rooted) the same two strings
 * instead of two new ones each. Bounded: the oldest programs' lines leave past PROGRAM_LINES_LIMIT.
 */
const PROGRAM_LINES_LIMIT = 1024;
interface ProgramLines {
  invoke: string;
  success: string;
  /** The whole log of a transaction whose one instruction ran this program and logged nothing else: shared, frozen. */
  only: string[];
}
const programLines = new BoundedMap<Address, ProgramLines>(PROGRAM_LINES_LIMIT);
function linesOf(programId: Address): ProgramLines {
  let lines = programLines.get(programId);
  if (!lines) {
    const invoke = `Program ${programId} invoke [1]`;
    const success = `Program ${programId} success`;
    programLines.set(programId, (lines = { invoke, success, only: Object.freeze([invoke, success]) as string[] }));
  }
  return lines;
}

/** No inner instructions: one frozen array shared by every transaction without any. */
const NO_INNER_INSTRUCTIONS: InnerInstructions[] = Object.freeze([]) as unknown as InnerInstructions[];

/**
 * The log lines as a bank keeps them until the slot is rooted: the shared list of a lone successful
 * instruction (a transfer's two lines), else an exact-size copy (the collected list has grown by
 * pushes, its backing store up to 17 slots for two lines).
 */
function keptLines(lines: string[], m: Message): string[] {
  if (lines.length === 2 && m.instructions.length === 1) {
    const only = programLines.get(m.accountKeys[m.instructions[0]!.programIdIndex]!)?.only;
    if (only && lines[0] === only[0] && lines[1] === only[1]) return only;
  }
  return lines.slice();
}

/** Agave truncates program logs past 10 KB (of UTF-8). */
const LOG_BYTES_LIMIT = 10_000;

/** An address with no account loads as this; as Agave, a new account starts with the rent-exempt epoch. */
const EMPTY_ACCOUNT = (): Account => ({ lamports: 0, data: NO_DATA, owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: RENT_EXEMPT_RENT_EPOCH });

/** Agave's fee: every signature, the transaction's and those its precompile instructions verify, plus the priority fee. */
export function transactionFee(tx: Pick<Transaction, 'signatures' | 'message'>, budget: ComputeBudget, lamportsPerSignature: number): number {
  return (tx.signatures.length + precompileSignatureCount(tx.message)) * lamportsPerSignature + prioritizationFee(budget);
}

type RentState = { kind: 'uninitialized' } | { kind: 'exempt' } | { kind: 'paying'; size: number; lamports: number };

const UNINITIALIZED: RentState = { kind: 'uninitialized' };
const EXEMPT: RentState = { kind: 'exempt' };

function rentState(env: ExecutionEnv, a: Account): RentState {
  if (a.lamports === 0) return UNINITIALIZED;
  if (a.lamports >= minimumBalanceForRentExemption(env.sysvars.rent, a.data.length)) return EXEMPT;
  return { kind: 'paying', size: a.data.length, lamports: a.lamports };
}

function rentTransitionAllowed(pre: RentState, post: RentState): boolean {
  if (post.kind !== 'paying') return true;
  return pre.kind === 'paying' && pre.size === post.size && post.lamports <= pre.lamports;
}

/** Bytes of `s` in UTF-8 (lone surrogates count as the 3 bytes of U+FFFD). */
function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a surrogate pair: two units, four bytes
      i++;
    } else n += 2;
  }
  return n;
}

/**
 * Agave's LogCollector: a line is kept while the bytes kept stay below the limit; the first line that
 * does not fit adds "Log truncated" (once), and later lines that still fit are kept.
 */
class Logs {
  readonly lines: string[] = [];
  private bytes = 0;
  private truncated = false;
  push(line: string): void {
    const bytes = this.bytes + utf8Length(line);
    if (bytes >= LOG_BYTES_LIMIT) {
      if (!this.truncated) {
        this.truncated = true;
        this.lines.push('Log truncated');
      }
      return;
    }
    this.bytes = bytes;
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

/**
 * Validates the fee payer and returns its account after the fee (Agave's validate_fee_payer). Only a
 * System account without data or an initialized nonce account may pay (get_system_account_kind).
 */
function chargeFeePayer(env: ExecutionEnv, payerKey: Address, fee: number): Account {
  const payer = env.readAccount(payerKey);
  if (!payer || payer.lamports === 0) throw new TransactionError('AccountNotFound');
  if (payer.owner !== SYSTEM_PROGRAM_ID) throw new TransactionError('InvalidAccountForFee');
  let reserve = 0;
  if (payer.data.length !== 0) {
    const nonce = payer.data.length === NONCE_ACCOUNT_LENGTH ? decodeNonceState(payer.data) : null;
    if (nonce?.state !== 'initialized') throw new TransactionError('InvalidAccountForFee');
    // A nonce account paying its own fee must keep its rent-exempt reserve.
    reserve = minimumBalanceForRentExemption(env.sysvars.rent, payer.data.length);
  }
  if (payer.lamports - reserve < fee) throw new TransactionError('InsufficientFundsForFee');
  const charged = markRentExempt(cloneAccount(payer), env.sysvars.rent);
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
    // Deployed programs and the BPF loaders run on the sBPF engine (runtime/sbf/).
    if (isEngineProgram(programId, account, env.programs)) continue;
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
function verifyAccount(programId: Address, ia: InstructionAccount, pre: PreState, minimumBalance: (len: number) => number): void {
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
  if (post.data.length > MAX_PERMITTED_DATA_LENGTH) throw new InstructionError('InvalidRealloc');
  if (post.data.length !== pre.data.length && !ownedByProgram) throw new InstructionError('AccountDataSizeChanged');
  if (post.data !== pre.data || post.data.length !== pre.data.length) {
    if (!bytesSame(post.data, pre.data)) {
      if (pre.executable) throw new InstructionError('ExecutableDataModified');
      if (!ia.isWritable) throw new InstructionError('ReadonlyDataModified');
      if (!ownedByProgram) throw new InstructionError('ExternalAccountDataModified');
    }
  }
  if (post.executable !== pre.executable) {
    // Only the owner may set it, on a writable, rent-exempt account, and never clear it.
    if (post.lamports < minimumBalance(post.data.length)) throw new InstructionError('ExecutableAccountNotRentExempt');
    if (!ia.isWritable || pre.executable || post.owner !== programId) throw new InstructionError('ExecutableModified');
  }
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
  /** The transaction's working copies. */
  accounts: Account[];
  /** The accounts as loaded (the bank's own objects; the charged fee payer at 0): never handed to programs. */
  originals: Account[];
}

/** Write permission of key `i` before demotion: the header's for static keys; loaded writable addresses come right after them. */
function requestedWritable(m: Message, loaded: LoadedAddresses, i: number): boolean {
  const statics = m.accountKeys.length;
  return i < statics ? isWritableIndex(m, i) : i < statics + loaded.writable.length;
}

function loadAccounts(tx: Transaction, env: ExecutionEnv, chargedPayer: Account, keys: Address[], loadedAddresses: LoadedAddresses): Loaded {
  const m = tx.message;
  const programIds = new Set(m.instructions.map((ix) => keys[ix.programIdIndex]!));
  const writable = keys.map((k, i) => requestedWritable(m, loadedAddresses, i) && !SYSVAR_IDS.has(k) && !env.programs.has(k) && !programIds.has(k));
  const originals = keys.map((k, i) => (i === 0 ? chargedPayer : (env.readAccount(k) ?? EMPTY_ACCOUNT())));
  // Every account gets a private copy, read-only ones too: a failed transaction leaves the bank
  // untouched, and a program that writes a read-only account in place is caught, not obeyed.
  const accounts = originals.map(cloneAccount);
  for (let i = 1; i < accounts.length; i++) if (writable[i]) markRentExempt(accounts[i]!, env.sysvars.rent);
  return { keys, writable, accounts, originals };
}

/** Whether running `tx` needs the asynchronous driver: one of its programs processes asynchronously (the EVM). */
export function needsAsyncExecution(tx: Transaction, programs: ProgramRegistry): boolean {
  const keys = tx.message.accountKeys;
  for (const ix of tx.message.instructions) if (programs.get(keys[ix.programIdIndex]!)?.async) return true;
  return false;
}

/**
 * Executes `tx`. Throws TransactionError for failures that keep it out of the block (sanitize,
 * fee payer, programs). Instruction failures come back as `err` with the fee charged.
 * Only for transactions whose programs are all synchronous (see needsAsyncExecution).
 */
export function executeTransaction(tx: Transaction, env: ExecutionEnv): ExecutedTransaction {
  const run = execution(tx, env);
  const step = run.next();
  if (!step.done) {
    run.return(undefined as never);
    throw new Error('executeTransaction: an asynchronous program needs executeTransactionAsync');
  }
  return step.value;
}

/** Executes `tx` as executeTransaction does, awaiting programs that process asynchronously. */
export async function executeTransactionAsync(tx: Transaction, env: ExecutionEnv): Promise<ExecutedTransaction> {
  const run = execution(tx, env);
  let step = run.next();
  while (!step.done) {
    let failure: unknown = null;
    try {
      await step.value;
    } catch (e) {
      failure = e ?? new Error('program failed');
    }
    step = failure === null ? run.next() : run.throw(failure);
  }
  return step.value;
}

/**
 * The execution itself, as a generator that yields the promise of an asynchronous program and is
 * resumed when it settles: one implementation behind the synchronous and the asynchronous driver.
 */
function* execution(tx: Transaction, env: ExecutionEnv): Generator<Promise<void>, ExecutedTransaction, void> {
  sanitizeTransaction(tx);
  const loadedAddresses = loadMessageAddresses(tx.message, env.readAccount, env.sysvars);
  const keys = messageAccountKeys(tx.message, loadedAddresses);
  validateAccountLocks(keys);
  // A transaction for a deployed program runs on the sBPF engine as a whole (runtime/sbf/), with the engine's compute budget.
  const onEngine = runsOnEngine(tx.message, env.readAccount, env.programs);
  const budget = computeBudgetOf(tx.message, onEngine ? ENGINE_BUILTIN_PROGRAM_IDS : undefined);
  const fee = transactionFee(tx, budget, env.sysvars.lamportsPerSignature);
  const payerKey = tx.message.accountKeys[0]!;
  const payerBefore = env.readAccount(payerKey);
  const chargedPayer = chargeFeePayer(env, payerKey, fee);
  checkPrograms(tx, env);

  const loaded = loadAccounts(tx, env, chargedPayer, keys, loadedAddresses);
  const preBalances = loaded.keys.map((k, i) => (i === 0 ? payerBefore!.lamports : loaded.accounts[i]!.lamports));
  // As Agave, the fee payer's rent state before execution is the one after the fee.
  const preRent = loaded.accounts.map((a) => rentState(env, a));
  const minimumBalance = (len: number) => minimumBalanceForRentExemption(env.sysvars.rent, len);
  const logs = new Logs();
  const scope = new Scope();
  let unitsUsed = 0;
  let err: TransactionErrorValue | null = null;
  const invocations = new Invocations({ keys: loaded.keys, programs: env.programs, log: (line) => logs.push(line), remainingUnits: () => budget.unitLimit - unitsUsed, verify: verifyAccount });

  const m = tx.message;
  const engine = onEngine
    ? executeOnEngine({ tx, keys: loaded.keys, chargedPayer, engineFee: transactionFee(tx, budget, SbfEngine.LAMPORTS_PER_SIGNATURE), read: env.readAccount, sysvars: env.sysvars, programs: env.programs, simulation: env.simulation })
    : null;
  if (engine) {
    for (const line of engine.logs) logs.lines.push(line); // the engine applies Agave's log limit itself
    unitsUsed = engine.computeUnitsConsumed;
    err = engine.err;
    if (err === null) {
      for (let i = 0; i < loaded.keys.length; i++) loaded.accounts[i] = engine.post.get(loaded.keys[i]!) ?? loaded.accounts[i]!;
      // The engine advanced a durable nonce with its own blockhash: the nonce takes the bank's, as the System program here writes it.
      const nonce = env.durableNonce ? advancedNonceAfterFailure(tx, env, chargedPayer, loaded) : null;
      const nonceIndex = nonce ? loaded.keys.indexOf(nonce[0]) : -1;
      if (nonce && nonceIndex >= 0) loaded.accounts[nonceIndex]!.data = nonce[1].data;
    }
  }
  // Accounts an instruction has had writable: until then a working copy's data is still the loaded
  // account's, which can stand for its state before an instruction without being copied.
  const handedWritable = new Uint8Array(loaded.keys.length);
  for (let ixIndex = 0; ixIndex < m.instructions.length && err === null && !engine; ixIndex++) {
    const ix = m.instructions[ixIndex]!;
    const programId = m.accountKeys[ix.programIdIndex]!;
    const program = env.programs.get(programId)!;
    if (program.precompile) {
      err = runPrecompile(program, ix.data, ixIndex, m.instructions, env, scope, payerKey, tx.id);
      continue;
    }
    logs.push(linesOf(programId).invoke);
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
        // A read-only account may not change at all, so its state as loaded is its state before any instruction.
        const a = ia.isWritable ? ia.account : loaded.originals[ia.index]!;
        const data = !ia.isWritable ? a.data : handedWritable[ia.index] ? copyData(a.data) : loaded.originals[ia.index]!.data;
        pre.set(ia.index, { lamports: a.lamports, owner: a.owner, executable: a.executable, rentEpoch: a.rentEpoch, data });
      }
      for (const ia of ixAccounts) if (ia.isWritable) handedWritable[ia.index] = 1;
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
        minimumBalance,
        bankExtension: env.bankExtension ?? noBankExtension,
        feePayer: payerKey,
        signature: tx.id,
      };
      invocations.enterTopLevel(ctx, program, pre);
      const pending = program.process(ctx);
      if (pending) yield pending;
      let before = 0;
      let after = 0;
      for (const [index, p] of pre) {
        const ia = ixAccounts.find((a) => a.index === index)!;
        verifyAccount(programId, ia, p, minimumBalance);
        before += p.lamports;
        after += ia.account.lamports;
      }
      if (before !== after) throw new InstructionError('UnbalancedInstruction');
      if (program.logsConsumption) logs.push(`Program ${programId} consumed ${unitsUsed - unitsAtStart} of ${budget.unitLimit - unitsAtStart} compute units`);
      invocations.logReturn(program);
      logs.push(linesOf(programId).success);
    } catch (e) {
      if (!(e instanceof InstructionError)) {
        scope.finish(false);
        throw e;
      }
      if (program.logsConsumption) logs.push(`Program ${programId} consumed ${unitsUsed - unitsAtStart} of ${budget.unitLimit - unitsAtStart} compute units`);
      invocations.logReturn(program);
      logs.push(`Program ${programId} failed: ${instructionErrorMessage(e.value)}`);
      err = { InstructionError: [ixIndex, e.value] };
    }
  }

  if (err === null) {
    for (let i = 0; i < loaded.keys.length; i++) {
      // The incinerator is exempt from the rent-state check (check_rent_state_with_account).
      if (!loaded.writable[i] || loaded.keys[i] === INCINERATOR_ID) continue;
      if (!rentTransitionAllowed(preRent[i]!, rentState(env, loaded.accounts[i]!))) {
        err = { InsufficientFundsForRent: { account_index: i } };
        break;
      }
    }
  }
  // A simulation keeps nothing, extension state included.
  scope.finish(err === null && !env.simulation);

  let writes: Array<[Address, Account]>;
  let postBalances: number[];
  if (err === null) {
    writes = [];
    for (let i = 0; i < loaded.keys.length; i++) if (loaded.writable[i]) writes.push([loaded.keys[i]!, loaded.accounts[i]!]);
    postBalances = loaded.accounts.map((a) => a.lamports);
  } else {
    writes = [[payerKey, chargedPayer]];
    const nonceWrite = env.durableNonce ? advancedNonceAfterFailure(tx, env, chargedPayer, loaded) : null;
    // A nonce account that pays its own fee is one write, charged and advanced.
    if (nonceWrite) (nonceWrite[0] === payerKey ? (writes[0] = nonceWrite) : writes.push(nonceWrite));
    postBalances = preBalances.slice();
    postBalances[0] = chargedPayer.lamports;
  }
  const programIndexes = new Set(m.instructions.map((ix) => ix.programIdIndex));
  // A simulation reports no token balances: skip the work.
  const tokenBalances = (accounts: Account[]) => (env.simulation ? NO_TOKEN_BALANCES : collectTokenBalances(loaded.keys, accounts, (i) => programIndexes.has(i), env.readAccount));
  const preTokenBalances = tokenBalances(loaded.originals);
  const inner = engine ? engine.innerInstructions : invocations.inner;
  return {
    err,
    fee,
    // A simulation's result is dropped at once; a processed one's logs stay in the bank until its slot is rooted.
    logs: env.simulation ? logs.lines : keptLines(logs.lines, m),
    accountKeys: loaded.keys,
    loadedAddresses,
    preBalances,
    postBalances,
    computeUnitsConsumed: unitsUsed,
    writes,
    innerInstructions: inner.length === 0 ? NO_INNER_INSTRUCTIONS : inner,
    returnData: engine ? engine.returnData : invocations.finalReturnData(),
    preTokenBalances,
    postTokenBalances: err === null ? tokenBalances(loaded.accounts) : preTokenBalances,
  };
}

/** A precompile instruction: no accounts, logs or compute units; its failure is the transaction's error. */
function runPrecompile(
  program: Program,
  data: Uint8Array,
  ixIndex: number,
  instructions: Transaction['message']['instructions'],
  env: ExecutionEnv,
  scope: Scope,
  feePayer: Address,
  signature: string,
): TransactionErrorValue | null {
  const ctx: InstructionContext = {
    programId: program.id,
    data,
    accounts: [],
    instructionIndex: ixIndex,
    instructionDatas: instructions.map((ix) => ix.data),
    sysvars: env.sysvars,
    scope,
    simulation: env.simulation,
    log: () => {},
    logRaw: () => {},
    consumeUnits: () => {},
    minimumBalance: (len) => minimumBalanceForRentExemption(env.sysvars.rent, len),
    bankExtension: env.bankExtension ?? noBankExtension,
    feePayer,
    signature,
  };
  try {
    program.process(ctx);
    return null;
  } catch (e) {
    if (e instanceof InstructionError) return { InstructionError: [ixIndex, e.value] };
    throw e;
  }
}

/**
 * A failed durable-nonce transaction still advances its nonce, so it cannot be replayed: run the
 * AdvanceNonceAccount instruction alone on fresh copies (the fee payer as charged) and keep the nonce
 * account it produced.
 */
function advancedNonceAfterFailure(tx: Transaction, env: ExecutionEnv, chargedPayer: Account, loaded: Loaded): [Address, Account] | null {
  const m = tx.message;
  const keys = loaded.keys;
  const ix = m.instructions[0]!;
  const nonceIndex = ix.accounts[0];
  if (nonceIndex === undefined) return null;
  const program = env.programs.get(SYSTEM_PROGRAM_ID)!;
  const copies = new Map<number, Account>();
  const accountAt = (i: number) => {
    let a = copies.get(i);
    if (!a) {
      a = i === 0 ? cloneAccount(chargedPayer) : markRentExempt(cloneAccount(env.readAccount(keys[i]!) ?? EMPTY_ACCOUNT()), env.sysvars.rent);
      copies.set(i, a);
    }
    return a;
  };
  const ctx: InstructionContext = {
    programId: SYSTEM_PROGRAM_ID,
    data: ix.data,
    accounts: ix.accounts.map((i) => ({ index: i, key: keys[i]!, isSigner: isSignerIndex(m, i), isWritable: loaded.writable[i]!, account: accountAt(i) })),
    instructionIndex: 0,
    sysvars: env.sysvars,
    scope: new Scope(),
    simulation: env.simulation,
    log: () => {},
    logRaw: () => {},
    consumeUnits: () => {},
    minimumBalance: (len) => minimumBalanceForRentExemption(env.sysvars.rent, len),
    bankExtension: env.bankExtension ?? noBankExtension,
    feePayer: m.accountKeys[0]!,
    signature: tx.id,
  };
  try {
    program.process(ctx);
  } catch {
    return null;
  }
  return [keys[nonceIndex]!, copies.get(nonceIndex)!];
}

/** Builtin program accounts as genesis creates them: executable, owned by the native loader. */
export function builtinProgramAccount(name: string): Account {
  return { lamports: 1, data: new TextEncoder().encode(name), owner: NATIVE_LOADER_ID, executable: true, rentEpoch: 0 };
}
