/** Helpers for EVM tests: Solidity compiled in the test with solc from npm, Foundry's binaries. */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Compiled {
  abi: unknown[];
  bytecode: `0x${string}`;
}

/** Compiles a fixture from test/fixtures with solc's defaults (its default EVM version included). */
export function compileFixture(file: string, contract: string): Compiled {
  const solc = require('solc') as { compile(input: string): string };
  const source = fs.readFileSync(path.join(ROOT, 'test/fixtures', file), 'utf8');
  const output = JSON.parse(
    solc.compile(JSON.stringify({ language: 'Solidity', sources: { [file]: { content: source } }, settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } })),
  );
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  const c = output.contracts[file][contract];
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}

/** The path of a Foundry binary shipped in npm (cast, anvil), or null on platforms it does not ship for. */
export function foundryBinary(name: 'cast' | 'anvil'): string | null {
  const bin = path.join(ROOT, 'node_modules', '@foundry-rs', `${name}-linux-amd64`, 'bin', name);
  return fs.existsSync(bin) ? bin : null;
}

/** A note long enough that Counter's deployment does not fit one native packet. */
export const LONG_NOTE = 'Isthmus '.repeat(200);

export interface RunningAnvil {
  url: string;
  stop(): void;
}

/**
 * Starts Anvil on a free port with `args` (its dev accounts from `--mnemonic` there), once it answers
 * eth_blockNumber; null where npm ships no Anvil for this platform.
 */
export async function startAnvil(args: string[]): Promise<RunningAnvil | null> {
  const bin = foundryBinary('anvil');
  if (!bin) return null;
  const { spawn } = await import('node:child_process');
  const { freePorts } = await import('./cli-process.ts');
  const [port] = await freePorts(1);
  const child = spawn(bin, ['--port', String(port), '--silent', ...args], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const stop = () => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  const end = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) });
      if (res.ok) return { url, stop };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > end) {
      stop();
      throw new Error(`anvil did not start (exit code ${child.exitCode})`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
