/** What the Ethereum RPC methods need of the node, and how a block selector turns into state to read. */
import { hexToBytes } from '@ethereumjs/util';
import type { EvmKey } from '../../keys/evm-keys.ts';
import type { Chain } from '../../ledger/chain.ts';
import type { ChainSnapshots } from '../../ledger/snapshots.ts';
import type { BlockEnv } from '../../evm/machine.ts';
import type { EvmBlockRecord } from '../../evm/records.ts';
import type { EvmRelay } from '../../evm/relay.ts';
import type { EvmSpace } from '../../evm/space.ts';
import type { ChainControlGate } from '../chain-control-gate.ts';
import { RpcError } from '../errors.ts';
import type { SubmissionDecoder } from '../submission-decoder.ts';
import { SERVER_ERROR, type CallTarget } from './call.ts';
import type { FilterManager } from './filters.ts';
import type { Impersonation } from './impersonation.ts';
import type { BlockSelector } from './params.ts';

export interface EvmRpcContext {
  chain: Chain;
  space: EvmSpace;
  relay: EvmRelay;
  /** Unlocked accounts (eth_accounts, eth_sendTransaction). */
  devKeys: EvmKey[];
  filters: FilterManager;
  version: string;
  /** The gate of the methods that edit the chain (absent: they are refused). */
  chainControl?: ChainControlGate;
  /** Addresses eth_sendTransaction sends for without their key (anvil_impersonateAccount). */
  impersonation?: Impersonation;
  /** Snapshots of the whole chain (evm_snapshot, evm_revert). */
  snapshots?: ChainSnapshots;
  /** The worker thread that checks sent transactions and recovers their senders (absent: done on the event loop). */
  submissions?: SubmissionDecoder;
}

export const headerNotFound = () => new RpcError(SERVER_ERROR, 'header not found');

/** The block a selector names; null when it names a block that does not exist (yet). */
export async function selectBlock(ctx: EvmRpcContext, sel: BlockSelector): Promise<EvmBlockRecord | null> {
  const space = ctx.space;
  if ('tag' in sel) {
    switch (sel.tag) {
      case 'latest':
      case 'pending':
        return space.head;
      case 'safe':
      case 'finalized':
        return space.headAt('finalized');
      case 'earliest':
        return space.block(0);
    }
  }
  if ('number' in sel) return space.block(sel.number);
  return space.blockByHash(sel.hash);
}

/** Block environments per block record, made once per block (every call against the block shares one, so the machine's block cache knows it at once). */
const envs = new WeakMap<EvmBlockRecord, BlockEnv>();

function envOf(b: EvmBlockRecord): BlockEnv {
  let env = envs.get(b);
  if (!env) envs.set(b, (env = { number: BigInt(b.number), timestamp: BigInt(b.timestamp), prevRandao: hexToBytes(b.mixHash), baseFeePerGas: b.baseFeePerGas }));
  return env;
}

/** A sealed bank's state: it no longer changes, unless it is also the working bank (a chain that has sealed nothing yet). */
function sealedTarget(space: EvmRpcContext['space'], commitment: 'confirmed' | 'finalized', block: EvmBlockRecord): CallTarget {
  const state = space.stateAt(commitment);
  return { state, env: envOf(block), immutable: state !== space.stateAt('processed') };
}

/** The state (and block environment) a read or a call at `sel` runs against. */
export async function stateTarget(ctx: EvmRpcContext, sel: BlockSelector = { tag: 'latest' }): Promise<CallTarget> {
  const space = ctx.space;
  if ('tag' in sel && sel.tag === 'pending') {
    const layer = space.stateAt('processed');
    return { state: layer, env: layer.env };
  }
  if ('tag' in sel && sel.tag === 'latest') return sealedTarget(space, 'confirmed', space.head);
  if ('tag' in sel && (sel.tag === 'safe' || sel.tag === 'finalized')) return sealedTarget(space, 'finalized', space.headAt('finalized'));
  const block = await selectBlock(ctx, sel);
  if (!block) throw headerNotFound();
  if (block.number === space.head.number) return sealedTarget(space, 'confirmed', block);
  return { state: space.historicalState(block), env: envOf(block) };
}
