/** getProgramAccounts / programSubscribe filters: memcmp and dataSize, at most four, all must match. */
import { tryDecodeBase58 } from '../common/base58.ts';
import type { Account } from '../runtime/account.ts';
import { invalidParams } from './errors.ts';
import { decodeBase64, fail, u64, type Parse } from './params.ts';

export const MAX_FILTERS = 4;
/** Agave's limits on memcmp data (rpc_filter.rs): 128 bytes, sent as at most 175 base-58 or 172 base-64 characters. */
const MAX_MEMCMP_BYTES = 128;
const MAX_MEMCMP_BASE58 = 175;
const MAX_MEMCMP_BASE64 = 172;

export type AccountFilter = { dataSize: number } | { memcmp: { offset: number; bytes: Uint8Array } };
/** A filter as clients send it: memcmp bytes as base-58 text (the default) or base-64. */
export type AccountFilterJson = { dataSize: number } | { memcmp: { offset: number; bytes: string; encoding?: 'base58' | 'base64' | null } };

function parseFilter(v: unknown, name: string): AccountFilter {
  if (typeof v !== 'object' || v === null) return fail(name, 'a filter object ({memcmp} or {dataSize})', v);
  const f = v as Record<string, unknown>;
  if ('dataSize' in f) return { dataSize: u64(f.dataSize, `${name}.dataSize`) };
  if ('memcmp' in f && typeof f.memcmp === 'object' && f.memcmp !== null) {
    const m = f.memcmp as Record<string, unknown>;
    const offset = u64(m.offset, `${name}.memcmp.offset`);
    const encoding = m.encoding ?? 'base58';
    if (typeof m.bytes !== 'string') return fail(`${name}.memcmp.bytes`, 'a string', m.bytes);
    let bytes: Uint8Array | null = null;
    const tooLarge = () => invalidParams(`Invalid params: ${name}.memcmp.bytes: data too large (max ${MAX_MEMCMP_BYTES} bytes)`);
    if (encoding === 'base58') {
      if (m.bytes.length > MAX_MEMCMP_BASE58) throw tooLarge();
      bytes = tryDecodeBase58(m.bytes);
    } else if (encoding === 'base64') {
      if (m.bytes.length > MAX_MEMCMP_BASE64) throw tooLarge();
      bytes = decodeBase64(m.bytes);
    } else {
      return fail(`${name}.memcmp.encoding`, 'base58 or base64', encoding);
    }
    if (!bytes) return fail(`${name}.memcmp.bytes`, `${encoding} data`, m.bytes);
    if (bytes.length > MAX_MEMCMP_BYTES) throw tooLarge();
    return { memcmp: { offset, bytes } };
  }
  return fail(name, 'a filter object ({memcmp} or {dataSize})', v);
}

export const accountFilters: Parse<AccountFilter[], AccountFilterJson[]> = (v, name) => {
  if (!Array.isArray(v)) return fail(name, 'an array of filters', v);
  if (v.length > MAX_FILTERS) throw invalidParams(`Too many filters provided; max ${MAX_FILTERS}`);
  return v.map((f, i) => parseFilter(f, `${name}[${i}]`));
};

export function matchesFilters(account: Account, filters: readonly AccountFilter[]): boolean {
  for (const f of filters) {
    if ('dataSize' in f) {
      if (account.data.length !== f.dataSize) return false;
      continue;
    }
    const { offset, bytes } = f.memcmp;
    if (offset + bytes.length > account.data.length) return false;
    for (let i = 0; i < bytes.length; i++) if (account.data[offset + i] !== bytes[i]) return false;
  }
  return true;
}
