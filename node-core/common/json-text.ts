/**
 * JSON text written ahead, in pieces. An answer too large to build as objects and stringify (the
 * struct logger's trace of a million gas is ~80 MB of JSON) is written as text while it is computed;
 * the RPC layer puts the pieces into its response as they are and the HTTP transport writes them one
 * after another, never joined into one string.
 */
export type JsonPiece = string | Uint8Array;

export class JsonText {
  constructor(readonly pieces: readonly JsonPiece[]) {}
}

/** The pieces as one string (for the transports that send one message). */
export function joinPieces(pieces: readonly JsonPiece[]): string {
  return pieces.map((p) => (typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('utf8'))).join('');
}

/** Bytes per chunk: few writes, and no piece near V8's string length limit. */
const CHUNK_BYTES = 1 << 20;
/** Shorter strings are copied byte by byte in JS: cheaper than a call into Buffer's native write. */
const SHORT = 24;
/** Shorter byte arrays are copied byte by byte in JS: below this, a loop beats TypedArray's set. */
const SHORT_BYTES = 10;

/**
 * Chunks given back once their text was sent, for the next writer. A struct-logger trace of a million
 * gas fills some 75 chunks: taken fresh each time, their pages fault in on first write (~80 ms here)
 * and their growth of external memory sets off full GCs (~150 ms a trace); reused, neither. Only what
 * a transport hands back after writing it (releaseChunks) is reused, and the pool lets go of its
 * chunks once no writer took one for a while, so an idle node does not keep them.
 */
export class ChunkPool {
  /** The backing memory of chunks made by writers and not yet given back. */
  private readonly issued = new WeakSet<ArrayBuffer>();
  private readonly free: ArrayBuffer[] = [];
  private idleTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly maxChunks: number,
    private readonly idleMs: number,
  ) {}

  get size(): number {
    return this.free.length;
  }

  take(): Buffer {
    const reused = this.free.pop();
    const chunk = reused ? Buffer.from(reused) : Buffer.allocUnsafeSlow(CHUNK_BYTES);
    this.issued.add(chunk.buffer as ArrayBuffer);
    return chunk;
  }

  /** Takes back the writers' chunks among `pieces` (views into them): nothing may read those pieces after this. */
  give(pieces: readonly JsonPiece[]): void {
    for (const p of pieces) {
      if (typeof p === 'string' || !this.issued.has(p.buffer as ArrayBuffer)) continue;
      this.issued.delete(p.buffer as ArrayBuffer);
      if (this.free.length < this.maxChunks) this.free.push(p.buffer as ArrayBuffer);
    }
    if (this.free.length === 0) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.drop(), this.idleMs);
    this.idleTimer.unref();
  }

  drop(): void {
    this.free.length = 0;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}

/** Up to 128 MB of chunks, kept for 10 s after the last answer that gave some back. */
export const chunkPool = new ChunkPool(128, 10_000);

/** For a transport: `pieces` were written out and nothing reads them any more; the writers' chunks among them are reused. */
export function releaseChunks(pieces: readonly JsonPiece[]): void {
  chunkPool.give(pieces);
}

/**
 * ASCII JSON text written into byte chunks: no string per value, no join, little garbage. Full
 * chunks are kept, or handed to `onChunk` as they fill (a chunk handed on is never written again).
 */
export class JsonBytesWriter {
  private readonly chunks: Buffer[] = [];
  private buf: Buffer;
  private pos = 0;
  /** Bytes in the finished chunks. */
  private chunked = 0;
  /** Chunks begun before the current one. */
  private begun = 0;

  /** `pool`: where chunks come from (and go back to once sent). */
  constructor(
    private readonly pool: ChunkPool = chunkPool,
    private readonly onChunk?: (chunk: Buffer) => void,
  ) {
    this.buf = pool.take();
  }

  /** Bytes written so far. */
  get size(): number {
    return this.chunked + this.pos;
  }

