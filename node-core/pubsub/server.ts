/** PubSub over WebSocket (first version: listens; subscriptions follow). */
import http from 'node:http';
import { WebSocketServer } from 'ws';
import type { Chain } from '../ledger/chain.ts';
import { listen } from '../server/http.ts';

export interface PubsubOptions {
  chain: Chain;
  port: number;
  host: string;
  enableVoteSubscription: boolean;
}

export interface PubsubServer {
  port: number;
  close(): Promise<void>;
}

export async function startPubsubServer(o: PubsubOptions): Promise<PubsubServer> {
  const server = http.createServer((_req, res) => {
    res.writeHead(400);
    res.end();
  });
  const wss = new WebSocketServer({ server });
  const port = await listen(server, o.port, o.host, '--rpc-pubsub-port');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.close(() => resolve());
      }),
  };
}
