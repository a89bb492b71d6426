/*
 * This file holds a modified copy of Interpreter.run and part of Interpreter.runStep from
 * @ethereumjs/evm 10.1.3 (https://github.com/ethereumjs/ethereumjs-monorepo, packages/evm/src/
 * interpreter.ts), and synchronous copies of its MLOAD, MSTORE, MSTORE8 and RETURN gas handlers
 * (packages/evm/src/opcodes/gas.ts), which are licensed under the Mozilla Public License 2.0. This file is therefore
 * under the MPL 2.0 too, unlike the rest of the project (MIT): a copy of the MPL is at
 * https://mozilla.org/MPL/2.0/.
 */
/**
 * @ethereumjs's interpreter awaits every step (`await this.runStep(op)`, an async function), also
 * the ~90% of steps whose gas is static and whose handler is synchronous (PUSH, DUP, SWAP, JUMP,
 * arithmetic): an async frame, a promise and a microtask turn each, half of what an eth_call of a
 * view function allocates here (~50 of ~110 KB).
 *
 * Installed, Interpreter.run is this module's copy of 10.1.3's, which runs such a step in place
 * (syncStep: runStep's own statements for that case, in its order) and awaits runStep for every
 * other one. Two more kinds of step run in place the same way: those whose gas is the memory
 * expansion of MLOAD, MSTORE, MSTORE8 or RETURN (10.1.3's gas handlers for them are async functions
 * around a synchronous computation; syncStep computes it with synchronous copies of them, installed
 * only where the handler is 10.1.3's, by the SHA-256 of its source), and those @ethereumjs marks
 * async (CALLVALUE, CALLDATALOAD, ...) whose handler answers without a promise; a handler that
 * answers with one (SLOAD) is awaited by run, as runStep awaits it, before the step's last statement. A step runs in place only when runStep would have done nothing else: no step
 * listener, no debug logging, no profiler, no pending EIP-7928 call charge, no EIP-6800/7864 code
 * chunk charges. EOF code (EIP-3540), a profiler and debug logging leave the whole frame to
 * @ethereumjs's own run. Installed only when 10.1.3's run and runStep are there, character for
 * character (the SHA-256 of their source below); any other version keeps its own.
 */
import { EVMError } from '@ethereumjs/evm';
import { EthereumJSErrorWithoutCode } from '@ethereumjs/util';
import { evmInternalModule, interpreterPrototype } from './interpreter-prototype.ts';
import { sourceSha256 } from './source-hash.ts';

/** SHA-256 of @ethereumjs/evm 10.1.3's Interpreter.prototype.run and runStep toString(), the functions copied below. */
const COPIED_RUN_SHA256 = '8e769d9b5ec21205c8c64ae416deb303b1bece964d69a1179dd14f94a0ae1412';
const COPIED_RUN_STEP_SHA256 = 'cc2ccda2341c2f427a6a856a7a742584963f55fab622482b7f32ebbd02f39601';

/** 0xEF: the first byte of EOF code (EIP-3540). */
const EOF_FORMAT = 0xef;

type Obj = Record<string, any>;
interface OpEntry {
  opcodeInfo: { code: number; name: string; feeBigInt: bigint; dynamicGas: boolean; isAsync: boolean; isInvalid: boolean };
  opHandler: (runState: Obj, common: Obj) => unknown;
  gasHandler?: unknown;
}
interface InterpreterLike {
  _runState: Obj;
  _env: Obj;
  _evm: Obj & { DEBUG: boolean; events: { listenerCount(event: string): number } };
  common: { isActivatedEIP(eip: number): boolean };
  profilerOpts?: { enabled?: boolean };
  run(code: Uint8Array, opts?: { pc?: number }): Promise<{ runState: Obj; exceptionError?: EVMError }>;
  runStep(opcodeObj?: OpEntry): Promise<void>;
  lookupOpInfo(op: number): OpEntry;
  useGas(amount: bigint, context?: unknown): void;
  _getValidJumpDestinations(code: Uint8Array): { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: OpEntry[] };
  getAddress(): unknown;
}

type SubMemUsage = (runState: Obj, offset: bigint, length: bigint, common: Obj) => bigint;
type SyncGas = (subMemUsage: SubMemUsage, runState: Obj, gas: bigint, common: Obj) => bigint;

/** 10.1.3's gas of MLOAD, MSTORE and MSTORE8: the memory expansion to `length` bytes at the offset on top of the stack. */
const expansionAtTop =
  (length: bigint): SyncGas =>
  (subMemUsage, runState, gas, common) =>
    gas + subMemUsage(runState, runState.stack.peek()[0], length, common);

