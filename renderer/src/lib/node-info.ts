/** isthmus_getNodeInfo: what an Isthmus node tells of itself. Nothing here imports Svelte (main.ts reads it at boot). */
import type { RpcClient } from './rpc.ts';

export interface NodeInfo {
  version: string;
  genesisHash: string;
  rpcUrl: string;
  pubsubUrl: string;
  evmRpcUrl: string;
  evmChainId: number;
  explorerUrl: string;
  slotMs: number;
  rootDepth: number;
  slotsPerEpoch: number;
  bridgeAddress: string;
  evmProgramId: string;
  evmStateAccount: string;
  transferToNativeSelector: string;
  devAccountsAvailable: boolean;
  /** The ledger on disk (nodes before it had none). */
  ledger?: LedgerInfo;
  /** Whether the node answers its chain-control methods (absent on older nodes: no). */
  chainControlAllowed?: boolean;
}

/** isthmus_getNodeInfo's ledger: its folder's size on disk, the slots it keeps (null: all), its oldest slot. */
export interface LedgerInfo {
  diskBytes: number;
  limitLedgerSize: number | null;
  firstAvailableSlot: number;
}

/** The name main.ts starts isthmus_getNodeInfo under at boot (lib/early.ts), for connect to take. */
export const EARLY_NODE_INFO = 'node-info';

/** isthmus_getNodeInfo, or null from a node that does not answer it (not Isthmus, or unreachable). */
export async function nodeInfo(rpc: RpcClient): Promise<NodeInfo | null> {
  try {
    return await rpc.call<NodeInfo>('isthmus_getNodeInfo');
  } catch {
    return null;
  }
}
