/**
 * One @ethereumjs VM and what it runs against: the Common of this chain (id, hardfork, native
 * crypto), the bridge precompile, BLOCKHASH from the EVM space's blocks, and a state manager that
 * is pointed at the state of each run. Runs are serialized: a VM has one journal.
 */
import { createBlock, type Block } from '@ethereumjs/block';
import { createCustomCommon, Mainnet, type Common } from '@ethereumjs/common';
import type { Message } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address, hexToBytes } from '@ethereumjs/util';
import { createVM, runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import { BLOCK_GAS_LIMIT, BRIDGE_ADDRESS, COINBASE, HARDFORK } from './constants.ts';
import { createBridgePrecompile, type BridgeCallContext } from './bridge-precompile.ts';
import { ecrecover } from './crypto.ts';
import { FlatStateManager } from './state-manager.ts';
import { EvmChanges, type EvmStateSource } from './state.ts';

export function createEvmCommon(chainId: number): Common {
  return createCustomCommon({ chainId, name: 'isthmus' }, Mainnet, { hardfork: HARDFORK, customCrypto: { ecrecover } });
}

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
  private canCredit: (recipient: string) => boolean = () => false;
  private blockCache: { key: string; block: Block } | null = null;

  private constructor(
    readonly common: Common,
    private readonly vm: VM,
    private readonly stateManager: FlatStateManager,
  ) {
    vm.evm.events!.on('beforeMessage', (m: Message) => void this.messages.push(m));
    vm.evm.events!.on('afterMessage', () => void this.messages.pop());
  }

  static async create(chainId: number, blockHash: (n: bigint) => Promise<Uint8Array>, storageRootOf?: (address: string) => Uint8Array): Promise<EvmMachine> {
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
    const machine = new EvmMachine(common, vm, stateManager);
    return machine;
  }

  /** The @ethereumjs block for an environment (cached: every transaction of a slot shares one). */
  block(env: BlockEnv): Block {
    const key = `${env.number}:${env.timestamp}:${env.baseFeePerGas}:${env.prevRandao.join(',')}`;
    if (this.blockCache?.key === key) return this.blockCache.block;
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
    this.blockCache = { key, block };
    return block;
  }

  /** Runs a transaction; its changes land in `opts.changes`. Throws for transactions the chain cannot include. */
  run(opts: RunOptions): Promise<RunTxResult> {
    return this.mutex.run(async () => {
      this.stateManager.use(opts.below, opts.changes);
      this.messages.length = 0;
      this.canCredit = opts.canCredit;
      try {
        return await runTx(this.vm, {
          tx: opts.tx,
          block: this.block(opts.env),
          skipHardForkValidation: true,
          skipNonce: opts.call === true,
          skipBalance: opts.call === true,
        });
      } finally {
        this.canCredit = () => false;
      }
    });
  }
}

export const emptyChanges = () => new EvmChanges();
