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
