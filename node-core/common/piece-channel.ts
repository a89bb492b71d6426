/**
 * Text handed from a writer that pushes (a traced run, writing JSON while it steps) to a reader that
 * pulls (a transport sending it): the reader iterates the pieces as they come; the writer hears
 * when enough is queued and waits, so memory stays bounded however large the text and however slowly
 * the reader reads. When the reader stops early (its client went away), the writer's wait fails, so
 * the work behind it stops; when the writer fails, the reader's next piece is that failure.
 */
import type { JsonPiece } from './json-text.ts';

/** Where a writer puts its pieces. */
export interface PieceSink {
  /** Queues `piece`; false: enough is queued, wait for `ready()` before writing more. */
  write(piece: JsonPiece): boolean;
  /** Resolves once the reader took enough; rejects when the reader is gone. */
  ready(): Promise<void>;
}

/** The reader went away before the text was whole. */
export class ReaderGone extends Error {
  constructor() {
    super('the reader of a streamed answer went away before its end');
  }
}

const byteLength = (p: JsonPiece) => (typeof p === 'string' ? p.length : p.byteLength);

export class PieceChannel implements PieceSink, AsyncIterable<JsonPiece> {
  private readonly queue: JsonPiece[] = [];
  private queued = 0;
  private ended = false;
  private failure: { error: unknown } | null = null;
  private gone = false;
  /** The reader waiting for a piece. */
  private reader: (() => void) | null = null;
  /** The writer waiting for room. */
  private writer: { resolve(): void; reject(e: unknown): void } | null = null;

  /** `maxQueued`: bytes queued past which the writer is told to wait. */
  constructor(private readonly maxQueued: number) {}

  write(piece: JsonPiece): boolean {
    if (this.gone) return false;
    if (this.ended) throw new Error('PieceChannel: write after end');
    this.queue.push(piece);
    this.queued += byteLength(piece);
    this.wakeReader();
    return this.queued < this.maxQueued;
  }

  ready(): Promise<void> {
    if (this.gone) return Promise.reject(new ReaderGone());
    if (this.queued < this.maxQueued) return Promise.resolve();
    if (this.writer) throw new Error('PieceChannel: one writer waits at a time');
    return new Promise((resolve, reject) => (this.writer = { resolve, reject }));
  }

  /** The writer is done: the reader's iteration ends after the queued pieces. */
  end(): void {
    this.ended = true;
    this.wakeReader();
  }

  /** The writer failed: the reader gets `error` after the queued pieces. */
  fail(error: unknown): void {
    this.ended = true;
    this.failure = { error };
    this.wakeReader();
  }

  /** The reader is gone: nothing more is queued, and the writer's wait fails. */
  close(): void {
    if (this.gone) return;
    this.gone = true;
    this.queue.length = 0;
    this.queued = 0;
    const w = this.writer;
    this.writer = null;
    w?.reject(new ReaderGone());
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<JsonPiece> {
    try {
      for (;;) {
        const piece = this.queue.shift();
        if (piece !== undefined) {
          this.queued -= byteLength(piece);
          if (this.writer && this.queued < this.maxQueued) {
            const w = this.writer;
            this.writer = null;
            w.resolve();
          }
          yield piece;
          continue;
        }
        if (this.failure) throw this.failure.error;
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.reader = resolve));
      }
    } finally {
      this.close();
    }
  }

  private wakeReader(): void {
    const r = this.reader;
    this.reader = null;
    r?.();
  }
}
