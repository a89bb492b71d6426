/**
 * The wire bytes a bank keeps of each transaction until its slot is rooted, copied side by side into
 * shared chunks: one ArrayBuffer per CHUNK_BYTES instead of one per transaction (each its own heap
 * object, native allocation and array-buffer record that every scavenge visits while it is young).
 * A chunk is freed once no kept transaction points into it; as slots are rooted in order, chunks go
 * in order too.
 */
const CHUNK_BYTES = 16 * 1024;
/** Larger byte strings get a copy of their own (a transaction is at most 1232 bytes). */
const LARGEST_SHARED = CHUNK_BYTES / 8;

export class WireSlab {
  private chunk = new Uint8Array(CHUNK_BYTES);
  private used = 0;

  /** A copy of `bytes` that the caller keeps and never writes. */
  copy(bytes: Uint8Array): Uint8Array {
    if (bytes.length > LARGEST_SHARED) return bytes.slice();
    if (this.used + bytes.length > CHUNK_BYTES) {
      this.chunk = new Uint8Array(CHUNK_BYTES);
      this.used = 0;
    }
    const out = this.chunk.subarray(this.used, this.used + bytes.length);
    out.set(bytes);
    this.used += bytes.length;
    return out;
  }
}
