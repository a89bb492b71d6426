/** Little-endian binary reading and writing in the layouts Solana uses (bincode, short-vec). */

export class DecodeError extends Error {}

export class ByteReader {
  offset = 0;
  private readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  get remaining(): number {
    return this.bytes.length - this.offset;
  }
  private need(n: number): void {
    if (this.offset + n > this.bytes.length) {
      throw new DecodeError(`unexpected end of data: ${n} byte${n === 1 ? '' : 's'} needed at offset ${this.offset}, ${this.remaining} left`);
    }
  }
  u8(): number {
    this.need(1);
    return this.bytes[this.offset++]!;
  }
  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.offset, true);
    this.offset += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return v;
  }
  i64(): bigint {
    this.need(8);
    const v = this.view.getBigInt64(this.offset, true);
    this.offset += 8;
    return v;
  }
  /** Solana's compact-u16 ("short-vec") length prefix. */
  shortVec(): number {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const b = this.u8();
      value |= (b & 0x7f) << (7 * i);
      if ((b & 0x80) === 0) {
        if (i > 0 && b === 0) throw new DecodeError('non-canonical short-vec length');
        if (value > 0xffff) throw new DecodeError('short-vec length overflow');
        return value;
      }
    }
    throw new DecodeError('short-vec length overflow');
  }
  bytesN(n: number): Uint8Array {
    this.need(n);
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
  /** bincode Vec<u8>/String: u64 length then the bytes. */
  bincodeBytes(): Uint8Array {
    const len = this.u64();
    if (len > BigInt(this.remaining)) throw new DecodeError(`unexpected end of data: ${len} bytes needed at offset ${this.offset}, ${this.remaining} left`);
    return this.bytesN(Number(len));
  }
}

export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  length = 0;
  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
  }
  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.length + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number): this {
    this.ensure(1);
    this.buf[this.length++] = v;
    return this;
  }
  u16(v: number): this {
    this.ensure(2);
    this.view.setUint16(this.length, v, true);
    this.length += 2;
    return this;
  }
  u32(v: number): this {
    this.ensure(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
    return this;
  }
  u64(v: bigint | number): this {
    this.ensure(8);
    this.view.setBigUint64(this.length, BigInt(v), true);
    this.length += 8;
    return this;
  }
  i64(v: bigint | number): this {
    this.ensure(8);
    this.view.setBigInt64(this.length, BigInt(v), true);
    this.length += 8;
    return this;
  }
  shortVec(n: number): this {
    let rem = n;
    for (;;) {
      let b = rem & 0x7f;
      rem >>= 7;
      if (rem === 0) return this.u8(b);
      b |= 0x80;
      this.u8(b);
    }
  }
  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
    return this;
  }
  bincodeBytes(b: Uint8Array): this {
    return this.u64(b.length).bytes(b);
  }
  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A u64 read from the wire as a JS number when it fits; larger values stay bigint for the caller to reject. */
export function u64ToSafeNumber(v: bigint): number | null {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : null;
}
