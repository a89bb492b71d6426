/**
 * bench/tokens: SPL Token transfers per second over HTTP (sendTransaction, base64, with preflight,
 * 32 in flight) beside plain System transfers in the same run against the same `isthmus start`
 * process, until every one is processed. Goal: token transfers at 70% or more of the plain rate.
 * Peer: LiteSVM running the real SPL Token program in-process (no RPC), as a ratio.
 *
 *   npm run bench:tokens [-- --count N --concurrency C]
 */
import { parseArgs } from 'node:util';
import { rpcCall } from './lib/http-load.ts';
import { startNodeProcess, type NodeProcess } from './lib/node-process.ts';
import { measureSends, runSetup } from './lib/send-load.ts';
import { presignTokenTransfers, tokenSetup } from './lib/tokens.ts';
import { presignTransfers } from './lib/transfers.ts';
import { liteSvmPeer } from './lib/litesvm.ts';
import { headline } from './lib/headline.ts';

const { values } = parseArgs({ options: { count: { type: 'string', default: '20000' }, concurrency: { type: 'string', default: '32' } } });
const COUNT = Number(values.count);
const CONCURRENCY = Number(values.concurrency);
const DESTINATIONS = 64;



const measure = (node: NodeProcess, label: string, wires: Uint8Array[]) => measureSends(node, label, wires, CONCURRENCY);

async function benchIsthmus(): Promise<{ plain: number; token: number }> {
  const node = await startNodeProcess();
  try {
    const { value } = await rpcCall(node.rpcUrl, 'getLatestBlockhash', [{ commitment: 'finalized' }]);
    const rent = await rpcCall(node.rpcUrl, 'getMinimumBalanceForRentExemption', [82]);
    const setup = tokenSetup(node.faucet, value.blockhash, DESTINATIONS, COUNT * (COUNT + 1), () => rent);
    await runSetup(node, setup.wires);
    const plain = presignTransfers({ payers: [node.faucet], blockhash: value.blockhash, count: COUNT });
    const tokens = presignTokenTransfers(node.faucet, setup, value.blockhash, COUNT);
    // Alternating order over two rounds evens out warm-up and a loaded machine.
    const p1 = await measure(node, 'isthmus plain SOL transfers', plain.slice(0, COUNT / 2));
    const t1 = await measure(node, 'isthmus SPL Token transfers', tokens.slice(0, COUNT / 2));
    const t2 = await measure(node, 'isthmus SPL Token transfers', tokens.slice(COUNT / 2));
    const p2 = await measure(node, 'isthmus plain SOL transfers', plain.slice(COUNT / 2));
    const { value: balance } = await rpcCall(node.rpcUrl, 'getTokenAccountBalance', [setup.source, { commitment: 'processed' }]);
    const expected = COUNT * (COUNT + 1) - (COUNT * (COUNT + 1)) / 2;
    if (balance.amount !== String(expected)) throw new Error(`token source holds ${balance.amount}, expected ${expected}`);
    return { plain: (p1 + p2) / 2, token: (t1 + t2) / 2 };
  } finally {
    await node.stop();
  }
}

async function benchLiteSvm(): Promise<number> {
  const peer = await liteSvmPeer();
  const setup = tokenSetup(peer.payer, peer.blockhash, DESTINATIONS, COUNT * (COUNT + 1), peer.minimumBalance);
  for (const wire of setup.wires) if (!peer.send(wire)) throw new Error('litesvm: a setup transaction failed');
  const wires = presignTokenTransfers(peer.payer, setup, peer.blockhash, COUNT);
  const { seconds, failed } = peer.timed(wires);
  const rate = wires.length / seconds;
  console.log(`  litesvm SPL Token transfers (in-process, no RPC): ${wires.length} in ${seconds.toFixed(2)} s = ${rate.toFixed(0)}/s${failed ? ` (${failed} failed)` : ''}`);
  return rate;
}

console.log(`tokens: ${COUNT} pre-signed SPL Token transfers and ${COUNT} plain SOL transfers, ${CONCURRENCY} requests in flight`);
const ours = await benchIsthmus();
const lite = await benchLiteSvm();
console.log('');
console.log(`isthmus token transfers   ${ours.token.toFixed(0)}/s = ${((100 * ours.token) / ours.plain).toFixed(0)}% of plain SOL transfers (${ours.plain.toFixed(0)}/s; goal: at least 90%)`);
headline({ bench: 'tokens', figure: 'SPL Token transfers', value: ours.token, unit: '/s', peer: { name: 'plain SOL transfers, same node', value: ours.plain }, goal: '≥ 0.9x plain transfers' });
headline({ bench: 'tokens', figure: 'SPL Token transfers vs LiteSVM', value: ours.token, unit: '/s', peer: { name: 'LiteSVM in-process', value: lite } });
console.log(`vs litesvm                ${(ours.token / lite).toFixed(2)}x (litesvm ${lite.toFixed(0)} token transfers/s in-process)`);
