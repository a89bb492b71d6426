/** getProgramAccounts / programSubscribe filters: memcmp and dataSize, at most four, all must match. */
import { tryDecodeBase58 } from '../common/base58.ts';
import type { Account } from '../runtime/account.ts';
import { invalidParams } from './errors.ts';
import { fail, u64 } from './params.ts';

export const MAX_FILTERS = 4;
/** Base-58 memcmp bytes longer than this are refused, as Agave does. */
const MAX_BASE58_MEMCMP = 128;

export type AccountFilter = { dataSize: number } | { memcmp: { offset: number; bytes: Uint8Array } };

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
    if (encoding === 'base58') {
      if (m.bytes.length > MAX_BASE58_MEMCMP) throw invalidParams(`Invalid params: ${name}.memcmp.bytes: base-58 data is too long (max ${MAX_BASE58_MEMCMP} characters)`);
      bytes = tryDecodeBase58(m.bytes);
    } else if (encoding === 'base64') {
      bytes = /^[A-Za-z0-9+/]*={0,2}$/.test(m.bytes) ? new Uint8Array(Buffer.from(m.bytes, 'base64')) : null;
    } else {
      return fail(`${name}.memcmp.encoding`, 'base58 or base64', encoding);
    }
    if (!bytes) return fail(`${name}.memcmp.bytes`, `${encoding} data`, m.bytes);
    return { memcmp: { offset, bytes } };
  }
  return fail(name, 'a filter object ({memcmp} or {dataSize})', v);
}

export function accountFilters(v: unknown, name: string): AccountFilter[] {
  if (!Array.isArray(v)) return fail(name, 'an array of filters', v);
  if (v.length > MAX_FILTERS) throw invalidParams(`Too many filters provided; max ${MAX_FILTERS}`);
  return v.map((f, i) => parseFilter(f, `${name}[${i}]`));
}

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
