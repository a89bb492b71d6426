/**
 * The networks the explorer can show: this node (the origin that served the page), the spec's
 * mainnet/testnet/devnet rows (Velas's public endpoints), and URLs the user adds.
 */
export interface Network {
  id: string;
  name: string;
  kind: 'this' | 'preset' | 'custom';
  rpcUrl: string;
  /** PubSub WebSocket; empty: from isthmus_getNodeInfo, else the RPC port + 1 as @solana/web3.js does. */
  wsUrl: string;
  /** Ethereum JSON-RPC; empty: the RPC URL (Isthmus and Velas answer eth_* on the native port). */
  evmUrl: string;
  /** The spec's EVM chain id for a preset row. */
  chainId?: number;
}

export const thisNode = (): Network => ({ id: 'this', name: 'This node', kind: 'this', rpcUrl: location.origin, wsUrl: '', evmUrl: '' });

export const PRESETS: readonly Network[] = [
  { id: 'mainnet', name: 'Mainnet', kind: 'preset', rpcUrl: 'https://api.velas.com', wsUrl: 'wss://api.velas.com', evmUrl: 'https://evmexplorer.velas.com/rpc', chainId: 106 },
  { id: 'testnet', name: 'Testnet', kind: 'preset', rpcUrl: 'https://api.testnet.velas.com', wsUrl: 'wss://api.testnet.velas.com', evmUrl: 'https://evmexplorer.testnet.velas.com/rpc', chainId: 111 },
  { id: 'devnet', name: 'Devnet', kind: 'preset', rpcUrl: 'https://api.devnet.velas.com', wsUrl: 'wss://api.devnet.velas.com', evmUrl: '', chainId: 5705 },
];

/** The network's Ethereum JSON-RPC URL (its own, else the RPC URL). */
export const evmRpcUrl = (n: Network): string => n.evmUrl || n.rpcUrl;

/** @solana/web3.js's rule: ws(s) on the RPC port + 1 when the URL names a port. */
export function defaultWsUrl(rpcUrl: string): string {
  const u = new URL(rpcUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  if (u.port) u.port = String(Number(u.port) + 1);
  return u.toString().replace(/\/$/, '');
}

export function customNetwork(rpcUrl: string, name?: string): Network {
  const u = new URL(rpcUrl);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('The RPC URL must start with http:// or https://');
  const url = u.toString().replace(/\/$/, '');
  return { id: `custom:${url}`, name: name || u.host, kind: 'custom', rpcUrl: url, wsUrl: '', evmUrl: '' };
}

/** The network ?rpc=URL names, when the page was opened with a valid one. */
export function networkFromUrl(): Network | null {
  const param = new URLSearchParams(location.search).get('rpc');
  if (!param) return null;
  try {
    return customNetwork(param);
  } catch {
    return null;
  }
}