/** Synchronous copies of 10.1.3's memory-expansion gas handlers, and the SHA-256 of the source of each one copied. */
const SYNC_GAS: Record<number, { sha256: string; gas: SyncGas }> = {
  // MLOAD
  0x51: { sha256: '160c132911371eb2b4ff17e3bbffae36cf3885d21f72bac6d617780a06ae6e5f', gas: expansionAtTop(32n) },
  // MSTORE
  0x52: { sha256: '6ad9393e3de696fe06da6545652cda7f7cc7406a743694e10797e8c04c9353df', gas: expansionAtTop(32n) },
  // MSTORE8
  0x53: { sha256: '50702563129d262a5c8dc3a32fa139df3a69343a27be01995f89e2e8f5380e2d', gas: expansionAtTop(1n) },
  // RETURN
  0xf3: {
    sha256: '78f2f17fb10abd8e05b44d5b8ba77ec162a4207256e42273964b86613f6a811a',
    gas(subMemUsage, runState, gas, common) {
      const [offset, length] = runState.stack.peek(2);
      return gas + subMemUsage(runState, offset, length, common);
    },
  },
};

/** 10.1.3's gas handlers that have a synchronous copy here, mapped to it (filled at install). */
const syncGasOf = new Map<unknown, (runState: Obj, gas: bigint, common: Obj) => bigint>();

/** @ethereumjs/evm's EVMErrorTypeString (not exported from the package). */
const EVM_ERROR_TYPE = 'EVMError';

/**
 * Runs the step in place when runStep would only charge its static gas (or a memory expansion's, see
 * SYNC_GAS) and call its handler; false (nothing done) otherwise. Its statements are runStep's for
 * that case, in order. When the handler answers with a promise, so does syncStep: the step's last
 * statement runs once it settles (run awaits it, as runStep awaits the handler).
 */
function syncStep(self: InterpreterLike, opcodeObj: OpEntry | undefined): boolean | Promise<void> {
  const opEntry = opcodeObj ?? self.lookupOpInfo(self._runState.opCode);
  const opInfo = opEntry.opcodeInfo;
  let gas = opInfo.feeBigInt;
  let syncGas: ((runState: Obj, gas: bigint, common: Obj) => bigint) | undefined;
  if (opInfo.dynamicGas && (syncGas = syncGasOf.get(opEntry.gasHandler)) === undefined) return false;
  if (self._evm.events.listenerCount('step') > 0 || self._evm.DEBUG) return false;
  if ((self.common.isActivatedEIP(6800) || self.common.isActivatedEIP(7864)) && self._env.chargeCodeAccesses === true) return false;
  if (self._runState.eip7928PostTargetCallOog !== undefined) return false;
  if (syncGas !== undefined) {
    gas = syncGas(self._runState, gas, self.common);
  }
  if (opInfo.isInvalid) {
    throw new EVMError(EVMError.errorMessages.INVALID_OPCODE);
  }
  self.useGas(gas, opInfo);
  self._runState.programCounter++;
  const done = opEntry.opHandler.apply(null, [self._runState, self.common]);
  if (opInfo.isAsync && isThenable(done)) {
    return Promise.resolve(done).then(() => {
      self._runState.env.accessWitness?.commit();
    });
  }
  self._runState.env.accessWitness?.commit();
  return true;
}

const isThenable = (v: unknown): v is PromiseLike<unknown> => typeof (v as PromiseLike<unknown> | null)?.then === 'function';

