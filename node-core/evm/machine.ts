/**
 * One @ethereumjs VM and what it runs against: the Common of this chain (id, hardfork, native
 * crypto), the bridge precompile, BLOCKHASH from the EVM space's blocks, and a state manager that
 * is pointed at the state of each run. Runs are serialized: a VM has one journal.
 */
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address, hexToBytes } from '@ethereumjs/util';
import { createVM, runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import { bytesEqual } from '../common/bytes.ts';
import { BLOCK_GAS_LIMIT, BRIDGE_ADDRESS, COINBASE } from './constants.ts';
import { createBridgePrecompile, type BridgeCallContext } from './bridge-precompile.ts';
import { installExecuteCall } from './execute-call.ts';
import { installFrameResultShape } from './frame-result-shape.ts';
import { installJumpAnalysisCache } from './jump-analysis-cache.ts';
import { installSyncSteps } from './sync-steps.ts';
import { installLightStepEvents, TRACE_STEP, type StepHandler } from './trace/light-step-events.ts';
import { createEvmCommon } from './evm-common.ts';
import { FlatStateManager } from './state-manager.ts';
import { installWordOpcodes } from './word-opcodes.ts';
import type { Hex } from './records.ts';
import { EvmChanges, type EvmStateSource } from './state.ts';

export { Address };
export { createEvmCommon };

/** The block a transaction runs in. */
export interface BlockEnv {
  number: bigint;
  /** Unix seconds. */
  timestamp: bigint;
  /** PREVRANDAO: the parent native block's hash. */
  prevRandao: Uint8Array;
  baseFeePerGas: bigint;
}

export interface RunOptions {
  tx: TypedTransaction;
  env: BlockEnv;
  /** The state the run reads. */
  below: EvmStateSource;
  /** Where its changes go (kept or dropped by the caller). */
  changes: EvmChanges;
  /** Native accounts the bridge precompile may credit. */
  canCredit(recipient: string): boolean;
  /** eth_call / eth_estimateGas: no nonce check, and no balance check for gas. */
  call?: boolean;
}

/** Steps a traced run makes between two turns of the event loop. */
const STEPS_BETWEEN_YIELDS = 4096;

/** Serializes async work: the next run starts when the previous one has settled. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.catch(() => {});
    return result;
  }
}

export class EvmMachine {
  private readonly mutex = new Mutex();
  private readonly messages: Message[] = [];
  /** Per open message frame: what it and its successful sub-frames touched and created (kept only if it succeeds). */
  private readonly frames: FrameRecord[] = [];
  private lastRun: FrameRecord = emptyFrame();
  /** Frames are followed only for transactions the chain runs (their records feed the indexes), not for calls and estimates. */
  private followFrames = false;
  private canCredit: (recipient: string) => boolean = () => false;
  /** The last block made, with a copy of the environment it was made for (an environment object may change: a bank's is retimed). */
  private blockCache: { env: BlockEnv; block: Block } | null = null;

  private constructor(
    readonly common: Common,
    private readonly vm: VM,
    private readonly stateManager: FlatStateManager,
  ) {
    vm.evm.events!.on('beforeMessage', (m: Message) => {
      this.messages.push(m);
      if (!this.followFrames) return;
      const frame = emptyFrame();
      frame.touched.add(m.caller.toString());
      if (m.to) {
        frame.touched.add(m.to.toString());
        // DELEGATECALL and CALLCODE run another address's code: traces name it as the callee.
        if (!m.codeAddress.equals(m.to)) frame.touched.add(m.codeAddress.toString());
      }
      this.frames.push(frame);
    });
    vm.evm.events!.on('afterMessage', (result: EVMResult) => {
      const message = this.messages.pop();
      if (!this.followFrames) return;
      const frame = this.frames.pop();
      if (!message || !frame) return;
      const parent = this.frames[this.frames.length - 1];
      if (!result.execResult.exceptionError && result.createdAddress) {
        const address = result.createdAddress.toString() as Hex;
        frame.touched.add(address);
        frame.created.unshift({ address, creator: message.caller.toString() as Hex });
      }
      // A failed frame's calls still happened (traces show them); its creations did not.
      const keep = result.execResult.exceptionError ? { touched: frame.touched, created: [] } : frame;
      if (parent) merge(parent, keep);
      else this.lastRun = keep;
    });
  }

  static async create(chainId: number, blockHash: (n: bigint) => Promise<Uint8Array>, storageRootOf?: (address: string) => Uint8Array): Promise<EvmMachine> {
    await installJumpAnalysisCache();
    await installFrameResultShape();
    await installExecuteCall();
    await installSyncSteps();
    const common = createEvmCommon(chainId);
    const nothing = { account: () => null, storage: () => new Uint8Array(0), code: () => undefined };
    const stateManager = new FlatStateManager(nothing, new EvmChanges(), storageRootOf);
    const bridgeContext: BridgeCallContext = {
      currentMessage: () => machine.messages[machine.messages.length - 1],
      canCredit: (r) => machine.canCredit(r),
    };
    const blockchain = {
      getBlock: async (n: number) => {
        const hash = await blockHash(BigInt(n));
        return { hash: () => hash };
      },
    };
    const vm = await createVM({
      common,
      stateManager,
      blockchain: blockchain as never,
      evmOpts: { customPrecompiles: [{ address: new Address(hexToBytes(BRIDGE_ADDRESS)), function: createBridgePrecompile(() => bridgeContext) }] },
    });
    await installWordOpcodes(vm.evm);
    const machine = new EvmMachine(common, vm, stateManager);
    return machine;
  }

  /** The @ethereumjs block for an environment (cached: every transaction of a slot shares one). */
  block(env: BlockEnv): Block {
    const last = this.blockCache?.env;
    if (last && last.number === env.number && last.timestamp === env.timestamp && last.baseFeePerGas === env.baseFeePerGas && bytesEqual(last.prevRandao, env.prevRandao)) return this.blockCache!.block;
    const block = createBlock(
      {
        header: {
          number: env.number,
          timestamp: env.timestamp,
          gasLimit: BLOCK_GAS_LIMIT,
          baseFeePerGas: env.baseFeePerGas,
          coinbase: COINBASE,
          mixHash: env.prevRandao,
        },
      },
      { common: this.common, skipConsensusFormatValidation: true },
    );
    this.blockCache = { env: { number: env.number, timestamp: env.timestamp, prevRandao: env.prevRandao.slice(), baseFeePerGas: env.baseFeePerGas }, block };
    return block;
  }

  /** Runs a message call against `below` and throws its changes away (eth_call's fast path). */
  call(opts: CallOptions): Promise<CallResult> {
    return this.mutex.run(async () => {
      this.stateManager.use(opts.below, new EvmChanges());
      this.messages.length = 0;
      this.canCredit = opts.canCredit;
      const evm = this.vm.evm;
      try {
        await evm.journal.cleanup();
        return await evm.runCall({ caller: opts.caller, origin: opts.caller, to: opts.to, data: opts.data, value: opts.value, gasLimit: opts.gasLimit, gasPrice: opts.gasPrice, block: this.block(opts.env), skipBalance: true });
      } finally {
        this.canCredit = () => false;
        evm.journal.cleanJournal();
        this.stateManager.originalStorageCache.clear();
      }
    });
  }

  /** Runs a transaction; its changes land in `opts.changes`. Throws for transactions the chain cannot include. */
  run(opts: RunOptions): Promise<RunResult> {
    return this.mutex.run(() => this.runNow(opts));
  }

  /**
   * Runs a transaction with `listeners` on the EVM's events for this run only (tracing). Tracing
   * uses a machine of its own, so the chain's and eth_call's machines never carry a listener
   * (@ethereumjs builds a step event only when someone listens).
   */
  runListened(opts: RunOptions, listeners: EvmListeners): Promise<RunResult> {
    return this.mutex.run(async () => {
      const evm = this.vm.evm as typeof this.vm.evm & { [TRACE_STEP]?: StepHandler };
      const events = evm.events!;
      const traced = listeners.step;
      // A long trace must not stall the chain and the RPC: every few thousand steps it lets the event loop run.
      let steps = 0;
      const step =
        traced &&
        ((e: InterpreterStep) => {
          const pending = traced(e);
          if (++steps % STEPS_BETWEEN_YIELDS !== 0) return pending;
          return Promise.resolve(pending).then(() => new Promise<void>((resolve) => setImmediate(resolve)));
        });
      // With light step events installed the handler gets each step directly (the listener only
      // makes @ethereumjs build steps); without, @ethereumjs's events, a step awaited when it returns a promise.
      const light = step !== undefined && (await installLightStepEvents());
      const onStep = !step
        ? undefined
        : light
          ? () => {}
          : (e: InterpreterStep, done?: () => void) => {
              const pending = step(e);
              if (pending) pending.then(done, done);
              else done!();
            };
      if (light) evm[TRACE_STEP] = step;
      if (onStep) events.on('step', onStep);
      if (listeners.beforeMessage) events.on('beforeMessage', listeners.beforeMessage);
      if (listeners.afterMessage) events.on('afterMessage', listeners.afterMessage);
      try {
        return await this.runNow(opts);
      } finally {
        delete evm[TRACE_STEP];
        if (onStep) events.off('step', onStep);
        if (listeners.beforeMessage) events.off('beforeMessage', listeners.beforeMessage);
        if (listeners.afterMessage) events.off('afterMessage', listeners.afterMessage);
      }
    });
  }

  private async runNow(opts: RunOptions): Promise<RunResult> {
    this.stateManager.use(opts.below, opts.changes);
    this.messages.length = 0;
    this.frames.length = 0;
    this.lastRun = emptyFrame();
    this.followFrames = opts.call !== true;
    this.canCredit = opts.canCredit;
    try {
      const result = await runTx(this.vm, {
        tx: opts.tx,
        block: this.block(opts.env),
        skipHardForkValidation: true,
        skipNonce: opts.call === true,
        skipBalance: opts.call === true,
      });
      return { ...result, touched: this.lastRun.touched, created: this.lastRun.created };
    } finally {
      this.followFrames = false;
      this.canCredit = () => false;
    }
  }
}

