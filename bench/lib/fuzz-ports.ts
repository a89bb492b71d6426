/**
 * Runs the fuzz cases of ./fuzz-requests.ts against a node in a child process (`isthmus start` on
 * free ports with a temp ledger) and judges every answer: a JSON-RPC error (with the request's id
 * where it had one), an HTTP error status or a closed connection is fine; a hang, a 200 whose body
 * is not JSON-RPC, a stack trace in a message, or the process dying is not. A well-formed JSON-RPC
 * result is counted apart (a hostile value can still be a valid one, as `{}` for a config).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { readKeypairFile } from '../../node-core/keys/keypair.ts';
import { ensureFreshBundle } from './node-process.ts';
import { presignTransfers } from './transfers.ts';
import { caseGenerator, type FuzzCase, type Target, type WsTarget } from './fuzz-requests.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface FuzzNode {
  child: ChildProcess;
  urls: Record<Target, string>;
  ledger: string;
  /** Everything the node wrote to stderr. */
  stderr(): string;
  /** Set once the process has exited. */
  exit: { code: number | null; signal: string | null } | null;
  rssBytes(): number;
  stop(): Promise<void>;
}

/** `isthmus start` with --rpc-port 0 (every port free), its URLs read from the banner. */
export async function startFuzzNode(extraArgs: string[] = []): Promise<FuzzNode> {
  await ensureFreshBundle();
  const ledger = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-fuzz-'));
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/isthmus.js'), 'start', '--ledger', ledger, '--rpc-port', '0', '--slot-ms', '100', ...extraArgs], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const node: FuzzNode = {
    child,
    ledger,
    urls: {} as Record<Target, string>,
    stderr: () => err,
    exit: null,
    rssBytes() {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
    },
    async stop() {
      if (!node.exit) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGINT');
        await exited;
      }
      fs.rmSync(ledger, { recursive: true, force: true });
    },
  };
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.on('exit', (code, signal) => (node.exit = { code, signal }));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('Press Ctrl-C')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`isthmus exited with ${code} before it was ready: ${err}`)));
  });
  const url = (label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(out)![1]!;
  const rpc = url('JSON RPC URL');
  const evm = url('EVM JSON-RPC URL');
  node.urls = { 'native-http': rpc, 'evm-http': evm, 'pubsub-ws': url('WebSocket URL'), 'evm-ws': evm.replace(/^http/, 'ws') };
  return node;
}

export interface FuzzReport {
  cases: number;
  /** Outcomes by "target kind → answer". */
  outcomes: Map<string, number>;
  /** Answers that break the rules, with the case that drew them (the first few of each sort). */
  violations: Array<{ what: string; target: Target; kind: string; detail: string }>;
  violationCount: number;
  /** Methods that answered a hostile request with a result. */
  acceptedMethods: Map<string, number>;
  internalErrorsLogged: number;
  crashed: FuzzNode['exit'];
}

const STACK_TRACE = /\n\s+at\s|\bat .+:\d+:\d+\)|\.ts:\d+|node_modules|file:\/\//;

interface Judged {
  /** What the answer was, for the table. */
  outcome: string;
  violation?: string;
  /** The method that answered with a result (a hostile value accepted). */
  accepted?: string[];
}

/** The ids a body's requests expect answers for, or 'error-null' when the whole body gets one error with id null. */
function expectations(body: string): { single: boolean; ids: unknown[] } | 'error-null' | 'none' {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'error-null';
  }
  const idOf = (r: unknown): unknown[] => {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) return [null];
    // A notification gets no answer, but one that is not a valid request gets an error with id null.
    if (!('id' in r)) return (r as { jsonrpc?: unknown }).jsonrpc === '2.0' && typeof (r as { method?: unknown }).method === 'string' ? [] : [null];
    const id = (r as { id: unknown }).id;
    return [id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null];
  };
  if (Array.isArray(parsed)) {
    if (parsed.length === 0 || parsed.length > 1000) return 'error-null';
    const ids = parsed.flatMap(idOf);
    return ids.length ? { single: false, ids } : 'none';
  }
  const ids = idOf(parsed);
  return ids.length ? { single: true, ids } : 'none';
}

