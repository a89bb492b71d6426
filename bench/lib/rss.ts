/** A process's resident set size from /proc (Linux), sampled while a benchmark loads it. */
import fs from 'node:fs';

export function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return kib / 1024;
}

/** Samples the RSS every `everyMs` until stopped; returns the peak. */
export function samplePeakRss(pid: number, everyMs = 200): { stop(): number } {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMiB(pid));
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
