/**
 * JSON text of RPC answers and notifications. JSON.stringify writes u64::MAX (held as 2^64, see
 * RENT_EXEMPT_RENT_EPOCH) as 18446744073709552000; Agave writes the exact integer, and clients that
 * parse big integers exactly (@solana/kit) see the difference, so the digits are put right in the
 * text. Only a `rentEpoch` member can hold it; inside a JSON string the quotes would be escaped, so
 * the replacement never touches string content.
 */
const ROUNDED = '"rentEpoch":18446744073709552000';
const EXACT = '"rentEpoch":18446744073709551615';

export function toRpcJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes(ROUNDED) ? text.replaceAll(ROUNDED, EXACT) : text;
}
