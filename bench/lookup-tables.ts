/**
 * bench/lookup-tables: v0 transfers whose recipient is loaded from an address lookup table, per
 * second over HTTP (sendTransaction, base64, with preflight, 32 in flight), beside plain legacy
 * transfers to the same recipients in the same run against the same `isthmus start` process, until
 * every one is processed; prints the ratio.
 *
 *   npm run bench:lookup-tables [-- --count N --concurrency C]
 */
import { parseArgs } from 'node:util';
import { postConcurrently, rpcCall } from './lib/http-load.ts';
import { startNodeProcess, type NodeProcess } from './lib/node-process.ts';
import { lookupTableSetup, presignLookupTransfers } from './lib/lookup-tables.ts';
import { presignTransfers, randomAddress } from './lib/transfers.ts';

const { values } = parseArgs({ options: { count: { type: 'string', default: '20000' }, concurrency: { type: 'string', default: '32' } } });
const COUNT = Number(values.count);
const CONCURRENCY = Number(values.concurrency);
const RECIPIENTS = 64;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const body = (wire: Uint8Array, id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'sendTransaction', params: [Buffer.from(wire).toString('base64'), { encoding: 'base64' }] });

const processedCount = (node: NodeProcess): Promise<number> => rpcCall(node.rpcUrl, 'getTransactionCount', [{ commitment: 'processed' }]);

/** Sends the wires at CONCURRENCY in flight; returns transactions per second until all are processed. */
async function measure(node: NodeProcess, label: string, wires: Uint8Array[]): Promise<number> {
  const bodies = wires.map(body);
  const base = await processedCount(node);
  const start = performance.now();
  const load = await postConcurrently(node.rpcUrl, bodies, CONCURRENCY);
  if (load.errors) console.log(`  ${label}: ${load.errors} sends failed, first: ${load.firstError}`);
  while ((await processedCount(node)) - base < load.ok) await sleep(5);
  const seconds = (performance.now() - start) / 1000;
  const rate = load.ok / seconds;
  console.log(`  ${label}: ${load.ok} in ${seconds.toFixed(2)} s (sent in ${load.seconds.toFixed(2)} s) = ${rate.toFixed(0)}/s`);
  return rate;
}

/** Each setup transaction processed before the next; then the last finalized, since the measured preflight reads the finalized bank. */
async function runSetup(node: NodeProcess, wires: Uint8Array[]): Promise<void> {
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

console.log(`lookup-tables: ${COUNT} pre-signed v0 transfers through a lookup table and ${COUNT} plain legacy transfers, ${CONCURRENCY} requests in flight`);
const node = await startNodeProcess();
let plain: number;
let lookup: number;
try {
  const recipients = Array.from({ length: RECIPIENTS }, randomAddress);
  const recentSlot: number = await rpcCall(node.rpcUrl, 'getSlot', [{ commitment: 'confirmed' }]);
  const { value: setupHash } = await rpcCall(node.rpcUrl, 'getLatestBlockhash', [{ commitment: 'confirmed' }]);
  const setup = lookupTableSetup(node.faucet, setupHash.blockhash, recentSlot, recipients);
  await runSetup(node, setup.wires);
  // Addresses appended in a slot are usable from the next: wait for a newer finalized bank than the setup's.
  const setupRoot: number = await rpcCall(node.rpcUrl, 'getSlot', [{ commitment: 'finalized' }]);
  while ((await rpcCall(node.rpcUrl, 'getSlot', [{ commitment: 'finalized' }])) <= setupRoot) await sleep(50);
  const { value } = await rpcCall(node.rpcUrl, 'getLatestBlockhash', [{ commitment: 'finalized' }]);
  const legacy = presignTransfers({ payers: [node.faucet], recipients, blockhash: value.blockhash, count: COUNT });
  const v0 = presignLookupTransfers(node.faucet, value.blockhash, setup.table, RECIPIENTS, COUNT, 2_000_000);
  // Alternating order over two rounds evens out warm-up and a loaded machine.
  const p1 = await measure(node, 'isthmus legacy transfers', legacy.slice(0, COUNT / 2));
  const l1 = await measure(node, 'isthmus v0 transfers through a lookup table', v0.slice(0, COUNT / 2));
  const l2 = await measure(node, 'isthmus v0 transfers through a lookup table', v0.slice(COUNT / 2));
  const p2 = await measure(node, 'isthmus legacy transfers', legacy.slice(COUNT / 2));
  plain = (p1 + p2) / 2;
  lookup = (l1 + l2) / 2;
  const { value: first } = await rpcCall(node.rpcUrl, 'getBalance', [recipients[0], { commitment: 'processed' }]);
  if (first === 0) throw new Error('the first recipient received nothing');
} finally {
  await node.stop();
}
console.log('');
console.log(`isthmus v0 lookup-table transfers ${lookup.toFixed(0)}/s = ${((100 * lookup) / plain).toFixed(0)}% of legacy transfers (${plain.toFixed(0)}/s)`);
