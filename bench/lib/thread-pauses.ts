/**
 * What held up one thread's event loop while a bench window ran: its GC pauses (each with its start on
 * the clock every thread shares, performance.timeOrigin + performance.now(), so that pauses can be set
 * against another thread's latencies) and its event-loop delay histogram.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

/** A GC pause: [start (ms, shared clock), duration (ms), kind ('scavenge', 'mark-compact', …)]. */
export type Pause = [at: number, ms: number, kind: string];

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

export interface PauseSummary {
  pauses: Pause[];
  /** Event-loop delay percentiles over the window, ms. */
  loopDelay: { p50: number; p99: number; max: number };
}

export interface PauseRecorder {
  stop(): PauseSummary;
}

export function recordPauses(): PauseRecorder {
  const pauses: Pause[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries() as Array<PerformanceEntry & { detail?: { kind?: number } }>) {
      pauses.push([performance.timeOrigin + e.startTime, e.duration, KINDS[e.detail?.kind ?? -1] ?? 'other']);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  return {
    stop() {
      observer.disconnect();
      delay.disable();
      const ms = (ns: number) => ns / 1e6;
      return { pauses, loopDelay: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) } };
    },
  };
}

/** Milliseconds of `pauses` that fall within [from, to]. */
export function pausedWithin(pauses: readonly Pause[], from: number, to: number): number {
  let ms = 0;
  for (const [at, d] of pauses) ms += Math.max(0, Math.min(to, at + d) - Math.max(from, at));
  return ms;
}

/** "412 pauses, 1,830 ms (5.4% of the window): scavenge 400 (p50 3.1, max 14.2 ms), …" */
export function describePauses(pauses: readonly Pause[], windowMs: number): string {
  const byKind = new Map<string, number[]>();
  let total = 0;
  for (const [, d, kind] of pauses) {
    total += d;
    let ds = byKind.get(kind);
    if (!ds) byKind.set(kind, (ds = []));
    ds.push(d);
  }
  const kinds = [...byKind].map(([kind, ds]) => {
    ds.sort((a, b) => a - b);
    return `${kind} ${ds.length} (p50 ${ds[Math.floor(ds.length / 2)]!.toFixed(1)}, max ${ds[ds.length - 1]!.toFixed(1)} ms)`;
  });
  return `${pauses.length} GC pauses, ${total.toFixed(0)} ms (${((100 * total) / windowMs).toFixed(1)}% of the window)${kinds.length ? `: ${kinds.join(', ')}` : ''}`;
}
