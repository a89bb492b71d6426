/**
 * The node the explorer talks to: its JSON-RPC client, Ethereum JSON-RPC client, PubSub socket and,
 * on an Isthmus node, its isthmus_getNodeInfo. Changing network makes a new connection.
 */
import { get, writable } from 'svelte/store';
import { listNetworks } from './db.ts';
import { customNetwork, defaultWsUrl, PRESETS, thisNode, type Network } from './network.ts';
import { PubSubClient } from './pubsub.ts';
import { RpcClient } from './rpc.ts';

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

export interface Connection {
  network: Network;
  rpc: RpcClient;
  evm: RpcClient;
  pubsub: PubSubClient;
  wsUrl: string;
  /** eth_subscribe on the node's EVM WebSocket (an Isthmus node names it); null elsewhere. */
  evmSocket: PubSubClient | null;
  /** null on a node that is not Isthmus (or not reached yet). */
  info: NodeInfo | null;
  /** Bumped on every new connection, so pages reload. */
  serial: number;
}

export const connection = writable<Connection | null>(null);
let serial = 0;

async function nodeInfo(rpc: RpcClient): Promise<NodeInfo | null> {
  try {
    return await rpc.call<NodeInfo>('isthmus_getNodeInfo');
  } catch {
    return null;
  }
}

const evmWsUrl = (info: NodeInfo | null) => (info ? info.evmRpcUrl.replace(/^http/, 'ws') : null);
const evmSocketOf = (info: NodeInfo | null) => {
  const url = evmWsUrl(info);
  return url ? new PubSubClient(url) : null;
};

export async function connect(network: Network): Promise<void> {
  const old = get(connection);
  old?.pubsub.close();
  old?.evmSocket?.close();
  const rpc = new RpcClient(network.rpcUrl);
  const info = await nodeInfo(rpc);
  const wsUrl = network.wsUrl || (network.kind === 'this' && info ? info.pubsubUrl : defaultWsUrl(network.rpcUrl));
  const evm = new RpcClient(network.evmUrl || network.rpcUrl);
  connection.set({ network, rpc, evm, pubsub: new PubSubClient(wsUrl), wsUrl, evmSocket: evmSocketOf(info), info, serial: ++serial });
  rememberNetwork(network.id);
}

/**
 * The network chosen last time is kept in localStorage, not IndexedDB with the networks: it is read
 * before the first request, and opening IndexedDB in a new profile delays the first page by about
 * 100 ms. localStorage can be missing or refuse (private modes, some embedders): then nothing is kept.
 */
const NETWORK_KEY = 'isthmus-explorer.network';

function rememberNetwork(id: string): void {
  try {
    localStorage.setItem(NETWORK_KEY, id);
  } catch {
    /* nothing kept */
  }
}

function rememberedNetwork(): string | null {
  try {
    return localStorage.getItem(NETWORK_KEY);
  } catch {
    return null;
  }
}

/** Fetches isthmus_getNodeInfo again when the first try found no node (it was down at start). */
export async function refreshInfo(): Promise<void> {
  const c = get(connection);
  if (!c || c.info) return;
  const info = await nodeInfo(c.rpc);
  if (!info || get(connection) !== c) return;
  c.evmSocket?.close();
  if (c.network.kind === 'this' && info.pubsubUrl !== c.wsUrl) {
    c.pubsub.close();
    connection.set({ ...c, info, wsUrl: info.pubsubUrl, pubsub: new PubSubClient(info.pubsubUrl), evmSocket: evmSocketOf(info), serial: ++serial });
  } else connection.set({ ...c, info, evmSocket: evmSocketOf(info), serial: ++serial });
}

export async function allNetworks(): Promise<Network[]> {
  return [thisNode(), ...PRESETS, ...(await listNetworks())];
}

/** The network at start: ?rpc=URL, else the one chosen last time, else this node. */
export async function initialNetwork(): Promise<Network> {
  const param = new URLSearchParams(location.search).get('rpc');
  if (param) {
    try {
      return customNetwork(param);
    } catch {
      /* fall through */
    }
  }
  const id = rememberedNetwork();
  if (id && id !== 'this') {
    const found = (await allNetworks()).find((n) => n.id === id);
    if (found) return found;
  }
  return thisNode();
}
