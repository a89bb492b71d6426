/**
 * @ethereumjs's runInterpreter ends every message frame with
 * `runState: { ...interpreterRes.runState, ...result, ...interpreter._env }`. On Node 20's V8 the
 * second and third spread of one object literal define each property through a slow path (about
 * 2 µs a property, 23 properties): 60-90 µs of the ~300 µs an eth_call of a view function cost here.
 *
 * Installed, Interpreter.run hands back a copy of its run state that already holds every key the
 * two later spreads write, in the order they would add them, so the spreads only overwrite: the
 * frame's runState has the same keys, order and values as before (the copy is taken when run has
 * finished, which is what the spread read too). When the run state has any other keys than the
 * ones named here (another @ethereumjs version, or a key added during the run), run's answer is
 * left as it is. The class is reached by its file (interpreter-prototype.ts); if a later version
 * moves it, nothing is installed.
 */
import { interpreterPrototype } from './interpreter-prototype.ts';

type RunState = Record<string, unknown>;
interface InterpreterLike {
  run(code: Uint8Array, opts?: object): Promise<{ runState: RunState }>;
}

/** The run state's keys, in the order Interpreter's constructor creates them (@ethereumjs/evm 10). */
const RUN_STATE_KEYS = 'programCounter,opCode,memory,memoryWordCount,highestMemCost,stack,code,validJumps,cachedPushes,stateManager,blockchain,env,shouldDoJumpAnalysis,interpreter,gasRefund,gasLeft,stateGasSpilled,returnBytes';
const KEY_COUNT = RUN_STATE_KEYS.split(',').length;

/** `rs` with the frame result's and the environment's keys after its own (runInterpreter's spreads overwrite them all). */
const shaped = (rs: RunState): RunState => ({
  programCounter: rs.programCounter,
  opCode: rs.opCode,
  memory: rs.memory,
  memoryWordCount: rs.memoryWordCount,
  highestMemCost: rs.highestMemCost,
  stack: rs.stack,
  code: rs.code,
  validJumps: rs.validJumps,
  cachedPushes: rs.cachedPushes,
  stateManager: rs.stateManager,
  blockchain: rs.blockchain,
  env: rs.env,
  shouldDoJumpAnalysis: rs.shouldDoJumpAnalysis,
  interpreter: rs.interpreter,
  gasRefund: rs.gasRefund,
  gasLeft: rs.gasLeft,
  stateGasSpilled: rs.stateGasSpilled,
  returnBytes: rs.returnBytes,
  // The frame result's keys (interpreter._result)...
  logs: undefined,
  returnValue: undefined,
  selfdestruct: undefined,
  createdAddresses: undefined,
  // ...and the environment's (runInterpreter's env; `code` and `gasRefund` are the run state's already).
  address: undefined,
  caller: undefined,
  callData: undefined,
  callValue: undefined,
  isStatic: undefined,
  isCreate: undefined,
  depth: undefined,
  gasPrice: undefined,
  origin: undefined,
  block: undefined,
  contract: undefined,
  codeAddress: undefined,
  chargeCodeAccesses: undefined,
  blobVersionedHashes: undefined,
  accessWitness: undefined,
  initialLogs: undefined,
});

let installed: Promise<boolean> | null = null;

export function installFrameResultShape(): Promise<boolean> {
  return (installed ??= (async () => {
    const proto = await interpreterPrototype<InterpreterLike>();
    if (!proto || typeof proto.run !== 'function') return false;
    const run = proto.run;
    /** Whether this version's run state has exactly the keys above (checked on the first run). */
    let known: boolean | undefined;
    proto.run = async function (this: InterpreterLike, code: Uint8Array, opts?: object) {
      const res = await run.call(this, code, opts);
      const rs = res.runState;
      const keys = Object.keys(rs);
      if (keys.length !== KEY_COUNT) return res;
      known ??= keys.join(',') === RUN_STATE_KEYS;
      if (known) res.runState = shaped(rs);
      return res;
    };
    return true;
  })());
}
