/**
 * Loads a page's data: the result or the error, never a blank page. A node that cannot be reached is
 * tried again every 2 s until it answers, so a restarted node brings the page back by itself.
 */
import { TransportError, errorText } from './rpc.ts';

export interface LoadState<T> {
  data: T | null;
  error: string | null;
  loaded: boolean;
}

export interface Loader {
  retry(): void;
  stop(): void;
}

const RETRY_MS = 2_000;

export function load<T>(fetcher: () => Promise<T>, set: (s: LoadState<T>) => void, opts: { refreshMs?: number } = {}): Loader {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last: T | null = null;
  const schedule = (ms: number) => {
    if (!stopped) timer = setTimeout(run, ms);
  };
  async function run() {
    if (timer) clearTimeout(timer);
    try {
      const data = await fetcher();
      if (stopped) return;
      last = data;
      set({ data, error: null, loaded: true });
      if (opts.refreshMs) schedule(opts.refreshMs);
    } catch (e) {
      if (stopped) return;
      // Keep what was shown, with the error above it.
      set({ data: last, error: errorText(e), loaded: last !== null });
      if (e instanceof TransportError) schedule((e as { retryMs?: number }).retryMs ?? RETRY_MS);
      else if (opts.refreshMs) schedule(Math.max(opts.refreshMs, RETRY_MS));
    }
  }
  void run();
  return {
    retry: () => void run(),
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

export const initial = <T>(): LoadState<T> => ({ data: null, error: null, loaded: false });
