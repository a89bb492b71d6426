/** Runs the real `isthmus start` command in a child process, as a user would, for benchmarks. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildBundle, freshBundle } from '../../bin/cli-bundle.mjs';
import { readKeypairFile, type Keypair } from '../../node-core/keys/keypair.ts';
import { freePorts } from '../../test/helpers/cli-process.ts';

export interface NodeProcess {
  rpcUrl: string;
  /** The Ethereum JSON-RPC endpoint. */
  evmRpcUrl: string;
  ledger: string;
  faucet: Keypair;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** One port that was free a moment ago (several for one process: freePorts, so that they differ). */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/** Benchmarks measure the command users run: the compiled bundle, built first when stale. */
export async function ensureFreshBundle(): Promise<void> {
  if (!freshBundle()) await buildBundle();
}

/** Resolves once the started node says it serves (its stdout piped); rejects if it exits first. */
export function whenReady(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Press Ctrl-C')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`isthmus exited with code ${code} before it was ready`)));
  });
}

/** ISTHMUS_BENCH_NODE_FLAGS: flags for the node's own process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (NODE_OPTIONS refuses those). */
function nodeFlags(): string[] {
  return (process.env.ISTHMUS_BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
}

export async function startNodeProcess(extraArgs: string[] = []): Promise<NodeProcess> {
  await ensureFreshBundle();
  const ledger = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-bench-'));
  // Held open together, so the three differ (one at a time the OS may hand out the same port twice).
  const [port, pubsubPort, evmPort] = await freePorts(3);
  const bin = path.join(import.meta.dirname, '../../bin/isthmus.js');
  const child = spawn(process.execPath, [...nodeFlags(), bin, 'start', '--ledger', ledger, '--rpc-port', String(port), '--rpc-pubsub-port', String(pubsubPort), '--evm-rpc-port', String(evmPort), ...extraArgs], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await whenReady(child);
  return {
    rpcUrl: `http://127.0.0.1:${port}`,
    evmRpcUrl: `http://127.0.0.1:${evmPort}`,
    ledger,
    faucet: readKeypairFile(path.join(ledger, 'faucet-keypair.json')),
    child,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
      fs.rmSync(ledger, { recursive: true, force: true });
    },
  };
}
