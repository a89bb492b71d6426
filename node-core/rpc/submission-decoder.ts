/**
 * sendTransaction's first steps (decoding the text, parsing and sanitizing the transaction, checking
 * its signatures) on a worker thread, so the event loop keeps serving and executing while another
 * core does them. The transaction comes back parsed: the event loop does not decode it again.
 * eth_sendRawTransaction's costly steps (the checks, the sender's recovery and the signing of the
 * native transaction that carries it) run there too: the event loop only parses the transaction
 * again and takes the recovered sender.
 *
 * The worker starts with the first transaction and holds the process open only while it has requests
 * to answer; after IDLE_MS without any it stops (its memory goes back) and the next one starts it again. Until it says it is ready (loading it takes a while, much longer from source), requests
 * are decoded on the event loop, so the first transactions do not wait for it. Where it cannot start or dies (a build without its file, a packaged app that cannot load
 * it), every request, those in flight included, is decoded on the event loop instead, with the same
 * answers.
 */
import { Worker } from 'node:worker_threads';
import { BoundedMap } from '../common/bounded-map.ts';
import { verifyTransactionSignatures } from '../runtime/signatures.ts';
import { parseTransaction, type Transaction } from '../runtime/wire.ts';
import { RpcError } from './errors.ts';
import { decodeSubmittedTransaction } from './submitted-transaction.ts';
import type { RecoveredSender } from '../evm/transaction.ts';
import type { Keypair } from '../keys/keypair.ts';

export type SubmissionEncoding = 'base58' | 'base64';

/** A worker that has answered nothing for this long is stopped (retireWhenIdle). */
const IDLE_MS = 10_000;

/** The worker's first message: its module is loaded and it takes requests. */
export const WORKER_READY = 'ready';

export type SubmissionRequest = { id: number; encoded: string; encoding: SubmissionEncoding } | EvmSubmissionRequest;

/**
 * A raw Ethereum transaction for a chain with id `chainId`: checked and its sender recovered, and
 * with `wrap`, the native transaction that carries it made and signed (evm/relay-wrap.ts).
 */
export interface EvmSubmissionRequest {
  id: number;
  evm: Uint8Array;
  chainId: number;
  wrap?: EvmWrapping;
}

export interface EvmWrapping {
  relayer: Keypair;
  blockhash: string;
}

/**
 * The worker's answer for an Ethereum transaction: its sender (and the native transaction that
 * carries it, when asked and it fits a packet), or why it is invalid (InvalidTransaction's message).
 */
export type EvmRecovery = { recovered: RecoveredSender; wrapped?: Transaction } | { invalid: string };

/**
 * A decoded native transaction as the worker answers it: its wire bytes and the base-58 names its
 * parse made, in order (runtime/wire.ts Namer), from which the event loop parses it again (parsedFrom).
 */
export interface DecodedAnswer {
  id: number;
  wire: Uint8Array;
  names: string[];
  verified: boolean;
}

export type SubmissionAnswer =
  | DecodedAnswer
  | ({ id: number } & EvmRecovery)
  | { id: number; rpcError: { code: number; message: string } }
  | { id: number; failure: string };

export interface DecodedSubmission {
  tx: Transaction;
  /** Whether every required signature checks out. */
  verified: boolean;
}

type Pending =
  | { id: number; encoded: string; encoding: SubmissionEncoding; resolve(d: DecodedSubmission): void; reject(e: unknown): void }
  | { id: number; evm: Uint8Array; resolve(r: EvmRecovery | null): void; reject(e: unknown): void };

/**
 * Names that many transactions share (their signers, their read-only keys such as programs and
 * sysvars, their blockhash), each kept as one string: the same payer in a thousand transactions is one
 * string in all of them, and in the banks that keep them until their slot is rooted, instead of a copy
 * per transaction from the worker's answer. Writable non-signer keys (a transfer's recipient) are
 * mostly new each time and are not kept here. Bounded: the oldest names leave past SHARED_NAMES_LIMIT.
 */
const SHARED_NAMES_LIMIT = 1024;
const sharedNames = new BoundedMap<string, string>(SHARED_NAMES_LIMIT);
function shared(name: string): string {
  const seen = sharedNames.get(name);
  if (seen !== undefined) return seen;
  sharedNames.set(name, name);
  return name;
}

