/** Native transactions sent over HTTP as a load: the timed send-until-processed and the setup before it. */
import { postRaw, rpcCall } from './http-load.ts';
import type { NodeProcess } from './node-process.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const body = (wire: Uint8Array, id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'sendTransaction', params: [Buffer.from(wire).toString('base64'), { encoding: 'base64' }] });

const processedCount = (node: NodeProcess): Promise<number> => rpcCall(node.rpcUrl, 'getTransactionCount', [{ commitment: 'processed' }]);

/** Sends the wires at `concurrency` in flight; returns transactions per second until all are processed. */
export async function measureSends(node: NodeProcess, label: string, wires: Uint8Array[], concurrency: number): Promise<number> {
  const bodies = wires.map(body);
  const base = await processedCount(node);
  const start = performance.now();
  // The raw socket client (as bench:native-transfers): node:http's client costs ~200 µs of CPU a
  // request on the same cores, and a client that slow hides what one kind of transaction costs the node.
  const load = await postRaw(node.rpcUrl, bodies, concurrency);
  if (load.errors) console.log(`  ${label}: ${load.errors} sends failed, first: ${load.firstError}`);
  while ((await processedCount(node)) - base < load.ok) await sleep(5);
  const seconds = (performance.now() - start) / 1000;
  const rate = load.ok / seconds;
  console.log(`  ${label}: ${load.ok} in ${seconds.toFixed(2)} s (sent in ${load.seconds.toFixed(2)} s) = ${rate.toFixed(0)}/s`);
  return rate;
}

/**
 * Sends setup transactions one after another, each processed before the next (preflight on the
 * processed bank), then waits until the last is finalized: the measured transfers' preflight runs
 * on the finalized bank, as clients' does by default.
 */
export async function runSetup(node: NodeProcess, wires: Uint8Array[]): Promise<void> {
  const status = async (signature: string) => {
    const { value } = await rpcCall(node.rpcUrl, 'getSignatureStatuses', [[signature]]);
    if (value[0]?.err) throw new Error(`setup transaction failed: ${JSON.stringify(value[0].err)}`);
    return value[0] as { confirmationStatus: string } | null;
  };
  let last = '';
  for (const wire of wires) {
    last = await rpcCall(node.rpcUrl, 'sendTransaction', [Buffer.from(wire).toString('base64'), { encoding: 'base64', preflightCommitment: 'processed' }]);
    while (!(await status(last))) await sleep(5);
  }
  while ((await status(last))?.confirmationStatus !== 'finalized') await sleep(50);
}