function methodsOf(body: string): Map<unknown, string> {
  const m = new Map<unknown, string>();
  try {
    const p = JSON.parse(body) as unknown;
    for (const r of Array.isArray(p) ? p : [p]) if (r && typeof r === 'object' && 'id' in r) m.set((r as { id: unknown }).id, String((r as { method?: unknown }).method));
  } catch {
    /* broken JSON: no methods */
  }
  return m;
}

/** Judges a JSON-RPC answer text against the body that drew it. */
export function judgeJsonRpc(body: string, answer: string): Judged {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer);
  } catch {
    return { outcome: 'non-JSON answer', violation: `answer is not JSON: ${answer.slice(0, 200)}` };
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  const codes: number[] = [];
  const accepted: string[] = [];
  const ids: unknown[] = [];
  const methods = methodsOf(body);
  for (const item of items) {
    if (typeof item !== 'object' || item === null) return { outcome: 'non-JSON-RPC answer', violation: `not a response object: ${answer.slice(0, 200)}` };
    const o = item as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    if (o.jsonrpc !== '2.0' || !('id' in o) || ('result' in o) === ('error' in o)) return { outcome: 'non-JSON-RPC answer', violation: `malformed response: ${JSON.stringify(o).slice(0, 200)}` };
    ids.push(o.id);
    if (o.error) {
      if (!Number.isInteger(o.error.code) || typeof o.error.message !== 'string') return { outcome: 'malformed error', violation: `malformed error: ${JSON.stringify(o.error).slice(0, 200)}` };
      if (STACK_TRACE.test(o.error.message) || (o.error.data !== undefined && STACK_TRACE.test(JSON.stringify(o.error.data)))) {
        return { outcome: 'stack trace', violation: `internals in an error: ${JSON.stringify(o.error).slice(0, 300)}` };
      }
      codes.push(o.error.code as number);
    } else accepted.push((methods.get(o.id) ?? '?').slice(0, 40));
  }
  const expected = expectations(body);
  if (expected === 'none') return { outcome: 'answer to notifications', violation: `answered ${items.length} notification(s)` };
  if (expected === 'error-null') {
    if (Array.isArray(parsed) || codes.length !== 1 || ids[0] !== null) return { outcome: 'wrong answer to a broken body', violation: `expected one error with id null: ${answer.slice(0, 200)}` };
  } else {
    if (expected.single && Array.isArray(parsed)) return { outcome: 'batch answer to one request', violation: answer.slice(0, 200) };
    const want = expected.ids.map((id) => JSON.stringify(id)).sort();
    const got = ids.map((id) => JSON.stringify(id)).sort();
    if (want.join() !== got.join()) return { outcome: 'wrong ids', violation: `ids ${got.slice(0, 5).join()} answered for ${want.slice(0, 5).join()}` };
  }
  const outcome = items.length > 1 ? `batch of ${items.length <= 10 ? items.length : items.length <= 999 ? '11-999' : items.length}` : codes.length ? `error ${codes[0]}` : 'result';
  return { outcome, accepted };
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function runPost(url: string, c: Extract<FuzzCase, { how: 'post' }>, hangMs: number): Promise<Judged> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': c.contentType ?? 'application/json' }, body: c.body, signal: AbortSignal.timeout(hangMs) });
  } catch (e) {
    if ((e as Error).name === 'TimeoutError') return { outcome: 'hang', violation: `no answer within ${hangMs} ms` };
    return { outcome: 'closed' };
  }
  let text: string;
  try {
    text = await res.text();
  } catch {
    return { outcome: `HTTP ${res.status}, then closed` };
  }
  if (res.status === 204) {
    const expected = typeof c.body === 'string' ? expectations(c.body) : 'error-null';
    return expected === 'none' ? { outcome: 'HTTP 204 (notifications)' } : { outcome: 'HTTP 204', violation: 'no content for a request that expects an answer' };
  }
  if (res.status === 200) return judgeJsonRpc(typeof c.body === 'string' ? c.body : c.body.toString('utf8'), text);
  if (res.status >= 400) {
    if (STACK_TRACE.test(text)) return { outcome: `HTTP ${res.status}`, violation: `internals in the body: ${text.slice(0, 300)}` };
    return { outcome: `HTTP ${res.status}` };
  }
  return { outcome: `HTTP ${res.status}`, violation: `unexpected status ${res.status}: ${text.slice(0, 200)}` };
}

