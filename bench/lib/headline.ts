/**
 * A benchmark's headline figures, printed as a line and, when `npm run bench` runs it
 * (BENCH_HEADLINES names a file), appended to that file for the one table bench/all.ts prints.
 * A headline is measured work, never a figure a cache answered.
 */
import fs from 'node:fs';

export interface Headline {
  bench: string;
  figure: string;
  value: number;
  unit: string;
  /** The peer measured in the same run, when one runs here. */
  peer?: { name: string; value: number };
  /** The goal, in words ("≥ 1.0x Anvil", "< 300 ms"). */
  goal?: string;
}

export function headline(h: Headline): void {
  const file = process.env.BENCH_HEADLINES;
  if (file) fs.appendFileSync(file, `${JSON.stringify(h)}\n`);
}

export function readHeadlines(file: string): Headline[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Headline);
}
