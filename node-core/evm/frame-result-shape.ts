/*
 * This file holds a modified copy of EVM.runInterpreter from @ethereumjs/evm 10.1.3
 * (https://github.com/ethereumjs/ethereumjs-monorepo, packages/evm/src/evm.ts), which is licensed
 * under the Mozilla Public License 2.0. This file is therefore under the MPL 2.0 too, unlike the rest
 * of the project (MIT): a copy of the MPL is at https://mozilla.org/MPL/2.0/.
 */
/**
 * @ethereumjs's EVM.runInterpreter (one per message frame) builds its answer with
 * `{ ...result, runState: { ...interpreterRes.runState, ...result, ...interpreter._env }, exceptionError, gas, ... }`.
 * On Node 20's V8 a spread followed by more properties or another spread defines each of those
 * properties through a slow path (about 2 µs a property, and garbage that survives into the old
 * generation): those two objects took 70-100 µs of the ~300 µs an eth_call of a view function cost
 * here, and much of its GC.
 *
 * Installed, runInterpreter is this module's copy of @ethereumjs/evm 10.1.3's, which builds the same
 * two objects as object literals: the same keys in the same order with the same values (the unit
 * test compares them with the spreads'). It is installed only when the EVM's own runInterpreter is
 * that version's, character for character (its source's SHA-256 below); any other version keeps
 * its own. Where the run state, the frame result or the environment holds other keys than the ones
 * named here (EOF code adds one to the environment), the copy builds them with the spreads, as
 * @ethereumjs does.
 */
import { EVM, EVMError } from '@ethereumjs/evm';
import { Account, createZeroAddress } from '@ethereumjs/util';
import { sourceSha256 } from './source-hash.ts';
import { interpreterPrototype } from './interpreter-prototype.ts';

/** SHA-256 of @ethereumjs/evm 10.1.3's EVM.prototype.runInterpreter.toString(), the function copied below. */
const COPIED_SOURCE_SHA256 = '1f4905264075376daed820fac392b3d077c2aa2d3767bed3d5e25e50b360d4ca';

type Obj = Record<string, any>;
interface InterpreterLike {
  _runState: Obj;
  _result: Obj;
  _env: Obj;
  run(code: unknown, opts: object): Promise<{ runState: Obj; exceptionError?: EVMError }>;
}
type InterpreterClass = new (...args: unknown[]) => InterpreterLike;
type EvmLike = Obj & { runInterpreter(message: Obj, opts?: Obj): Promise<Obj> };

const RUN_STATE_KEYS = 'programCounter,opCode,memory,memoryWordCount,highestMemCost,stack,code,validJumps,cachedPushes,stateManager,blockchain,env,shouldDoJumpAnalysis,interpreter,gasRefund,gasLeft,stateGasSpilled,returnBytes';
const ENV_KEYS = 'address,caller,callData,callValue,code,isStatic,isCreate,depth,gasPrice,origin,block,contract,codeAddress,gasRefund,chargeCodeAccesses,blobVersionedHashes,accessWitness,createdAddresses,initialLogs';
/** The frame result's keys (createdAddresses is there for every frame runCall and the CALL and CREATE opcodes start). */
const RESULT_KEYS = 'logs,returnValue,selfdestruct,createdAddresses';

const keysOf = (o: object) => Object.keys(o).join(',');
const count = (keys: string) => keys.split(',').length;
const RUN_STATE_KEY_COUNT = count(RUN_STATE_KEYS);
const ENV_KEY_COUNT = count(ENV_KEYS);
const RESULT_KEY_COUNT = count(RESULT_KEYS);

/** `{ ...rs, ...result, ...env }` for the known keys, as one literal. */
function mergedRunState(rs: Obj, result: Obj, env: Obj): Obj {
  return {
    programCounter: rs.programCounter,
    opCode: rs.opCode,
    memory: rs.memory,
    memoryWordCount: rs.memoryWordCount,
    highestMemCost: rs.highestMemCost,
    stack: rs.stack,
    code: env.code,
    validJumps: rs.validJumps,
    cachedPushes: rs.cachedPushes,
    stateManager: rs.stateManager,
    blockchain: rs.blockchain,
    env: rs.env,
    shouldDoJumpAnalysis: rs.shouldDoJumpAnalysis,
    interpreter: rs.interpreter,
    gasRefund: env.gasRefund,
    gasLeft: rs.gasLeft,
    stateGasSpilled: rs.stateGasSpilled,
    returnBytes: rs.returnBytes,
    logs: result.logs,
    returnValue: result.returnValue,
    selfdestruct: result.selfdestruct,
    createdAddresses: env.createdAddresses,
    address: env.address,
    caller: env.caller,
    callData: env.callData,
    callValue: env.callValue,
    isStatic: env.isStatic,
    isCreate: env.isCreate,
    depth: env.depth,
    gasPrice: env.gasPrice,
    origin: env.origin,
    block: env.block,
    contract: env.contract,
    codeAddress: env.codeAddress,
    chargeCodeAccesses: env.chargeCodeAccesses,
    blobVersionedHashes: env.blobVersionedHashes,
    accessWitness: env.accessWitness,
    initialLogs: env.initialLogs,
  };
}

