/**
 * Cross-program invocation between builtins: what Agave's invoke / invoke_signed do for a BPF
 * program, for programs that run here as TypeScript. A builtin calls `ctx.invoke(instruction, seeds)`:
 * - the callee's accounts must be among the caller's instruction accounts ("Instruction references
 *   an unknown account"), and may not gain privileges: writable only if the caller has it writable,
 *   signer only if the caller has it signed or it is a PDA of the caller signed for with `seeds`
 *   (PrivilegeEscalation, with Agave's log line);
 * - the program must be passed too, be executable and be a builtin here;
 * - at most 5 levels (CallDepth), no re-entry of a program already on the stack except the direct
 *   caller (ReentrancyNotAllowed), at most 64 instructions per transaction;
 * - the caller's own changes so far are checked against its ownership before the call, the callee's
 *   against the callee's after it, as Agave checks each side at the call boundary; the caller's
 *   changes between calls must balance on their own (stricter than Agave, which sums over the whole
 *   instruction; the builtins here never move lamports around a call);
 * - the call is recorded as an inner instruction with its stack height, and logged
 *   `Program <id> invoke [2]` … `success`/`failed: …`, with the `consumed` line for BPF-emulating
 *   programs, which also pay Agave's 946-unit invoke cost and own the return data while they run.
 */
import { createProgramAddress } from '../common/pda.ts';
import type { Address } from '../common/pubkey.ts';
import { copyData, type Account } from './account.ts';
import { InstructionError, instructionErrorMessage } from './errors.ts';
import type { CpiInstruction, InstructionAccount, InstructionContext, Program, ProgramRegistry, ReturnData } from './program.ts';

export const MAX_INVOKE_STACK_HEIGHT = 5;
export const MAX_INSTRUCTION_TRACE_LENGTH = 64;
/** compute_budget.invoke_units: what a BPF program pays per CPI. */
export const INVOKE_UNITS = 946;

/** One entry of meta.innerInstructions (indexes into the transaction's account keys). */
export interface InnerInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  stackHeight: number;
}

export interface InnerInstructions {
  index: number;
  instructions: InnerInstruction[];
}

/** The state an instruction's accounts had when its program started (the executor's PreAccount). */
export interface PreState {
  lamports: number;
  owner: Address;
  executable: boolean;
  rentEpoch: number;
  data: Uint8Array;
}

export type VerifyAccount = (programId: Address, ia: InstructionAccount, pre: PreState, minimumBalance: (len: number) => number) => void;

export interface InvocationEnv {
  keys: readonly Address[];
  programs: ProgramRegistry;
  log(line: string): void;
  /** Units left in the transaction's budget. */
  remainingUnits(): number;
  /** The executor's account rules (PreAccount::verify). */
  verify: VerifyAccount;
}

export const snapshot = (a: Account): PreState => ({ lamports: a.lamports, owner: a.owner, executable: a.executable, rentEpoch: a.rentEpoch, data: copyData(a.data) });

/** The invocations of one transaction: the inner-instruction record, the return data and the call stack. */
export class Invocations {
  readonly inner: InnerInstructions[] = [];
  returnData: ReturnData | null = null;
  private traceLength = 0;
  private readonly stack: Address[] = [];
  private readonly keyIndex = new Map<Address, number>();

  constructor(private readonly env: InvocationEnv) {
    env.keys.forEach((k, i) => this.keyIndex.has(k) || this.keyIndex.set(k, i));
  }

  /**
   * Gives a top-level instruction's context its invoke and return-data entries; `pre` is the
   * executor's snapshot of its accounts, re-based after each call.
   */
  enterTopLevel(ctx: InstructionContext, program: Program, pre: Map<number, PreState>): void {
    this.traceLength++;
    this.stack.length = 0;
    this.stack.push(program.id);
    this.bind(ctx, pre, 1);
    if (program.logsConsumption) this.returnData = { programId: program.id, data: new Uint8Array(0) };
  }

  /** The `Program return:` line a BPF-emulating program logs after its `consumed` line. */
  logReturn(program: Program): void {
    if (!program.logsConsumption || !this.returnData || this.returnData.data.length === 0) return;
    this.env.log(`Program return: ${this.returnData.programId} ${Buffer.from(this.returnData.data).toString('base64')}`);
  }

  /** The transaction's return data as meta reports it: null when empty. */
  finalReturnData(): ReturnData | null {
    return this.returnData && this.returnData.data.length > 0 ? this.returnData : null;
  }

  private bind(ctx: InstructionContext, pre: Map<number, PreState>, height: number): void {
    const mutable = ctx as { -readonly [K in keyof InstructionContext]: InstructionContext[K] };
    mutable.stackHeight = height;
    mutable.setReturnData = (data) => {
      if (data.length > 1024) throw new InstructionError('InvalidArgument');
      this.returnData = { programId: ctx.programId, data: data.slice() };
    };
    mutable.getReturnData = () => this.returnData;
    mutable.invoke = (ix, seeds = []) => this.invoke(ctx, pre, height, ix, seeds);
  }

