/**
 * bench/evm-call: only bench:evm's executed eth_call phase (a view function, a different caller each
 * time so that no result cache answers), for profiling and for A/B runs of two builds of the node.
 * Each round starts each build's node in turn (and Anvil with --anvil), deploys Counter, warms up,
 * then measures; the builds alternate so that a busy machine weighs on both alike.
 *
 *   node --import tsx bench/evm-call.ts [--reads N --rounds N --clients N --anvil --bundle dist/base/isthmus.mjs --cpu-prof DIR --perf DIR --node-arg FLAG]
 *
 * --bundle names another compiled node (a copy of dist/cli built from another commit, kept two
 * folders below the project root as dist/cli is); the current sources' bundle always runs too.
 * --cpu-prof writes the node processes' V8 CPU profiles to DIR (wall-clock samples: time the node
 * waits off the CPU, preempted inside a socket write, shows as that write's). --perf records on-CPU
 * samples with Linux perf instead (`perf record -g` of the node, run with --perf-basic-prof, during
 * the distinct-caller and the eth_getBalance phases; read them with `perf report` or `perf script`).
 * --node-arg passes a flag to the node processes (repeatable), e.g. --node-arg=--trace-gc.
 * Beside each rate it prints the CPU time the serving process spent per call (Linux: /proc), a
 * steadier figure for A/B than the rate when other work shares the machine, and, in brackets, the
 * rate of one call repeated (answered from the result cache: never the headline). Last, eth_getBalance
 * of a different address each time, with its CPU per request: the floor of the same HTTP and
 * JSON-RPC path, so that what an eth_call costs beyond it is plain.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Wallet } from 'ethers';
import { BUNDLE } from '../bin/cli-bundle.mjs';
import { deriveEvmKeys } from '../node-core/keys/evm-keys.ts';
import { foundryBinary } from '../test/helpers/evm.ts';
import { deployCounter } from './lib/evm-counter.ts';
import { postFromProcesses, waitForEthNode } from './lib/http-load.ts';
import { ensureFreshBundle, freePort, whenReady } from './lib/node-process.ts';
import { freePorts } from '../test/helpers/cli-process.ts';
import { threadCpu, type ThreadCpu } from './lib/thread-cpu.ts';

const { values } = parseArgs({
  options: {
    reads: { type: 'string', default: '30000' },
    rounds: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '32' },
    clients: { type: 'string', default: '2' },
    anvil: { type: 'boolean', default: false },
    bundle: { type: 'string' },
    'cpu-prof': { type: 'string' },
    perf: { type: 'string' },
    'node-arg': { type: 'string', multiple: true },
  },
});
const READS = Number(values.reads);
const CONCURRENCY = Number(values.concurrency);
const WORDS = 'test test test test test test test test test test test junk';

interface Running {
  url: string;
  pid?: number;
  stop(): Promise<void>;
}

async function startBundle(bundle: string): Promise<Running> {
  const ledger = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-bench-call-'));
  const [rpcPort, pubsubPort, evmPort] = await freePorts(3);
  const args = ['start', '--ledger', ledger, '--rpc-port', String(rpcPort), '--rpc-pubsub-port', String(pubsubPort), '--evm-rpc-port', String(evmPort), '--mnemonic', WORDS];
  const prof = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(values['cpu-prof'])] : [];
  const runner = `const { main } = await import(${JSON.stringify(pathToFileURL(bundle).href)}); process.exitCode = await main(process.argv.slice(1));`;
  const perf = values.perf ? ['--perf-basic-prof'] : [];
  const child: ChildProcess = spawn(process.execPath, [...prof, ...perf, ...(values['node-arg'] ?? []), '--input-type=module', '-e', runner, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  await whenReady(child);
  return {
    url: `http://127.0.0.1:${evmPort}`,
    pid: child.pid,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
      fs.rmSync(ledger, { recursive: true, force: true });
    },
  };
}

async function startAnvil(): Promise<Running | null> {
  const anvil = foundryBinary('anvil');
  if (!anvil) return null;
  const port = await freePort();
  const child = spawn(anvil, ['--port', String(port), '--silent', '--mnemonic', WORDS, '--block-time', '1'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitForEthNode(url, 'anvil');
  return { url, pid: child.pid, stop: async () => void child.kill('SIGKILL') };
}

/** `perf record` of the serving process (all its threads, on-CPU samples only) while one phase's requests run (node runs with --perf-basic-prof). */
function startPerf(pid: number, name: string, phase: string): { stop(): Promise<void> } {
  const dir = path.resolve(values.perf!);
  fs.mkdirSync(dir, { recursive: true });
  const out = path.join(dir, `${path.basename(name)}-${pid}-${phase}.data`);
  const child = spawn('perf', ['record', '-q', '-F', '999', '-g', '-e', 'cpu-clock', '-o', out, '-p', String(pid)], { stdio: 'ignore' });
  return {
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
    },
  };
}

/** Distinct-caller eth_call bodies; callers start at `first` so that no two runs share one (`same`: every call from `first`, which a result cache answers). */
const callBodies = (address: string, count: number, first: number, same = false) =>
  Array.from({ length: count }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ from: `0x${(same ? first : first + i).toString(16).padStart(40, '0')}`, to: address, data: '0x06661abd' }, 'latest'] }));

/** eth_getBalance of a different address each time: the same HTTP and JSON-RPC path with next to nothing behind it. */
const balanceBodies = (count: number) => Array.from({ length: count }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [`0x${(3_000_000 + i).toString(16).padStart(40, '0')}`, 'latest'] }));

