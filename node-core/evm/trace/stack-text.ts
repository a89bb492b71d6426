/**
 * The struct logger's `stack` member as JSON text, step after step. Between two steps most of the
 * stack is unchanged (an opcode pops and pushes a few words at the top), so the text of the
 * unchanged bottom is copied from the previous entry's, already in the output, and only the words
 * above it are written.
 */
import type { JsonBytesWriter } from '../../common/json-text.ts';

/** Words below this have their hex text made once (counters, offsets, jump targets). */
const CACHED_BELOW = 1 << 16;
const smallHex: string[] = [];

/** geth's stack word: 0x and the shortest hex. */
export function wordHex(v: bigint): string {
  if (v < CACHED_BELOW) {
    const i = Number(v);
    return (smallHex[i] ??= `0x${v.toString(16)}`);
  }
  return `0x${v.toString(16)}`;
}

/** The EVM's stack limit. */
const MAX_WORDS = 1024;

export class StackText {
  private readonly words: bigint[] = [];
  private readonly hex: string[] = [];
  /** ends[i]: the length of the text of words 0..i (`"0x80","0x40"`). */
  private readonly ends = new Uint32Array(MAX_WORDS);
  private length = 0;
  /** How many bottom words the stack shares with the one written last. */
  private same = 0;
  /** Where the text of the stack written last begins in the output (chunk -1: nowhere to copy from). */
  private lastChunk = -1;
  private lastStart = 0;

  /** The stack is now the first `length` words of `store`, bottom first. */
  update(store: readonly bigint[], length: number): void {
    const { words, hex, ends } = this;
    const max = Math.min(length, this.length);
    let same = 0;
    while (same < max && store[same] === words[same]) same++;
    for (let i = same; i < length; i++) {
      const v = store[i]!;
      words[i] = v;
      const h = (hex[i] = wordHex(v));
      ends[i] = (i > 0 ? ends[i - 1]! + 1 : 0) + h.length + 2;
    }
    this.length = length;
    this.same = same;
  }

  /** `,"stack":[…]` of the stack as last updated. */
  writeMember(out: JsonBytesWriter): void {
    out.ascii(',"stack":[');
    const length = this.length;
    if (length === 0) {
      out.ascii(']');
      this.lastChunk = -1;
      return;
    }
    out.reserve(this.ends[length - 1]! + 1);
    const chunk = out.chunk;
    const start = out.offset;
    let i = 0;
    if (this.same > 0 && this.lastChunk === chunk) {
      out.repeat(this.lastStart, this.lastStart + this.ends[this.same - 1]!);
      i = this.same;
    }
    for (; i < length; i++) {
      out.ascii(i > 0 ? ',"' : '"');
      out.ascii(this.hex[i]!);
      out.ascii('"');
    }
    out.ascii(']');
    this.lastChunk = chunk;
    this.lastStart = start;
  }
}
