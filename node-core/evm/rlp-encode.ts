/**
 * RLP encoding of byte strings and lists of them (Yellow Paper, appendix B) into one buffer sized
 * first. @ethereumjs/rlp's encode allocates a length prefix and a concatenation for every item, which
 * made the trie's node encoding one of the EVM burst's larger allocators (a branch is 17 items); the
 * bytes are the same (test/unit/rlp-encode.test.ts compares them).
 */
export type RlpInput = Uint8Array | readonly RlpInput[];

/** Bytes of the big-endian length `n` takes (n > 0). */
function lengthOfLength(n: number): number {
  let bytes = 0;
  while (n > 0) {
    bytes++;
    n = Math.floor(n / 256);
  }
  return bytes;
}

/** The size of a string's or a list's prefix for a payload of `length` bytes. */
const prefixSize = (length: number): number => (length < 56 ? 1 : 1 + lengthOfLength(length));

/** Encoded size of `input`; `payloads` receives each list's payload size in the order write visits them. */
function sizeOf(input: RlpInput, payloads: number[]): number {
  if (input instanceof Uint8Array) return input.length === 1 && input[0]! < 0x80 ? 1 : prefixSize(input.length) + input.length;
  const at = payloads.length;
  payloads.push(0);
  let payload = 0;
  for (let i = 0; i < input.length; i++) payload += sizeOf(input[i]!, payloads);
  payloads[at] = payload;
  return prefixSize(payload) + payload;
}

function writePrefix(out: Uint8Array, at: number, length: number, offset: number): number {
  if (length < 56) {
    out[at] = offset + length;
    return at + 1;
  }
  const bytes = lengthOfLength(length);
  out[at] = offset + 55 + bytes;
  for (let i = bytes; i > 0; i--, length = Math.floor(length / 256)) out[at + i] = length % 256;
  return at + 1 + bytes;
}

function write(input: RlpInput, out: Uint8Array, at: number, payloads: number[], next: { list: number }): number {
  if (input instanceof Uint8Array) {
    if (input.length === 1 && input[0]! < 0x80) {
      out[at] = input[0]!;
      return at + 1;
    }
    at = writePrefix(out, at, input.length, 0x80);
    out.set(input, at);
    return at + input.length;
  }
  at = writePrefix(out, at, payloads[next.list++]!, 0xc0);
  for (let i = 0; i < input.length; i++) at = write(input[i]!, out, at, payloads, next);
  return at;
}

/** The length of `input`'s encoding, without encoding it. */
export const rlpSize = (input: RlpInput): number => sizeOf(input, []);

export function encodeRlp(input: RlpInput): Uint8Array {
  const payloads: number[] = [];
  const out = new Uint8Array(sizeOf(input, payloads));
  write(input, out, 0, payloads, { list: 0 });
  return out;
}
