/**
 * The SPL Memo programs, emulated as builtins that log like their BPF originals.
 *
 * v3 (MemoSq4…): every account passed must sign; each signer is logged ("Signed by <key>"), then the
 * memo is checked as UTF-8 and logged as `Memo (len N): <Rust {:?} of the text>`.
 * v1 (Memo1Uhk…): only checks UTF-8 and logs nothing.
 */
import { MEMO_PROGRAM_ID, MEMO_V1_PROGRAM_ID, type Address } from '../../common/pubkey.ts';
import { InstructionError } from '../errors.ts';
import type { InstructionContext, Program } from '../program.ts';

/*
 * Compute-unit model for v3, fitted to measured SPL Memo costs (≈2,022 CU for a 60-byte memo with
 * no signer, ≈+11,400 CU per signer, the `{:?}` formatting of a pubkey dominating). Split so a
 * failing instruction is charged only for the work done before it failed.
 */
const V3_BASE_UNITS = 1_000;
const V3_UNITS_PER_SIGNER = 11_450;
const V3_UTF8_UNITS_PER_BYTE = 3;
const V3_FORMAT_UNITS_PER_BYTE = 14;
/** v1 does nothing but validate. */
const V1_BASE_UNITS = 300;
const V1_UTF8_UNITS_PER_BYTE = 3;

/** Length of the longest valid UTF-8 prefix (Rust's `Utf8Error::valid_up_to`); the whole length when valid. */
export function utf8ValidUpTo(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let extra: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) extra = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      extra = 2;
      if (c === 0xe0) lo = 0xa0; // overlong
      if (c === 0xed) hi = 0x9f; // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      extra = 3;
      if (c === 0xf0) lo = 0x90; // overlong
      if (c === 0xf4) hi = 0x8f; // above U+10FFFF
    } else return i;
    for (let k = 1; k <= extra; k++) {
      const d = b[i + k];
      if (d === undefined) return i;
      if (k === 1 ? d < lo || d > hi : d < 0x80 || d > 0xbf) return i;
    }
    i += extra + 1;
  }
  return b.length;
}

const decoder = new TextDecoder('utf-8');

/** The memo text, or null when the data is not valid UTF-8. */
export function decodeMemo(data: Uint8Array): string | null {
  return utf8ValidUpTo(data) === data.length ? decoder.decode(data) : null;
}

// Rust's `char::is_printable` is false for these categories (space aside); `{:?}` also escapes
// grapheme extenders (combining marks, variation selectors).
const ESCAPED = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\p{Grapheme_Extend}]/u;
const NAMED: Record<string, string> = { '\0': '\\0', '\t': '\\t', '\r': '\\r', '\n': '\\n', '\\': '\\\\', '"': '\\"' };

/** A string as Rust's `{:?}` writes it: quoted, with Rust's escapes. */
export function rustDebugString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const named = NAMED[ch];
    if (named !== undefined) out += named;
    else if (ch !== ' ' && ESCAPED.test(ch)) out += `\\u{${ch.codePointAt(0)!.toString(16)}}`;
    else out += ch;
  }
  return out + '"';
}

function processV3(ctx: InstructionContext): void {
  ctx.consumeUnits(V3_BASE_UNITS);
  let missingSignature = false;
  for (const a of ctx.accounts) {
    if (a.isSigner) {
      ctx.consumeUnits(V3_UNITS_PER_SIGNER);
      ctx.log(`Signed by ${a.key}`);
    } else {
      missingSignature = true;
    }
  }
  if (missingSignature) throw new InstructionError('MissingRequiredSignature');
  const validUpTo = utf8ValidUpTo(ctx.data);
  ctx.consumeUnits(V3_UTF8_UNITS_PER_BYTE * validUpTo);
  if (validUpTo !== ctx.data.length) {
    ctx.log(`Invalid UTF-8, from byte ${validUpTo}`);
    throw new InstructionError('InvalidInstructionData');
  }
  ctx.consumeUnits(V3_FORMAT_UNITS_PER_BYTE * ctx.data.length);
  ctx.log(`Memo (len ${ctx.data.length}): ${rustDebugString(decoder.decode(ctx.data))}`);
}

function processV1(ctx: InstructionContext): void {
  const validUpTo = utf8ValidUpTo(ctx.data);
  ctx.consumeUnits(V1_BASE_UNITS + V1_UTF8_UNITS_PER_BYTE * validUpTo);
  if (validUpTo !== ctx.data.length) throw new InstructionError('InvalidInstructionData');
}

export const memoProgram: Program = {
  id: MEMO_PROGRAM_ID,
  name: 'spl-memo',
  // BPF programs have no fixed builtin charge; process() charges what the work costs.
  computeUnits: 0,
  logsConsumption: true,
  process: processV3,
};

export const memoV1Program: Program = {
  id: MEMO_V1_PROGRAM_ID,
  name: 'spl-memo',
  computeUnits: 0,
  logsConsumption: true,
  process: processV1,
};

/** One memo as getSignaturesForAddress shows it (Agave `extract_and_fmt_memo_data`): `[len] text`. */
export function extractMemo(data: Uint8Array): string {
  return `[${data.length}] ${decodeMemo(data) ?? '(unparsable)'}`;
}

const MEMO_IDS: ReadonlySet<Address> = new Set([MEMO_PROGRAM_ID, MEMO_V1_PROGRAM_ID]);

/**
 * The `memo` field of a transaction (Agave `extract_and_fmt_memos`): every top-level memo
 * instruction's memo, joined with "; "; null when there is none.
 */
export function extractMemos(instructions: ReadonlyArray<{ programId: Address; data: Uint8Array }>): string | null {
  const memos = instructions.filter((ix) => MEMO_IDS.has(ix.programId)).map((ix) => extractMemo(ix.data));
  return memos.length === 0 ? null : memos.join('; ');
}
