/**
 * bench/native-transfers: pre-signed System transfers sent over HTTP (sendTransaction, base64, with
 * preflight) at 32 requests in flight to a real `isthmus start` process; transfers per second until
 * every one is processed. Peers from the same run: LiteSVM (the same transfers executed in-process,
 * no RPC) and Ganache (pre-signed ETH transfers over HTTP, instamine), each as a ratio.
 *
 * The node and LiteSVM take turns: a warm-up of each (not counted), then rounds that alternate which
 * goes first. This machine's speed drifts by tens of percent within minutes; measured one after the
 * other, the ratio moved with the drift (0.35x–0.57x for the same code).
 *
 *   npm run bench:native-transfers [-- --count N --rounds R --warm-up W --concurrency C]
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, startNodeProcess, type NodeProcess } from './lib/node-process.ts';
import { postConcurrently, postRaw, rpcCall, waitForEthNode } from './lib/http-load.ts';
import { presignTransfers } from './lib/transfers.ts';
import { liteSvmPeer, type LiteSvmPeer } from './lib/litesvm.ts';
import { headline } from './lib/headline.ts';
import { ThreadCpuTally } from './lib/thread-cpu.ts';
import { formatResident, memoryAround, memoryGoalLines, memoryHeadlines, type MemoryAround } from './lib/rss.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '2' },
    'warm-up': { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '32' },
    'peer-count': { type: 'string', default: '2000' },
    'settle-seconds': { type: 'string', default: '60' },
  },
});
const ROUNDS = Number(values.rounds);
const PER_ROUND = Math.ceil(Number(values.count) / ROUNDS);
const WARM_UP = Number(values['warm-up']);
const CONCURRENCY = Number(values.concurrency);
const PEER_COUNT = Number(values['peer-count']);
/** How long after the load the settled memory is read (issue 18: within 30% of idle a minute after a burst). */
const SETTLE_MS = Number(values['settle-seconds']) * 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Totals {
  transfers: number;
  seconds: number;
}
const rate = (t: Totals) => t.transfers / t.seconds;

/** The node and LiteSVM in alternating rounds; each one's transfers per second over its measured rounds. */
async function benchAlternating(): Promise<{ ours: number; lite: number; memory: MemoryAround }> {
  const peer = await liteSvmPeer();
  const node = await startNodeProcess();
  try {
    await sleep(2_000);
    const pid = node.child.pid!;
    const { result, memory } = await memoryAround(pid, SETTLE_MS, async () => {
      // Made before the first send, which starts the submission worker.
      const cpu = new ThreadCpuTally(pid);
      await sendToNode(node, await signForNode(node, WARM_UP));
      runOnLiteSvm(peer, WARM_UP);
      const ours: Totals = { transfers: 0, seconds: 0 };
      const lite: Totals = { transfers: 0, seconds: 0 };
      let clientMicros = 0;
      for (let r = 0; r < ROUNDS; r++) {
        const nodeRound = async () => {
          const bodies = await signForNode(node, PER_ROUND);
          cpu.begin();
          const client = process.cpuUsage();
          const done = await sendToNode(node, bodies);
          const used = process.cpuUsage(client);
          clientMicros += used.user + used.system;
          cpu.end();
          ours.transfers += done.transfers;
          ours.seconds += done.seconds;
          return done;
        };
        const peerRound = () => {
          const done = runOnLiteSvm(peer, PER_ROUND);
          lite.transfers += done.transfers;
          lite.seconds += done.seconds;
          return done;
        };
        const peerFirst = r % 2 === 1;
        const peerEarly = peerFirst ? peerRound() : null;
        const nodeDone = await nodeRound();
        const peerDone = peerEarly ?? peerRound();
        console.log(`  round ${r + 1}${peerFirst ? ' (LiteSVM first)' : ''}: isthmus ${rate(nodeDone).toFixed(0)}/s, litesvm ${rate(peerDone).toFixed(0)}/s = ${(rate(nodeDone) / rate(peerDone)).toFixed(2)}x`);
      }
      console.log(`  isthmus: ${ours.transfers} transfers in ${ours.seconds.toFixed(2)} s = ${rate(ours).toFixed(0)} transfers/s`);
      console.log(`  isthmus: ${cpu.perItem(ours.transfers, 'transfer')} (load average ${os.loadavg()[0]!.toFixed(2)})`);
      // The submission worker starts with the first send (the warm-up's), so it is the thread that began after the node started.
      console.log(`  isthmus: ${cpu.perItemByThread(ours.transfers, 'transfer', 'submission worker')}`);
      if (ours.transfers) console.log(`  load client (this process, same machine): ${(clientMicros / ours.transfers).toFixed(0)} µs of CPU per transfer`);
      console.log(`  litesvm (in-process, no RPC): ${lite.transfers} transfers in ${lite.seconds.toFixed(2)} s = ${rate(lite).toFixed(0)} transfers/s`);
      return { ours: rate(ours), lite: rate(lite) };
    });
    console.log(`  isthmus: RSS idle ${formatResident(memory.idle)}, peak under load ${formatResident(memory.peak)}, ${SETTLE_MS / 1000} s after the load ${formatResident(memory.settled)}`);
    return { ...result, memory };
  } finally {
    await node.stop();
  }
}

