/**
 * bench/programs: invocations of a small deployed sBPF program (noop.so, deployed through the BPF
 * Upgradeable Loader) sent over HTTP (sendTransaction, base64, with preflight) at 32 requests in
 * flight to a real `isthmus start` process, beside plain System transfers in the same run; and the
 * engine's in-process ceiling (LiteSVM alone running the same invocations). Goal: at least 0.8x the
 * transfer rate.
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

const { values } = parseArgs({ options: { count: { type: 'string', default: '10000' }, concurrency: { type: 'string', default: '32' } } });
const COUNT = Number(values.count);
const CONCURRENCY = Number(values.concurrency);
const NOOP = new Uint8Array(readFileSync(new URL('../test/fixtures/sbf/noop.so', import.meta.url)));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Distinct invocations (the data is a counter: noop takes any data). */
function presignInvocations(payer: Keypair, program: string, blockhash: string, count: number): Uint8Array[] {
  const wires: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const data = new Uint8Array(4);
    new DataView(data.buffer).setUint32(0, i, true);
    wires.push(signTransaction(compileMessage(payer.address, [{ programId: program, accounts: [], data }], blockhash), [payer]).wire);
  }
  return wires;
}

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
  return load.ok / ((performance.now() - start) / 1000);
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
    const { value } = await rpcCall(node.rpcUrl, 'getLatestBlockhash', [{ commitment: 'finalized' }]);
    const transferWires = presignTransfers({ payers: [node.faucet], blockhash: value.blockhash, count: COUNT });
    const invokeWires = presignInvocations(node.faucet, program, value.blockhash, COUNT);
    const transfers = await timedSend(node.rpcUrl, transferWires);
    console.log(`  isthmus: ${COUNT} transfers = ${transfers.toFixed(0)}/s`);
    const invocations = await timedSend(node.rpcUrl, invokeWires);
    console.log(`  isthmus: ${COUNT} noop invocations = ${invocations.toFixed(0)}/s`);
    return { transfers, invocations };
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

console.log(`programs: ${COUNT} pre-signed noop invocations and ${COUNT} transfers, ${CONCURRENCY} requests in flight`);
const ours = await benchNode();
const ceiling = await benchEngineCeiling();
console.log('');
console.log(`isthmus invocations  ${ours.invocations.toFixed(0)}/s`);
console.log(`isthmus transfers    ${ours.transfers.toFixed(0)}/s`);
console.log(`ratio                ${(ours.invocations / ours.transfers).toFixed(2)}x the transfer rate (goal: at least 0.8x)`);
headline({ bench: 'programs', figure: 'deployed-program invocations', value: ours.invocations, unit: '/s', peer: { name: 'plain transfers, same node', value: ours.transfers }, goal: '≥ 0.8x transfers' });
console.log(`engine ceiling       ${ceiling.toFixed(0)}/s (litesvm alone)`);