/** The transaction of a worker's answer: its bytes parsed again, with the names the worker made. */
export function parsedFrom(answer: DecodedAnswer): Transaction {
  let next = 0;
  const tx = parseTransaction(answer.wire, () => {
    const name = answer.names[next++];
    if (name === undefined) throw new Error('the submission worker answered fewer names than the transaction has');
    return name;
  });
  if (next !== answer.names.length) throw new Error('the submission worker answered more names than the transaction has');
  const m = tx.message;
  const keys = m.accountKeys;
  const readonlyFrom = keys.length - m.header.numReadonlyUnsignedAccounts;
  for (let i = 0; i < keys.length; i++) if (i < m.header.numRequiredSignatures || i >= readonlyFrom) keys[i] = shared(keys[i]!);
  m.recentBlockhash = shared(m.recentBlockhash);
  return tx;
}

/** Decodes and checks a submission on the calling thread (the same answers as the worker's). */
export async function decodeSubmissionHere(encoded: string, encoding: SubmissionEncoding): Promise<DecodedSubmission> {
  const tx = decodeSubmittedTransaction(encoded, encoding);
  return { tx, verified: verifyTransactionSignatures(tx) };
}

/**
 * The worker's module: the compiled one beside the bundle's chunks (bin/cli-bundle.mjs and the
 * desktop build emit it), or the TypeScript source when the node runs from source.
 */
function workerModule(): URL {
  return new URL(import.meta.url.endsWith('.ts') ? './submission-worker.ts' : './submission-worker.mjs', import.meta.url);
}

/**
 * A worker running `module`. TypeScript is loaded through tsx, registered in the worker itself: a
 * worker does not inherit tsx's hooks from `--import tsx` nor from its register() (bin/isthmus.js).
 */
