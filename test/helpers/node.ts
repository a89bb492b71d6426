/** Starts a real node on free ports with a temp ledger, for integration tests. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNode, type RunningNode } from '../../node-core/node/start.ts';
import { DEFAULT_OPTIONS, type NodeOptions } from '../../node-core/node/options.ts';

export interface TestNode extends RunningNode {
  ledger: string;
  /** Stops the node and deletes its ledger. */
  stop(): Promise<void>;
}

export function tempLedger(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-test-'));
}

export async function startTestNode(overrides: Partial<NodeOptions> = {}): Promise<TestNode> {
  const ledger = overrides.ledger ?? tempLedger();
  const node = await startNode({
    ...DEFAULT_OPTIONS,
    rpcPort: 0,
    evmRpcPort: 0,
    ledger,
    quiet: true,
    slotMs: 50,
    rootDepth: 4,
    ...overrides,
  });
  return {
    ...node,
    ledger,
    async stop() {
      await node.close();
      if (!overrides.ledger) fs.rmSync(ledger, { recursive: true, force: true });
    },
  };
}

/** Posts one JSON-RPC request and returns the whole response object. */
export async function rpc(url: string, method: string, params?: unknown, id: unknown = 1): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }),
  });
  return res.json();
}

/**
 * Posts the calls as one JSON-RPC batch and returns the responses in the order of the calls. The node
 * answers a batch's synchronous methods in one turn of its event loop, so they read one slot.
 */
export async function rpcBatch(url: string, calls: ReadonlyArray<readonly [string, unknown[]?]>): Promise<any[]> {
  const body = calls.map(([method, params], id) => (params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }));
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answers = (await res.json()) as Array<{ id: number }>;
  return calls.map((_, id) => answers.find((a) => a.id === id));
}

/** Waits until `check` returns a truthy value, polling every `everyMs`. */
export async function waitFor<T>(check: () => T | Promise<T>, { timeoutMs = 10_000, everyMs = 25, what = 'condition' } = {}): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
