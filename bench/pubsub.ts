/**
 * bench/pubsub: PubSub under a transfer load. The node runs in this process; the clients and the
 * load each run in a worker thread (as separate programs would), so their work does not share the
 * node's event loop.
 *
 * - clients: 100 connections × 10 slotSubscribe, plus 1,000 accountSubscribe (10 per connection)
 *   on the accounts the load pays to;
 * - load: pre-signed transfers from the dev accounts to those 1,000 accounts, sent over HTTP
 *   (sendTransaction, with preflight) at a steady rate (default 3,000/s, the rate issue 18's goal names);
 * - latency: from the chain event that makes a notification due (a new slot; the bank reaching the
 *   subscription's commitment) to the client's receipt; both sides read the same clock
 *   (performance.timeOrigin + performance.now()), the node side stamping before PubSub runs, the
 *   clients as each message arrives (reading only the numbers a receipt needs then, the rest after the window).
 * - delivered/expected: every notification the chain events of the measured window call for,
 *   counted on the node side, against what the clients received.
 *
 * - warm-up: the load runs --warmup seconds (default 5) before the measured window opens, so the
 *   window's figures are the node at 3,000/s in its steady state, not a fresh process compiling its
 *   hot paths; the warm-up's own latency is printed apart, on one line.
 *
 * - CPU: this process's threads (the node, its workers, the clients and the load) over the window, as
 *   a share of the machine's cores: where it nears all of them, latency is waiting for a core.
 *
 *   npm run bench:pubsub [-- --rate 3000 --seconds 15 --warmup 5 --commitment confirmed --slot-ms 400]
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { keypairFromSeed } from '../node-core/keys/keypair.ts';
import { presignTransfers, randomAddress } from './lib/transfers.ts';
import { DEFAULT_OPTIONS } from '../node-core/node/options.ts';
import { headline } from './lib/headline.ts';
import { describePauses, pausedWithin, recordPauses, type Pause, type PauseSummary } from './lib/thread-pauses.ts';

const CONNECTIONS = 100;
const SLOT_SUBS_PER_CONNECTION = 10;
const ACCOUNTS = 1_000;
/** Transfers per JSON-RPC batch at most (~370 bytes each in the request). */
const BATCH_LIMIT = 100;

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Config {
  rate: number;
  seconds: number;
  /** Seconds of load before the measured window opens. */
  warmup: number;
  commitment: 'processed' | 'confirmed' | 'finalized';
  slotMs: number;
}

/** A notification as the clients saw it: which event it answers, and when it arrived. */
type Receipt = [key: string, at: number];

// ---------------------------------------------------------------- clients (worker)

const SUBSCRIPTION_KEY = Buffer.from('"subscription":');
const SLOT_KEY = Buffer.from('"slot":');
const LAMPORTS_KEY = Buffer.from('"lamports":');

/** The decimal number after the first `key` in `data` at or past `from` (-1 where there is none). */
function numberAfter(data: Buffer, key: Buffer, from = 0): number {
  const at = data.indexOf(key, from);
  if (at < 0) return -1;
  let n = 0;
  for (let i = at + key.length; i < data.length; i++) {
    const c = data[i]!;
    if (c < 48 || c > 57) break;
    n = n * 10 + (c - 48);
  }
  return n;
}

/**
 * Notifications as number columns (subscription, slot, lamports, arrival): a slotNotification's
 * `slot` and an accountNotification's context slot are each the message's first `"slot":` (a slot
 * result's `parent` and `root` come first but are other keys); lamports are below 2^53 here.
 */
class NotificationColumns {
  length = 0;
  private columns = NotificationColumns.allocate(1 << 10);

  private static allocate(n: number) {
    return { subscription: new Float64Array(n), slot: new Float64Array(n), lamports: new Float64Array(n), at: new Float64Array(n) };
  }

