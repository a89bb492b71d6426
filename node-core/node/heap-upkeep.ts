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
 * resident for minutes. So the heap is collected once the event loop has stayed quiet for ~10 s with the heap
 * well above its size after the last collection, as V8 does on a low-memory notification: full
 * collections that also compact and give the freed pages back (the burst's heap, 164 MB committed
 * for 57 MB live, was 59 MB after it; a plain `gc()` left 111 MB committed). It is asked for
 * through an in-process inspector session (HeapProfiler.collectGarbage): no V8 flag is needed, and
 * the command and Electron start the node without --expose-gc.
 *
 * V8's allocation-site pretenuring is turned off. Under a transfer load it decides, a scavenge or two
 * in, that the sites whose objects a bank keeps until the slot is rooted (the stored transaction, its
 * meta, the account copies) should allocate in the old generation, and the optimized execution path
 * then allocates its short-lived objects there too (what they are stored into is old): they die in old
 * space, where only major collections reclaim them, and every young object they point to survives the
 * scavenges meanwhile. Measured over 10,000 transfers (bench node, --trace-gc-nvp), main isolate:
 * 5.6 -> 3.0 KB per transfer surviving a scavenge, 4.8 -> 2.7 KB promoted, no major collection
 * during the load instead of two, scavenge pauses ~14-18 -> ~11 ms median.
 */
import { Session } from 'node:inspector';
import v8 from 'node:v8';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** How often the loop's utilization and the heap are looked at. */
const CHECK_MS = 5_000;
/** The event loop busy less than this share of the last check's interval: the node is quiet. */
const QUIET_UTILIZATION = 0.3;
/**
 * Quiet through this many checks in a row (10 s) before collecting: a pause between a client's bursts
 * is not the end of its load, and the collection (hundreds of ms, and the young generation shrunk
 * after it) slowed the burst that came next (bench:evm's eth_getBalance rounds after its eth_call
 * rounds: 24-35 µs of the main thread per request for seconds, against 16-18).
 */
const QUIET_CHECKS = 2;
/**
 * Heap growth (committed bytes over the smallest since the last collection) worth a full one. With
 * the growth held to twice the live data, a burst's heap ends ~50 MB over its live size; at idle the
 * node takes minutes to grow this much.
 */
const GROWTH_BYTES = 16 * 1024 * 1024;
/** The old generation may grow to (1 + this / 100) times what survived the last major collection. */
const HEAP_GROWING_PERCENT = 100;

export interface HeapUpkeep {
  /** Collections made so far. */
  readonly collections: number;
  /** Checks made so far. */
  readonly checks: number;
  stop(): void;
}

export interface HeapUpkeepOptions {
  checkMs?: number;
  /** The event loop's busy share since the last check [default: from performance.eventLoopUtilization]. */
  loopUtilization?: () => number;
}

export function startHeapUpkeep(options: HeapUpkeepOptions = {}): HeapUpkeep {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
  const session = new Session();
  session.connect();
  let collections = 0;
  let checks = 0;
  let collecting = false;
  let quietChecks = 0;
  let baseline = v8.getHeapStatistics().total_heap_size;
  let lastLoop: EventLoopUtilization = performance.eventLoopUtilization();
  const loopUtilization =
    options.loopUtilization ??
    (() => {
      const loop = performance.eventLoopUtilization();
      const utilization = performance.eventLoopUtilization(loop, lastLoop).utilization;
      lastLoop = loop;
      return utilization;
    });
  const timer = setInterval(() => {
    checks++;
    quietChecks = loopUtilization() < QUIET_UTILIZATION ? quietChecks + 1 : 0;
    if (collecting) return;
    const heap = v8.getHeapStatistics().total_heap_size;
    if (heap < baseline) baseline = heap;
    else if (quietChecks >= QUIET_CHECKS && heap > baseline + GROWTH_BYTES) {
      collecting = true;
      session.post('HeapProfiler.collectGarbage', () => {
        collecting = false;
        collections++;
        baseline = v8.getHeapStatistics().total_heap_size;
      });
    }
  }, options.checkMs ?? CHECK_MS);
  timer.unref();
  return {
    get collections() {
      return collections;
    },
    get checks() {
      return checks;
    },
    stop() {
      clearInterval(timer);
      // Not from within a post's callback: disconnecting there does not return.
      session.disconnect();
    },
  };
}
