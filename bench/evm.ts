/**
 * bench/evm: the EVM space beside Anvil (Foundry's dev node, started by this script) in one run.
 *  - transfers: pre-signed value transfers through eth_sendRawTransaction, 32 in flight, from 32
 *    senders, until every receipt exists (the senders' latest nonces account for all of them), after
 *    an unmeasured first burst of 500 on each server (its rate printed apart);
 *  - eth_call of a view function (the same call, then a different caller each time so that every call
 *    executes) and eth_getBalance: requests per second, 32 keep-alive connections spread over
 *    --clients load processes (http-load.ts's raw client), the node and Anvil taking turns (two rounds
 *    each, node, Anvil, Anvil, node), and a bare Node HTTP server answering a constant under the same
 *    client, to show the client is not the ceiling;
 *  - the ceilings: @ethereumjs/vm's runTx rate in-process (decode, sender recovery, execution) on this
 *    node's EVM machine, without RPC or the native chain; and the same machine's eth_call of Counter's
 *    view with a different caller each time, in-process (what eth_call costs before RPC and HTTP).
 *
 *   npm run bench:evm [-- --transfers N --reads N --clients N]
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createTxFromRLP } from '@ethereumjs/tx';
import { Address, bytesToHex, hexToBytes, privateToAddress } from '@ethereumjs/util';
import { Interface, Wallet } from 'ethers';
import { randomBytes } from 'node:crypto';
import { EvmMachine } from '../node-core/evm/machine.ts';
import { EvmBaseState, EvmChanges, LayeredState, newEvmAccount } from '../node-core/evm/state.ts';
import { deriveEvmKeys } from '../node-core/keys/evm-keys.ts';
import { followBlockArrivals, percentiles } from './lib/block-arrivals.ts';
import { counterDeployData, deployCounter } from './lib/evm-counter.ts';
import { postConcurrently, postFromProcesses, rpcCall } from './lib/http-load.ts';
import { freePort, startNodeProcess } from './lib/node-process.ts';
import { formatResident, memoryAround, memoryGoalLines, memoryHeadlines, type MemoryAround } from './lib/rss.ts';
import { headline } from './lib/headline.ts';
import { startAnvil } from './lib/anvil.ts';

const { values } = parseArgs({ options: { transfers: { type: 'string', default: '6000' }, reads: { type: 'string', default: '30000' }, concurrency: { type: 'string', default: '32' }, clients: { type: 'string', default: '2' } } });
const TRANSFERS = Number(values.transfers);
/** The unmeasured first burst on each server. */
const WARM_UP = Math.min(500, TRANSFERS);
const READS = Number(values.reads);
const CONCURRENCY = Number(values.concurrency);
const CLIENTS = Number(values.clients);
/** The read phases' load: spread over client processes so that the client is not what is measured. */
const readLoad = (url: string, bodies: string[]) => postFromProcesses(url, bodies, CONCURRENCY, CLIENTS);
const SENDERS = 32;
/** How long after the load the settled memory is read (issue 18: within 30% of idle a minute after a burst). */
const SETTLE_MS = 60_000;
const WORDS = 'test test test test test test test test test test test junk';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Figures {
  transfers: number;
  /** The unmeasured first burst's rate (on the node: its execution path not compiled yet). */
  cold: number;
  /** Send-to-receipt of the burst's transfers, ms: from the send being taken to its block being announced. */
  latency: { median: number; p90: number };
  /** Sends answered "txpool is full" and retried. */
  retries: number;
  call: number;
  /** eth_call with a different `from` each time: nothing a result cache could answer. */
  callDistinct: number;
  balance: number;
}

/** Funds SENDERS fresh keys from the dev account, waiting until they are funded. */
async function fundSenders(url: string, chainId: bigint, dev: Wallet): Promise<Wallet[]> {
  const senders = Array.from({ length: SENDERS }, () => Wallet.createRandom());
  let nonce = Number(await rpcCall(url, 'eth_getTransactionCount', [dev.address, 'pending']));
  const bodies = [];
  for (const s of senders) {
    const raw = await dev.signTransaction({ to: s.address, value: 10n ** 20n, nonce: nonce++, gasLimit: 21000n, maxFeePerGas: 20_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, chainId, type: 2 });
    bodies.push(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }));
  }
  const r = await postConcurrently(url, bodies, 1);
  if (r.errors) throw new Error(`funding failed: ${r.firstError}`);
  for (;;) {
    if (Number(await rpcCall(url, 'eth_getTransactionCount', [dev.address, 'latest'])) >= nonce) return senders as unknown as Wallet[];
    await sleep(20);
  }
}

