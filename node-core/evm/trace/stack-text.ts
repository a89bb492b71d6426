/**
 * The struct logger's stack as JSON text (`"0x80","0x40"`), step after step. Between two steps most
 * of the stack is unchanged (an opcode pops and pushes a few words at the top), so the text of the
 * unchanged bottom stays in place and only the words above it are written again.
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

/** The EVM's stack limit, and the longest text of a word: a comma, quotes, 0x and 64 digits. */
const MAX_WORDS = 1024;
const MAX_WORD_TEXT = 69;

export class StackText {
  private readonly words: bigint[] = [];
  /** ends[i]: where word i's text ends in `text`. */
  private readonly ends = new Uint32Array(MAX_WORDS + 1);
  private readonly text = Buffer.allocUnsafe(MAX_WORDS * MAX_WORD_TEXT);
  private length = 0;

  /** The stack is now the first `length` words of `store`, bottom first. */
  update(store: readonly bigint[], length: number): void {
    const { words, ends, text } = this;
    const max = Math.min(length, this.length);
    let same = 0;
    while (same < max && store[same] === words[same]) same++;
    let pos = same > 0 ? ends[same - 1]! : 0;
    for (let i = same; i < length; i++) {
      const v = store[i]!;
      words[i] = v;
      const hex = wordHex(v);
      if (i > 0) text[pos++] = 0x2c;
      text[pos++] = 0x22;
      for (let j = 0; j < hex.length; j++) text[pos++] = hex.charCodeAt(j);
      text[pos++] = 0x22;
      ends[i] = pos;
    }
    this.length = length;
  }

  /** `,"stack":[…]` of the stack as last updated. */
  writeMember(out: JsonBytesWriter): void {
    out.ascii(',"stack":[');
    if (this.length > 0) out.copy(this.text, 0, this.ends[this.length - 1]!);
    out.ascii(']');
  }
}
