/**
 * When each transaction's block became visible to a client: follows newHeads over the Ethereum
 * WebSocket (the same port as HTTP, on Anvil and on Isthmus) and reads each new block's hashes.
 * A receipt exists from the moment its block is visible, so this is send-to-receipt without polling.
 */
import WebSocket from 'ws';
import { rpcCall } from './http-load.ts';

export interface BlockArrivals {
  /** Transaction hash → performance.now() when its block was announced. */
  seen: Map<string, number>;
  close(): void;
}

export async function followBlockArrivals(httpUrl: string): Promise<BlockArrivals> {
  const seen = new Map<string, number>();
  const ws = new WebSocket(httpUrl.replace(/^http/, 'ws'));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as { method?: string; params?: { result: { number: string } } };
    if (message.method !== 'eth_subscription') return;
    const at = performance.now();
    void rpcCall(httpUrl, 'eth_getBlockByNumber', [message.params!.result.number, false]).then((block: { transactions: string[] } | null) => {
      for (const hash of block?.transactions ?? []) if (!seen.has(hash)) seen.set(hash, at);
    });
  });
  return { seen, close: () => ws.close() };
}

/** The median and 90th percentile of `values` (sorted copy), in their unit. */
export function percentiles(values: number[]): { median: number; p90: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { median: at(0.5), p90: at(0.9) };
}
