import type { Address } from '../common/pubkey.ts';
import type { EvmKey } from '../keys/evm-keys.ts';
import type { Keypair } from '../keys/keypair.ts';
import type { Chain } from '../ledger/chain.ts';
import type { Commitment } from '../ledger/commitment.ts';
import type { ChainSnapshots } from '../ledger/snapshots.ts';
import { minContextSlotNotReached } from './errors.ts';
import type { ChainControlGate } from './chain-control-gate.ts';
import type { HealthStatus } from './health.ts';
import type { KnownValidatorState } from './known-validators.ts';
import type { SubmissionDecoder } from './submission-decoder.ts';

/** The node's URLs, settings and dev accounts for the isthmus_* methods (set by startNode once it listens). */
export interface IsthmusNodeInfo {
  rpcUrl: string;
  pubsubUrl: string;
  evmRpcUrl: string;
  evmChainId: number;
  explorerUrl: string;
  bindAddress: string;
  slotMs: number;
  rootDepth: number;
  mnemonic: string;
  /** Slots of block history kept (--limit-ledger-size); null keeps all. */
  limitLedgerSize: number | null;
  /** The bytes the ledger folder takes on disk now. */
  ledgerDiskBytes(): Promise<number>;
  devAccounts: readonly Keypair[];
  evmDevAccounts: readonly EvmKey[];
}

/** What the RPC methods need of the running node. */
export interface RpcContext {
  chain: Chain;
  identity: Address;
  /** Signs requestAirdrop transfers. */
  faucet: Keypair;
  version: string;
  featureSet: number;
  /** host:port of the JSON-RPC and PubSub servers, for getClusterNodes. */
  rpcAddress: string;
  pubsubAddress: string;
  /** The node's URLs and dev accounts for the isthmus_* methods (set by startNode once it listens). */
  isthmus?: IsthmusNodeInfo;
  /** The gate of the methods that edit the chain (absent: they are refused). */
  chainControl?: ChainControlGate;
  /** The health check (known validators); absent means healthy while running. */
  health?(): HealthStatus;
  /** Snapshots of the whole chain (isthmus_snapshot, isthmus_revert, …). */
  snapshots?: ChainSnapshots;
  /** The known validators as last polled, for getClusterNodes. */
  knownValidators?(): readonly KnownValidatorState[];
  /** Decodes sent transactions and checks their signatures off the event loop (absent: on it). */
  submissions?: SubmissionDecoder;
}

/** The slot a read at `commitment` sees, after checking the client's minContextSlot. */
export function contextSlot(ctx: RpcContext, commitment: Commitment, minContextSlot?: number): number {
  const slot = ctx.chain.slotAt(commitment);
  if (minContextSlot !== undefined && slot < minContextSlot) throw minContextSlotNotReached(slot);
  return slot;
}

/** The Solana RPC generation whose method set and result shapes this node serves (getVersion's solana-core). */
export const SOLANA_RPC_COMPATIBILITY = '1.18.26';

export const withContext = <T>(slot: number, value: T) => ({ context: { apiVersion: SOLANA_RPC_COMPATIBILITY, slot }, value });