  /** An ASCII string (JSON punctuation, member names, hex), from character `from` on. */
  ascii(s: string, from = 0): void {
    const n = s.length - from;
    if (this.pos + n > this.buf.length) this.next(n);
    if (n < SHORT) {
      const buf = this.buf;
      let pos = this.pos;
      for (let i = from; i < s.length; i++) buf[pos++] = s.charCodeAt(i);
      this.pos = pos;
    } else this.pos += this.buf.write(from === 0 ? s : s.slice(from), this.pos, 'latin1');
  }

  /** Bytes made ahead (a piece of text written many times), from `from` on. */
  bytes(b: Uint8Array, from = 0): void {
    const n = b.length - from;
    if (this.pos + n > this.buf.length) this.next(n);
    if (n < SHORT_BYTES) {
      const buf = this.buf;
      let pos = this.pos;
      for (let i = from; i < b.length; i++) buf[pos++] = b[i]!;
      this.pos = pos;
    } else {
      this.buf.set(from === 0 ? b : b.subarray(from), this.pos);
      this.pos += n;
    }
  }

  /** One ASCII character, by its code. */
  byte(c: number): void {
    if (this.pos + 1 > this.buf.length) this.next(1);
    this.buf[this.pos++] = c;
  }

  /** A non-negative safe integer, in decimal. */
  uint(v: number): void {
    if (!(v >= 0 && v <= Number.MAX_SAFE_INTEGER && v === Math.floor(v))) return this.ascii(JSON.stringify(v));
    if (this.pos + 16 > this.buf.length) this.next(16);
    const buf = this.buf;
    if (v < 10) {
      buf[this.pos++] = 48 + v;
      return;
    }
    // The digit count by comparison (a gas figure has ~7 digits: a loop of divisions costs more).
    let digits = v < 1e4 ? (v < 100 ? 2 : v < 1e3 ? 3 : 4) : v < 1e8 ? (v < 1e5 ? 5 : v < 1e6 ? 6 : v < 1e7 ? 7 : 8) : 9;
    if (digits === 9) for (let x = v / 1e9; x >= 1; x = x / 10) digits++;
    const end = this.pos + digits;
    let pos = end;
    let x = v;
    // Above 2^31 the division by 10 needs Math.floor; below, | 0 truncates (most numbers are there).
    for (; x >= 0x80000000; x = Math.floor(x / 10)) buf[--pos] = 48 + (x % 10);
    for (; pos > this.pos; x = (x / 10) | 0) buf[--pos] = 48 + (x % 10);
    this.pos = end;
  }

  /** Where the next byte goes: the chunk (counted from 0) and the offset in it. */
  get chunk(): number {
    return this.begun;
  }

  get offset(): number {
    return this.pos;
  }

  /** Makes sure the next `n` bytes go into the current chunk. */
  reserve(n: number): void {
    if (this.pos + n > this.buf.length) this.next(n);
  }

  /** Writes again bytes `start` to `end` of the current chunk (one copy within the chunk, the cheapest there is). */
  repeat(start: number, end: number): void {
    const n = end - start;
    if (this.pos + n > this.buf.length) throw new RangeError('repeat: no room left in the chunk (reserve first)');
    this.buf.copyWithin(this.pos, start, end);
    this.pos += n;
  }

  /** The text written (with `onChunk`: the last chunk handed on, nothing returned); the writer is done with. */
  finish(): Buffer[] {
    if (this.pos > 0) this.hand(this.buf.subarray(0, this.pos));
    this.chunked += this.pos;
    this.pos = 0;
    return this.chunks;
  }

  private next(atLeast: number): void {
    if (this.pos > 0) this.hand(this.buf.subarray(0, this.pos));
    this.chunked += this.pos;
    this.buf = atLeast > CHUNK_BYTES ? Buffer.allocUnsafe(atLeast) : this.pool.take();
    this.pos = 0;
    this.begun++;
  }

  private hand(chunk: Buffer): void {
    if (this.onChunk) this.onChunk(chunk);
    else this.chunks.push(chunk);
  }
}
