/**
 * solana-test-validator's account loading: `--account ADDRESS FILE` and `--account-dir DIR` read the
 * JSON that `solana account --output json` writes:
 *   {"pubkey": "…", "account": {"lamports": n, "data": ["<base64>", "base64"], "owner": "…",
 *    "executable": false, "rentEpoch": n, "space": n}}
 * ADDRESS `-` takes the file's pubkey; a relative FILE not found from the working folder is looked
 * up under tests/fixtures, as the test validator does. Every problem is an AccountFileError naming
 * the file. The accounts go into a new ledger's genesis, or over an existing ledger's accounts at start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { tryDecodeBase58 } from '../common/base58.ts';
import { isAddress, type Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';

export class AccountFileError extends Error {}

export interface LoadedAccount {
  address: Address;
  account: Account;
  /** The file it came from (for messages). */
  file: string;
}

const FIXTURES_DIR = path.join('tests', 'fixtures');

/** FILE as given, else under tests/fixtures (relative paths only). */
export function resolveAccountFile(file: string, cwd = process.cwd()): string {
  const direct = path.resolve(cwd, file);
  if (fs.existsSync(direct) || path.isAbsolute(file)) return direct;
  const fixture = path.resolve(cwd, FIXTURES_DIR, file);
  return fs.existsSync(fixture) ? fixture : direct;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function decodeData(data: unknown, bad: (why: string) => never): Uint8Array {
  // The legacy form: a bare base-58 string.
  if (typeof data === 'string') return tryDecodeBase58(data) ?? bad('account.data is not base-58');
  if (!Array.isArray(data) || data.length !== 2 || typeof data[0] !== 'string' || typeof data[1] !== 'string') {
    return bad('account.data must be ["<data>", "base64"] (or "base58")');
  }
  const [text, encoding] = data as [string, string];
  if (encoding === 'base64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) bad('account.data is not base64');
    return new Uint8Array(Buffer.from(text, 'base64'));
  }
  if (encoding === 'base58') return tryDecodeBase58(text) ?? bad('account.data is not base-58');
  return bad(`account.data encoding "${encoding}" is not supported; dump the account with --output json (base64)`);
}

function u64Field(v: unknown, name: string, bad: (why: string) => never): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) return bad(`account.${name} must be a non-negative integer`);
  return v;
}

/** Parses one account file's text; `file` names it in errors. */
export function parseAccountFile(text: string, file: string): { pubkey: Address; account: Account } {
  const bad = (why: string): never => {
    throw new AccountFileError(`account file ${file}: ${why}`);
  };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return bad(`not JSON (${(e as Error).message})`);
  }
  if (!isRecord(json)) return bad('expected an object {pubkey, account}');
  if (!isAddress(json.pubkey)) bad('pubkey is not a base-58 public key');
  const a = json.account;
  if (!isRecord(a)) return bad('account is missing or not an object');
  const lamports = u64Field(a.lamports, 'lamports', bad);
  if (!Number.isSafeInteger(lamports)) bad('account.lamports is above 2^53, more than this node can hold');
  if (!isAddress(a.owner)) bad('account.owner is not a base-58 public key');
  if (typeof a.executable !== 'boolean') bad('account.executable must be true or false');
  const rentEpoch = a.rentEpoch === undefined ? 0 : u64Field(a.rentEpoch, 'rentEpoch', bad);
  const data = decodeData(a.data, bad);
  if (a.space !== undefined && a.space !== data.length) bad(`account.space ${JSON.stringify(a.space)} differs from the data's ${data.length} bytes`);
  return { pubkey: json.pubkey as Address, account: { lamports, data, owner: a.owner as Address, executable: a.executable as boolean, rentEpoch } };
}

function readFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new AccountFileError(`account file ${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** `--account ADDRESS FILE`: ADDRESS `-` takes the file's pubkey. */
export function loadAccountFile(address: string, file: string, cwd?: string): LoadedAccount {
  const resolved = resolveAccountFile(file, cwd);
  if (address !== '-' && !isAddress(address)) throw new AccountFileError(`--account ${address} ${file}: ADDRESS must be a base-58 public key or -`);
  const { pubkey, account } = parseAccountFile(readFile(resolved), resolved);
  return { address: address === '-' ? pubkey : address, account, file: resolved };
}

/** `--account-dir DIR`: every *.json file in DIR (by name), each at its own pubkey. */
export function loadAccountDir(dir: string, cwd = process.cwd()): LoadedAccount[] {
  const resolved = path.resolve(cwd, dir);
  let names: string[];
  try {
    names = fs.readdirSync(resolved).filter((n) => n.endsWith('.json')).sort();
  } catch (e) {
    throw new AccountFileError(`--account-dir ${resolved}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return names.map((n) => {
    const file = path.join(resolved, n);
    const { pubkey, account } = parseAccountFile(readFile(file), file);
    return { address: pubkey, account, file };
  });
}
