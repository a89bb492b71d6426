/**
 * The layer rules (.dependency-cruiser.cjs, run by `npm run check:layers`) can fail: each forbidden
 * arrow, written into a scratch tree shaped like the project, is reported under its rule's name, and
 * the same tree without it passes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');

/** A tree of files (path → source) beside the project's rules and tsconfig. */
function scratchTree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-layers-'));
  fs.copyFileSync(path.join(ROOT, '.dependency-cruiser.cjs'), path.join(dir, '.dependency-cruiser.cjs'));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowImportingTsExtensions: true, noEmit: true } }));
  for (const [file, source] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), source);
  }
  return dir;
}

/** The names of the rules the tree breaks. */
async function violations(dir: string): Promise<string[]> {
  const run = promisify(execFile);
  const out = await run(DEPCRUISE, ['--config', '.dependency-cruiser.cjs', '--output-type', 'json', 'node-core', 'renderer'], { cwd: dir }).catch((e: { stdout?: string }) => {
    if (typeof e.stdout !== 'string' || e.stdout === '') throw e;
    return { stdout: e.stdout };
  });
  const report = JSON.parse(out.stdout) as { summary: { violations: Array<{ rule: { name: string } }> } };
  return report.summary.violations.map((v) => v.rule.name).sort();
}

const CLEAN: Record<string, string> = {
  'node-core/common/bytes.ts': 'export const one = 1;\n',
  'node-core/ledger/chain.ts': "import { one } from '../common/bytes.ts';\nexport const chain = one;\n",
  'node-core/evm/space.ts': "import { chain } from '../ledger/chain.ts';\nexport const space = chain;\n",
  'node-core/store/store.ts': 'export interface Store { get(): unknown }\n',
  'node-core/store/lmdb-codec.ts': 'export const codec = 1;\n',
  'node-core/transport/http-server.ts': "import { one } from '../common/bytes.ts';\nexport const http = one;\n",
  'node-core/node/start.ts': "import { space } from '../evm/space.ts';\nimport { http } from '../transport/http-server.ts';\nexport const start = space + http;\n",
  'renderer/src/lib/rpc.ts': 'export const rpc = 1;\n',
};

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const tree = (extra: Record<string, string>) => {
  const dir = scratchTree({ ...CLEAN, ...extra });
  dirs.push(dir);
  return dir;
};

// Each case runs depcruise (a few seconds); they run side by side.
describe('layer rules', { concurrency: true }, () => {
  test('a tree that keeps the rules passes', async () => {
    assert.deepEqual(await violations(tree({})), []);
  });

  test("ledger/ importing from evm/ breaks the ledger's layer", async () => {
    const dir = tree({ 'node-core/ledger/genesis.ts': "import { space } from '../evm/space.ts';\nexport const g = space;\n" });
    assert.deepEqual(await violations(dir), ['layer-ledger']);
  });

  test('a type-only import is an arrow too', async () => {
    const dir = tree({ 'node-core/common/types.ts': "import type { Store } from '../store/store.ts';\nexport type S = Store;\n" });
    assert.deepEqual(await violations(dir), ['layer-common']);
  });

  test('transport/ imports nothing of the chain', async () => {
    const dir = tree({ 'node-core/transport/websocket.ts': "import { chain } from '../ledger/chain.ts';\nexport const ws = chain;\n" });
    assert.deepEqual(await violations(dir), ['transport-knows-no-chain']);
  });

  test("a backend's codec stays in store/", async () => {
    const dir = tree({ 'node-core/evm/records.ts': "import { codec } from '../store/lmdb-codec.ts';\nexport const r = codec;\n" });
    assert.deepEqual(await violations(dir), ['lmdb-codec-stays-in-store', 'store-backends-stay-in-store']);
  });

  test('the renderer talks to a node only over RPC', async () => {
    const dir = tree({ 'renderer/src/lib/evm.ts': "import { space } from '../../../node-core/evm/space.ts';\nexport const e = space;\n" });
    assert.deepEqual(await violations(dir), ['renderer-talks-over-rpc']);
  });

  test('a cycle within one layer is refused', async () => {
    const dir = tree({
      'node-core/rpc/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
      'node-core/rpc/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
    });
    assert.deepEqual(await violations(dir), ['no-circular']);
  });
});
