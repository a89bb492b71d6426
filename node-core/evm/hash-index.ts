/**
 * Records looked up by a 32-byte hash (transactions, trie nodes) are stored in the order they are
 * written, under their position ([slot or block number, index]), with an index entry
 * [the hash's first 48 bits, ...position] beside each.
 *
 * Keyed by the whole hash, each slot's records landed on every page of their table, and each commit
 * copied and rewrote most of it: after bench:evm's 6,000 transfers the ledger file was twice its live
 * data and all of it was mapped into the node's memory. In write order a slot's records fill the last
 * pages; only the index entries (~40 bytes) still land anywhere.
 *
 * Two hashes can share 48 bits: a lookup reads every position under the prefix and keeps the record
 * whose hash matches.
 */
import type { ExtraKey, SlotCommit, Store } from '../store/store.ts';

export type RecordPosition = readonly [number, number];

type Extra = NonNullable<SlotCommit['extras']>[number];

/** The first 48 bits of a hash in hex (with or without 0x): a safe integer. */
export function hashPrefix(hash: string): number {
  const start = hash.startsWith('0x') ? 2 : 0;
  return parseInt(hash.slice(start, start + 12), 16);
}

/** The record under `position` and its index entry, for a slot commit. */
export function recordWithIndex(records: string, index: string, hash: string, position: RecordPosition, value: unknown): [Extra, Extra] {
  return [
    { table: records, key: position as ExtraKey, value },
    { table: index, key: [hashPrefix(hash), ...position], value: 0 },
  ];
}

/**
 * The first record indexed under `hash`'s prefix that `match` accepts (it answers the record, or
 * null for another hash's), or null.
 */
export async function findByHash<T>(
  store: Pick<Store, 'getExtra' | 'scanExtras'>,
  records: string,
  index: string,
  hash: string,
  match: (record: unknown) => T | null,
): Promise<T | null> {
  const prefix = hashPrefix(hash);
  for await (const [key] of store.scanExtras(index, { start: [prefix], end: [prefix + 1] })) {
    const [, a, b] = key as [number, number, number];
    const record = await store.getExtra(records, [a, b]);
    const found = record === null ? null : match(record);
    if (found !== null) return found;
  }
  return null;
}
