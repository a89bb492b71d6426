/**
 * A process's resident memory from /proc (Linux), sampled while a benchmark loads it. RSS is the
 * figure the goals name; beside it, what it is made of: RssAnon (the JS heap, malloc, native
 * buffers) and RssFile (pages of mapped files: the node binary, and the ledger's LMDB map, which the
 * kernel can take back whenever it needs the memory, as it is a clean copy of the file).
 */
import fs from 'node:fs';
import { headline } from './headline.ts';

export interface Resident {
  rss: number;
  anon: number;
  file: number;
}

/** RSS and its parts, MiB. */
export function residentMiB(pid: number): Resident {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, anon: kib('RssAnon') / 1024, file: kib('RssFile') / 1024 };
}

export function rssMiB(pid: number): number {
  return residentMiB(pid).rss;
}

/** "412 MiB (anon 256, file 156)". */
export const formatResident = (r: Resident): string => `${r.rss.toFixed(0)} MiB (anon ${r.anon.toFixed(0)}, file ${r.file.toFixed(0)})`;

/** Samples the RSS every `everyMs` until stopped; returns the sample with the highest RSS. */
export function samplePeakRss(pid: number, everyMs = 200): { stop(): Resident } {
  let peak = residentMiB(pid);
  const timer = setInterval(() => {
    try {
      const now = residentMiB(pid);
      if (now.rss > peak.rss) peak = now;
    } catch {
      // the process is gone; the peak so far stands
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

/** A node's memory around a load: idle before it, the peak while it runs, and `settleMs` after it ended. */
export interface MemoryAround {
  idle: Resident;
  peak: Resident;
  settled: Resident;
  settleMs: number;
}

export async function memoryAround<T>(pid: number, settleMs: number, load: () => Promise<T>): Promise<{ result: T; memory: MemoryAround }> {
  const idle = residentMiB(pid);
  const sampler = samplePeakRss(pid);
  let peak: Resident;
  let result: T;
  try {
    result = await load();
  } finally {
    peak = sampler.stop();
  }
  await new Promise((r) => setTimeout(r, settleMs));
  return { result, memory: { idle, peak, settled: residentMiB(pid), settleMs } };
}

const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

/** Issue 18's memory goals against the figures, one line each. */
export function memoryGoalLines(m: MemoryAround): string[] {
  const over = (a: number, b: number) => `${((a / b - 1) * 100).toFixed(0)}%`;
  return [
    `idle ${formatResident(m.idle)}: goal < 150 MiB ${verdict(m.idle.rss < 150)}`,
    `peak under the load ${formatResident(m.peak)}: goal < 400 MiB ${verdict(m.peak.rss < 400)}`,
    `${m.settleMs / 1000} s after ${formatResident(m.settled)} = ${over(m.settled.rss, m.idle.rss)} over idle: goal within 30% ${verdict(m.settled.rss <= m.idle.rss * 1.3)} (anonymous alone ${over(m.settled.anon, m.idle.anon)} over; file pages are the node binary and the ledger's LMDB map, clean copies of the files that the kernel takes back when it needs the memory)`,
  ];
}

/** The three memory figures as headlines of `bench`. */
export function memoryHeadlines(bench: string, m: MemoryAround): void {
  headline({ bench, figure: 'node RSS idle', value: m.idle.rss, unit: 'MiB', goal: '< 150 MiB' });
  headline({ bench, figure: 'node RSS peak under the load', value: m.peak.rss, unit: 'MiB', goal: '< 400 MiB' });
  headline({ bench, figure: `node RSS ${m.settleMs / 1000} s after the load`, value: m.settled.rss, unit: 'MiB', goal: `within 30% of idle (≤ ${(m.idle.rss * 1.3).toFixed(0)} MiB)` });
}