  /** Records `data` if it is a notification (it names a method); false for an answer. */
  add(data: Buffer, at: number): boolean {
    const method = data.indexOf('"method"');
    if (method < 0) return false;
    if (this.length === this.columns.at.length) {
      const bigger = NotificationColumns.allocate(this.length * 2);
      for (const k of ['subscription', 'slot', 'lamports', 'at'] as const) bigger[k].set(this.columns[k]);
      this.columns = bigger;
    }
    const c = this.columns;
    const i = this.length++;
    c.subscription[i] = numberAfter(data, SUBSCRIPTION_KEY, method);
    c.slot[i] = numberAfter(data, SLOT_KEY, method);
    c.lamports[i] = numberAfter(data, LAMPORTS_KEY, method);
    c.at[i] = at;
    return true;
  }

  row(i: number): { subscription: number; slot: number; lamports: number; at: number } {
    const c = this.columns;
    return { subscription: c.subscription[i]!, slot: c.slot[i]!, lamports: c.lamports[i]!, at: c.at[i]! };
  }
}

async function runClients(pubsubUrl: string, accounts: string[], commitment: string): Promise<void> {
  const receipts: Receipt[] = [];
  const sockets: WebSocket[] = [];
  /** Per connection: turns its notifications into receipts. */
  const readers: Array<() => void> = [];
  let errors = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, c) => {
      const ws = new WebSocket(pubsubUrl, { perMessageDeflate: false });
      sockets.push(ws);
      await new Promise((r, j) => ws.once('open', r).once('error', j));
      const kinds = new Map<number, 'slot' | 'account'>();
      const accountOf = new Map<number, string>();
      const pending = new Map<number, (id: number) => void>();
      // What the receipts need of a notification is read as it arrives, with a few byte searches, into
      // number columns; the rest waits until after the window. Parsing each as it arrives put the
      // clients' own work (a thousand notifications arrive together) into the latency measured, and
      // keeping each as text until then made ~80,000 strings survive the clients' scavenges, whose
      // pauses landed in the slowest notifications' latency.
      const seen = new NotificationColumns();
      ws.on('message', (data: Buffer) => {
        const at = now();
        if (seen.add(data, at)) return;
        const msg = JSON.parse(String(data));
        if (msg.error) errors++;
        pending.get(msg.id)?.(msg.result);
      });
      readers.push(() => {
        for (let i = 0; i < seen.length; i++) {
          const { subscription, slot, lamports, at } = seen.row(i);
          if (kinds.get(subscription) === 'slot') receipts.push([`slot|${slot}`, at]);
          else receipts.push([`account|${accountOf.get(subscription)}|${slot}|${lamports}`, at]);
        }
      });
      let nextId = 1;
      // `onAnswer` runs inside the message handler: a notification may follow the answer in the same
      // chunk, before a promise's continuation would have recorded what the subscription is.
      const request = (method: string, params: unknown[], onAnswer: (subscription: number) => void) =>
        new Promise<void>((resolve) => {
          const id = nextId++;
          pending.set(id, (subscription) => {
            onAnswer(subscription);
            resolve();
          });
          ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
        });
      const subs: Array<Promise<void>> = [];
      for (let i = 0; i < SLOT_SUBS_PER_CONNECTION; i++) subs.push(request('slotSubscribe', [], (id) => void kinds.set(id, 'slot')));
      for (const address of accounts.slice(c * 10, c * 10 + 10)) {
        subs.push(
          request('accountSubscribe', [address, { commitment, encoding: 'base64' }], (id) => {
            kinds.set(id, 'account');
            accountOf.set(id, address);
          }),
        );
      }
      await Promise.all(subs);
    }),
  );
  const pauses = recordPauses();
  parentPort!.postMessage({ type: 'ready', errors });
  await new Promise<void>((resolve) => parentPort!.once('message', () => resolve()));
  const clientPauses = pauses.stop();
  for (const ws of sockets) ws.close();
  for (const read of readers) read();
  parentPort!.postMessage({ type: 'receipts', receipts, pauses: clientPauses });
}

