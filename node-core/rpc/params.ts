/**
 * Positional params with a schema per method: each parameter is parsed and checked, and a bad one
 * gets -32602 with a message that names it. Each parser also declares, as a type, the JSON it
 * accepts; the native method table compares that with @solana/kit's parameter types (methods/api.ts).
 */
import { tryDecodeBase58 } from '../common/base58.ts';
import { isCachedAddress } from '../common/key-cache.ts';
import type { Address } from '../common/pubkey.ts';
import { normalizeCommitment, type Commitment } from '../ledger/commitment.ts';
import { invalidParams } from './errors.ts';

/** Type-level only: the JSON a parser accepts (no value carries it at run time). */
declare const ACCEPTS: unique symbol;

/**
 * Parses one JSON value into a T, or throws -32602 naming it. `W` declares the JSON it accepts,
 * which the parser checks at run time; it defaults to T, for parsers that hand the value on as it
 * came (a parser that decodes or renames, like `commitment`, says what it accepts).
 */
export type Parse<T, W = T> = ((value: unknown, name: string) => T) & { readonly [ACCEPTS]?: W };

/** The JSON a parser accepts. */
export type Accepts<P> = P extends { readonly [ACCEPTS]?: infer W } ? W : never;

export interface Param<T, W = T, Optional extends boolean = boolean> {
  name: string;
  optional: Optional;
  parse(value: unknown): T;
  readonly [ACCEPTS]?: W;
}

const describe = (v: unknown): string => {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 60 ? v.slice(0, 60) + '…' : v)}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
};

export const fail = (name: string, expected: string, got: unknown): never => {
  throw invalidParams(`Invalid params: ${name}: expected ${expected}, got ${describe(got)}`);
};

export const required = <T, W = T>(name: string, parse: Parse<T, W>): Param<T, W, false> => ({ name, optional: false, parse: (v) => parse(v, name) });
export const optional = <T, W = T>(name: string, parse: Parse<T, W>): Param<T | undefined, W, true> => ({
  name,
  optional: true,
  parse: (v) => (v === undefined || v === null ? undefined : parse(v, name)),
});

export type Schema = readonly Param<unknown, unknown>[];

/** What the body of a method gets: each parameter parsed (undefined for an optional one left out). */
export type ParamValues<P extends Schema> = { -readonly [K in keyof P]: P[K] extends Param<infer T, unknown> ? T : never };

/**
 * The argument lists the schema accepts, as JSON: required parameters first, then optional ones,
 * which may be left out or sent as null.
 */
export type AcceptedParams<P extends Schema> = P extends readonly [infer Head, ...infer Rest extends Schema]
  ? Head extends Param<unknown, infer W, false>
    ? [W, ...AcceptedParams<Rest>]
    : Head extends Param<unknown, infer W, true>
      ? [(W | null)?, ...AcceptedParams<Rest>]
      : never
  : [];

export function parseParams<const P extends Schema>(params: unknown, schema: P): ParamValues<P> {
  if (params === undefined || params === null) params = [];
  if (!Array.isArray(params)) throw invalidParams('Invalid params: params must be an array');
  if (params.length > schema.length) {
    throw invalidParams(`Invalid params: expected at most ${schema.length} parameter${schema.length === 1 ? '' : 's'}, got ${params.length}`);
  }
  return schema.map((p, i) => {
    const v = params[i];
    if (v === undefined && !p.optional) throw invalidParams(`Invalid params: missing required parameter \`${p.name}\``);
    return p.parse(v);
  }) as ParamValues<P>;
}

// ---- value parsers ----

export const address: Parse<Address> = (v, name) => (isCachedAddress(v) ? v : fail(name, 'a base-58 public key (32 bytes)', v));

export const signature: Parse<string> = (v, name) => {
  if (typeof v === 'string' && v.length <= 88) {
    const b = tryDecodeBase58(v);
    if (b && b.length === 64) return v;
  }
  return fail(name, 'a base-58 signature (64 bytes)', v);
};

export const blockhash: Parse<string> = (v, name) => {
  if (typeof v === 'string' && v.length <= 44) {
    const b = tryDecodeBase58(v);
    if (b && b.length === 32) return v;
  }
  return fail(name, 'a base-58 hash (32 bytes)', v);
};

export const u64: Parse<number> = (v, name) =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : fail(name, 'a non-negative integer', v);

/** Standard base64 with its padding, as Agave's decoder requires; null when `text` is not that. */
export function decodeBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

export const bool: Parse<boolean> = (v, name) => (typeof v === 'boolean' ? v : fail(name, 'a boolean', v));

export const string: Parse<string> = (v, name) => (typeof v === 'string' ? v : fail(name, 'a string', v));

export const oneOf =
  <const T extends string>(values: readonly T[]): Parse<T> =>
  (v, name) =>
    typeof v === 'string' && (values as readonly string[]).includes(v) ? (v as T) : fail(name, `one of ${values.join(', ')}`, v);

export const arrayOf =
  <T, W = T>(item: Parse<T, W>, max?: number): Parse<T[], W[]> =>
  (v, name) => {
    if (!Array.isArray(v)) return fail(name, 'an array', v);
    if (max !== undefined && v.length > max) throw invalidParams(`Too many inputs provided; max ${max}`);
    return v.map((x, i) => item(x, `${name}[${i}]`));
  };

/** The commitments' names before 1.9, still accepted (ledger/chain.ts normalizeCommitment). */
export type LegacyCommitmentName = 'recent' | 'single' | 'singleGossip' | 'root' | 'max';

export const commitment: Parse<Commitment, Commitment | LegacyCommitmentName> = (v, name) => {
  const c = typeof v === 'string' ? normalizeCommitment(v) : null;
  return c ?? fail(name, 'a commitment (processed, confirmed, finalized, or recent, single, singleGossip, root, max)', v);
};

type Shape = Record<string, Parse<unknown, unknown>>;
type ShapeOut<S extends Shape> = { [K in keyof S]?: S[K] extends Parse<infer T, unknown> ? T : never };
/** A field left out or null is skipped. */
type ShapeIn<S extends Shape> = { [K in keyof S]?: Accepts<S[K]> | null };

/** A config object whose known fields are checked; unknown fields are ignored, as Solana's RPC does. */
export const config =
  <S extends Shape>(shape: S): Parse<ShapeOut<S>, ShapeIn<S>> =>
  (v, name) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(name, 'a configuration object', v);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(shape)) {
      const x = (v as Record<string, unknown>)[key];
      if (x !== undefined && x !== null) out[key] = shape[key]!(x, `${name}.${key}`);
    }
    return out as ShapeOut<S>;
  };

export const dataSlice: Parse<{ offset: number; length: number }> = (v, name) => {
  const s = config({ offset: u64, length: u64 })(v, name);
  if (s.offset === undefined || s.length === undefined) return fail(name, '{offset, length}', v);
  return { offset: s.offset, length: s.length };
};

export const ACCOUNT_ENCODINGS = ['base58', 'base64', 'base64+zstd', 'jsonParsed', 'binary', 'json'] as const;
export const TRANSACTION_ENCODINGS = ['json', 'jsonParsed', 'base58', 'base64', 'binary'] as const;

/** {commitment, minContextSlot}: the config of methods that only read a bank. */
export const commitmentConfig = config({ commitment, minContextSlot: u64 });
