/**
 * The transaction queue (the banking stage's buffer): signature-checked transactions wait here in
 * arrival order and are executed into the working bank in batches on the event loop. A transaction
 * with an asynchronous program (EVM) runs alone: the queue waits behind it until it has finished,
 * and one the working bank refuses as full goes first into the next bank.
 */
import { TransactionError } from '../runtime/errors.ts';
import type { Transaction } from '../runtime/wire.ts';

/** How the queue runs what it holds (the chain, on its working bank). */
export interface QueueExecutor {
  /** Whether the transaction needs asynchronous execution (an EVM program). */
  isAsync(tx: Transaction): boolean;
  /** Executes into the working bank; throws when the transaction cannot enter the block. */
  execute(tx: Transaction): void;
  /** Executes asynchronously into the working bank (which waits for it to seal); rejects as `execute` throws. */
  executeAsync(tx: Transaction): Promise<void>;
  /** A transaction could not enter a block. */
  refused(tx: Transaction, e: unknown): void;
}

const QUEUE_BATCH = 512;

export class TransactionQueue {
  private readonly pending: Transaction[] = [];
  private readonly queued = new Set<string>();
  private drainScheduled = false;
  /** The asynchronous transaction being executed (EVM); the queue waits behind it. */
  private inflight: Promise<void> | null = null;
  /** The working bank refused an asynchronous transaction as full: the queue waits for the next bank. */
  private blockFull = false;
  /** Nothing is executed while a snapshot, revert or reset holds the chain (Chain.exclusive). */
  private paused = false;

  constructor(private readonly executor: QueueExecutor) {}

  get length(): number {
    return this.pending.length;
  }

  /** Whether the next transaction waits for the next bank (the working bank is full). */
  get waitsForNextBank(): boolean {
    return this.blockFull;
  }

  /** Executes nothing until resume(); transactions pushed meanwhile wait in order. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.scheduleDrain();
  }

  /** Whether an asynchronous transaction is executing. */
  get busy(): boolean {
    return this.inflight !== null;
  }

  has(signature: string): boolean {
    return this.queued.has(signature);
  }

  /** Adds a transaction; false when it is already queued. */
  push(tx: Transaction): boolean {
    if (this.queued.has(tx.id)) return false;
    this.queued.add(tx.id);
    this.pending.push(tx);
    return true;
  }

  /** Resolves once no asynchronous transaction is executing. */
  async idle(): Promise<void> {
    while (this.inflight) await this.inflight;
  }

  /** A new working bank opened: an asynchronous transaction refused as full may try again. */
  bankOpened(): void {
    this.blockFull = false;
  }

  /** Drains a batch on the event loop's next turn (once, however often it is asked). */
  scheduleDrain(): void {
    if (this.drainScheduled || this.paused || this.pending.length === 0) return;
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      this.drain(QUEUE_BATCH, true);
    });
  }

  /**
   * Executes queued transactions in order. An asynchronous one (EVM) is started only when
   * `startAsync` is set, and the queue then waits until it has finished.
   */
  drain(max: number, startAsync: boolean): void {
    if (this.paused) return;
    let n = 0;
    while (this.pending.length && n++ < max && !this.inflight) {
      const tx = this.pending[0]!;
      if (this.executor.isAsync(tx)) {
        if (!startAsync || this.blockFull) return;
        this.pending.shift();
        this.queued.delete(tx.id);
        this.inflight = this.runAsync(tx).finally(() => {
          this.inflight = null;
          this.scheduleDrain();
        });
        return;
      }
      this.pending.shift();
      this.queued.delete(tx.id);
      try {
        this.executor.execute(tx);
      } catch (e) {
        this.executor.refused(tx, e);
      }
    }
    this.scheduleDrain();
  }

  private async runAsync(tx: Transaction): Promise<void> {
    try {
      await this.executor.executeAsync(tx);
    } catch (e) {
      if (e instanceof TransactionError && e.value === 'WouldExceedMaxBlockCostLimit') {
        // The block is full (the EVM's gas limit): the transaction goes first into the next one, as Agave's leader retries it.
        this.pending.unshift(tx);
        this.queued.add(tx.id);
        this.blockFull = true;
        return;
      }
      this.executor.refused(tx, e);
    }
  }
}
