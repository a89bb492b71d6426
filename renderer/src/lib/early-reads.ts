/**
 * The reads started at boot (lib/early.ts): isthmus_getNodeInfo for the connection, and beside it the
 * first page's own: the dashboard's two chains of two round trips each, a block page's one. The small
 * entry (main.ts) runs this before the app's own chunk has loaded, so nothing here imports Svelte.
 */
import { EARLY_DASHBOARD, readDashboardFirst } from './dashboard-read.ts';
import { startEarly } from './early.ts';
import { EARLY_EVM_BLOCKS, readEvmBlocks } from './evm-live-read.ts';
import { earlyBlockName, fetchBlock } from './native.ts';
import { evmRpcUrl, type Network } from './network.ts';
import { EARLY_NODE_INFO, nodeInfo } from './node-info.ts';
import type { Route } from './routes.ts';
import { RpcClient } from './rpc.ts';

export function startEarlyReads(network: Network, route: Route): void {
  const rpc = new RpcClient(network.rpcUrl);
  startEarly(EARLY_NODE_INFO, rpc.url, () => nodeInfo(rpc));
  if (route.page === 'dashboard') {
    const evm = new RpcClient(evmRpcUrl(network));
    startEarly(EARLY_DASHBOARD, rpc.url, () => readDashboardFirst(rpc));
    startEarly(EARLY_EVM_BLOCKS, evm.url, () => readEvmBlocks(evm, []));
  } else if (route.page === 'block') {
    const slot = route.slot;
    startEarly(earlyBlockName(slot), rpc.url, () => fetchBlock({ rpc }, slot));
  }
}
