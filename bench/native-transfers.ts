/**
 * bench/native-transfers: pre-signed System transfers sent over HTTP (sendTransaction, base64, with
 * preflight) at 32 requests in flight to a real `isthmus start` process; transfers per second until
 * every one is processed. Peers from the same run: LiteSVM (the same transfers executed in-process,
 * no RPC) and Ganache (pre-signed ETH transfers over HTTP, instamine), each as a ratio.
 *
 *   npm run bench:native-transfers [-- --count N --concurrency C]
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, startNodeProcess, type NodeProcess } from './lib/node-process.ts';
import { postConcurrently, postRaw, rpcCall, waitForEthNode } from './lib/http-load.ts';
import { presignTransfers } from './lib/transfers.ts';
import { liteSvmPeer } from './lib/litesvm.ts';
import { headline } from './lib/headline.ts';
import { cpuByThread, cpuPerItem, cpuPerItemByThread, threadCpu } from './lib/thread-cpu.ts';
import { formatResident, memoryAround, memoryGoalLines, memoryHeadlines, type MemoryAround } from './lib/rss.ts';

const { values } = parseArgs({ options: { count: { type: 'string', default: '20000' }, concurrency: { type: 'string', default: '32' }, 'peer-count': { type: 'string', default: '2000' }, 'settle-seconds': { type: 'string', default: '60' } } });
const COUNT = Number(values.count);
const CONCURRENCY = Number(values.concurrency);
const PEER_COUNT = Number(values['peer-count']);
/** How long after the load the settled memory is read (issue 18: within 30% of idle a minute after a burst). */
const SETTLE_MS = Number(values['settle-seconds']) * 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function benchIsthmus(): Promise<{ rate: number; memory: MemoryAround }> {
  const node = await startNodeProcess();
  try {
    await sleep(2_000);
    const { result: rate, memory } = await memoryAround(node.child.pid!, SETTLE_MS, () => transfers(node));
    console.log(`  isthmus: RSS idle ${formatResident(memory.idle)}, peak under load ${formatResident(memory.peak)}, ${SETTLE_MS / 1000} s after the load ${formatResident(memory.settled)}`);
    return { rate, memory };
  } finally {
    await node.stop();
  }
}

/** The transfers until every one is processed; transfers per second. */
async function transfers(node: NodeProcess): Promise<number> {
  const { value } = await rpcCall(node.rpcUrl, 'getLatestBlockhash', [{ commitment: 'finalized' }]);
  const wires = presignTransfers({ payers: [node.faucet], blockhash: value.blockhash, count: COUNT });
  const bodies = wires.map((w, i) =>
    JSON.stringify({ jsonrpc: '2.0', id: i, method: 'sendTransaction', params: [Buffer.from(w).toString('base64'), { encoding: 'base64' }] }),
  );
  const base: number = await rpcCall(node.rpcUrl, 'getTransactionCount', [{ commitment: 'processed' }]);
  const pid = node.child.pid!;
  const cpuBefore = threadCpu(pid);
  const threadsBefore = cpuByThread(pid);
  const clientBefore = process.cpuUsage();
  const start = performance.now();
  const load = await postRaw(node.rpcUrl, bodies, CONCURRENCY);
  if (load.errors) console.log(`  isthmus: ${load.errors} sends failed, first: ${load.firstError}`);
  for (;;) {
    const n: number = await rpcCall(node.rpcUrl, 'getTransactionCount', [{ commitment: 'processed' }]);
    if (n - base >= load.ok) break;
    await sleep(5);
  }
  const seconds = (performance.now() - start) / 1000;
  const cpuAfter = threadCpu(pid);
  const threadsAfter = cpuByThread(pid);
  const client = process.cpuUsage(clientBefore);
  const rate = load.ok / seconds;
  console.log(`  isthmus: ${load.ok} transfers in ${seconds.toFixed(2)} s (sent in ${load.seconds.toFixed(2)} s) = ${rate.toFixed(0)} transfers/s`);
  console.log(`  isthmus: ${cpuPerItem(cpuBefore, cpuAfter, load.ok, 'transfer')} (load average ${os.loadavg()[0]!.toFixed(2)})`);
  // The submission worker starts with the first send, so it is the thread that began during the load.
  console.log(`  isthmus: ${cpuPerItemByThread(pid, threadsBefore, threadsAfter, load.ok, 'transfer', 'submission worker')}`);
  if (load.ok) console.log(`  load client (this process, same machine): ${((client.user + client.system) / load.ok).toFixed(0)} µs of CPU per transfer`);
  return rate;
}

async function benchLiteSvm(): Promise<number> {
  const peer = await liteSvmPeer();
  const wires = presignTransfers({ payers: [peer.payer], blockhash: peer.blockhash, count: COUNT });
  const { seconds, failed } = peer.timed(wires);
  const rate = wires.length / seconds;
  console.log(`  litesvm (in-process, no RPC): ${wires.length} transfers in ${seconds.toFixed(2)} s = ${rate.toFixed(0)} transfers/s${failed ? ` (${failed} failed)` : ''}`);
  return rate;
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

console.log(`native-transfers: ${COUNT} pre-signed transfers, ${CONCURRENCY} requests in flight`);
const { rate: ours, memory } = await benchIsthmus();
const lite = await benchLiteSvm();
const ganache = await benchGanache();
console.log('');
console.log(`isthmus            ${ours.toFixed(0)} transfers/s (goal: at least 3,000)`);
console.log(`vs litesvm         ${(ours / lite).toFixed(2)}x (litesvm ${lite.toFixed(0)}/s in-process)`);
headline({ bench: 'native-transfers', figure: 'native transfers over HTTP', value: ours, unit: '/s', peer: { name: 'LiteSVM in-process', value: lite }, goal: '≥ 0.45x LiteSVM' });
headline({ bench: 'native-transfers', figure: 'transfers over HTTP vs ganache', value: ours, unit: '/s', peer: { name: 'ganache (ETH)', value: ganache } });
console.log(`vs ganache         ${(ours / ganache).toFixed(2)}x (ganache ${ganache.toFixed(0)}/s over HTTP)`);
console.log(memoryGoalLines(memory).map((line, i) => `${i === 0 ? 'memory (RSS)      ' : '                  '} ${line}`).join('\n'));
memoryHeadlines('native-transfers', memory);