async function runGet(url: string, c: Extract<FuzzCase, { how: 'get' }>, hangMs: number): Promise<Judged> {
  // fetch would normalise the dots away: the raw path goes over a socket.
  const { hostname, port } = new URL(url);
  const answer = await rawExchange(hostname, Number(port), [Buffer.from(`GET ${c.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)], 0, 'half-close', hangMs);
  if (answer.violation) return answer;
  if (/root:x:0|"name":\s*"isthmus"/.test(answer.text ?? '')) return { outcome: answer.outcome, violation: `served a file outside the explorer for ${c.path.slice(0, 80)}` };
  return answer;
}

/** Writes the chunks, then reads until the server closes; the status line is the outcome. */
function rawExchange(host: string, port: number, chunks: Buffer[], gapMs: number, then: 'half-close' | 'destroy' | 'hold', hangMs: number, held?: net.Socket[]): Promise<Judged & { text?: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    let data = '';
    let settled = false;
    const finish = (j: Judged & { text?: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (then !== 'hold') socket.destroy();
      resolve(j);
    };
    const timer = setTimeout(() => finish({ outcome: 'hang', violation: `connection neither answered nor closed within ${hangMs} ms` }), hangMs);
    socket.on('error', () => finish({ outcome: data ? statusOf(data) : 'closed' }));
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (data += d));
    socket.on('close', () => finish({ outcome: data ? statusOf(data) : 'closed', text: data, ...judgeRaw(data) }));
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (gapMs) await wait(gapMs);
      }
      if (then === 'half-close') socket.end();
      else if (then === 'destroy') finish({ outcome: 'cut by the client' });
      else {
        held!.push(socket);
        finish({ outcome: 'held open' });
      }
    });
  });
}

const statusOf = (raw: string) => {
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
  return m ? `HTTP ${m[1]}` : 'closed (garbage answer)';
};

/** A 200 over a raw socket must carry JSON-RPC too; the statuses are judged as for fetch. */
function judgeRaw(raw: string): { violation?: string } {
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
  if (!m) return raw ? { violation: `not HTTP: ${raw.slice(0, 100)}` } : {};
  const status = Number(m[1]);
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  if (STACK_TRACE.test(body)) return { violation: `internals in the body: ${body.slice(0, 300)}` };
  if (status === 200 && !/^\s*[[{]/.test(body) && !/^(ok|behind|unknown)$/.test(body.trim()) && !/text\/html|javascript|css|svg|image|font|wasm/.test(raw.slice(0, raw.indexOf('\r\n\r\n')))) {
    return { violation: `200 with a body that is not JSON: ${body.slice(0, 100)}` };
  }
  if (status >= 200 && status < 400 && status !== 200 && status !== 204) return { violation: `unexpected status ${status}` };
  return {};
}

/** A WebSocket kept open for cases one at a time; the pool replaces one the node closed. */
class Socket {
  private ws!: WebSocket;
  private opened!: Promise<void>;
  private waiting: ((text: string | null) => void) | null = null;
  private sentinel = 0;

  constructor(private readonly url: string) {
    this.connect();
  }

  private connect(): void {
    this.ws = new WebSocket(this.url, { maxPayload: 256 << 20 });
    this.opened = new Promise((resolve) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', () => resolve());
    });
    this.ws.on('message', (data) => {
      const text = data.toString();
      // Subscription notifications are not answers.
      if (/^\{"jsonrpc":"2\.0","method":"/.test(text) && !/"id":/.test(text.slice(0, 200))) return;
      const w = this.waiting;
      this.waiting = null;
      w?.(text);
    });
    this.ws.on('close', () => {
      const w = this.waiting;
      this.waiting = null;
      w?.(null);
    });
    this.ws.on('error', () => {});
  }

  /** Sends a frame and waits for the next answer (null: the node closed the socket). */
  async exchange(data: string | Buffer, binary: boolean, hangMs: number): Promise<string | null | 'hang'> {
    await this.opened;
    if (this.ws.readyState !== WebSocket.OPEN) {
      this.connect();
      await this.opened;
      if ((this.ws.readyState as number) !== WebSocket.OPEN) return null;
    }
    const answer = new Promise<string | null | 'hang'>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        resolve('hang');
      }, hangMs);
      this.waiting = (t) => {
        clearTimeout(timer);
        resolve(t);
      };
    });
    this.ws.send(data, { binary });
    return answer;
  }

  /** A request that must draw an error with this id: sent after a frame that expects no answer. */
  async sentinelExchange(hangMs: number): Promise<Judged> {
    const id = `sentinel-${++this.sentinel}`;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'no_such_method' });
    const text = await this.exchange(body, false, hangMs);
    if (text === 'hang') return { outcome: 'hang', violation: 'no answer to a request after notifications' };
    if (text === null) return { outcome: 'closed' };
    const j = judgeJsonRpc(body, text);
    return j.violation ? { outcome: 'answer to notifications', violation: `a notification was answered: ${text.slice(0, 200)}` } : { outcome: 'no answer (notifications)' };
  }

  close(): void {
    this.ws.terminate();
  }
}

async function runWs(pool: Socket, c: Extract<FuzzCase, { how: 'ws' }>, hangMs: number): Promise<Judged> {
  const text = await pool.exchange(c.data, c.binary, hangMs);
  if (text === 'hang') {
    if (typeof c.data === 'string' ? expectations(c.data) === 'none' : false) return pool.sentinelExchange(hangMs);
    return { outcome: 'hang', violation: `no answer within ${hangMs} ms` };
  }
  if (text === null) return { outcome: 'closed' };
  return judgeJsonRpc(typeof c.data === 'string' ? c.data : c.data.toString('utf8'), text);
}

const FLOOD_REQUESTS: Record<WsTarget, (i: number) => object> = {
  'pubsub-ws': (i) => ({ jsonrpc: '2.0', id: i, method: ['slotSubscribe', 'rootSubscribe', 'accountSubscribe', 'logsSubscribe', 'signatureSubscribe'][i % 5], params: i % 5 === 2 ? ['11111111111111111111111111111111'] : i % 5 === 3 ? ['all'] : i % 5 === 4 ? ['1'.repeat(64)] : [] }),
  'evm-ws': (i) => ({ jsonrpc: '2.0', id: i, method: 'eth_subscribe', params: [['newHeads', 'logs', 'newPendingTransactions'][i % 3]] }),
};

async function runFlood(url: string, c: Extract<FuzzCase, { how: 'subscribe-flood' }>, hangMs: number): Promise<Judged> {
  const ws = new WebSocket(url);
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
  } catch {
    return { outcome: 'closed' };
  }
  return new Promise<Judged>((resolve) => {
    const pending = new Set(Array.from({ length: c.count }, (_, i) => i));
    let errors = 0;
    const timer = setTimeout(() => finish({ outcome: 'hang', violation: `${pending.size} of ${c.count} subscriptions unanswered after ${hangMs} ms` }), hangMs);
    const finish = (j: Judged) => {
      clearTimeout(timer);
      ws.terminate();
      resolve(j);
    };
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { id?: number; error?: unknown };
      if (typeof m.id !== 'number') return;
      if (m.error) errors++;
      pending.delete(m.id);
      if (pending.size === 0) finish({ outcome: errors ? `${c.count} subscriptions, ${errors} refused` : `${c.count} subscriptions` });
    });
    ws.on('close', () => finish({ outcome: 'closed' }));
    for (let i = 0; i < c.count; i++) ws.send(JSON.stringify(FLOOD_REQUESTS[c.target as WsTarget](i)));
  });
}

export interface FuzzOptions {
  count: number;
  seed: number;
  /** Cases in flight at once. */
  concurrency?: number;
  /** An answer later than this is a hang. */
  hangMs?: number;
  /** Subscriptions in one flood case. */
  floodSize?: number;
  /** Called every `progressEvery` cases. */
  progress?: (done: number) => void;
}

export async function runFuzz(node: FuzzNode, o: FuzzOptions): Promise<FuzzReport> {
  const hangMs = o.hangMs ?? 15_000;
  const concurrency = o.concurrency ?? 32;
  const next = caseGenerator(o.seed, { floodSize: o.floodSize ?? 2_000 });
  const report: FuzzReport = { cases: 0, outcomes: new Map(), violations: [], violationCount: 0, acceptedMethods: new Map(), internalErrorsLogged: 0, crashed: null };
  const held: net.Socket[] = [];
  const MAX_HELD = 200;
  const pools: Record<WsTarget, Socket[]> = { 'pubsub-ws': [], 'evm-ws': [] };
  const free: Record<WsTarget, Socket[]> = { 'pubsub-ws': [], 'evm-ws': [] };
  const violationsBySort = new Map<string, number>();

  const run = async (c: FuzzCase): Promise<Judged> => {
    const url = node.urls[c.target];
    switch (c.how) {
      case 'post':
        return runPost(url, c, hangMs);
      case 'get':
        return runGet(url, c, hangMs);
      case 'raw': {
        const { hostname, port } = new URL(url);
        if (c.then === 'hold' && held.length >= MAX_HELD) return { outcome: 'held open (pool full)' };
        return rawExchange(hostname, Number(port), c.chunks, c.gapMs, c.then, hangMs, held);
      }
      case 'subscribe-flood':
        return runFlood(url, c, hangMs);
      case 'ws': {
        const target = c.target;
        const socket = free[target].pop() ?? (pools[target].push(new Socket(url)), pools[target].at(-1)!);
        try {
          return await runWs(socket, c, hangMs);
        } finally {
          free[target].push(socket);
        }
      }
    }
  };

  let issued = 0;
  const worker = async () => {
    while (issued < o.count && !node.exit) {
      const c = next();
      issued++;
      const j = await run(c);
      report.cases++;
      const key = `${c.target}  ${c.kind.padEnd(22)} ${j.outcome}`;
      report.outcomes.set(key, (report.outcomes.get(key) ?? 0) + 1);
      for (const m of j.accepted ?? []) report.acceptedMethods.set(m, (report.acceptedMethods.get(m) ?? 0) + 1);
      if (j.violation) {
        report.violationCount++;
        const sort = `${c.target} ${c.kind} ${j.outcome}`;
        const seen = violationsBySort.get(sort) ?? 0;
        violationsBySort.set(sort, seen + 1);
        if (seen < 3) report.violations.push({ what: j.outcome, target: c.target, kind: c.kind, detail: j.violation });
      }
      if (report.cases % 1000 === 0) o.progress?.(report.cases);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  for (const s of held) s.destroy();
  for (const s of [...pools['pubsub-ws'], ...pools['evm-ws']]) s.close();
  report.crashed = node.exit;
  report.internalErrorsLogged = (node.stderr().match(/internal error while serving|request failed/g) ?? []).length;
  return report;
}

/** The report as a table: one line per target, kind and answer. */
export function formatReport(r: FuzzReport): string {
  const lines = [...r.outcomes].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${String(n).padStart(8)}  ${k}`);
  return ['   count  target     kind                   answer', ...lines].join('\n');
}

async function call(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(15_000) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await wait(50);
  }
}

/** After the fuzz: the slot advances, a faucet transfer lands, eth_blockNumber answers, PubSub notifies. Throws saying what did not. */
export async function checkServing(node: FuzzNode): Promise<{ slot: number; signature: string; evmBlock: number }> {
  const rpc = node.urls['native-http'];
  const first = (await call(rpc, 'getSlot', [{ commitment: 'processed' }])) as number;
  await until('getSlot to advance', async () => ((await call(rpc, 'getSlot', [{ commitment: 'processed' }])) as number) > first);
  const faucet = readKeypairFile(path.join(node.ledger, 'faucet-keypair.json'));
  const { blockhash } = ((await call(rpc, 'getLatestBlockhash')) as { value: { blockhash: string } }).value;
  const [wire] = presignTransfers({ payers: [faucet], blockhash, count: 1 });
  const signature = (await call(rpc, 'sendTransaction', [Buffer.from(wire!).toString('base64'), { encoding: 'base64' }])) as string;
  await until('the transfer to be confirmed', async () => {
    const [status] = ((await call(rpc, 'getSignatureStatuses', [[signature]])) as { value: Array<{ confirmationStatus: string; err: unknown } | null> }).value;
    if (status?.err) throw new Error(`the transfer failed: ${JSON.stringify(status.err)}`);
    return status && status.confirmationStatus !== 'processed';
  });
  const evmBlock = Number(await call(node.urls['evm-http'], 'eth_blockNumber'));
  // PubSub still notifies.
  const ws = new WebSocket(node.urls['pubsub-ws']);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no slotNotification within 15 s')), 15_000);
      ws.on('open', () => ws.send('{"jsonrpc":"2.0","id":1,"method":"slotSubscribe"}'));
      ws.on('message', (d) => {
        if (d.toString().includes('slotNotification')) {
          clearTimeout(timer);
          resolve();
        }
      });
      ws.on('error', reject);
    });
  } finally {
    ws.terminate();
  }
  return { slot: first, signature, evmBlock };
}