// ---------------------------------------------------------------- load (worker)

async function runLoad(rpcUrl: string, seeds: Uint8Array[], recipients: string[], blockhash: string, cfg: Config): Promise<void> {
  const payers = seeds.map((s) => keypairFromSeed(s));
  const count = cfg.rate * (cfg.warmup + cfg.seconds);
  const wires = presignTransfers({ payers, recipients, blockhash, count });
  parentPort!.postMessage({ type: 'signed' });
  await new Promise<void>((resolve) => parentPort!.once('message', () => resolve()));

  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const target = new URL(rpcUrl);
  let errors = 0;
  let firstError: string | undefined;
  let inFlight = 0;
  const post = (body: string) =>
    new Promise<void>((resolve) => {
      inFlight++;
      const req = http.request(
        { host: target.hostname, port: target.port, path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            const n = text.split('"error"').length - 1;
            if (n) {
              errors += n;
              firstError ??= text.slice(0, 300);
            }
            inFlight--;
            resolve();
          });
        },
      );
      req.on('error', (e) => {
        errors++;
        firstError ??= String(e);
        inFlight--;
        resolve();
      });
      req.end(body);
    });
  // Every 10 ms, what is due goes out as JSON-RPC batches of at most BATCH_LIMIT (a request body stays
  // within the node's 50 KiB, Agave's limit, when this thread fell behind).
  const start = performance.now();
  let sent = 0;
  const posts: Array<Promise<void>> = [];
  while (sent < count) {
    const due = Math.min(count, Math.floor(((performance.now() - start) / 1000) * cfg.rate));
    while (due > sent && inFlight < 64) {
      const upTo = Math.min(due, sent + BATCH_LIMIT);
      const batch = wires.slice(sent, upTo).map((w, i) => ({
        jsonrpc: '2.0',
        id: sent + i,
        method: 'sendTransaction',
        params: [Buffer.from(w).toString('base64'), { encoding: 'base64' }],
      }));
      sent = upTo;
      posts.push(post(JSON.stringify(batch)));
    }
    await sleep(10);
  }
  await Promise.all(posts);
  agent.destroy();
  parentPort!.postMessage({ type: 'done', sent, errors, firstError, seconds: (performance.now() - start) / 1000 });
}

// ---------------------------------------------------------------- node and report (main)

/**
 * Where the notifications (all, the slowest 1%, by kind) spent their time, as means: PubSub's handler
 * of the chain event, then the chain's own work after the event until the node's thread had run the
 * microtasks it queued (by then the event's socket writes are all made), then until the client's receipt
 * (negative: the client read it before that point); with the GC pauses of the thread concerned.
 */
function printTail(parts: Array<{ ms: number; at: number; received: number; handled: number; flushed: number; kind: string }>, p99: number, node: Pause[], client: Pause[]): void {
  const describe = (label: string, xs: typeof parts) => {
    if (!xs.length) return;
    const mean = (f: (x: (typeof parts)[number]) => number) => (xs.reduce((s, x) => s + f(x), 0) / xs.length).toFixed(1);
    const slots = xs.filter((x) => x.kind === 'slot').length;
    console.log(
      `    ${label}: ${xs.length} (${slots} slot), mean ${mean((x) => x.ms)} ms; node: PubSub's handler ${mean((x) => x.handled - x.at)} ms, ` +
        `then the chain's work to its microtasks ${mean((x) => x.flushed - x.handled)} ms (GC within both ${mean((x) => pausedWithin(node, x.at, x.flushed))}); the client's receipt ${mean((x) => x.received - x.flushed)} ms after that point (negative: before it, the sockets being written during the handler) ` +
        `(client GC ${mean((x) => pausedWithin(client, x.flushed, x.received))}, node GC ${mean((x) => pausedWithin(node, x.flushed, x.received))})`,
    );
  };
  console.log(`  where the time went (means):`);
  describe('all        ', parts);
  describe('p99 and up ', parts.filter((x) => x.ms >= p99));
  describe('slot, all  ', parts.filter((x) => x.kind === 'slot'));
  describe('acct, all  ', parts.filter((x) => x.kind !== 'slot'));
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);