  private invoke(caller: InstructionContext, callerPre: Map<number, PreState>, callerHeight: number, ix: CpiInstruction, seeds: readonly (readonly Uint8Array[])[]): void {
    const env = this.env;
    const callerProgram = env.programs.get(caller.programId);
    if (callerProgram?.logsConsumption) caller.consumeUnits(INVOKE_UNITS);
    const pdaSigners = new Set<Address>();
    for (const s of seeds) {
      const address = createProgramAddress(s, caller.programId);
      if (address === null) throw new InstructionError('InvalidSeeds');
      pdaSigners.add(address);
    }

    // prepare_instruction: deduplicated privileges, each checked against the caller's.
    const privileges = new Map<Address, { isSigner: boolean; isWritable: boolean; from: InstructionAccount }>();
    for (const meta of ix.accounts) {
      const seen = privileges.get(meta.key);
      if (seen) {
        seen.isSigner ||= meta.isSigner;
        seen.isWritable ||= meta.isWritable;
        continue;
      }
      const from = caller.accounts.find((a) => a.key === meta.key);
      if (!from) {
        env.log(`Instruction references an unknown account ${meta.key}`);
        throw new InstructionError('MissingAccount');
      }
      privileges.set(meta.key, { isSigner: meta.isSigner, isWritable: meta.isWritable, from });
    }
    for (const [key, p] of privileges) {
      if (p.isWritable && !p.from.isWritable) {
        env.log(`${key}'s writable privilege escalated`);
        throw new InstructionError('PrivilegeEscalation');
      }
      if (p.isSigner && !p.from.isSigner && !pdaSigners.has(key)) {
        env.log(`${key}'s signer privilege escalated`);
        throw new InstructionError('PrivilegeEscalation');
      }
    }
    const programAccount = caller.accounts.find((a) => a.key === ix.programId);
    if (!programAccount) {
      env.log(`Unknown program ${ix.programId}`);
      throw new InstructionError('MissingAccount');
    }
    const program = env.programs.get(ix.programId);
    if (!programAccount.account.executable && !program) {
      env.log(`Account ${ix.programId} is not executable`);
      throw new InstructionError('AccountNotExecutable');
    }
    if (!program) throw new InstructionError('UnsupportedProgramId');

    // push(): depth, re-entry and trace limits.
    const height = callerHeight + 1;
    if (height > MAX_INVOKE_STACK_HEIGHT) throw new InstructionError('CallDepth');
    if (this.stack.includes(program.id) && this.stack[this.stack.length - 1] !== program.id) throw new InstructionError('ReentrancyNotAllowed');
    if (++this.traceLength > MAX_INSTRUCTION_TRACE_LENGTH) throw new InstructionError('MaxInstructionTraceLengthExceeded');

    // The caller's changes so far answer to the caller's ownership.
    for (const [index, p] of callerPre) env.verify(caller.programId, caller.accounts.find((a) => a.index === index)!, p, caller.minimumBalance);

    const accounts: InstructionAccount[] = ix.accounts.map((meta) => {
      const p = privileges.get(meta.key)!;
      return { index: p.from.index, key: meta.key, isSigner: p.isSigner, isWritable: p.isWritable, account: p.from.account };
    });
    this.record({ programIdIndex: this.keyIndex.get(ix.programId)!, accounts: accounts.map((a) => a.index), data: ix.data.slice(), stackHeight: height }, caller.instructionIndex);

    env.log(`Program ${program.id} invoke [${height}]`);
    this.stack.push(program.id);
    const unitsAtStart = env.remainingUnits();
    const pre = new Map<number, PreState>();
    for (const a of accounts) if (!pre.has(a.index)) pre.set(a.index, snapshot(a.account));
    const callee: InstructionContext = { ...caller, programId: program.id, data: ix.data, accounts };
    this.bind(callee, pre, height);
    if (program.logsConsumption) this.returnData = { programId: program.id, data: new Uint8Array(0) };
    const consumed = () => {
      if (program.logsConsumption) env.log(`Program ${program.id} consumed ${unitsAtStart - env.remainingUnits()} of ${unitsAtStart} compute units`);
      this.logReturn(program);
    };
    try {
      callee.consumeUnits(program.computeUnits);
      if (program.process(callee)) throw new Error(`${program.name} runs asynchronously and cannot be invoked from another program`);
      let before = 0;
      let after = 0;
      for (const [index, p] of pre) {
        env.verify(program.id, accounts.find((a) => a.index === index)!, p, caller.minimumBalance);
        before += p.lamports;
        after += accounts.find((a) => a.index === index)!.account.lamports;
      }
      if (before !== after) throw new InstructionError('UnbalancedInstruction');
    } catch (e) {
      if (e instanceof InstructionError) {
        consumed();
        env.log(`Program ${program.id} failed: ${instructionErrorMessage(e.value)}`);
      }
      throw e;
    } finally {
      this.stack.pop();
    }
    consumed();
    env.log(`Program ${program.id} success`);
    // The callee's changes are now the caller's starting point.
    for (const [index] of callerPre) callerPre.set(index, snapshot(caller.accounts.find((a) => a.index === index)!.account));
  }

  private record(ix: InnerInstruction, topLevelIndex: number): void {
    let entry = this.inner[this.inner.length - 1];
    if (!entry || entry.index !== topLevelIndex) this.inner.push((entry = { index: topLevelIndex, instructions: [] }));
    entry.instructions.push(ix);
  }
}