function install(proto: InterpreterLike): void {
  const original = proto.run;
  // A copy of @ethereumjs/evm 10.1.3's Interpreter.run (legacy code, no profiler); only how a step is run differs.
  proto.run = async function (this: InterpreterLike, code: Uint8Array, opts: { pc?: number } = {}) {
    if ((this.common.isActivatedEIP(3540) && code[0] === EOF_FORMAT) || this.profilerOpts?.enabled === true || this._evm.DEBUG) return original.call(this, code, opts);
    this._runState.code = code;
    this._runState.programCounter = opts.pc ?? this._runState.programCounter;
    // Check that the programCounter is in range
    const pc = this._runState.programCounter;
    if (pc !== 0 && (pc < 0 || pc >= this._runState.code.length)) {
      throw EthereumJSErrorWithoutCode('Internal error: program counter not in range');
    }
    let err: EVMError | undefined;
    let cachedOpcodes: OpEntry[] | undefined;
    let doJumpAnalysis = true;
    // Iterate through the given ops until something breaks or we hit STOP
    while (this._runState.programCounter < this._runState.code.length) {
      const programCounter = this._runState.programCounter;
      let opCode: number;
      let opCodeObj: OpEntry | undefined;
      if (doJumpAnalysis) {
        opCode = this._runState.code[programCounter];
        // Only run the jump destination analysis if `code` actually contains a JUMP/JUMPI/JUMPSUB opcode
        if (opCode === 0x56 || opCode === 0x57 || opCode === 0x5e) {
          const { jumps, pushes, opcodesCached } = this._getValidJumpDestinations(this._runState.code);
          this._runState.validJumps = jumps;
          this._runState.cachedPushes = pushes;
          this._runState.shouldDoJumpAnalysis = false;
          cachedOpcodes = opcodesCached;
          doJumpAnalysis = false;
        }
      } else {
        opCodeObj = cachedOpcodes![programCounter]!;
        opCode = opCodeObj.opcodeInfo.code;
      }
      // if its an invalid opcode with binary activated, then check if its because of a missing code
      // chunk in the witness, and throw appropriate error to distinguish from an actual invalid opcode
      if (opCode === 0xfe && this.common.isActivatedEIP(7864) && this._runState.env.chargeCodeAccesses === true) {
        const contract = this._runState.interpreter.getAddress();
        if (!(await this._runState.stateManager.checkChunkWitnessPresent(contract, programCounter))) {
          throw Error(`Invalid witness with missing codeChunk for pc=${programCounter}`);
        }
      }
      this._runState.opCode = opCode;
      try {
        const done = syncStep(this, opCodeObj);
        if (done === false) await this.runStep(opCodeObj);
        else if (done !== true) await done;
      } catch (e) {
        // Revert access witness changes if we revert - per EIP-4762
        this._runState.env.accessWitness?.revert();
        // re-throw on non-VM errors (the `in` test as 10.1.3 writes it, which also fails for a thrown primitive)
        if (!('errorType' in (e as object) && (e as { errorType: unknown }).errorType === EVM_ERROR_TYPE)) {
          throw e;
        }
        // STOP is not an exception
        if ((e as EVMError).error !== EVMError.errorMessages.STOP) {
          err = e as EVMError;
        }
        break;
      }
    }
    if (err === undefined && this._runState.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true && this._runState.gasLeft > 0n) {
      // Consume leftover and exceptional-halt this frame so the CREATE nonce
      // bump is journal-reverted (fill post-state keeps the pre-create nonce)
      // while EIP-7928 BAL reads from the following SSTORE remain.
      this._runState.gasLeft = 0n;
      err = new EVMError(EVMError.errorMessages.OUT_OF_GAS);
    }
    return {
      runState: this._runState,
      exceptionError: err,
    };
  };
}

/** Fills syncGasOf with the gas handlers that are, character for character, the ones copied (none where the modules are elsewhere). */
async function installSyncGas(): Promise<void> {
  const gasModule = await evmInternalModule<{ dynamicGasHandlers?: Map<number, unknown> }>('opcodes/gas.js');
  const subMemUsage = (await evmInternalModule<{ subMemUsage?: SubMemUsage }>('opcodes/util.js'))?.subMemUsage;
  const handlers = gasModule?.dynamicGasHandlers;
  if (!(handlers instanceof Map) || typeof subMemUsage !== 'function') return;
  for (const [op, copy] of Object.entries(SYNC_GAS)) {
    const original = handlers.get(Number(op));
    if (typeof original === 'function' && sourceSha256(original) === copy.sha256) syncGasOf.set(original, (runState, gas, common) => copy.gas(subMemUsage, runState, gas, common));
  }
}

/** How many of the memory-expansion gas handlers have their synchronous copy in use (the unit test reads it). */
export const syncGasHandlerCount = (): number => syncGasOf.size;

let installed: Promise<boolean> | null = null;

export function installSyncSteps(): Promise<boolean> {
  return (installed ??= (async () => {
    const proto = await interpreterPrototype<InterpreterLike>();
    if (!proto || typeof proto.run !== 'function' || typeof proto.runStep !== 'function') return false;
    if (sourceSha256(proto.run) !== COPIED_RUN_SHA256 || sourceSha256(proto.runStep) !== COPIED_RUN_STEP_SHA256) return false;
    await installSyncGas();
    install(proto);
    return true;
  })());
}