/** The rate of the requests, and the CPU the serving process spent per request (total, and of it in the kernel). */
async function load(running: Running, bodies: string[]): Promise<{ rate: number; cpuMicros: number | null; systemMicros: number | null; mainMicros: number | null }> {
  const cpu = () => (running.pid === undefined ? null : threadCpu(running.pid));
  const before = cpu();
  const r = await postFromProcesses(running.url, bodies, CONCURRENCY, Number(values.clients));
  const after = cpu();
  if (r.errors) throw new Error(`${r.errors} requests failed, first: ${r.firstError}`);
  const per = (f: (c: ThreadCpu) => number) => (before === null || after === null ? null : ((f(after) - f(before)) * 1000) / bodies.length);
  return { rate: r.ok / r.seconds, cpuMicros: per((c) => c.total), systemMicros: per((c) => c.system), mainMicros: per((c) => c.main) };
}

const cpuText = (m: { cpuMicros: number | null; systemMicros: number | null; mainMicros: number | null }, what: string) =>
  m.cpuMicros === null ? '' : `, ${m.cpuMicros.toFixed(0)} µs of its CPU per ${what} (${m.systemMicros!.toFixed(0)} µs of it in the kernel, ${m.mainMicros!.toFixed(0)} µs on the main thread)`;

async function measure(name: string, start: () => Promise<Running | null>, chainId: bigint): Promise<{ rate: number; cpuMicros: number | null; cached: number; balanceCpuMicros: number | null } | null> {
  const running = await start();
  if (!running) return null;
  try {
    const address = await deployCounter(running.url, chainId, new Wallet(Buffer.from(deriveEvmKeys(WORDS, 1)[0]!.privateKey).toString('hex')));
    await load(running, callBodies(address, Math.min(3000, READS), 1_000_000));
    const recording = values.perf && running.pid !== undefined ? startPerf(running.pid, name, 'call') : null;
    const calls = await load(running, callBodies(address, READS, 1));
    await recording?.stop();
    console.log(`  ${name}: eth_call, a different caller each time: ${calls.rate.toFixed(0)}/s${cpuText(calls, 'call')}`);
    const cached = await load(running, callBodies(address, READS, 2_000_000, true));
    console.log(`  ${name}: (the same call each time, from the result cache: ${cached.rate.toFixed(0)}/s)`);
    const balanceRecording = values.perf && running.pid !== undefined ? startPerf(running.pid, name, 'balance') : null;
    const balances = await load(running, balanceBodies(READS));
    await balanceRecording?.stop();
    console.log(`  ${name}: eth_getBalance, a different address each time (the same path's floor): ${balances.rate.toFixed(0)}/s${cpuText(balances, 'request')}`);
    return { rate: calls.rate, cpuMicros: calls.cpuMicros, cached: cached.rate, balanceCpuMicros: balances.cpuMicros };
  } finally {
    await running.stop();
  }
}

await ensureFreshBundle();
const builds: [string, string][] = [['current', BUNDLE]];
if (values.bundle) builds.unshift([values.bundle, path.resolve(values.bundle)]);
const figures = new Map<string, number[]>();
const cpu = new Map<string, number[]>();
const cachedFigures = new Map<string, number[]>();
const balanceCpu = new Map<string, number[]>();
const note = (name: string, m: { rate: number; cpuMicros: number | null; cached: number; balanceCpuMicros: number | null }) => {
  if (m.balanceCpuMicros !== null) balanceCpu.set(name, [...(balanceCpu.get(name) ?? []), m.balanceCpuMicros]);
  figures.set(name, [...(figures.get(name) ?? []), m.rate]);
  cachedFigures.set(name, [...(cachedFigures.get(name) ?? []), m.cached]);
  if (m.cpuMicros !== null) cpu.set(name, [...(cpu.get(name) ?? []), m.cpuMicros]);
};
const loadAverage = () => os.loadavg()[0]!.toFixed(1);
for (let round = 1; round <= Number(values.rounds); round++) {
  console.log(`round ${round} (load ${loadAverage()})`);
  const order = round % 2 === 1 ? builds : [...builds].reverse();
  for (const [name, bundle] of order) {
    note(name, (await measure(name, () => startBundle(bundle), 5705n))!);
  }
  if (values.anvil) {
    const m = await measure('anvil', startAnvil, 31337n);
    if (m !== null) note('anvil', m);
  }
}
console.log(`\nload now ${loadAverage()}`);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const anvil = figures.get('anvil');
for (const [name, xs] of figures) {
  const ratio = anvil && name !== 'anvil' ? ` = ${(median(xs) / median(anvil)).toFixed(2)}x Anvil (median)` : '';
  const micros = cpu.get(name);
  const perCall = micros ? `; CPU per call ${micros.map((x) => x.toFixed(0)).join(', ')} µs, median ${median(micros).toFixed(0)}` : '';
  const cached = cachedFigures.get(name)!;
  const balance = balanceCpu.get(name);
  const floor = balance ? `; eth_getBalance CPU per request median ${median(balance).toFixed(0)} µs` : '';
  console.log(`${name.padEnd(24)} ${xs.map((x) => x.toFixed(0)).join(', ')} /s; median ${median(xs).toFixed(0)}${ratio}${perCall}${floor}; (same call, cached: median ${median(cached).toFixed(0)}/s)`);
}
