/** A small JSON-RPC 2.0 client over fetch: single calls and batches, with a timeout and errors that say what failed. */

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The node could not be reached (refused, timed out, not JSON). */
export class TransportError extends Error {}

let nextId = 1;

export class RpcClient {
  constructor(
    readonly url: string,
    private readonly timeoutMs = 15_000,
  ) {}

  private async post(body: unknown): Promise<unknown> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    let res: Response;
    try {
      res = await fetch(this.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: controller.signal });
    } catch (e) {
      throw new TransportError(controller.signal.aborted ? `${this.url} did not answer within ${this.timeoutMs / 1000} s` : `cannot reach ${this.url} (${(e as Error).message})`);
    } finally {
      clearTimeout(timer);
    }
    const text = await res.text();
    try {
      return JSON.parse(text);
    } catch {
      throw new TransportError(`${this.url} answered HTTP ${res.status} that is not JSON-RPC: ${text.slice(0, 120)}`);
    }
  }

  async call<T = any>(method: string, params?: unknown[]): Promise<T> {
    const answer = (await this.post({ jsonrpc: '2.0', id: nextId++, method, ...(params ? { params } : {}) })) as { result?: T; error?: { code: number; message: string; data?: unknown } };
    if (answer.error) throw new RpcError(answer.error.code, answer.error.message, answer.error.data);
    return answer.result as T;
  }

  /** One POST for many calls; each answer is its result or an RpcError, in the order asked. */
  async batch(calls: readonly (readonly [string, unknown[]?])[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const first = nextId;
    nextId += calls.length;
    const answers = (await this.post(calls.map(([method, params], i) => ({ jsonrpc: '2.0', id: first + i, method, ...(params ? { params } : {}) })))) as unknown;
    if (!Array.isArray(answers)) {
      const e = (answers as { error?: { code: number; message: string } }).error;
      throw e ? new RpcError(e.code, e.message) : new TransportError('the node answered a batch with something else');
    }
    const byId = new Map<number, { result?: unknown; error?: { code: number; message: string; data?: unknown } }>();
    for (const a of answers) byId.set(a.id, a);
    return calls.map((_, i) => {
      const a = byId.get(first + i);
      if (!a) return new RpcError(-32603, 'no answer in the batch');
      return a.error ? new RpcError(a.error.code, a.error.message, a.error.data) : a.result;
    });
  }
}

/** Throws the first error of a batch's answers, else returns them typed. */
export function unwrap<T extends unknown[]>(answers: unknown[]): T {
  for (const a of answers) if (a instanceof Error) throw a;
  return answers as T;
}

export function errorText(e: unknown): string {
  if (e instanceof RpcError) return `${e.message} (JSON-RPC error ${e.code})`;
  return e instanceof Error ? e.message : String(e);
}
