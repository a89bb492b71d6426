/**
 * The struct logger's `stack` member as JSON text, step after step. Between two steps most of the
 * stack is unchanged (an opcode pops and pushes a few words at the top), so the text of the
 * unchanged bottom is copied from the previous entry's, already in the output, and only the words
 * above it are written.
 */
import type { JsonBytesWriter } from '../../common/json-text.ts';

/** Words below this have their text made once (counters, offsets, jump targets). */
const CACHED_BELOW = 1 << 16;
/** The same as a bigint: a bigint compared with a number takes V8's slow path. */
const CACHED_BELOW_N = BigInt(CACHED_BELOW);
const smallHex: string[] = [];
const smallItems: string[] = [];

/** geth's stack word: 0x and the shortest hex. */
export function wordHex(v: bigint): string {
  if (v < CACHED_BELOW_N) {
    const i = Number(v);
    return (smallHex[i] ??= `0x${v.toString(16)}`);
  }
  return `0x${v.toString(16)}`;
}

/** A word as a list item, with the comma before it: `,"0x40"` (one write per word). */
function wordItem(v: bigint): string {
  if (v < CACHED_BELOW_N) {
    const i = Number(v);
    return (smallItems[i] ??= `,"0x${v.toString(16)}"`);
  }
  return `,"0x${v.toString(16)}"`;
}

/** The EVM's stack limit. */
const MAX_WORDS = 1024;
const STACK_OPEN = Uint8Array.from(Buffer.from(',"stack":[', 'latin1'));
const CLOSE = 0x5d; // ]

export class StackText {
  private readonly words: bigint[] = [];
  /** Each word's item text, comma first (`,"0x80"`); the first item is written without its comma. */
  private readonly items: string[] = [];
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
    const { words, items, ends } = this;
    const max = Math.min(length, this.length);
    let same = 0;
    while (same < max && store[same] === words[same]) same++;
    for (let i = same; i < length; i++) {
      const v = store[i]!;
      words[i] = v;
      const item = (items[i] = wordItem(v));
      ends[i] = (i > 0 ? ends[i - 1]! : -1) + item.length;
    }
    this.length = length;
    this.same = same;
  }

  /** `,"stack":[…]` of the stack as last updated. */
  writeMember(out: JsonBytesWriter): void {
    out.bytes(STACK_OPEN);
    this.writeWords(out);
  }

  /** The words and the closing bracket, for a writer that wrote `,"stack":[` itself (within a longer piece). */
  writeWords(out: JsonBytesWriter): void {
    const length = this.length;
    if (length === 0) {
      out.byte(CLOSE);
      this.lastChunk = -1;
      return;
    }
    out.reserve(this.ends[length - 1]! + 1);
    const chunk = out.chunk;
    const start = out.offset;
    const items = this.items;
    let i = 0;
    if (this.same > 0 && this.lastChunk === chunk) {
      out.repeat(this.lastStart, this.lastStart + this.ends[this.same - 1]!);
      i = this.same;
    } else {
      out.ascii(items[0]!, 1);
      i = 1;
    }
    for (; i < length; i++) out.ascii(items[i]!);
    out.byte(CLOSE);
    this.lastChunk = chunk;
    this.lastStart = start;
  }
}
