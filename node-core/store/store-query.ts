/**
 * Ordering and query helpers shared by the store backends, so the LMDB and in-memory stores answer
 * history queries with the same semantics.
 */
import type { ExtraKey, SignatureQuery } from './store.ts';

/**
 * A place in the ledger. A bare `[slot]` sorts before every `[slot, index]`, the way LMDB's
 * ordered-binary array keys sort a prefix before its extensions, so bounds can be written as prefixes.
 */
export type Position = readonly [number] | readonly [number, number];

export function comparePositions(a: Position, b: Position): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  const ai = a.length > 1 ? (a as readonly [number, number])[1] : undefined;
  const bi = b.length > 1 ? (b as readonly [number, number])[1] : undefined;
  if (ai === bi) return 0;
  if (ai === undefined) return -1;
  if (bi === undefined) return 1;
  return ai < bi ? -1 : 1;
}

/** Exclusive bounds of a getSignaturesForAddress scan: entries strictly between them, newest first. */
export interface SignatureScan {
  upper: Position;
  /** null: scan down to the address's oldest entry. */
  lower: Position | null;
  limit: number;
}

/** The scan a query asks for, or null when it cannot match anything. */
export function signatureScan(query: SignatureQuery): SignatureScan | null {
  if (!(query.limit > 0)) return null;
  // [maxSlot + 1] excludes every index of the next slot and keeps every index of maxSlot.
  let upper: Position = [query.maxSlot + 1];
  if (query.before) {
    const before: Position = [query.before.slot, query.before.index];
    if (comparePositions(before, upper) < 0) upper = before;
  }
  // [minSlot] sits just below (minSlot, 0), so it keeps all of minSlot.
  let lower: Position | null = query.minSlot !== undefined ? [query.minSlot] : null;
  if (query.until) {
    const until: Position = [query.until.slot, query.until.index];
    if (lower === null || comparePositions(until, lower) > 0) lower = until;
  }
  if (lower !== null && comparePositions(lower, upper) >= 0) return null;
  return { upper, lower, limit: query.limit };
}

/** First index in the sorted `items` whose position is >= `pos` (binary search). */
export function lowerBound<T>(items: readonly T[], pos: Position, positionOf: (item: T) => Position): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePositions(positionOf(items[mid]!), pos) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A transaction's account keys without repeats: one address-index entry per distinct key. */
export function distinctKeys<T>(keys: readonly T[]): T[] {
  return [...new Set(keys)];
}

/** LMDB's order of extension record keys: element by element, numbers before strings, a prefix before its extensions. */
export function compareExtraKeys(a: ExtraKey, b: ExtraKey): number {
  const x = Array.isArray(a) ? a : [a as string | number];
  const y = Array.isArray(b) ? b : [b as string | number];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    if (typeof p !== typeof q) return typeof p === 'number' ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return x.length - y.length;
}
