/** Sends JSON-RPC bodies over keep-alive HTTP with a fixed number of requests in flight. */
import { fork } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';

export interface LoadResult {
  seconds: number;
  ok: number;
  errors: number;
  /** First JSON-RPC error seen, for the report. */
  firstError?: string;
  /** CPU milliseconds the load clients spent over the run (postFromProcesses). */
  clientCpuMs?: number;
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

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length: *(\d+)/i;

/**
 * postConcurrently's bodies over plain keep-alive sockets: each request is built once as bytes and
 * an answer is read by its Content-Length alone. A client that costs far less per request than
 * node:http's, for servers faster than it (every server here answers with Content-Length).
 */
export async function postRaw(url: string, bodies: string[], concurrency: number): Promise<LoadResult> {
  const target = new URL(url);
  const head = `POST ${target.pathname || '/'} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nConnection: keep-alive\r\n`;
  let next = 0;
  let ok = 0;
  let errors = 0;
  let firstError: string | undefined;
  const connection = () =>
    new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(target.port), target.hostname);
      socket.setNoDelay(true);
      let pending: Buffer = Buffer.alloc(0);
      const sendNext = () => {
        if (next >= bodies.length) {
          socket.end();
          return resolve();
        }
        const body = bodies[next++]!;
        socket.write(`${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      };
      socket.on('data', (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        for (;;) {
          const end = pending.indexOf(HEADER_END);
          if (end < 0) return;
          const length = CONTENT_LENGTH.exec(pending.subarray(0, end).toString('latin1'));
          if (!length) return reject(new Error(`answer without Content-Length: ${pending.subarray(0, end).toString('latin1')}`));
          const total = end + 4 + Number(length[1]);
          if (pending.length < total) return;
          const answer = pending.subarray(end + 4, total);
          if (answer.includes('"error"')) {
            errors++;
            firstError ??= answer.toString();
          } else ok++;
          pending = pending.subarray(total);
          sendNext();
        }
      });
      socket.on('error', reject);
      socket.once('connect', sendNext);
    });
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, connection));
  return { seconds: (performance.now() - start) / 1000, ok, errors, firstError };
}

/**
 * postRaw spread over `processes` client processes (each with its share of the bodies and
 * of the requests in flight), so that one client's event loop is not the ceiling of a fast server.
 * The time is from the first process's start to the last one's end.
 */
export async function postFromProcesses(url: string, bodies: string[], concurrency: number, processes: number): Promise<LoadResult> {
  const children = Array.from({ length: processes }, () =>
    fork(path.join(import.meta.dirname, 'http-load-child.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  try {
    const message = (child: (typeof children)[number]) =>
      new Promise<any>((resolve, reject) => {
        child.once('message', resolve);
        child.once('exit', (code) => reject(new Error(`load client exited with ${code}`)));
      });
    const ready = children.map(message);
    children.forEach((child, i) => {
      const share = bodies.filter((_, n) => n % processes === i);
      const inFlight = Math.floor(concurrency / processes) + (i < concurrency % processes ? 1 : 0);
      child.send({ share: { url, bodies: share, concurrency: Math.max(1, inFlight) } });
    });
    await Promise.all(ready);
    const done = children.map(message);
    for (const child of children) child.send({ go: true });
    const reports = (await Promise.all(done)) as { result: LoadResult; startedAt: number; endedAt: number; cpuMs: number }[];
    const seconds = (Math.max(...reports.map((r) => r.endedAt)) - Math.min(...reports.map((r) => r.startedAt))) / 1000;
    return {
      seconds,
      ok: reports.reduce((n, r) => n + r.result.ok, 0),
      errors: reports.reduce((n, r) => n + r.result.errors, 0),
      firstError: reports.find((r) => r.result.firstError)?.result.firstError,
      clientCpuMs: reports.reduce((n, r) => n + r.cpuMs, 0),
    };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
  }
}

/**
 * One POST, its answer's bytes once the last has arrived: nothing decoded, so the time is the
 * server's answer and its transfer, not the client's work on a large text (fetch().text() of a
 * 70 MB trace costs the client ~0.3 s more).
 */
export function postForBytes(url: string, body: string): Promise<Buffer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve(Buffer.concat(parts)));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
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
