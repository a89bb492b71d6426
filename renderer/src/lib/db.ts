/** The explorer's own data in IndexedDB: networks, recent searches, bridge history, labels. */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { writable } from 'svelte/store';
import type { Network } from './network.ts';

export interface BridgeRecord {
  id?: number;
  at: number;
  network: string;
  direction: 'to-evm' | 'to-native';
  from: string;
  to: string;
  wei: string;
  nativeSignature?: string;
  evmHash?: string;
  state: string;
}

interface ExplorerDB extends DBSchema {
  networks: { key: string; value: Network };
  /** Unused since the chosen network moved to localStorage (connection.ts); kept so version 1's schema stays whole. */
  settings: { key: string; value: unknown };
  searches: { key: number; value: { at: number; text: string; path: string } };
  bridge: { key: number; value: BridgeRecord };
  labels: { key: string; value: { address: string; label: string } };
}

let dbPromise: Promise<IDBPDatabase<ExplorerDB>> | null = null;

function db(): Promise<IDBPDatabase<ExplorerDB>> {
  dbPromise ??= openDB<ExplorerDB>('isthmus-explorer', 1, {
    upgrade(d) {
      d.createObjectStore('networks', { keyPath: 'id' });
      d.createObjectStore('settings');
      d.createObjectStore('searches', { keyPath: 'at' });
      d.createObjectStore('bridge', { keyPath: 'id', autoIncrement: true });
      d.createObjectStore('labels', { keyPath: 'address' });
    },
  });
  return dbPromise;
}

/** IndexedDB can be missing (private modes, some embedders): the explorer then keeps nothing, but works. */
async function safely<T>(f: (d: IDBPDatabase<ExplorerDB>) => Promise<T>, fallback: T): Promise<T> {
  try {
    return await f(await db());
  } catch {
    return fallback;
  }
}

const MAX_SEARCHES = 20;
const MAX_BRIDGE_RECORDS = 200;

export const listNetworks = () => safely((d) => d.getAll('networks'), [] as Network[]);
export const saveNetwork = (n: Network) => safely((d) => d.put('networks', n).then(() => undefined), undefined);
export const deleteNetwork = (id: string) => safely((d) => d.delete('networks', id), undefined);

export async function addRecentSearch(text: string, path: string): Promise<void> {
  await safely(async (d) => {
    const tx = d.transaction('searches', 'readwrite');
    const all = await tx.store.getAll();
    for (const s of all) if (s.text === text) await tx.store.delete(s.at);
    await tx.store.put({ at: Date.now(), text, path });
    const keys = await tx.store.getAllKeys();
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_SEARCHES))) await tx.store.delete(k);
    await tx.done;
  }, undefined);
}
export const recentSearches = () => safely(async (d) => (await d.getAll('searches')).reverse(), [] as { at: number; text: string; path: string }[]);

export async function putBridgeRecord(r: BridgeRecord): Promise<number> {
  return safely(async (d) => {
    const id = await d.put('bridge', r);
    const keys = await d.getAllKeys('bridge');
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_BRIDGE_RECORDS))) await d.delete('bridge', k);
    return id;
  }, -1);
}
export const bridgeHistory = () => safely(async (d) => (await d.getAll('bridge')).reverse(), [] as BridgeRecord[]);

export async function setLabel(address: string, label: string): Promise<void> {
  await safely((d) => (label ? d.put('labels', { address, label }).then(() => undefined) : d.delete('labels', address)), undefined);
  labels.update((m) => {
    const next = new Map(m);
    if (label) next.set(address, label);
    else next.delete(address);
    return next;
  });
}

/** Every label, for the address links (a person's own names for accounts, kept in this browser). */
export const labels = writable<Map<string, string>>(new Map());
export async function loadLabels(): Promise<void> {
  const all = await safely((d) => d.getAll('labels'), [] as { address: string; label: string }[]);
  labels.set(new Map(all.map((l) => [l.address, l.label])));
}
