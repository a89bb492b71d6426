/**
 * bench/rpc-reads: getBalance and eth_getBalance requests per second against a real `isthmus start`
 * process, beside a bare Node HTTP JSON-RPC server answering a constant (the transport ceiling), a
 * bare socket-level one (what one event loop answers at all, bench/lib/bare-socket-server.ts), Anvil and Ganache answering eth_getBalance, all driven the same way in the same run: keep-alive
 * HTTP, 32 requests in flight spread over --clients load processes (http-load.ts's raw client). The
 * node and Anvil take turns (two rounds each); the bare servers and Ganache run after them.
 *
 *   npm run bench:rpc-reads [-- --count N --concurrency C --clients N]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, startNodeProcess } from './lib/node-process.ts';
import { postFromProcesses, rpcCall } from './lib/http-load.ts';
import { headline } from './lib/headline.ts';
import { startAnvil } from './lib/anvil.ts';
import { threadCpu } from './lib/thread-cpu.ts';

const { values } = parseArgs({ options: { count: { type: 'string', default: '60000' }, concurrency: { type: 'string', default: '32' }, clients: { type: 'string', default: '2' } } });
const COUNT = Number(values.count);
const CONCURRENCY = Number(values.concurrency);
const CLIENTS = Number(values.clients);
/** The first dev account of Anvil's default mnemonic, and of Ganache's deterministic wallet. */
const ANVIL_ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const GANACHE_ACCOUNT = '0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU microseconds per request of each server measured, and of its load clients: where the machine's cores went. */
const cpuPerRequest: Array<{ label: string; server: number; clients: number }> = [];

/** What one round of requests gave: answered, seconds, and the CPU milliseconds of the server and of the load clients (null where not measured). */
interface Round {
  ok: number;
  seconds: number;
  serverMs: number | null;
  clientMs: number | null;
}

/** One round against the server at `url` (process `pid`), after 2,000 requests unmeasured. */
async function round(label: string, url: string, pid: number, body: (i: number) => string, count: number): Promise<Round> {
  await postFromProcesses(url, Array.from({ length: 2_000 }, (_, i) => body(i)), CONCURRENCY, CLIENTS);
  const before = threadCpu(pid);
  const r = await postFromProcesses(url, Array.from({ length: count }, (_, i) => body(i)), CONCURRENCY, CLIENTS);
  const after = threadCpu(pid);
  if (r.errors) throw new Error(`${label}: ${r.errors} errors, first: ${r.firstError}`);
  return { ok: r.ok, seconds: r.seconds, serverMs: before && after ? after.total - before.total : null, clientMs: r.clientCpuMs ?? null };
}

/** Requests per second over `rounds`, printed with the CPU each request cost the server and the load clients. */
function report(label: string, rounds: Round[]): number {
  const sum = (f: (r: Round) => number) => rounds.reduce((a, r) => a + f(r), 0);
  const ok = sum((r) => r.ok);
  const seconds = sum((r) => r.seconds);
  const rate = ok / seconds;
  let cpu = '';
  if (rounds.every((r) => r.serverMs !== null && r.clientMs !== null)) {
    const server = (sum((r) => r.serverMs!) * 1000) / ok;
    const clients = (sum((r) => r.clientMs!) * 1000) / ok;
    cpuPerRequest.push({ label, server, clients });
    cpu = `; CPU per request: server ${server.toFixed(1)} µs, load clients ${clients.toFixed(1)} µs`;
  }
  console.log(`  ${label}: ${ok} requests in ${seconds.toFixed(2)} s = ${rate.toFixed(0)} requests/s${cpu}`);
  return rate;
}

/** Requests per second of the server at `url` in one round of COUNT. */
async function measure(label: string, url: string, pid: number, body: (i: number) => string): Promise<number> {
  return report(label, [await round(label, url, pid, body, COUNT)]);
}

async function waitReady(child: ChildProcess, url: string, method: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await rpcCall(url, method);
      return;
    } catch {
      if (i > 300 || child.exitCode !== null) throw new Error(`${url} did not start`);
      await sleep(100);
    }
  }
}

console.log(`rpc-reads: ${COUNT} requests per server, ${CONCURRENCY} in flight from ${CLIENTS} client processes`);

