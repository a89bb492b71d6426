/**
 * Polls the JSON-RPC endpoints of the known validators (`--known-validator URL`) in the background:
 * each one's confirmed slot (getSlot), and once its identity and version, for the health check and
 * getClusterNodes. A validator that does not answer, or answers an error, has no slot until it
 * answers again; requests time out so a slow peer never holds the node up.
 */

export interface KnownValidatorState {
  url: string;
  /** host:port, as getClusterNodes shows RPC addresses. */
  rpc: string;
  slot: number | null;
  identity: string | null;
  version: string | null;
  featureSet: number | null;
}

export interface KnownValidatorOptions {
  intervalMs?: number;
  timeoutMs?: number;
  /** Reports a validator that stopped or started answering (the CLI prints it). */
  onChange?(v: KnownValidatorState, reachable: boolean, reason?: string): void;
}

export const KNOWN_VALIDATOR_POLL_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;

async function call(url: string, method: string, timeoutMs: number, params?: unknown[]): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const body = (await res.json()) as { result?: unknown; error?: { message?: string } };
  if (body.error) throw new Error(body.error.message ?? 'JSON-RPC error');
  return body.result;
}

export class KnownValidators {
  readonly validators: KnownValidatorState[];
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;

  constructor(
    urls: readonly string[],
    private readonly opts: KnownValidatorOptions = {},
  ) {
    this.validators = urls.map((url) => ({ url, rpc: new URL(url).host, slot: null, identity: null, version: null, featureSet: null }));
    this.intervalMs = opts.intervalMs ?? KNOWN_VALIDATOR_POLL_MS;
    this.timeoutMs = opts.timeoutMs ?? Math.min(REQUEST_TIMEOUT_MS, this.intervalMs * 2);
  }

  start(): void {
    if (this.timer || this.validators.length === 0) return;
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The highest slot a known validator reported; null when none has; undefined when none is configured. */
  highestSlot(): number | null | undefined {
    if (this.validators.length === 0) return undefined;
    let best: number | null = null;
    for (const v of this.validators) if (v.slot !== null && (best === null || v.slot > best)) best = v.slot;
    return best;
  }

  /** One round of requests to every validator; a round still running skips the next tick. */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      await Promise.all(this.validators.map((v) => this.pollOne(v)));
    } finally {
      this.polling = false;
    }
  }

  private async pollOne(v: KnownValidatorState): Promise<void> {
    const wasReachable = v.slot !== null;
    try {
      const slot = await call(v.url, 'getSlot', this.timeoutMs, [{ commitment: 'confirmed' }]);
      if (typeof slot !== 'number' || !Number.isSafeInteger(slot) || slot < 0) throw new Error(`getSlot answered ${JSON.stringify(slot)}`);
      // Its identity first: once it counts for health it is listed in getClusterNodes too. Either one
      // not answered yet (a timeout on a busy machine) is asked again at the next poll.
      if (v.identity === null || v.version === null) {
        const [identity, version] = await Promise.all([
          v.identity === null ? call(v.url, 'getIdentity', this.timeoutMs).catch(() => null) : null,
          v.version === null ? call(v.url, 'getVersion', this.timeoutMs).catch(() => null) : null,
        ]);
        const id = (identity as { identity?: unknown } | null)?.identity;
        if (typeof id === 'string') v.identity = id;
        const ver = version as { 'solana-core'?: unknown; 'feature-set'?: unknown } | null;
        if (typeof ver?.['solana-core'] === 'string') v.version = ver['solana-core'];
        if (typeof ver?.['feature-set'] === 'number') v.featureSet = ver['feature-set'];
      }
      v.slot = slot;
      if (!wasReachable) this.opts.onChange?.(v, true);
    } catch (e) {
      v.slot = null;
      if (wasReachable) this.opts.onChange?.(v, false, (e as Error).message);
    }
  }
}
