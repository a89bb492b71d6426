/**
 * Keeping the JS heap near its live size, so that the memory a burst took comes back (issue 18).
 *
 * While a load runs V8 lets its heap grow to up to four times the live data between major
 * collections (the EVM burst of bench:evm: ~60 MB live in a heap of up to 260 MB). The growth is
 * held to twice the live data (--heap-growing-percent, read by V8 at each collection): more frequent
 * major collections, of a heap that stays ~50-60 MB live, for a peak 100 MB lower.
 *
 * Once the load stops nothing allocates enough to start the next major collection, and V8's memory
 * reducer had run during the load and stayed off: the garbage and the pages under it stayed
 * resident for minutes. So one full collection is made when the event loop turns quiet with the heap
 * well above its size after the last one (the 260 MB heap was 90 MB after it). That is V8's own
 * `gc()`, reached without the --expose-gc flag (the command and Electron start the node without it)
 * through a context created while the flag is set.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** How often the loop's utilization and the heap are looked at. */
const CHECK_MS = 5_000;
/** The event loop busy less than this share of the last check's interval: the node is quiet. */
const QUIET_UTILIZATION = 0.3;
/** Heap growth (committed bytes since the last collection) that is worth a full collection. */
const GROWTH_BYTES = 48 * 1024 * 1024;
/** The old generation may grow to (1 + this / 100) times what survived the last major collection. */
const HEAP_GROWING_PERCENT = 100;

/** V8's gc(), called without options: a full, compacting collection (Node 20's V8 runs `gc({ type: 'major', execution: 'sync' })` as a young-generation one). */
type Gc = () => void;

export interface HeapUpkeep {
  /** Collections made so far. */
  readonly collections: number;
  stop(): void;
}

export function startHeapUpkeep(options: { checkMs?: number } = {}): HeapUpkeep {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const gc = v8Gc();
  let collections = 0;
  let baseline = v8.getHeapStatistics().total_heap_size;
  let lastLoop: EventLoopUtilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const loop = performance.eventLoopUtilization();
    const quiet = performance.eventLoopUtilization(loop, lastLoop).utilization < QUIET_UTILIZATION;
    lastLoop = loop;
    const heap = v8.getHeapStatistics().total_heap_size;
    if (heap < baseline) baseline = heap;
    else if (quiet && heap > baseline + GROWTH_BYTES && gc) {
      gc();
      collections++;
      baseline = v8.getHeapStatistics().total_heap_size;
    }
  }, options.checkMs ?? CHECK_MS);
  timer.unref();
  return {
    get collections() {
      return collections;
    },
    stop: () => clearInterval(timer),
  };
}

/** V8's gc(): the global one when the process has it, else one from a context made with the flag set; null when neither works. */
function v8Gc(): Gc | null {
  const global = (globalThis as { gc?: Gc }).gc;
  if (typeof global === 'function') return global;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as Gc) : null;
  } catch {
    return null;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}