/** This file in a worker thread; Node 20 does not carry `--import tsx` into workers, so register it there. */
function tsWorker(data: object): Worker {
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`;
  return new Worker(bootstrap, { eval: true, workerData: data });
}

function nextMessage<T>(w: Worker, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string }) => {
      if (m.type !== type) return;
      w.off('message', onMessage);
      resolve(m as T);
    };
    w.on('message', onMessage);
    w.once('error', reject);
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rate: { type: 'string', default: '3000' },
      seconds: { type: 'string', default: '15' },
      warmup: { type: 'string', default: '5' },
      commitment: { type: 'string', default: 'confirmed' },
      'slot-ms': { type: 'string', default: '400' },
    },
  });
  const cfg: Config = {
    rate: Number(values.rate),
    seconds: Number(values.seconds),
    warmup: Number(values.warmup),
    commitment: values.commitment as Config['commitment'],
    slotMs: Number(values['slot-ms']),
  };
  const { startNode } = await import('../node-core/node/start.ts');
  const ledger = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-bench-pubsub-'));
  const node = await startNode({
    ...DEFAULT_OPTIONS,
    rpcPort: 0,
    evmRpcPort: 0,
    bindAddress: '127.0.0.1',
    ledger,
    reset: false,
    slotMs: cfg.slotMs,
    quiet: true,
    rootDepth: 32,
    slotsPerEpoch: 432_000,
    devAccountLamports: 100e12,
    enableVoteSubscription: false,
  });
  const chain = node.chain;
  console.log(
    `bench/pubsub: ${CONNECTIONS} connections × ${SLOT_SUBS_PER_CONNECTION} slotSubscribe + ${ACCOUNTS} accountSubscribe ` +
      `(${cfg.commitment}, base64); ${cfg.rate} transfers/s for ${cfg.warmup} s of warm-up, then ${cfg.seconds} s measured; ${cfg.slotMs} ms slots`,
  );
  try {
    const recipients = Array.from({ length: ACCOUNTS }, randomAddress);
    const recipientSet = new Set(recipients);
    const blockhash = chain.latestBlockhash('finalized').blockhash;
    const seeds = node.keys.devAccounts.map((k) => k.secretKey.slice(0, 32));

    const clients = tsWorker({ role: 'clients', pubsubUrl: node.pubsubUrl, accounts: recipients, commitment: cfg.commitment });
    const load = tsWorker({ role: 'load', rpcUrl: node.rpcUrl, seeds, recipients, blockhash, cfg });
    const [ready] = await Promise.all([nextMessage<{ errors: number }>(clients, 'ready'), nextMessage(load, 'signed')]);
    if (ready.errors) throw new Error(`${ready.errors} subscriptions failed`);

    // What the chain events of the window call for, stamped before PubSub handles them; each with its
    // event, whose `handled` is when PubSub's handler returned and `flushed` when the node's thread had
    // run past the event and the microtasks it queued (by then every socket write of it is made).
    type Event = { name: string; at: number; handled: number; flushed: number };
    let event: Event = { name: '', at: 0, handled: 0, flushed: 0 };
    const due = new Map<string, { at: number; count: number; event: Event }>();
    const stamp = (key: string, count: number) => due.set(key, { at: now(), count, event });
    const events: Event[] = [];
    const eventBegins = (name: string) => () => void events.push((event = { name, at: now(), handled: 0, flushed: 0 }));
    const onSlot = (e: { slot: number }) => stamp(`slot|${e.slot}`, CONNECTIONS * SLOT_SUBS_PER_CONNECTION);
    const onTransaction = (e: { slot: number; writes: Array<[string, { lamports: number }]> }) => {
      for (const [a, acc] of e.writes) if (recipientSet.has(a)) stamp(`account|${a}|${e.slot}|${acc.lamports}`, 1);
    };
    const onBank = (bank: { slot: number; changes: Map<string, { lamports: number } | null> }) => {
      for (const [a, acc] of bank.changes) if (recipientSet.has(a)) stamp(`account|${a}|${bank.slot}|${acc?.lamports ?? 0}`, 1);
    };
    const onRooted = (banks: Array<Parameters<typeof onBank>[0]>) => banks.forEach(onBank);
    chain.prependListener('slot', onSlot);
    const dueEvent = cfg.commitment === 'processed' ? 'transaction' : cfg.commitment === 'confirmed' ? 'confirmed' : 'rooted';
    if (dueEvent === 'transaction') chain.prependListener('transaction', onTransaction);
    else if (dueEvent === 'confirmed') chain.prependListener('confirmed', onBank);
    else chain.prependListener('rooted', onRooted);
    const beginsOf = { slot: eventBegins('slot'), [dueEvent]: eventBegins(dueEvent) };
    for (const name of ['slot', dueEvent] as const) chain.prependListener(name, beginsOf[name]!);
    // Time PubSub spends inside the chain's event (what it costs the chain): stamped before and after it.
    const work: number[] = [];
    let begun = 0;
    let windowOpen = false;
    const begin = () => void (begun = performance.now());
    const end = () => {
      if (windowOpen) work.push(performance.now() - begun);
      const e = event;
      e.handled = now();
      queueMicrotask(() => void (e.flushed = now()));
    };
    for (const name of ['slot', dueEvent] as const) {
      chain.prependListener(name, begin);
      chain.on(name, end);
    }

    load.postMessage('go');
    await sleep(cfg.warmup * 1000);
    const txBefore = chain.totalTransactionCount;
    const started = now();
    windowOpen = true;
    const cpuBefore = process.cpuUsage();
    const nodePauses = recordPauses();
    const loadResult = await nextMessage<{ sent: number; errors: number; firstError?: string; seconds: number }>(load, 'done');
    // Let the last transfers reach the commitment, then close the window.
    const settleSlot = chain.processedSlot + (cfg.commitment === 'finalized' ? 34 : 3);
    while (chain.processedSlot < settleSlot) await sleep(cfg.slotMs / 4);
    chain.off('slot', onSlot);
    chain.off('transaction', onTransaction);
    chain.off('confirmed', onBank);
    chain.off('rooted', onRooted);
    for (const name of ['slot', dueEvent] as const) chain.off(name, beginsOf[name]!);
    const nodeThread = nodePauses.stop();
    for (const name of ['slot', dueEvent] as const) {
      chain.off(name, begin);
      chain.off(name, end);
    }
    const windowSeconds = (now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuShare = (cpu.user + cpu.system) / 1e6 / windowSeconds / os.availableParallelism();
    await sleep(500);
    clients.postMessage('stop');
    const { receipts, pauses: clientThread } = await nextMessage<{ receipts: Receipt[]; pauses: PauseSummary }>(clients, 'receipts');
    const processed = chain.totalTransactionCount - txBefore;

    let expected = 0;
    for (const d of due.values()) if (d.at >= started) expected += d.count;
    const latencies: Record<'slot' | 'account', number[]> = { slot: [], account: [] };
    const warmupLatencies: number[] = [];
    /** Each receipt of the window, with its event's timings. */
    const parts: Parameters<typeof printTail>[0] = [];
    for (const [key, at] of receipts) {
      const d = due.get(key);
      if (!d) continue; // before the load began, or after the window closed
      if (d.at < started) {
        warmupLatencies.push(at - d.at);
        continue;
      }
      const kind = key.startsWith('slot') ? 'slot' : 'account';
      latencies[kind].push(at - d.at);
      parts.push({ ms: at - d.at, at: d.at, received: at, handled: d.event.handled, flushed: d.event.flushed, kind });
    }
    const delivered = latencies.slot.length + latencies.account.length;
    const all = [...latencies.slot, ...latencies.account].sort((a, b) => a - b);
    latencies.slot.sort((a, b) => a - b);
    latencies.account.sort((a, b) => a - b);
    warmupLatencies.sort((a, b) => a - b);
    const fmt = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(1)} ms, p99 ${percentile(xs, 99).toFixed(1)} ms, max ${(xs[xs.length - 1] ?? NaN).toFixed(1)} ms`;

    console.log(`  load: ${loadResult.sent} transfers sent in ${loadResult.seconds.toFixed(1)} s (${(loadResult.sent / loadResult.seconds).toFixed(0)}/s, warm-up included), ${processed} processed in the window, ${loadResult.errors} send errors${loadResult.firstError ? ` (first: ${loadResult.firstError})` : ''}`);
    console.log(`  warm-up (the first ${cfg.warmup} s of load on a fresh node, not in the figures below): ${warmupLatencies.length} notifications, ${fmt(warmupLatencies)}`);
    console.log(`  notifications: ${delivered} delivered / ${expected} expected (${((100 * delivered) / expected).toFixed(2)}%) over ${windowSeconds.toFixed(1)} s = ${(delivered / windowSeconds).toFixed(0)} notifications/s`);
    console.log(`    slotNotification:    ${latencies.slot.length} (${fmt(latencies.slot)})`);
    console.log(`    accountNotification: ${latencies.account.length} (${fmt(latencies.account)})`);
    console.log(`  latency, chain event → client receipt, all: ${fmt(all)}`);
    console.log(`  CPU over the window (node, its workers, clients and load in this process): ${(100 * cpuShare).toFixed(0)}% of ${os.availableParallelism()} cores`);
    headline({ bench: 'pubsub', figure: `notification latency p99 at ${cfg.rate} transfers/s`, value: percentile(all, 99), unit: 'ms', goal: '< 10 ms at 3,000/s' });
    work.sort((a, b) => a - b);
    console.log(`  PubSub work inside each slot/${dueEvent} event (the chain waits for it): ${fmt(work)} over ${work.length} events`);
    for (const name of ['slot', dueEvent]) {
      const es = events.filter((e) => e.name === name && e.flushed && e.at >= started);
      const ms = (f: (e: Event) => number) => fmt(es.map(f).sort((a, b) => a - b)).replace(/, p99[^,]*/, '');
      console.log(`  ${name} events (${es.length}): PubSub's handler ${ms((e) => e.handled - e.at)}; then the chain's work until its microtasks ran ${ms((e) => e.flushed - e.handled)}`);
    }
    printTail(parts, percentile(all, 99), nodeThread.pauses, clientThread.pauses);
    const windowMs = windowSeconds * 1000;
    const inWindow = (ps: Pause[]) => ps.filter(([at]) => at >= started && at <= started + windowMs);
    const loop = (l: { p50: number; p99: number; max: number }) => `event-loop delay p50 ${l.p50.toFixed(1)}, p99 ${l.p99.toFixed(1)}, max ${l.max.toFixed(1)} ms`;
    console.log(`  node's thread:    ${describePauses(inWindow(nodeThread.pauses), windowMs)}; ${loop(nodeThread.loopDelay)}`);
    console.log(`  clients' thread:  ${describePauses(inWindow(clientThread.pauses), windowMs)}; ${loop(clientThread.loopDelay)}`);
    await Promise.all([clients.terminate(), load.terminate()]);
  } finally {
    await node.close();
    fs.rmSync(ledger, { recursive: true, force: true });
  }
}

if (isMainThread) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
} else if (workerData.role === 'clients') {
  void runClients(workerData.pubsubUrl, workerData.accounts, workerData.commitment);
} else {
  void runLoad(workerData.rpcUrl, workerData.seeds, workerData.recipients, workerData.blockhash, workerData.cfg);
}
