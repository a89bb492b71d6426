/** Sends JSON-RPC bodies over keep-alive HTTP with a fixed number of requests in flight. */
import http from 'node:http';

export interface LoadResult {
  seconds: number;
  ok: number;
  errors: number;
  /** First JSON-RPC error seen, for the report. */
  firstError?: string;
}

export interface LoadOptions {
  /** An answer the server means as "try again" (a full pool): the body is sent again until taken. */
  retryWhen?: (answer: string) => boolean;
  /** Called with each final answer and when it came (performance.now()). */
  onAnswer?: (index: number, answer: string, at: number) => void;
}

export async function postConcurrently(url: string, bodies: string[], concurrency: number, options: LoadOptions = {}): Promise<LoadResult & { retries: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  let next = 0;
  let ok = 0;
  let errors = 0;
  let retries = 0;
  let firstError: string | undefined;
  const post = (body: string) =>
    new Promise<string>((resolve, reject) => {
      const req = http.request(
        { host: target.hostname, port: target.port, path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString()));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const worker = async () => {
    while (next < bodies.length) {
      const index = next++;
      const body = bodies[index]!;
      let answer = await post(body);
      while (options.retryWhen?.(answer)) {
        retries++;
        await new Promise((r) => setTimeout(r, 25));
        answer = await post(body);
      }
      options.onAnswer?.(index, answer, performance.now());
      if (answer.includes('"error"')) {
        errors++;
        firstError ??= answer;
      } else ok++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return { seconds, ok, errors, firstError, retries };
}

/** Waits until an Ethereum node answers eth_blockNumber (a peer started by a benchmark). */
export async function waitForEthNode(url: string, name: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      await rpcCall(url, 'eth_blockNumber');
      return;
    } catch {
      if (Date.now() > end) throw new Error(`${name} did not start within ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export async function rpcCall(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
