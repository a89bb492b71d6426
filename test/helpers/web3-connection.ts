/** Helpers for tests that drive the node through @solana/web3.js v1's Connection. */
import type { Connection } from '@solana/web3.js';

/**
 * Closes web3.js's PubSub socket normally (1000) before the node stops: on any other close code its
 * client keeps reconnecting to the stopped node and the test process never ends.
 */
export async function closeConnectionSocket(conn: Connection): Promise<void> {
  const rws = (conn as unknown as { _rpcWebSocket: { socket?: { readyState: number }; once(e: 'close', f: () => void): void; close(): void } })._rpcWebSocket;
  if (rws.socket && rws.socket.readyState <= 1) {
    const closed = new Promise<void>((r) => rws.once('close', () => r()));
    rws.close();
    await closed;
  }
}
