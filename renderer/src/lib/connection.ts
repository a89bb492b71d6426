/**
 * The node the explorer talks to: its JSON-RPC client, Ethereum JSON-RPC client, PubSub socket and,
 * on an Isthmus node, its isthmus_getNodeInfo. Changing network makes a new connection.
 */
import { get, writable } from 'svelte/store';
import { listNetworks } from './db.ts';
import { takeEarly } from './early.ts';
import { EARLY_NODE_INFO, nodeInfo, type LedgerInfo, type NodeInfo } from './node-info.ts';
import { defaultWsUrl, evmRpcUrl, networkFromUrl, PRESETS, thisNode, type Network } from './network.ts';
import { PubSubClient } from './pubsub.ts';
import { RpcClient } from './rpc.ts';

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

export type { LedgerInfo, NodeInfo };

export const connection = writable<Connection | null>(null);
let serial = 0;

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
  const info = await (takeEarly<NodeInfo | null>(EARLY_NODE_INFO, rpc.url) ?? nodeInfo(rpc));
  const wsUrl = network.wsUrl || (network.kind === 'this' && info ? info.pubsubUrl : defaultWsUrl(network.rpcUrl));
  const evm = new RpcClient(evmRpcUrl(network));
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

/**
 * The network at start when it is known without IndexedDB: ?rpc=URL, else the one chosen last time if
 * it is this node or a preset, else this node when none was chosen; null when it is a saved network.
 */
export function networkAtStart(): Network | null {
  const fromUrl = networkFromUrl();
  if (fromUrl) return fromUrl;
  const id = rememberedNetwork();
  if (!id || id === 'this') return thisNode();
  return PRESETS.find((n) => n.id === id) ?? null;
}

/** The network at start: ?rpc=URL, else the one chosen last time, else this node. */
export async function initialNetwork(): Promise<Network> {
  const known = networkAtStart();
  if (known) return known;
  const id = rememberedNetwork();
  return (await allNetworks()).find((n) => n.id === id) ?? thisNode();
}