/** A server under test: the node or Anvil, with what the phases set up on it. */
interface Target {
  name: string;
  url: string;
  chainId: bigint;
  dev: Wallet;
  /** The funded senders of the transfer burst (set by transfersOn). */
  senders: Wallet[];
  /** Each sender's next nonce (the bursts send the same count from each). */
  nextNonce: number;
  /** The Counter contract eth_call reads (set by deployReadTarget). */
  counter: string;
}

type Transfers = Pick<Figures, 'transfers' | 'latency' | 'retries'>;

function target(name: string, url: string, chainId: bigint): Target {
  return { name, url, chainId, dev: new Wallet(Buffer.from(deriveEvmKeys(WORDS, 1)[0]!.privateKey).toString('hex')), senders: [], nextNonce: 0, counter: '' };
}

/**
 * Transfers from the funded senders, nonces going on from the last burst's: `count` pre-signed before
 * the clock starts. Every transfer until its receipt exists, and each one's send-to-receipt time.
 */
async function burst(t: Target, count: number, label: string): Promise<Transfers> {
  const { name, url, chainId, senders } = t;
  const perSender = Math.ceil(count / SENDERS);
  const firstNonce = t.nextNonce;
  const raws: string[] = [];
  // A high fee cap: Anvil's base fee rises while its blocks are full, and a cap under it would strand transactions.
  for (let n = firstNonce; n < firstNonce + perSender; n++) {
    for (const s of senders) raws.push(await s.signTransaction({ to: bytesToHex(randomBytes(20)), value: 1n, nonce: n, gasLimit: 21000n, maxFeePerGas: 1_000_000_000_000n, maxPriorityFeePerGas: 0n, chainId, type: 2 }));
  }
  t.nextNonce += perSender;
  const bodies = raws.map((r, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [r] }));
  const arrivals = await followBlockArrivals(url);
  const taken = new Map<string, number>();
  const start = performance.now();
  const load = await postConcurrently(url, bodies, CONCURRENCY, {
    retryWhen: (answer) => answer.includes('txpool is full'),
    onAnswer: (_, answer, at) => {
      const hash = (JSON.parse(answer) as { result?: string }).result;
      if (hash) taken.set(hash, at);
    },
  });
  if (load.errors) console.log(`  ${name}: ${load.errors} sends failed, first: ${load.firstError}`);
  for (;;) {
    const nonces = await Promise.all(senders.map((s) => rpcCall(url, 'eth_getTransactionCount', [s.address, 'latest'])));
    if (nonces.every((n) => Number(n) >= t.nextNonce)) break;
    await sleep(10);
  }
  const seconds = (performance.now() - start) / 1000;
  const transfers = load.ok / seconds;
  while ([...taken.keys()].some((h) => !arrivals.seen.has(h))) await sleep(10);
  arrivals.close();
  const latency = percentiles([...taken].map(([hash, at]) => arrivals.seen.get(hash)! - at));
  console.log(`  ${name}, ${label}: ${load.ok} transfers in ${seconds.toFixed(2)} s (sent in ${load.seconds.toFixed(2)} s, ${load.retries} "txpool is full" retries) = ${transfers.toFixed(0)} transfers/s; send-to-receipt median ${latency.median.toFixed(0)} ms, p90 ${latency.p90.toFixed(0)} ms`);
  return { transfers, latency, retries: load.retries };
}

/**
 * The transfer phase on one server: its senders funded, an unmeasured first burst of WARM_UP
 * transfers (a fresh node's first EVM transactions also compile its execution path, on the core the
 * load needs; the other benches warm up as well, and Anvil gets the same), then the measured burst.
 */
async function transfersOn(t: Target): Promise<Transfers & Pick<Figures, 'cold'>> {
  t.senders = await fundSenders(t.url, t.chainId, t.dev);
  const cold = await burst(t, WARM_UP, `the first ${WARM_UP} (warm-up, not counted)`);
  return { ...(await burst(t, TRANSFERS, 'the burst')), cold: cold.transfers };
}

