/**
 * bench/programs: invocations of a small deployed sBPF program (noop.so, deployed through the BPF
 * Upgradeable Loader) sent over HTTP (sendTransaction, base64, with preflight) at 32 requests in
 * flight to a real `isthmus start` process, beside plain System transfers in the same run; and the
 * engine's in-process ceiling (LiteSVM alone running the same invocations). After an unmeasured
 * warm-up of each kind, four rounds of each that alternate the order (transfers, invocations,
 * invocations, transfers, …), each signed just before it with a fresh blockhash. Goal: at least 0.8x
 * the transfer rate.
 *
 *   npm run bench:programs [-- --count N --concurrency C]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createKeyPairSignerFromBytes, generateKeyPairSigner } from '@solana/kit';
import { startNodeProcess } from './lib/node-process.ts';
import { postRaw, rpcCall } from './lib/http-load.ts';
import { presignTransfers } from './lib/transfers.ts';
import { compileMessage, signTransaction } from '../node-core/runtime/message-builder.ts';
import { generateKeypair, type Keypair } from '../node-core/keys/keypair.ts';
import { Deployer } from '../test/helpers/sbf-deploy.ts';
import { headline } from './lib/headline.ts';

const { values } = parseArgs({ options: { count: { type: 'string', default: '20000' }, concurrency: { type: 'string', default: '32' } } });
const COUNT = Number(values.count);
const CONCURRENCY = Number(values.concurrency);
const NOOP = new Uint8Array(readFileSync(new URL('../test/fixtures/sbf/noop.so', import.meta.url)));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Unmeasured sends of each kind first: a fresh node's first thousands run slower (JIT; the engine's first load of the program), whichever kind comes first. */
const WARM_UP = 2_000;
/** Measured rounds of each kind (the alternating order evens out drift). */
const ROUNDS = 4;

/** Distinct invocations (the data is a counter from `first`: noop takes any data). */
function presignInvocations(payer: Keypair, program: string, blockhash: string, count: number, first = 0): Uint8Array[] {
  const wires: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const data = new Uint8Array(4);
    new DataView(data.buffer).setUint32(0, first + i, true);
    wires.push(signTransaction(compileMessage(payer.address, [{ programId: program, accounts: [], data }], blockhash), [payer]).wire);
  }
  return wires;
}

/** Sends `wires` and waits until all are processed: the seconds it took. */
async function timedSend(url: string, wires: Uint8Array[]): Promise<number> {
  const bodies = wires.map((w, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'sendTransaction', params: [Buffer.from(w).toString('base64'), { encoding: 'base64' }] }));
  const base: number = await rpcCall(url, 'getTransactionCount', [{ commitment: 'processed' }]);
  const start = performance.now();
  // The raw socket client, as bench/lib/send-load.ts.
  const load = await postRaw(url, bodies, CONCURRENCY);
  if (load.errors) console.log(`  ${load.errors} sends failed, first: ${load.firstError}`);
  for (;;) {
    const n: number = await rpcCall(url, 'getTransactionCount', [{ commitment: 'processed' }]);
    if (n - base >= load.ok) break;
    await sleep(5);
  }
  if (load.ok !== wires.length) throw new Error(`${wires.length - load.ok} of ${wires.length} sends failed`);
  return (performance.now() - start) / 1000;
}

async function benchNode(): Promise<{ transfers: number; invocations: number }> {
  const node = await startNodeProcess();
  try {
    const deployer = new Deployer(node.rpcUrl, await createKeyPairSignerFromBytes(node.faucet.secretKey));
    const { program, result } = await deployer.deploy(NOOP, await generateKeyPairSigner());
    // Preflight runs at `finalized` by default: wait until that bank runs the program too.
    for (;;) {
      const finalized: number = await rpcCall(node.rpcUrl, 'getSlot', [{ commitment: 'finalized' }]);
      if (finalized > result.slot) break;
      await sleep(20);
    }
    // Each round is signed just before it with a fresh blockhash (one for all could outlive its 150 slots on a slow machine).
    let signed = 0;
    const sign = async (count: number) => {
      const { value } = await rpcCall(node.rpcUrl, 'getLatestBlockhash', [{ commitment: 'finalized' }]);
      const wires = { transfers: presignTransfers({ payers: [node.faucet], blockhash: value.blockhash, count }), invocations: presignInvocations(node.faucet, program, value.blockhash, count, signed) };
      signed += count;
      return wires;
    };
    const warm = await sign(WARM_UP);
    await timedSend(node.rpcUrl, warm.transfers);
    await timedSend(node.rpcUrl, warm.invocations);
    const per = Math.ceil(COUNT / ROUNDS);
    const seconds = { transfers: 0, invocations: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      const wires = await sign(per);
      for (const kind of r % 2 === 0 ? (['transfers', 'invocations'] as const) : (['invocations', 'transfers'] as const)) {
        const took = await timedSend(node.rpcUrl, wires[kind]);
        seconds[kind] += took;
        console.log(`  isthmus: ${per} ${kind === 'transfers' ? 'transfers' : 'noop invocations'} = ${(per / took).toFixed(0)}/s`);
      }
    }
    return { transfers: (per * ROUNDS) / seconds.transfers, invocations: (per * ROUNDS) / seconds.invocations };
  } finally {
    await node.stop();
  }
}

/** LiteSVM alone, in-process, no RPC: the engine's ceiling for the same invocations. */
async function benchEngineCeiling(): Promise<number> {
  const { LiteSVM } = await import('litesvm');
  const { getTransactionDecoder } = await import('@solana/kit');
  const svm = new LiteSVM();
  const payer = generateKeypair();
  svm.airdrop(payer.address as never, 1_000_000_000_000n as never);
  const program = generateKeypair().address;
  svm.addProgram(program as never, NOOP);
  const decoder = getTransactionDecoder();
  const txs = presignInvocations(payer, program, svm.latestBlockhash(), COUNT).map((w) => decoder.decode(w));
  const start = performance.now();
  let failed = 0;
  for (const tx of txs) if (svm.sendTransaction(tx as never).constructor.name === 'FailedTransactionMetadata') failed++;
  const rate = txs.length / ((performance.now() - start) / 1000);
  console.log(`  litesvm alone (in-process, no RPC): ${txs.length} noop invocations = ${rate.toFixed(0)}/s${failed ? ` (${failed} failed)` : ''}`);
  return rate;
}

console.log(`programs: ${COUNT} pre-signed noop invocations and ${COUNT} transfers in ${ROUNDS} alternating rounds each after ${WARM_UP} of each unmeasured, ${CONCURRENCY} requests in flight`);
const ours = await benchNode();
const ceiling = await benchEngineCeiling();
console.log('');
console.log(`isthmus invocations  ${ours.invocations.toFixed(0)}/s`);
console.log(`isthmus transfers    ${ours.transfers.toFixed(0)}/s`);
console.log(`ratio                ${(ours.invocations / ours.transfers).toFixed(2)}x the transfer rate (goal: at least 0.8x)`);
headline({ bench: 'programs', figure: 'deployed-program invocations', value: ours.invocations, unit: '/s', peer: { name: 'plain transfers, same node', value: ours.transfers }, goal: '≥ 0.8x transfers' });
console.log(`engine ceiling       ${ceiling.toFixed(0)}/s (litesvm alone)`);
