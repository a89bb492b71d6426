/**
 * bench/lookup-tables: v0 transfers whose recipient is loaded from an address lookup table, per
 * second over HTTP (sendTransaction, base64, with preflight, 32 in flight), beside plain legacy
 * transfers to the same recipients in the same run against the same `isthmus start` process, until
 * every one is processed; prints the ratio.
 *
 *   npm run bench:lookup-tables [-- --count N --concurrency C]
 */
import { parseArgs } from 'node:util';
import { rpcCall } from './lib/http-load.ts';
import { startNodeProcess, type NodeProcess } from './lib/node-process.ts';
import { measureSends, runSetup } from './lib/send-load.ts';
import { lookupTableSetup, presignLookupTransfers } from './lib/lookup-tables.ts';
import { presignTransfers, randomAddress } from './lib/transfers.ts';
import { headline } from './lib/headline.ts';

const { values } = parseArgs({ options: { count: { type: 'string', default: '20000' }, concurrency: { type: 'string', default: '32' } } });
const COUNT = Number(values.count);
const CONCURRENCY = Number(values.concurrency);
const RECIPIENTS = 64;



const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const measure = (node: NodeProcess, label: string, wires: Uint8Array[]) => measureSends(node, label, wires, CONCURRENCY);

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
headline({ bench: 'lookup-tables', figure: 'v0 transfers through a lookup table', value: lookup, unit: '/s', peer: { name: 'legacy transfers, same node', value: plain } });
console.log(`isthmus v0 lookup-table transfers ${lookup.toFixed(0)}/s = ${((100 * lookup) / plain).toFixed(0)}% of legacy transfers (${plain.toFixed(0)}/s)`);
