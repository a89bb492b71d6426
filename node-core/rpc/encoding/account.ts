/**
 * The RPC Account object (Agave's UiAccount): `{lamports, data, owner, executable, rentEpoch, space}`.
 *
 * Encodings of `data`:
 * - `binary` (legacy, the default of getAccountInfo in Solana 1.5 and Agave): a plain base-58 string;
 * - `base58`: `[text, "base58"]`; both base-58 forms refuse more than 128 bytes (after dataSlice);
 * - `base64`: `[text, "base64"]`; `base64+zstd`: `[base64 of a zstd frame, "base64+zstd"]`;
 * - `jsonParsed`: `{program, parsed, space}` when a parser applies (dataSlice ignored, as Agave does),
 *   otherwise `[base64 of the sliced data, "base64"]`. `json` is accepted as an alias of `jsonParsed`
 *   because the interface contract shows it; Agave itself rejects `json` as an unknown variant.
 */
import { compress, init as initZstd } from '@bokuweb/zstd-wasm';
import { encodeBase58 } from '../../common/base58.ts';
import type { Address } from '../../common/pubkey.ts';
import type { Account } from '../../runtime/account.ts';
import { encodedBinaryTooLarge } from '../errors.ts';
import { parseAccountData } from './parsed/index.ts';
import type { ParsedAccountValue } from './parsed/types.ts';

export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'base64+zstd' | 'jsonParsed' | 'json';

export const ACCOUNT_ENCODINGS: ReadonlySet<string> = new Set<AccountEncoding>([
  'binary',
  'base58',
  'base64',
  'base64+zstd',
  'jsonParsed',
  'json',
]);

export const isAccountEncoding = (v: unknown): v is AccountEncoding => typeof v === 'string' && ACCOUNT_ENCODINGS.has(v);

export interface DataSlice {
  offset: number;
  length: number;
}

export interface AccountEncodeOptions {
  /** Defaults to `binary`, getAccountInfo's default; getMultipleAccounts callers pass `base64`. */
  encoding?: AccountEncoding;
  dataSlice?: DataSlice | null;
  /** The bank's accounts, for jsonParsed data that needs another account (a token account's mint). */
  readAccount?(address: Address): Account | null;
}

export type UiAccountData = string | [string, 'base58' | 'base64' | 'base64+zstd'] | ParsedAccountValue;

export interface UiAccount {
  lamports: number;
  data: UiAccountData;
  owner: Address;
  executable: boolean;
  rentEpoch: number;
  space: number;
}

export const MAX_BASE58_BYTES = 128;
/** zstd level for base64+zstd: any level decodes the same; 1 keeps hot paths cheap (Agave uses the default, 3). */
const ZSTD_LEVEL = 1;

let zstdInit: Promise<void> | null = null;
let zstdReady = false;

/** Loads the zstd wasm module; the server awaits this once before serving. Idempotent. */
export function initEncodings(): Promise<void> {
  zstdInit ??= initZstd().then(() => {
    zstdReady = true;
  });
  return zstdInit;
}

export function sliceData(data: Uint8Array, slice: DataSlice | null | undefined): Uint8Array {
  if (!slice) return data;
  if (slice.offset >= data.length) return data.subarray(0, 0);
  return data.subarray(slice.offset, Math.min(data.length, slice.offset + slice.length));
}

export const toBase64 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

function base58Data(data: Uint8Array): string {
  if (data.length > MAX_BASE58_BYTES) throw encodedBinaryTooLarge(MAX_BASE58_BYTES);
  return encodeBase58(data);
}

export function encodeAccountData(address: Address, account: Account, opts: AccountEncodeOptions = {}): UiAccountData {
  const slice = opts.dataSlice;
  switch (opts.encoding ?? 'binary') {
    case 'binary':
      return base58Data(sliceData(account.data, slice));
    case 'base58':
      return [base58Data(sliceData(account.data, slice)), 'base58'];
    case 'base64':
      return [toBase64(sliceData(account.data, slice)), 'base64'];
    case 'base64+zstd': {
      const bytes = sliceData(account.data, slice);
      // Agave answers plain base64 when compression fails; here that is only before initEncodings().
      if (!zstdReady) return [toBase64(bytes), 'base64'];
      return [toBase64(compress(bytes, ZSTD_LEVEL)), 'base64+zstd'];
    }
    case 'jsonParsed':
    case 'json':
      return parseAccountData(address, account, opts) ?? [toBase64(sliceData(account.data, slice)), 'base64'];
  }
}

/** Throws encodedBinaryTooLarge (-32600) when base-58 data would exceed 128 bytes. */
export function encodeAccount(address: Address, account: Account, opts: AccountEncodeOptions = {}): UiAccount {
  return {
    lamports: account.lamports,
    data: encodeAccountData(address, account, opts),
    owner: account.owner,
    executable: account.executable,
    rentEpoch: account.rentEpoch,
    space: account.data.length,
  };
}