// Anvil's mnemonic: the node's first EVM dev account is Anvil's, so both answer the same funded account.
const node = await startNodeProcess(['--mnemonic', 'test test test test test test test test test test test junk']);
const anvilProcess = await startAnvil();
let ours: number;
let oursEth: number;
let anvil: number | null = null;
// The node and Anvil take turns, two rounds each of COUNT / 2 (the node's getBalance and
// eth_getBalance, Anvil twice, the node's two again): the machine's speed drifts within minutes, and
// this order evens out a steady drift between them.
try {
  const half = Math.ceil(COUNT / 2);
  const pid = node.child.pid!;
  const address = node.faucet.address;
  const getBalance = (i: number) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'getBalance', params: [address] });
  const ethGetBalance = (i: number) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_getBalance', params: [ANVIL_ACCOUNT, 'latest'] });
  const native = [await round('isthmus getBalance', node.rpcUrl, pid, getBalance, half)];
  const eth = [await round('isthmus eth_getBalance', node.evmRpcUrl, pid, ethGetBalance, half)];
  const peer: Round[] = [];
  if (anvilProcess) for (let i = 0; i < 2; i++) peer.push(await round('anvil eth_getBalance', anvilProcess.url, anvilProcess.pid, ethGetBalance, half));
  eth.push(await round('isthmus eth_getBalance', node.evmRpcUrl, pid, ethGetBalance, half));
  native.push(await round('isthmus getBalance', node.rpcUrl, pid, getBalance, half));
  ours = report('isthmus getBalance', native);
  oursEth = report('isthmus eth_getBalance', eth);
  if (anvilProcess) anvil = report('anvil eth_getBalance', peer);
} finally {
  anvilProcess?.stop();
  await node.stop();
}

/** Runs a bare server script of bench/lib (PORT argument) and measures it answering getBalance with a constant. */
async function measureBareServer(label: string, script: string): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'lib', script), String(port)], { stdio: 'ignore' });
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitReady(child, url, 'getBalance');
    return await measure(label, url, child.pid!, (i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'getBalance', params: ['x'] }));
  } finally {
    child.kill('SIGKILL');
  }
}

const ceiling = await measureBareServer('bare Node JSON-RPC server (constant)', 'bare-jsonrpc-server.ts');
// The node reads its POSTs off the socket (transport/post-fast-path.ts), not through node:http: a bare
// server doing the same is what one event loop can answer at all under this client.
const socketCeiling = await measureBareServer('bare socket-level JSON-RPC server (constant, one event loop)', 'bare-socket-server.ts');

const ganachePort = await freePort();
const ganache = spawn(process.execPath, [path.join(import.meta.dirname, '../node_modules/ganache/dist/node/cli.js'), '--port', String(ganachePort), '--logging.quiet', '--wallet.deterministic'], { stdio: 'ignore' });
let peer: number;
try {
  const url = `http://127.0.0.1:${ganachePort}`;
  await waitReady(ganache, url, 'eth_blockNumber');
  peer = await measure('ganache eth_getBalance', url, ganache.pid!, (i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_getBalance', params: [GANACHE_ACCOUNT, 'latest'] }));
} finally {
  ganache.kill('SIGKILL');
}

console.log('');
console.log(`isthmus getBalance   ${ours.toFixed(0)} requests/s`);
console.log(`vs bare server       ${((ours / ceiling) * 100).toFixed(0)}% of the transport ceiling (goal: 60% or more; ceiling ${ceiling.toFixed(0)}/s)`);
headline({ bench: 'rpc-reads', figure: 'getBalance', value: ours, unit: 'req/s', peer: { name: 'bare HTTP server', value: ceiling }, goal: '≥ 60% of the bare server' });
console.log(`vs bare socket server ${((ours / socketCeiling) * 100).toFixed(0)}% of what one event loop answers at all (${socketCeiling.toFixed(0)}/s, a constant${anvil !== null ? `; that is ${(socketCeiling / anvil).toFixed(2)}x Anvil` : ''})`);
headline({ bench: 'rpc-reads', figure: 'getBalance vs ganache eth_getBalance', value: ours, unit: 'req/s', peer: { name: 'ganache', value: peer } });
console.log(`vs ganache           ${(ours / peer).toFixed(2)}x (ganache eth_getBalance ${peer.toFixed(0)}/s)`);
if (anvil !== null) {
  console.log(`vs anvil             getBalance ${(ours / anvil).toFixed(2)}x, eth_getBalance ${oursEth.toFixed(0)}/s = ${(oursEth / anvil).toFixed(2)}x (anvil eth_getBalance ${anvil.toFixed(0)}/s; goal 1.0x)`);
  headline({ bench: 'rpc-reads', figure: 'getBalance vs Anvil eth_getBalance', value: ours, unit: 'req/s', peer: { name: 'Anvil', value: anvil }, goal: '≥ 1.0x Anvil' });
  headline({ bench: 'rpc-reads', figure: 'eth_getBalance', value: oursEth, unit: 'req/s', peer: { name: 'Anvil', value: anvil }, goal: '≥ 1.0x Anvil' });
}

// With every core busy, a server's rate is bounded by the cores over what a request costs the server
// and its clients together: a second server thread could not pass that bound.
const cores = os.availableParallelism();
console.log('');
console.log(`CPU per request (µs; ${cores} cores, all shared by the server and its ${CLIENTS} load client processes):`);
for (const c of cpuPerRequest) {
  console.log(`  ${c.label.padEnd(62)} server ${c.server.toFixed(1).padStart(5)}  clients ${c.clients.toFixed(1).padStart(5)}  → at most ${((cores * 1e6) / (c.server + c.clients)).toFixed(0)}/s with every core busy`);
}