/** Listeners for one traced run: a step listener's promise is awaited before the step executes. */
export interface EvmListeners {
  step?(e: InterpreterStep): void | Promise<void>;
  beforeMessage?(m: Message): void;
  afterMessage?(r: EVMResult): void;
}

/** A contract a transaction created (at any depth), and the address that ran the CREATE/CREATE2. */
export interface Creation {
  address: Hex;
  creator: Hex;
}

interface FrameRecord {
  /** Callers, callees and code addresses of every message frame (failed ones too). */
  touched: Set<string>;
  /** Contracts created by frames that succeeded, outermost first. */
  created: Creation[];
}

const emptyFrame = (): FrameRecord => ({ touched: new Set(), created: [] });

function merge(parent: FrameRecord, child: FrameRecord): void {
  for (const a of child.touched) parent.touched.add(a);
  parent.created.push(...child.created);
}

/** runTx's result, with the addresses its message frames touched and the contracts it created. */
export type RunResult = RunTxResult & { touched: Set<string>; created: Creation[] };

export interface CallOptions {
  caller: Address;
  to?: Address;
  data: Uint8Array;
  value: bigint;
  gasLimit: bigint;
  gasPrice: bigint;
  env: BlockEnv;
  below: EvmStateSource;
  canCredit(recipient: string): boolean;
}

/** A message call without a transaction around it (eth_call): no intrinsic gas, fees or nonce; nothing kept. */
export type CallResult = Awaited<ReturnType<VM['evm']['runCall']>>;
