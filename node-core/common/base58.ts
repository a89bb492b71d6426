import bs58 from 'bs58';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** 58^5: five base-58 digits per limb; a limb times 2^16 plus a carry stays below 2^53, exact in a double. */
const LIMB = 656_356_768;
const DIGIT_PAIRS: string[] = [];
for (let i = 0; i < 58 * 58; i++) DIGIT_PAIRS.push(ALPHABET[Math.floor(i / 58)]! + ALPHABET[i % 58]!);

/**
 * Base-58 text of `bytes`, the same as bs58's. Every address and signature the node parses is
 * encoded here; bs58 works a byte and a digit at a time (about 6 µs for a key, 16 µs for a
 * signature), this two bytes and five digits at a time in float arithmetic, several times faster.
 */
export function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // Little-endian limbs of the number the bytes after the leading zeros spell.
  const limbs: number[] = [];
  let i = zeros;
  if ((bytes.length - zeros) % 2 === 1) limbs.push(bytes[i++]!);
  for (; i < bytes.length; i += 2) {
    let carry = (bytes[i]! << 8) | bytes[i + 1]!;
    for (let j = 0; j < limbs.length; j++) {
      const x = limbs[j]! * 65536 + carry;
      carry = Math.floor(x / LIMB);
      limbs[j] = x - carry * LIMB;
    }
    while (carry > 0) {
      const next = Math.floor(carry / LIMB);
      limbs.push(carry - next * LIMB);
      carry = next;
    }
  }
  let text = '';
  for (let j = 0; j < limbs.length; j++) {
    let limb = limbs[j]!;
    const last = j === limbs.length - 1;
    // Five digits; the most significant limb (never zero) loses its leading zero digits.
    const low = limb % 3364;
    limb = (limb - low) / 3364;
    const mid = limb % 3364;
    const high = (limb - mid) / 3364;
    let chunk = ALPHABET[high]! + DIGIT_PAIRS[mid]! + DIGIT_PAIRS[low]!;
    if (last) {
      let k = 0;
      while (k < chunk.length - 1 && chunk[k] === '1') k++;
      chunk = chunk.slice(k);
    }
    text = chunk + text;
  }
  return '1'.repeat(zeros) + text;
}

/** Decodes base-58, or returns null when the text is not base-58. */
export function tryDecodeBase58(text: string): Uint8Array | null {
  try {
    return bs58.decode(text);
  } catch {
    return null;
  }
}

export const decodeBase58 = (text: string): Uint8Array => bs58.decode(text);