async function deployReadTarget(t: Target): Promise<void> {
  t.counter = await deployCounter(t.url, t.chainId, t.dev);
}

type ReadKind = 'call' | 'callDistinct' | 'balance';
const READ_LABEL: Record<ReadKind, string> = { call: 'eth_call', callDistinct: 'eth_call, a different caller each time', balance: 'eth_getBalance' };

/** One round of a read kind's requests; `round` keeps the distinct callers of different rounds apart. */
function readBodies(t: Target, kind: ReadKind, round: number, count: number): string[] {
  if (kind === 'balance') return Array(count).fill(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [t.senders[0]!.address, 'latest'] }));
  if (kind === 'call') return Array(count).fill(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: t.counter, data: '0x06661abd' }, 'latest'] }));
  return Array.from({ length: count }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ from: `0x${(round * count + i + 1).toString(16).padStart(40, '0')}`, to: t.counter, data: '0x06661abd' }, 'latest'] }));
}

/**
 * Each read kind in two rounds per server, in the order node, Anvil, Anvil, node: the machine's speed
 * drifts within minutes, and this order evens out a steady drift between the two. Requests per
 * second over each server's two rounds.
 */
async function readsAlternating(targets: Target[]): Promise<Map<string, Record<ReadKind, number>>> {
  const rates = new Map(targets.map((t) => [t.name, { call: 0, callDistinct: 0, balance: 0 }]));
  for (const kind of ['call', 'callDistinct', 'balance'] as const) {
    const count = (kind === 'balance' ? READS * 2 : READS) / 2;
    const totals = new Map(targets.map((t) => [t.name, { ok: 0, seconds: 0 }]));
    const order = [...targets, ...[...targets].reverse()];
    for (const [i, t] of order.entries()) {
      const round = i < targets.length ? 0 : 1;
      const r = await readLoad(t.url, readBodies(t, kind, round, count));
      if (r.errors) console.log(`  ${t.name}: ${r.errors} ${READ_LABEL[kind]} failed, first: ${r.firstError}`);
      const total = totals.get(t.name)!;
      total.ok += r.ok;
      total.seconds += r.seconds;
    }
    for (const t of targets) {
      const { ok, seconds } = totals.get(t.name)!;
      rates.get(t.name)![kind] = ok / seconds;
      console.log(`  ${t.name}: ${READ_LABEL[kind]} ${ok} in ${seconds.toFixed(2)} s = ${(ok / seconds).toFixed(0)} requests/s`);
    }
  }
  return rates;
}

/**
 * The node and Anvil side by side: the transfer burst on each (the node's first), then the reads in
 * alternating rounds. The node's memory is read around all of it: idle before, the peak during, and
 * a minute after its last phase.
 */
async function benchBoth(): Promise<{ ours: Figures & { memory: MemoryAround }; anvil: Figures | null }> {
  const node = await startNodeProcess(['--mnemonic', WORDS]);
  // Interval mining (a block a second, Anvil's default 30M gas): in automine mode Anvil strands
  // transactions that arrive out of nonce order from concurrent clients (they wait in its pool until
  // another transaction arrives), so a concurrent load never completes there.
  const anvil = await startAnvil(['--mnemonic', WORDS, '--balance', '1000000', '--block-time', '1']);
  try {
    const pid = node.child.pid!;
    await sleep(2_000);
    const ours = target('isthmus', node.evmRpcUrl, 5705n);
    const peer = anvil && target('anvil', anvil.url, 31337n);
    const { result, memory } = await memoryAround(pid, SETTLE_MS, async () => {
      const burst = { ours: await transfersOn(ours), anvil: peer && (await transfersOn(peer)) };
      const targets = peer ? [ours, peer] : [ours];
      for (const t of targets) await deployReadTarget(t);
      const reads = await readsAlternating(targets);
      return { ours: { ...burst.ours, ...reads.get('isthmus')! }, anvil: peer && burst.anvil ? { ...burst.anvil, ...reads.get('anvil')! } : null };
    });
    console.log(`  isthmus: RSS idle ${formatResident(memory.idle)}, peak under load ${formatResident(memory.peak)}, ${SETTLE_MS / 1000} s after the load ${formatResident(memory.settled)}`);
    return { ours: { ...result.ours, memory }, anvil: result.anvil };
  } finally {
    anvil?.stop();
    await node.stop();
  }
}

