/**
 * Polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter): each
 * collects what arrived since it was last polled. Filters nobody polls for 5 minutes are removed,
 * as geth does.
 */
import { randomBytes } from 'node:crypto';
import type { EvmBlockRecord, EvmTxRecord, Hex } from '../../evm/records.ts';
import { blockLogs, type LogCriteria } from './logs.ts';

const FILTER_TIMEOUT_MS = 5 * 60_000;

export type FilterKind = 'logs' | 'blocks' | 'pending';

interface Filter {
  kind: FilterKind;
  criteria?: LogCriteria;
  /** For log filters: the range asked for (eth_getFilterLogs replays it). */
  range?: { from: number | 'latest'; to: number | 'latest' };
  changes: unknown[];
  lastPoll: number;
}

export class FilterManager {
  private readonly filters = new Map<Hex, Filter>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  install(kind: FilterKind, criteria?: LogCriteria, range?: Filter['range']): Hex {
    const id = `0x${randomBytes(16).toString('hex')}` as Hex;
    this.filters.set(id, { kind, criteria, range, changes: [], lastPoll: Date.now() });
    return id;
  }

  get(id: string): Filter | undefined {
    return this.filters.get(id.toLowerCase() as Hex);
  }

  uninstall(id: string): boolean {
    return this.filters.delete(id.toLowerCase() as Hex);
  }

  /** Everything since the last poll, and the poll's time kept. */
  drain(id: string): unknown[] | null {
    const f = this.get(id);
    if (!f) return null;
    f.lastPoll = Date.now();
    const out = f.changes;
    f.changes = [];
    return out;
  }

  onBlock(block: EvmBlockRecord, txs: EvmTxRecord[]): void {
    for (const f of this.filters.values()) {
      if (f.kind === 'blocks') f.changes.push(block.hash);
      else if (f.kind === 'logs') {
        const to = f.range?.to;
        if (typeof to === 'number' && block.number > to) continue;
        const from = f.range?.from;
        if (typeof from === 'number' && block.number < from) continue;
        f.changes.push(...blockLogs(block, txs, f.criteria!));
      }
    }
  }

  onPending(hash: Hex): void {
    for (const f of this.filters.values()) if (f.kind === 'pending') f.changes.push(hash);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, f] of this.filters) if (now - f.lastPoll > FILTER_TIMEOUT_MS) this.filters.delete(id);
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
