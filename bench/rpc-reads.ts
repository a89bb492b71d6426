/**
 * bench/rpc-reads: getBalance requests per second against a real `isthmus start` process, beside a
 * bare Node HTTP JSON-RPC server answering a constant (the transport ceiling) and Ganache answering
 * eth_getBalance, all driven the same way in the same run: keep-alive HTTP, 32 requests in flight.
 *
 *   npm run bench:rpc-reads [-- --count N --concurrency C]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, startNodeProcess } from './lib/node-process.ts';
import { postConcurrently, rpcCall } from './lib/http-load.ts';
import { headline } from './lib/headline.ts';

const { values } = parseArgs({ options: { count: { type: 'string', default: '60000' }, concurrency: { type: 'string', default: '32' } } });
const COUNT = Number(values.count);
const CONCURRENCY = Number(values.concurrency);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(label: string, url: string, body: (i: number) => string): Promise<number> {
  // Warm up connections and JIT, then measure.
  await postConcurrently(url, Array.from({ length: 2_000 }, (_, i) => body(i)), CONCURRENCY);
  const r = await postConcurrently(url, Array.from({ length: COUNT }, (_, i) => body(i)), CONCURRENCY);
  if (r.errors) throw new Error(`${label}: ${r.errors} errors, first: ${r.firstError}`);
  const rate = r.ok / r.seconds;
  console.log(`  ${label}: ${r.ok} requests in ${r.seconds.toFixed(2)} s = ${rate.toFixed(0)} requests/s`);
  return rate;
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

console.log(`rpc-reads: ${COUNT} requests per server, ${CONCURRENCY} in flight`);

const node = await startNodeProcess();
let ours: number;
try {
  const address = node.faucet.address;
  ours = await measure('isthmus getBalance', node.rpcUrl, (i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'getBalance', params: [address] }));
} finally {
  await node.stop();
}

const barePort = await freePort();
const bare = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'lib/bare-jsonrpc-server.ts'), String(barePort)], { stdio: 'ignore' });
let ceiling: number;
try {
  const url = `http://127.0.0.1:${barePort}`;
  await waitReady(bare, url, 'getBalance');
  ceiling = await measure('bare Node JSON-RPC server (constant)', url, (i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'getBalance', params: ['x'] }));
} finally {
  bare.kill('SIGKILL');
}

const ganachePort = await freePort();
const ganache = spawn(process.execPath, [path.join(import.meta.dirname, '../node_modules/ganache/dist/node/cli.js'), '--port', String(ganachePort), '--logging.quiet', '--wallet.deterministic'], { stdio: 'ignore' });
let peer: number;
try {
  const url = `http://127.0.0.1:${ganachePort}`;
  await waitReady(ganache, url, 'eth_blockNumber');
  const account = '0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1';
  peer = await measure('ganache eth_getBalance', url, (i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_getBalance', params: [account, 'latest'] }));
} finally {
  ganache.kill('SIGKILL');
}

console.log('');
console.log(`isthmus getBalance   ${ours.toFixed(0)} requests/s`);
console.log(`vs bare server       ${((ours / ceiling) * 100).toFixed(0)}% of the transport ceiling (goal: 60% or more; ceiling ${ceiling.toFixed(0)}/s)`);
headline({ bench: 'rpc-reads', figure: 'getBalance', value: ours, unit: 'req/s', peer: { name: 'bare HTTP server', value: ceiling }, goal: '≥ 60% of the bare server' });
headline({ bench: 'rpc-reads', figure: 'getBalance vs ganache eth_getBalance', value: ours, unit: 'req/s', peer: { name: 'ganache', value: peer } });
console.log(`vs ganache           ${(ours / peer).toFixed(2)}x (ganache eth_getBalance ${peer.toFixed(0)}/s)`);
