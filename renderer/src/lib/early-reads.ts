/**
 * The reads started at boot (lib/early.ts): isthmus_getNodeInfo for the connection, and beside it the
 * first page's own: the dashboard's two chains of two round trips each, a block page's one.
 */
import { EARLY_NODE_INFO, nodeInfo } from './connection.ts';
import { EARLY_DASHBOARD, readDashboardFirst } from './dashboard.ts';
import { startEarly } from './early.ts';
import { EARLY_EVM_BLOCKS, readEvmBlocks } from './evm-live.ts';
import { earlyBlockName, fetchBlock } from './native.ts';
import { evmRpcUrl, type Network } from './network.ts';
import { RpcClient } from './rpc.ts';
import type { Route } from './router.ts';

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