/** The client's ceiling: a bare Node HTTP server answering a constant, loaded as the nodes' eth_getBalance. */
async function benchBareServer(): Promise<number> {
  const port = await freePort();
  const bare = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'lib/bare-jsonrpc-server.ts'), String(port)], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    await new Promise((resolve) => bare.stdout!.once('data', resolve));
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [`0x${'1'.repeat(40)}`, 'latest'] });
    const r = await readLoad(`http://127.0.0.1:${port}`, Array(READS * 2).fill(body));
    const rate = r.ok / r.seconds;
    console.log(`  bare Node HTTP server (a constant answer): ${r.ok} in ${r.seconds.toFixed(2)} s = ${rate.toFixed(0)} requests/s`);
    return rate;
  } finally {
    bare.kill('SIGKILL');
  }
}

/** The ceiling: this node's EVM machine running transfers in-process (decode + recover + execute). */
async function benchRunTx(): Promise<number> {
  const machine = await EvmMachine.create(5705, async () => new Uint8Array(32));
  const base = new EvmBaseState();
  const keys = Array.from({ length: SENDERS }, () => randomBytes(32));
  for (const k of keys) base.accounts.set(bytesToHex(privateToAddress(k)), newEvmAccount(10n ** 24n));
  const raws: Uint8Array[] = [];
  for (let i = 0; i < TRANSFERS; i++) {
    const w = new Wallet(bytesToHex(keys[i % SENDERS]!));
    const signed = await w.signTransaction({ to: bytesToHex(randomBytes(20)), value: 1n, nonce: Math.floor(i / SENDERS), gasLimit: 21000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n, chainId: 5705n, type: 2 });
    raws.push(Buffer.from(signed.slice(2), 'hex'));
  }
  const slot = new EvmChanges();
  const view = new LayeredState([slot], base);
  const env = { number: 1n, timestamp: BigInt(Math.floor(Date.now() / 1000)), prevRandao: new Uint8Array(32), baseFeePerGas: 1_000_000_000n };
  const start = performance.now();
  for (const raw of raws) {
    const changes = new EvmChanges();
    const r = await machine.run({ tx: createTxFromRLP(raw, { common: machine.common }), env, below: view, changes, canCredit: () => false });
    if (r.execResult.exceptionError) throw new Error(String(r.execResult.exceptionError.error));
    slot.absorb(changes);
  }
  const rate = TRANSFERS / ((performance.now() - start) / 1000);
  console.log(`  @ethereumjs/vm runTx in-process: ${TRANSFERS} transfers = ${rate.toFixed(0)} transfers/s`);
  return rate;
}

/** eth_call's ceiling: Counter's count() on this node's EVM machine in-process, a different caller each time. */
async function benchCallCeiling(): Promise<number> {
  const machine = await EvmMachine.create(5705, async () => new Uint8Array(32));
  const base = new EvmBaseState();
  const key = randomBytes(32);
  base.accounts.set(bytesToHex(privateToAddress(key)), newEvmAccount(10n ** 24n));
  const env = { number: 1n, timestamp: BigInt(Math.floor(Date.now() / 1000)), prevRandao: new Uint8Array(32), baseFeePerGas: 1_000_000_000n };
  const deployed = new EvmChanges();
  const signed = await new Wallet(bytesToHex(key)).signTransaction({ data: counterDeployData(), nonce: 0, gasLimit: 2_000_000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n, chainId: 5705n, type: 2 });
  const created = await machine.run({ tx: createTxFromRLP(hexToBytes(signed as `0x${string}`), { common: machine.common }), env, below: base, changes: deployed, canCredit: () => false });
  if (!created.createdAddress) throw new Error('Counter was not deployed in-process');
  const view = new LayeredState([deployed], base);
  const data = hexToBytes(new Interface(['function count() view returns (uint256)']).encodeFunctionData('count') as `0x${string}`);
  const call = (i: number) =>
    machine.call({ caller: new Address(hexToBytes(`0x${(i + 1).toString(16).padStart(40, '0')}`)), to: created.createdAddress, data, value: 0n, gasLimit: 30_000_000n, gasPrice: 0n, env: { ...env, baseFeePerGas: 0n }, below: view, canCredit: () => false });
  for (let i = 0; i < 2_000; i++) await call(1_000_000 + i);
  const start = performance.now();
  for (let i = 0; i < READS; i++) {
    const r = await call(i);
    if (r.execResult.exceptionError) throw new Error(String(r.execResult.exceptionError.error));
  }
  const rate = READS / ((performance.now() - start) / 1000);
  console.log(`  @ethereumjs/evm runCall in-process (eth_call of count(), a different caller each time): ${READS} calls = ${rate.toFixed(0)} calls/s`);
  return rate;
}