function startWorker(module: URL): Worker {
  if (!module.pathname.endsWith('.ts')) return new Worker(module);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${tsx}).then(({ register }) => { register(); return import(${JSON.stringify(module.href)}); })`, { eval: true });
}

export class SubmissionDecoder {
  private worker: Worker | null = null;
  /** The worker has loaded its module and takes requests. */
  private ready = false;
  /** The worker could not run: everything is decoded on the event loop. */
  private inThread = false;
  private closed = false;
  private nextId = 0;
  private workerAnswers = 0;
  private lastAnswerAt = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly pending = new Map<number, Pending>();
  /** whenReady's callers, told when the worker is ready (true) or cannot run (false). */
  private readyWaiters: Array<(ready: boolean) => void> = [];
  /** Requests of this event-loop turn, posted together (one message and one wake-up of the worker a turn). */
  private batch: SubmissionRequest[] = [];

  constructor(
    private readonly module: URL = workerModule(),
    private readonly idleMs = IDLE_MS,
  ) {}

  /** Whether a worker thread is running now (started and not yet stopped when idle). */
  get workerRunning(): boolean {
    return this.worker !== null;
  }

  /** Whether the worker thread answers (it has answered, and has not failed since). */
  get runsOnWorker(): boolean {
    return this.workerAnswers > 0 && !this.inThread;
  }

  /** Starts the worker if it is not running; true once it takes requests, false if it cannot run. */
  whenReady(): Promise<boolean> {
    if (this.ready) return Promise.resolve(true);
    if (this.inThread || this.closed || (!this.worker && !this.start())) return Promise.resolve(false);
    // Waited for, it holds the process open until it is ready.
    this.worker!.ref();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  private tellReady(ready: boolean): void {
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of waiters) w(ready);
  }

  decode(encoded: string, encoding: SubmissionEncoding): Promise<DecodedSubmission> {
    if (this.inThread || this.closed) return decodeSubmissionHere(encoded, encoding);
    if (!this.worker) this.start();
    if (!this.ready) return decodeSubmissionHere(encoded, encoding);
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { id, encoded, encoding, resolve, reject });
      if (this.batch.length === 0) setImmediate(() => this.post());
      this.batch.push({ id, encoded, encoding });
    });
  }

  /**
   * Checks an Ethereum transaction and recovers its sender on the worker; null when the worker does
   * not run (yet): the caller decodes it on the event loop (TransactionDecoder.decode), with the same answers.
   */
  recoverEvm(raw: Uint8Array, chainId: number, wrap?: EvmWrapping): Promise<EvmRecovery | null> {
    if (this.inThread || this.closed) return Promise.resolve(null);
    if (!this.worker) this.start();
    if (!this.ready) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { id, evm: raw, resolve, reject });
      if (this.batch.length === 0) setImmediate(() => this.post());
      this.batch.push({ id, evm: raw, chainId, wrap });
    });
  }

  private post(): void {
    const batch = this.batch;
    this.batch = [];
    // The worker failed or was closed meanwhile: these requests were decoded here already.
    if (this.worker && batch.length) {
      this.worker.ref();
      this.worker.postMessage(batch);
    }
  }

  /** Stops the worker; requests still in it are decoded on the event loop. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const worker = this.worker;
    this.worker = null;
    if (worker) {
      worker.removeAllListeners();
      await worker.terminate();
    }
    this.decodeRemainingHere();
    this.tellReady(false);
  }

  private start(): Worker | null {
    let worker: Worker;
    try {
      worker = startWorker(this.module);
    } catch {
      this.inThread = true;
      this.tellReady(false);
      return null;
    }
    // It keeps the process running only while it has requests to answer.
    worker.unref();
    worker.on('message', (answers: SubmissionAnswer[] | typeof WORKER_READY) => {
      if (answers === WORKER_READY) {
        this.ready = this.worker === worker;
        if (this.pending.size === 0) worker.unref();
        this.tellReady(this.ready);
        return;
      }
      this.workerAnswers += answers.length;
      for (const answer of answers) this.answered(answer);
      this.lastAnswerAt = Date.now();
      if (this.pending.size === 0) {
        worker.unref();
        this.retireWhenIdle(worker);
      }
    });
    const fail = () => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.ready = false;
      this.inThread = true;
      void worker.terminate();
      this.decodeRemainingHere();
      this.tellReady(false);
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    this.worker = worker;
    return worker;
  }

  /**
   * Stops the worker once it has had nothing to do for idleMs: its heap (a second V8 heap with the
   * decoding modules loaded) goes back to the system after a burst. The next send starts it again.
   */
  private retireWhenIdle(worker: Worker): void {
    if (this.idleTimer) return;
    const check = () => {
      this.idleTimer = null;
      if (this.worker !== worker) return;
      const idleFor = Date.now() - this.lastAnswerAt;
      if (this.pending.size > 0 || this.batch.length > 0) return;
      if (idleFor < this.idleMs) {
        this.idleTimer = setTimeout(check, this.idleMs - idleFor).unref();
        return;
      }
      this.worker = null;
      this.ready = false;
      worker.removeAllListeners();
      void worker.terminate();
    };
    this.idleTimer = setTimeout(check, this.idleMs).unref();
  }

  private answered(answer: SubmissionAnswer): void {
    const p = this.pending.get(answer.id);
    if (!p) return;
    this.pending.delete(answer.id);
    if ('evm' in p) {
      // A failure the worker could not explain: the event loop decodes the transaction itself.
      p.resolve('recovered' in answer ? { recovered: answer.recovered, wrapped: answer.wrapped } : 'invalid' in answer ? { invalid: answer.invalid } : null);
    } else if ('wire' in answer) {
      try {
        p.resolve({ tx: parsedFrom(answer), verified: answer.verified });
      } catch (e) {
        p.reject(e);
      }
    }
    else if ('rpcError' in answer) p.reject(new RpcError(answer.rpcError.code, answer.rpcError.message));
    else if ('failure' in answer) p.reject(new Error(answer.failure));
  }

  private decodeRemainingHere(): void {
    const remaining = [...this.pending.values()];
    this.pending.clear();
    this.batch = [];
    for (const p of remaining) {
      if ('evm' in p) p.resolve(null);
      else decodeSubmissionHere(p.encoded, p.encoding).then(p.resolve, p.reject);
    }
  }
}
