/** Solidity's revert payloads: Error(string) (selector 0x08c379a0) and Panic(uint256) (0x4e487b71). */
import { bytesToBigInt, bytesToUtf8, utf8ToBytes } from '@ethereumjs/util';
import { word } from './crypto.ts';

const ERROR_SELECTOR = Uint8Array.from([0x08, 0xc3, 0x79, 0xa0]);
const PANIC_SELECTOR = Uint8Array.from([0x4e, 0x48, 0x7b, 0x71]);

const startsWith = (data: Uint8Array, selector: Uint8Array) => data.length >= 4 && selector.every((b, i) => data[i] === b);

export function encodeRevertReason(reason: string): Uint8Array {
  const text = utf8ToBytes(reason);
  const padded = Math.ceil(text.length / 32) * 32;
  const out = new Uint8Array(4 + 64 + padded);
  out.set(ERROR_SELECTOR, 0);
  out.set(word(32n), 4);
  out.set(word(BigInt(text.length)), 36);
  out.set(text, 68);
  return out;
}

/** The human reason in revert data, or null when the data is not Error(string) / Panic(uint256). */
export function decodeRevertReason(data: Uint8Array): string | null {
  try {
    if (startsWith(data, ERROR_SELECTOR) && data.length >= 68) {
      const offset = Number(bytesToBigInt(data.subarray(4, 36)));
      const length = Number(bytesToBigInt(data.subarray(4 + offset, 36 + offset)));
      const start = 36 + offset;
      if (start + length > data.length) return null;
      return bytesToUtf8(data.subarray(start, start + length));
    }
    if (startsWith(data, PANIC_SELECTOR) && data.length === 36) {
      return `panic code 0x${bytesToBigInt(data.subarray(4)).toString(16)}`;
    }
  } catch {
    return null;
  }
  return null;
}
