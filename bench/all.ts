/**
 * npm run bench: every benchmark in one go, one after another (each starts its own node and its
 * peers), then one table of their headline figures with the peers' from the same runs.
 *
 *   npm run bench [-- --only evm,native-transfers] [-- --quick]
 *
 * --quick runs each benchmark with smaller counts (a smoke run, not figures for the README).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readHeadlines } from './lib/headline.ts';

const BENCHES: Array<{ name: string; quick: string[] }> = [
  { name: 'native-transfers', quick: ['--count', '2000'] },
  { name: 'rpc-reads', quick: ['--count', '5000'] },
  { name: 'evm', quick: ['--transfers', '1000', '--reads', '3000'] },
  { name: 'tokens', quick: ['--count', '1000'] },
  { name: 'lookup-tables', quick: ['--count', '1000'] },
  { name: 'programs', quick: ['--count', '1000'] },
  { name: 'precompiles', quick: [] },
  { name: 'pubsub', quick: ['--seconds', '5'] },
  { name: 'explorer', quick: ['--runs', '2'] },
  { name: 'snapshots', quick: [] },
  { name: 'ledger-growth', quick: [] },
  { name: 'evm-trace', quick: ['--runs', '2'] },
];

const { values } = parseArgs({ options: { only: { type: 'string' }, quick: { type: 'boolean', default: false } } });
const only = values.only?.split(',');
const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-bench-all-')), 'headlines.jsonl');
const failed: string[] = [];
const started = Date.now();

for (const b of BENCHES.filter((b) => !only || only.includes(b.name))) {
  console.log(`\n=== bench:${b.name}`);
  const script = path.join(import.meta.dirname, `${b.name}.ts`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...(values.quick ? b.quick : [])], { stdio: 'inherit', env: { ...process.env, BENCH_HEADLINES: file } });
  if (r.status !== 0) failed.push(`${b.name} (exit ${r.status ?? r.signal})`);
}

const rows = readHeadlines(file);
const fmt = (v: number, unit: string) => `${v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(v >= 10 ? 1 : 2)} ${unit}`;
const table = [
  ['bench', 'figure', 'Isthmus', 'peer, same run', 'ratio', 'goal'],
  ...rows.map((h) => [h.bench, h.figure, fmt(h.value, h.unit), h.peer ? `${h.peer.name} ${fmt(h.peer.value, h.unit)}` : '', h.peer ? `${(h.value / h.peer.value).toFixed(2)}x` : '', h.goal ?? '']),
];
const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
console.log(`\nnpm run bench: ${rows.length} figures in ${((Date.now() - started) / 60_000).toFixed(1)} min on ${os.cpus().length} cores (load average at the end ${os.loadavg()[0]!.toFixed(1)})\n`);
for (const [i, row] of table.entries()) {
  console.log(row.map((c, j) => c.padEnd(widths[j]!)).join('  ').trimEnd());
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
if (failed.length) {
  console.log(`\nfailed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