function install(Interpreter: InterpreterClass): void {
  /** Whether the run state, result and environment have the names above (set on the first frame that can tell). */
  let namesChecked: boolean | undefined;
  const original = (EVM.prototype as unknown as EvmLike).runInterpreter;
  // A copy of @ethereumjs/evm 10.1.3's EVM.runInterpreter; only how its two answers are built differs.
  (EVM.prototype as unknown as EvmLike).runInterpreter = async function (this: EvmLike, message: Obj, opts: Obj = {}): Promise<Obj> {
    if (this._block === undefined) return original.call(this, message, opts);
    let contract = await this.stateManager.getAccount(message.to ?? createZeroAddress());
    if (!contract) {
      contract = new Account();
    }
    const env = {
      address: message.to ?? createZeroAddress(),
      caller: message.caller ?? createZeroAddress(),
      callData: message.data ?? Uint8Array.from([0]),
      callValue: message.value ?? 0n,
      code: message.code,
      isStatic: message.isStatic ?? false,
      isCreate: message.isCreate ?? false,
      depth: message.depth ?? 0,
      gasPrice: this._tx.gasPrice,
      origin: this._tx.origin ?? message.caller ?? createZeroAddress(),
      block: this._block,
      contract,
      codeAddress: message.codeAddress,
      gasRefund: message.gasRefund,
      chargeCodeAccesses: message.chargeCodeAccesses,
      blobVersionedHashes: message.blobVersionedHashes ?? [],
      accessWitness: message.accessWitness,
      createdAddresses: message.createdAddresses,
      initialLogs: opts.initialLogs,
    };
    const interpreter = new Interpreter(this, this.stateManager, this.blockchain, env, message.gasLimit, this.journal, this.performanceLogger, this._optsCached.profiler);
    if (message.selfdestruct) {
      interpreter._result.selfdestruct = message.selfdestruct;
    }
    if (message.createdAddresses) {
      interpreter._result.createdAddresses = message.createdAddresses;
    }
    const interpreterRes = await interpreter.run(message.code, opts);
    let result = interpreter._result;
    let gasUsed = message.gasLimit - interpreterRes.runState.gasLeft;
    if (interpreterRes.exceptionError) {
      if (interpreterRes.exceptionError.error !== EVMError.errorMessages.REVERT && interpreterRes.exceptionError.error !== EVMError.errorMessages.INVALID_EOF_FORMAT) {
        gasUsed = message.gasLimit;
      }
      // Clear the result on error (`{ ...result, logs: [], selfdestruct: new Map(), createdAddresses: new Set() }`)
      const keys = keysOf(result);
      result =
        keys === RESULT_KEYS || keys === 'logs,returnValue,selfdestruct'
          ? { logs: [], returnValue: result.returnValue, selfdestruct: new Map(), createdAddresses: new Set() }
          : { ...result, logs: [], selfdestruct: new Map(), createdAddresses: new Set() };
    }
    message.accessWitness?.commit();
    const rs = interpreterRes.runState;
    // The literals below hold the keys this version's objects are made with, checked by name on the
    // first frame whose counts match; after that a key added on the way (EOF code's env.eof) changes a count.
    let known = Object.keys(result).length === RESULT_KEY_COUNT && Object.keys(rs).length === RUN_STATE_KEY_COUNT && Object.keys(interpreter._env).length === ENV_KEY_COUNT;
    if (known) known = namesChecked ??= keysOf(result) === RESULT_KEYS && keysOf(rs) === RUN_STATE_KEYS && keysOf(interpreter._env) === ENV_KEYS;
    if (!known) {
      return {
        ...result,
        runState: { ...rs, ...result, ...interpreter._env },
        exceptionError: interpreterRes.exceptionError,
        gas: rs?.gasLeft,
        executionGasUsed: gasUsed,
        gasRefund: rs.gasRefund,
        stateGasSpilled: rs.stateGasSpilled,
        returnValue: result.returnValue ?? new Uint8Array(0),
      };
    }
    return {
      logs: result.logs,
      returnValue: result.returnValue ?? new Uint8Array(0),
      selfdestruct: result.selfdestruct,
      createdAddresses: result.createdAddresses,
      runState: mergedRunState(rs, result, interpreter._env),
      exceptionError: interpreterRes.exceptionError,
      gas: rs?.gasLeft,
      executionGasUsed: gasUsed,
      gasRefund: rs.gasRefund,
      stateGasSpilled: rs.stateGasSpilled,
    };
  };
}

let installed: Promise<boolean> | null = null;

export function installFrameResultShape(): Promise<boolean> {
  return (installed ??= (async () => {
    const own = (EVM.prototype as unknown as EvmLike).runInterpreter;
    if (typeof own !== 'function' || sourceSha256(own) !== COPIED_SOURCE_SHA256) return false;
    const proto = await interpreterPrototype<InterpreterLike>();
    const Interpreter = proto?.constructor as InterpreterClass | undefined;
    if (!Interpreter) return false;
    install(Interpreter);
    return true;
  })());
}
