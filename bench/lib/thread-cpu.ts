/**
 * CPU time a process spent, from /proc (Linux): its main thread (the event loop) apart from all its
 * threads (libuv's pool, workers, the GC's helpers). On a shared machine a rate moves with the other
 * processes' load; the CPU time per transfer moves much less, so the benches print it beside the rate.
 */
import fs from 'node:fs';

export interface ThreadCpu {
  /** Milliseconds of the main thread. */
  main: number;
  /** Milliseconds of every thread, the main one included. */
  total: number;
  /** Of `total`, the milliseconds in the kernel (system time: its sockets' side, for a server). */
  system: number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** User and system ticks of a /proc stat file. */
function timesOf(statPath: string): { user: number; system: number } {
  // Fields after the command's closing parenthesis (the command may hold spaces): utime and stime are the 12th and 13th.
  const stat = fs.readFileSync(statPath, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]), system: Number(fields[12]) };
}

function ticksOf(statPath: string): number {
  const { user, system } = timesOf(statPath);
  return user + system;
}

/** The CPU time of `pid` so far, or null where /proc is not there (not Linux). */
export function threadCpu(pid: number): ThreadCpu | null {
  try {
    const all = timesOf(`/proc/${pid}/stat`);
    return { main: ticksOf(`/proc/${pid}/task/${pid}/stat`) * TICK_MS, total: (all.user + all.system) * TICK_MS, system: all.system * TICK_MS };
  } catch {
    return null;
  }
}

/** "main thread 210 µs, all threads 390 µs per transfer" over `count` items between two readings. */
export function cpuPerItem(before: ThreadCpu | null, after: ThreadCpu | null, count: number, item: string): string {
  if (!before || !after || count === 0) return 'CPU time not available here';
  const us = (ms: number) => ((ms * 1000) / count).toFixed(0);
  return `CPU per ${item}: main thread ${us(after.main - before.main)} µs, all threads ${us(after.total - before.total)} µs`;
}

/** The CPU milliseconds of each thread of `pid` so far, by thread id; null where /proc is not there. */
export function cpuByThread(pid: number): Map<number, number> | null {
  try {
    const out = new Map<number, number>();
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        out.set(Number(tid), ticksOf(`/proc/${pid}/task/${tid}/stat`) * TICK_MS);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return out;
  } catch {
    return null;
  }
}

/**
 * "main thread 210 µs, threads started meanwhile 230 µs, the other threads 170 µs per transfer": the
 * CPU between two cpuByThread readings split three ways. Threads that began between the readings
 * are the ones the load started (a worker made on first use); the others that existed before are
 * V8's helpers (parallel and concurrent GC, the optimizing compiler) and libuv's pool.
 */
export function cpuPerItemByThread(pid: number, before: Map<number, number> | null, after: Map<number, number> | null, count: number, item: string, started = 'threads started meanwhile'): string {
  if (!before || !after || count === 0) return 'CPU time by thread not available here';
  let main = 0;
  let fresh = 0;
  let others = 0;
  for (const [tid, ms] of after) {
    const spent = ms - (before.get(tid) ?? 0);
    if (tid === pid) main += spent;
    else if (before.has(tid)) others += spent;
    else fresh += spent;
  }
  const us = (ms: number) => ((ms * 1000) / count).toFixed(0);
  return `CPU per ${item} by thread: main ${us(main)} µs, ${started} ${us(fresh)} µs, the other threads (GC and compiler helpers, libuv's pool) ${us(others)} µs`;
}

/**
 * A process's CPU by thread summed over several measured stretches (rounds between which other work
 * runs), read as cpuPerItem and cpuPerItemByThread read two readings. Threads that began after the
 * tally was made count as started meanwhile.
 */
export class ThreadCpuTally {
  private readonly atStart: Map<number, number> | null;
  private readonly spent = new Map<number, number>();
  private last: Map<number, number> | null = null;
  private available: boolean;

  constructor(private readonly pid: number) {
    this.atStart = cpuByThread(pid);
    this.available = this.atStart !== null;
  }

  begin(): void {
    this.last = cpuByThread(this.pid);
  }

  end(): void {
    const now = cpuByThread(this.pid);
    if (!now || !this.last) {
      this.available = false;
      return;
    }
    for (const [tid, ms] of now) this.spent.set(tid, (this.spent.get(tid) ?? 0) + ms - (this.last.get(tid) ?? 0));
    this.last = null;
  }

  perItem(count: number, item: string): string {
    if (!this.available) return 'CPU time not available here';
    let total = 0;
    for (const ms of this.spent.values()) total += ms;
    return cpuPerItem({ main: 0, total: 0, system: 0 }, { main: this.spent.get(this.pid) ?? 0, total, system: 0 }, count, item);
  }

  perItemByThread(count: number, item: string, started?: string): string {
    if (!this.available || !this.atStart) return 'CPU time by thread not available here';
    const before = new Map([...this.spent.keys()].filter((tid) => this.atStart!.has(tid)).map((tid) => [tid, 0] as [number, number]));
    return cpuPerItemByThread(this.pid, before, this.spent, count, item, started);
  }
}