/** The request bodies of `count` transfers, signed with a fresh blockhash (one for all rounds could outlive its 150 slots on a slow machine). */
async function signForNode(node: NodeProcess, count: number): Promise<string[]> {
  const { value } = await rpcCall(node.rpcUrl, 'getLatestBlockhash', [{ commitment: 'finalized' }]);
  const wires = presignTransfers({ payers: [node.faucet], blockhash: value.blockhash, count });
  return wires.map((w, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'sendTransaction', params: [Buffer.from(w).toString('base64'), { encoding: 'base64' }] }));
}

/** The transfers sent until every one is processed. */
async function sendToNode(node: NodeProcess, bodies: string[]): Promise<Totals> {
  const base: number = await rpcCall(node.rpcUrl, 'getTransactionCount', [{ commitment: 'processed' }]);
  const start = performance.now();
  const load = await postRaw(node.rpcUrl, bodies, CONCURRENCY);
  if (load.errors) console.log(`  isthmus: ${load.errors} sends failed, first: ${load.firstError}`);
  for (;;) {
    const n: number = await rpcCall(node.rpcUrl, 'getTransactionCount', [{ commitment: 'processed' }]);
    if (n - base >= load.ok) break;
    await sleep(5);
  }
  return { transfers: load.ok, seconds: (performance.now() - start) / 1000 };
}

/** `count` transfers signed, then run in-process and timed. */
function runOnLiteSvm(peer: LiteSvmPeer, count: number): Totals {
  const wires = presignTransfers({ payers: [peer.payer], blockhash: peer.blockhash, count });
  const { seconds, failed } = peer.timed(wires);
  if (failed) console.log(`  litesvm: ${failed} of ${count} transfers failed`);
  return { transfers: wires.length - failed, seconds };
}

async function benchGanache(): Promise<number> {
  const { Wallet, Mnemonic, HDNodeWallet } = await import('ethers');
  const port = await freePort();
  const mnemonic = 'test test test test test test test test test test test junk';
  const cli = path.join(import.meta.dirname, '../node_modules/ganache/dist/node/cli.js');
  const child = spawn(process.execPath, [cli, '--port', String(port), '--wallet.mnemonic', mnemonic, '--logging.quiet', '--chain.chainId', '1337'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForEthNode(url, 'ganache');
    const sender = HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(mnemonic), "m/44'/60'/0'/0/0");
    const wallet = new Wallet(sender.privateKey);
    const raws: string[] = [];
    for (let nonce = 0; nonce < PEER_COUNT; nonce++) {
      raws.push(await wallet.signTransaction({ to: Wallet.createRandom().address, value: 1n, nonce, gasLimit: 21000n, gasPrice: 2_000_000_000n, chainId: 1337n, type: 0 }));
    }
    const bodies = raws.map((r, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [r] }));
    const start = performance.now();
    const load = await postConcurrently(url, bodies, CONCURRENCY);
    for (;;) {
      const n = Number(await rpcCall(url, 'eth_getTransactionCount', [wallet.address, 'latest']));
      if (n >= load.ok) break;
      await sleep(5);
    }
    const seconds = (performance.now() - start) / 1000;
    const rate = load.ok / seconds;
    console.log(`  ganache (ETH transfers over HTTP): ${load.ok} transfers in ${seconds.toFixed(2)} s = ${rate.toFixed(0)} transfers/s`);
    return rate;
  } finally {
    child.kill('SIGKILL');
  }
}

console.log(`native-transfers: ${PER_ROUND * ROUNDS} pre-signed transfers in ${ROUNDS} rounds alternating with LiteSVM's after ${WARM_UP} of each unmeasured, ${CONCURRENCY} requests in flight`);
const { ours, lite, memory } = await benchAlternating();
const ganache = await benchGanache();
console.log('');
console.log(`isthmus            ${ours.toFixed(0)} transfers/s (goal: at least 3,000)`);
console.log(`vs litesvm         ${(ours / lite).toFixed(2)}x (litesvm ${lite.toFixed(0)}/s in-process)`);
headline({ bench: 'native-transfers', figure: 'native transfers over HTTP', value: ours, unit: '/s', peer: { name: 'LiteSVM in-process', value: lite }, goal: '≥ 0.45x LiteSVM' });
headline({ bench: 'native-transfers', figure: 'transfers over HTTP vs ganache', value: ours, unit: '/s', peer: { name: 'ganache (ETH)', value: ganache } });
console.log(`vs ganache         ${(ours / ganache).toFixed(2)}x (ganache ${ganache.toFixed(0)}/s over HTTP)`);
console.log(memoryGoalLines(memory).map((line, i) => `${i === 0 ? 'memory (RSS)      ' : '                  '} ${line}`).join('\n'));
memoryHeadlines('native-transfers', memory);
