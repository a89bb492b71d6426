/**
 * @ethereumjs builds each `step` event with a copy of the frame's whole memory and stack and sends
 * it through an event emitter (a promise per listener per step). A contract whose memory grows as it
 * runs (Solidity never frees memory) makes the copies quadratic: a 1M-gas keccak loop took 25 s to
 * trace. The step event is built only when someone listens, which here is only the tracing machine.
 * Installed, this hands the step straight to the EVM's TRACE_STEP handler (EvmMachine.runListened
 * sets it) as a StepEvent whose `stack` and `memory` are read when the handler asks, in its
 * synchronous part, before the opcode runs (memory is a view, not a copy). The interpreter class is
 * not exported, so it is reached by its file (as jump-analysis-cache.ts does); if a later version
 * moves it, nothing is installed and runListened keeps @ethereumjs's own events.
 */
import type { InterpreterStep } from '@ethereumjs/evm';
import { interpreterPrototype } from '../interpreter-prototype.ts';

/** The EVM's step handler while a traced run is on (a property of the EVM object). */
export const TRACE_STEP = Symbol('isthmus.traceStep');
export type StepHandler = (e: InterpreterStep) => void | Promise<void>;

interface OpInfo {
  fullName: string;
  fee: number;
  isAsync: boolean;
  code: number;
}
interface RunState {
  opCode: number;
  programCounter: number;
  gasRefund: bigint;
  stack: { getStack(): bigint[]; _store: bigint[]; _len: number };
  memory: { _store: Uint8Array };
  stateManager: InterpreterStep['stateManager'];
}
interface Env {
  depth: number;
  address: InterpreterStep['address'];
  contract: InterpreterStep['account'];
  codeAddress: InterpreterStep['codeAddress'];
  eof?: unknown;
}
interface InterpreterLike {
  _evm: { DEBUG: boolean; [TRACE_STEP]?: StepHandler; transientStorage?: { clear(): void; _indices?: number[] } };
  _env: Env;
  _runState: RunState;
  lookupOpInfo(op: number): { opcodeInfo: OpInfo };
  _runStepHook(dynamicFee: bigint, gasLeft: bigint, memorySize: bigint): Promise<void>;
}

/** What a tracer reads of a step; stack and memory only on demand. */
class StepEvent {
  readonly pc: number;
  readonly gasRefund: bigint;
  readonly opcode: InterpreterStep['opcode'];
  readonly depth: number;
  readonly address: InterpreterStep['address'];
  readonly account: InterpreterStep['account'];
  readonly codeAddress: InterpreterStep['codeAddress'];
  readonly stateManager: InterpreterStep['stateManager'];

  constructor(
    private readonly rs: RunState,
    env: Env,
    info: OpInfo,
    dynamicFee: bigint,
    readonly gasLeft: bigint,
    readonly memoryWordCount: bigint,
  ) {
    this.pc = rs.programCounter;
    this.gasRefund = rs.gasRefund;
    this.opcode = { name: info.fullName, fee: info.fee, dynamicFee, isAsync: info.isAsync, code: info.code };
    this.depth = env.depth;
    this.address = env.address;
    this.account = env.contract;
    this.codeAddress = env.codeAddress;
    this.stateManager = rs.stateManager;
  }

  get stack(): bigint[] {
    return this.rs.stack.getStack();
  }

  /** The stack without a copy: the live store, whose first `stackLength` entries are the stack (bottom first). */
  get stackStore(): readonly bigint[] {
    return this.rs.stack._store;
  }

  get stackLength(): number {
    return this.rs.stack._len;
  }

  get memory(): Uint8Array {
    return this.rs.memory._store.subarray(0, Number(this.memoryWordCount) * 32);
  }
}

/** A step's stack, bottom first, as its first `length` entries of `store`: no copy when the event is a light one. */
export function stackOf(e: InterpreterStep): { store: readonly bigint[]; length: number } {
  if (e instanceof StepEvent) return { store: e.stackStore, length: e.stackLength };
  const stack = e.stack;
  return { store: stack, length: stack.length };
}

let installed: Promise<boolean> | null = null;

export function installLightStepEvents(): Promise<boolean> {
  return (installed ??= (async () => {
    const proto = await interpreterPrototype<InterpreterLike>();
    if (!proto || typeof proto._runStepHook !== 'function' || typeof proto.lookupOpInfo !== 'function') return false;
    const original = proto._runStepHook;
    proto._runStepHook = function (this: InterpreterLike, dynamicFee: bigint, gasLeft: bigint, memorySize: bigint): Promise<void> {
      const handler = this._evm[TRACE_STEP];
      // Debug logging and EOF code read more of the event: they keep @ethereumjs's own.
      if (!handler || this._evm.DEBUG || this._env.eof !== undefined) return original.call(this, dynamicFee, gasLeft, memorySize);
      const event = new StepEvent(this._runState, this._env, this.lookupOpInfo(this._runState.opCode).opcodeInfo, dynamicFee, gasLeft, memorySize);
      const pending = handler(event as unknown as InterpreterStep);
      if (!(pending instanceof Promise)) return pending as unknown as Promise<void>;
      const evm = this._evm;
      return pending.catch((e: unknown) => {
        // The tracer stopped the run mid-message (its reader gone, its cap): @ethereumjs clears the
        // transient storage only when the outermost message ends, so it is cleared here, before the
        // machine's next run could read this one's.
        evm.transientStorage?.clear();
        if (evm.transientStorage?._indices) evm.transientStorage._indices.length = 0;
        throw e;
      });
    };
    return true;
  })());
}
