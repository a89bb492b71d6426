/** A raw WebSocket subscription (Solana PubSub or eth_subscribe) whose notifications are collected as they arrive. */
import { WebSocket } from 'ws';
import { waitFor } from './node.ts';

export async function subscribe(url: string, method: string, params: unknown[]): Promise<{ seen: any[]; close(): void }> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const seen: any[] = [];
  let id: unknown;
  ws.on('message', (raw) => {
    const m = JSON.parse(String(raw));
    if (m.id === 1) id = m.result;
    else if (m.params && m.params.subscription === id) seen.push(m.params.result);
  });
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  await waitFor(() => id !== undefined, { what: `${method}'s id` });
  return { seen, close: () => ws.close() };
}
