/**
 * bench/tokens: SPL Token transfers per second over HTTP (sendTransaction, base64, with preflight,
 * 32 in flight) beside plain System transfers in the same run against the same `isthmus start`
 * process, until every one is processed, after an unmeasured warm-up of each kind, in four pairs of
 * rounds that alternate the order. Goal (issue 18): token transfers at 90% or more of the plain rate.
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

const { values } = parseArgs({ options: { count: { type: 'string', default: '40000' }, concurrency: { type: 'string', default: '32' } } });
const COUNT = Number(values.count);
const CONCURRENCY = Number(values.concurrency);
const DESTINATIONS = 64;



const measure = (node: NodeProcess, label: string, wires: Uint8Array[]) => measureSends(node, label, wires, CONCURRENCY);

/** Unmeasured rounds of each kind first: a fresh node's first thousands of transactions run slower (JIT, LMDB's map), whichever kind comes first. */
const WARM_UP = 2_000;
/** Measured rounds of each kind, alternating plain, token, token, plain, … (the order evens out drift). */
const ROUNDS = 4;

async function benchIsthmus(): Promise<{ plain: number; token: number; pairs: number[] }> {
  const node = await startNodeProcess();
  try {
    const blockhash = async (): Promise<string> => (await rpcCall(node.rpcUrl, 'getLatestBlockhash', [{ commitment: 'finalized' }])).value.blockhash;
    const rent = await rpcCall(node.rpcUrl, 'getMinimumBalanceForRentExemption', [82]);
    const total = COUNT + WARM_UP;
    const setup = tokenSetup(node.faucet, await blockhash(), DESTINATIONS, total * (total + 1), () => rent);
    await runSetup(node, setup.wires);
    // Each round is signed just before it with a fresh blockhash: all of them under one could outlive
    // it (150 slots, a minute) on a slow machine, and its last transactions would never land.
    let signed = 0;
    const sign = async (count: number) => {
      const hash = await blockhash();
      const wires = {
        plain: presignTransfers({ payers: [node.faucet], blockhash: hash, count }),
        token: presignTokenTransfers(node.faucet, setup, hash, count, signed),
      };
      signed += count;
      return wires;
    };
    const warm = await sign(WARM_UP);
    await measure(node, 'warm-up, plain (not counted)', warm.plain);
    await measure(node, 'warm-up, token (not counted)', warm.token);
    const per = COUNT / ROUNDS;
    const seconds = { plain: 0, token: 0 };
    const pairs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const wires = await sign(per);
      const rates = { plain: 0, token: 0 };
      for (const kind of r % 2 === 0 ? (['plain', 'token'] as const) : (['token', 'plain'] as const)) {
        rates[kind] = await measure(node, kind === 'plain' ? 'isthmus plain SOL transfers' : 'isthmus SPL Token transfers', wires[kind]);
        seconds[kind] += per / rates[kind];
      }
      pairs.push(rates.token / rates.plain);
    }
    const { value: balance } = await rpcCall(node.rpcUrl, 'getTokenAccountBalance', [setup.source, { commitment: 'processed' }]);
    const expected = total * (total + 1) - (total * (total + 1)) / 2;
    if (balance.amount !== String(expected)) throw new Error(`token source holds ${balance.amount}, expected ${expected}`);
    return { plain: COUNT / seconds.plain, token: COUNT / seconds.token, pairs };
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
console.log(`  each pair of rounds: ${ours.pairs.map((p) => `${(100 * p).toFixed(0)}%`).join(', ')}`);
headline({ bench: 'tokens', figure: 'SPL Token transfers', value: ours.token, unit: '/s', peer: { name: 'plain SOL transfers, same node', value: ours.plain }, goal: '≥ 0.9x plain transfers' });
headline({ bench: 'tokens', figure: 'SPL Token transfers vs LiteSVM', value: ours.token, unit: '/s', peer: { name: 'LiteSVM in-process', value: lite } });
console.log(`vs litesvm                ${(ours.token / lite).toFixed(2)}x (litesvm ${lite.toFixed(0)} token transfers/s in-process)`);
