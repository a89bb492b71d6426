/**
 * Amounts in the three units a person meets here: the native token (9 decimals), lamports, and wei
 * (18 decimals; 1 lamport = 10^9 wei). All arithmetic is on bigint; text is parsed exactly.
 */

export const LAMPORTS_PER_TOKEN = 1_000_000_000n;
export const WEI_PER_LAMPORT = 1_000_000_000n;
export const TOKEN_SYMBOL = 'VLX';

export type Unit = 'token' | 'lamports' | 'wei';

export class AmountError extends Error {}

/** Decimal text → integer in the smallest unit with `decimals` places; no rounding. */
export function parseDecimal(text: string, decimals: number): bigint {
  const t = text.trim().replace(/_/g, '').replace(/,/g, '');
  if (t === '') throw new AmountError('Enter an amount');
  if (!/^\d*\.?\d*$/.test(t) || t === '.') throw new AmountError(`"${text.trim()}" is not a number`);
  const [whole = '', frac = ''] = t.split('.');
  if (frac.length > decimals) throw new AmountError(decimals === 0 ? 'Use a whole number' : `At most ${decimals} decimal places`);
  return BigInt(whole || '0') * 10n ** BigInt(decimals) + BigInt((frac + '0'.repeat(decimals)).slice(0, decimals) || '0');
}

/** Integer in the smallest unit → decimal text without trailing zeros. */
export function formatDecimal(value: bigint, decimals: number, groupThousands = false): string {
  const neg = value < 0n;
  const v = neg ? -value : value;
  const base = 10n ** BigInt(decimals);
  const whole = (v / base).toString();
  const frac = decimals ? (v % base).toString().padStart(decimals, '0').replace(/0+$/, '') : '';
  const w = groupThousands ? whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',') : whole;
  return (neg ? '-' : '') + w + (frac ? '.' + frac : '');
}

/** The amount as wei, whichever unit it was typed in. */
export function toWei(text: string, unit: Unit): bigint {
  if (unit === 'token') return parseDecimal(text, 18);
  if (unit === 'lamports') return parseDecimal(text, 0) * WEI_PER_LAMPORT;
  return parseDecimal(text, 0);
}

export interface Conversion {
  wei: bigint;
  /** Whole lamports, or null when the amount is not a whole number of lamports. */
  lamports: bigint | null;
  token: string;
}

export function convert(text: string, unit: Unit): Conversion {
  const wei = toWei(text, unit);
  return { wei, lamports: wei % WEI_PER_LAMPORT === 0n ? wei / WEI_PER_LAMPORT : null, token: formatDecimal(wei, 18) };
}

export const lamportsToToken = (lamports: bigint | number, group = true) => formatDecimal(BigInt(lamports), 9, group);
export const weiToToken = (wei: bigint, group = true) => formatDecimal(wei, 18, group);
export const groupDigits = (n: bigint | number) => formatDecimal(BigInt(n), 0, true);

/** A 0x quantity → bigint (null stays null). */
export const hexToBigInt = (q: string | null | undefined): bigint | null => (q == null ? null : BigInt(q));
export const hexToNumber = (q: string | null | undefined): number | null => (q == null ? null : Number(BigInt(q)));