console.log(`evm: ${TRANSFERS} pre-signed transfers from ${SENDERS} senders, ${READS} eth_call and ${READS * 2} eth_getBalance requests, ${CONCURRENCY} in flight (reads from ${CLIENTS} client processes)`);
const { ours, anvil } = await benchBoth();
const bareServer = await benchBareServer();
const ceiling = await benchRunTx();
const callCeiling = await benchCallCeiling();
const ratio = (a: number, b: number | undefined) => (b ? `${(a / b).toFixed(2)}x Anvil (${b.toFixed(0)}/s)` : 'no Anvil here');
console.log('');
console.log(`transfers        ${ours.transfers.toFixed(0)}/s = ${ratio(ours.transfers, anvil?.transfers)}; goal 1.0x; ceiling ${ceiling.toFixed(0)}/s (runTx in-process); the first ${WARM_UP} on a fresh node (not counted): ${ours.cold.toFixed(0)}/s${anvil ? ` (Anvil ${anvil.cold.toFixed(0)}/s)` : ''}`);
console.log(`send-to-receipt  median ${ours.latency.median.toFixed(0)} ms, p90 ${ours.latency.p90.toFixed(0)} ms during the burst${anvil ? ` (Anvil, a block a second: median ${anvil.latency.median.toFixed(0)} ms, p90 ${anvil.latency.p90.toFixed(0)} ms)` : ''}; goal: median within two slots`);
console.log(`eth_call         ${ours.call.toFixed(0)} requests/s = ${ratio(ours.call, anvil?.call)}; bar 0.25x (the same call: answered from the block's result cache after the second)`);
console.log(`eth_call (distinct) ${ours.callDistinct.toFixed(0)} requests/s = ${ratio(ours.callDistinct, anvil?.callDistinct)} (a different caller each time: every call executed); goal 0.3x; ceiling ${callCeiling.toFixed(0)}/s (the same call on the EVM machine in-process, no RPC)${anvil ? ` = ${(callCeiling / anvil.callDistinct).toFixed(2)}x Anvil` : ''}`);
console.log(`eth_getBalance   ${ours.balance.toFixed(0)} requests/s = ${ratio(ours.balance, anvil?.balance)}; bar 1x; the same client against a bare HTTP server: ${bareServer.toFixed(0)}/s`);
console.log(memoryGoalLines(ours.memory).map((line, i) => `${i === 0 ? 'memory (RSS)    ' : '                '} ${line}`).join('\n'));

const vsAnvil = (value: number | undefined) => (value === undefined ? undefined : { name: 'Anvil', value });
headline({ bench: 'evm', figure: 'EVM transfers (burst, until every receipt)', value: ours.transfers, unit: '/s', peer: vsAnvil(anvil?.transfers), goal: '≥ 1.0x Anvil' });
headline({ bench: 'evm', figure: 'EVM send-to-receipt median during the burst', value: ours.latency.median, unit: 'ms', peer: vsAnvil(anvil?.latency.median), goal: 'within two slots' });
headline({ bench: 'evm', figure: 'eth_call, a different caller each time', value: ours.callDistinct, unit: 'req/s', peer: vsAnvil(anvil?.callDistinct), goal: '≥ 0.3x Anvil' });
headline({ bench: 'evm', figure: 'eth_getBalance', value: ours.balance, unit: 'req/s', peer: vsAnvil(anvil?.balance), goal: '≥ 1.0x Anvil' });
memoryHeadlines('evm', ours.memory);
