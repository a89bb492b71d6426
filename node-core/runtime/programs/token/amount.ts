/** Token amounts as text, as spl-token and Agave's account decoder write them. */

/** amount_to_ui_amount_string / real_number_string: zero-padded, with the decimal point inserted. */
export function amountToUiAmountString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const s = amount.toString().padStart(decimals + 1, '0');
  return `${s.slice(0, s.length - decimals)}.${s.slice(s.length - decimals)}`;
}

/** The same with trailing zeros (and a bare point) removed. */
export function amountToUiAmountStringTrimmed(amount: bigint, decimals: number): string {
  const s = amountToUiAmountString(amount, decimals);
  return decimals === 0 ? s : s.replace(/0+$/, '').replace(/\.$/, '');
}

const U64_MAX = (1n << 64n) - 1n;

/**
 * try_ui_amount_into_amount: "1.5" with 6 decimals is 1500000; null (InvalidArgument on-chain) when
 * the text has more decimals than the mint, two points, nothing at all, or does not fit a u64.
 * Digits only, as Rust's u64 parse (a leading "+" is accepted by it too).
 */
export function uiAmountToAmount(ui: string, decimals: number): bigint | null {
  const parts = ui.split('.');
  if (parts.length > 2) return null;
  const whole = parts[0]!;
  const fraction = (parts[1] ?? '').replace(/0+$/, '');
  if ((whole === '' && fraction === '') || fraction.length > decimals) return null;
  const digits = whole + fraction + '0'.repeat(decimals - fraction.length);
  if (!/^\+?[0-9]+$/.test(digits)) return null;
  const v = BigInt(digits.replace(/^\+/, ''));
  return v > U64_MAX ? null : v;
}

/** Agave's UiTokenAmount: the float uiAmount (null past 10^19), decimals, and both strings. */
export interface UiTokenAmount {
  uiAmount: number | null;
  decimals: number;
  amount: string;
  uiAmountString: string;
}

export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  // 10_usize.checked_pow(decimals) overflows a u64 past 19 decimals.
  const uiAmount = decimals > 19 ? null : Number(amount) / 10 ** decimals;
  return { uiAmount, decimals, amount: amount.toString(), uiAmountString: amountToUiAmountStringTrimmed(amount, decimals) };
}
