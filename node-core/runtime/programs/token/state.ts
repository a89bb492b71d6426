/**
 * SPL Token account layouts, byte for byte as the on-chain program packs them (spl-token state.rs):
 * Mint (82 bytes), token Account (165) and Multisig (355). COption fields carry a 4-byte tag
 * ([0,0,0,0] none, [1,0,0,0] some); any other tag, bool or state byte is InvalidAccountData.
 */
import { addressAt, addressBytes } from '../../../common/key-cache.ts';
import type { Address } from '../../../common/pubkey.ts';
import { InstructionError } from '../../errors.ts';

export const TOKEN_PROGRAM_ID: Address = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM_ID: Address = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM_ID: Address = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
/** The wrapped-SOL mint (spl_token::native_mint), 9 decimals. */
export const NATIVE_MINT: Address = 'So11111111111111111111111111111111111111112';
export const NATIVE_MINT_DECIMALS = 9;

export const MINT_LEN = 82;
export const ACCOUNT_LEN = 165;
export const MULTISIG_LEN = 355;
export const MIN_SIGNERS = 1;
export const MAX_SIGNERS = 11;

export type AccountState = 'uninitialized' | 'initialized' | 'frozen';
const STATES: readonly AccountState[] = ['uninitialized', 'initialized', 'frozen'];

export interface Mint {
  mintAuthority: Address | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: Address | null;
}

export interface TokenAccount {
  mint: Address;
  owner: Address;
  amount: bigint;
  delegate: Address | null;
  state: AccountState;
  /** The rent-exempt reserve of a native (wrapped SOL) account; null for other accounts. */
  isNative: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: Address | null;
}

export interface Multisig {
  m: number;
  n: number;
  isInitialized: boolean;
  /** All 11 slots, unused ones as the zero key. */
  signers: Address[];
}

const invalidData = () => new InstructionError('InvalidAccountData');

function writeKey(b: Uint8Array, at: number, key: Address): void {
  b.set(addressBytes(key), at);
}
const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

/** Whether a COption's little-endian u32 tag is 0 or 1, read bytewise: a DataView per field was most of an unpack's cost. */
const validTag = (b: Uint8Array, at: number): boolean => (b[at + 1]! | b[at + 2]! | b[at + 3]!) === 0 && b[at]! <= 1;

function readTag(b: Uint8Array, at: number): boolean {
  if (!validTag(b, at)) throw invalidData();
  return b[at] === 1;
}

function readKeyOption(b: Uint8Array, at: number): Address | null {
  return readTag(b, at) ? addressAt(b, at + 4) : null;
}

function writeKeyOption(b: Uint8Array, at: number, key: Address | null): void {
  // Packing writes the tag only: a None keeps the old key bytes, as the program's pack does not clear them.
  b[at] = key === null ? 0 : 1;
  b[at + 1] = b[at + 2] = b[at + 3] = 0;
  if (key !== null) writeKey(b, at + 4, key);
}

function readBool(b: Uint8Array, at: number): boolean {
  const v = b[at]!;
  if (v > 1) throw invalidData();
  return v === 1;
}

// ---- Mint ----

/** Mint::unpack_unchecked: any 82-byte buffer with valid tags, initialized or not. */
export function unpackMintUnchecked(data: Uint8Array): Mint {
  if (data.length !== MINT_LEN) throw invalidData();
  const v = view(data);
  return {
    mintAuthority: readKeyOption(data, 0),
    supply: v.getBigUint64(36, true),
    decimals: data[44]!,
    isInitialized: readBool(data, 45),
    freezeAuthority: readKeyOption(data, 46),
  };
}

/** Mint::unpack: an initialized mint, else UninitializedAccount. */
export function unpackMint(data: Uint8Array): Mint {
  const m = unpackMintUnchecked(data);
  if (!m.isInitialized) throw new InstructionError('UninitializedAccount');
  return m;
}

export function packMint(m: Mint, data: Uint8Array): void {
  if (data.length !== MINT_LEN) throw invalidData();
  writeKeyOption(data, 0, m.mintAuthority);
  view(data).setBigUint64(36, m.supply, true);
  data[44] = m.decimals;
  data[45] = m.isInitialized ? 1 : 0;
  writeKeyOption(data, 46, m.freezeAuthority);
}

// ---- Account ----

export function unpackAccountUnchecked(data: Uint8Array): TokenAccount {
  if (data.length !== ACCOUNT_LEN) throw invalidData();
  const v = view(data);
  const delegate = readKeyOption(data, 72);
  const state = STATES[data[108]!];
  if (state === undefined) throw invalidData();
  const isNative = readTag(data, 109) ? v.getBigUint64(113, true) : null;
  return {
    mint: addressAt(data, 0),
    owner: addressAt(data, 32),
    amount: v.getBigUint64(64, true),
    delegate,
    state,
    isNative,
    delegatedAmount: v.getBigUint64(121, true),
    closeAuthority: readKeyOption(data, 129),
  };
}

export function unpackAccount(data: Uint8Array): TokenAccount {
  const a = unpackAccountUnchecked(data);
  if (a.state === 'uninitialized') throw new InstructionError('UninitializedAccount');
  return a;
}

export function packAccount(a: TokenAccount, data: Uint8Array): void {
  if (data.length !== ACCOUNT_LEN) throw invalidData();
  const v = view(data);
  writeKey(data, 0, a.mint);
  writeKey(data, 32, a.owner);
  v.setBigUint64(64, a.amount, true);
  writeKeyOption(data, 72, a.delegate);
  data[108] = STATES.indexOf(a.state);
  v.setUint32(109, a.isNative === null ? 0 : 1, true);
  if (a.isNative !== null) v.setBigUint64(113, a.isNative, true);
  v.setBigUint64(121, a.delegatedAmount, true);
  writeKeyOption(data, 129, a.closeAuthority);
}

/** What a transaction's token balances need of a token account, or null where Account::unpack would fail (uninitialized included). */
export function tokenBalanceFields(data: Uint8Array): { mint: Address; owner: Address; amount: bigint } | null {
  if (!isInitializedAccountData(data) || data[108]! > 2 || !validTag(data, 72) || !validTag(data, 109) || !validTag(data, 129)) return null;
  return { mint: addressAt(data, 0), owner: addressAt(data, 32), amount: view(data).getBigUint64(64, true) };
}

/** packAccount of an account unpacked from `data` whose amount alone changed: the other bytes stay as they are. */
export function packAccountAmount(amount: bigint, data: Uint8Array): void {
  if (data.length !== ACCOUNT_LEN) throw invalidData();
  view(data).setBigUint64(64, amount, true);
}

/** GenericTokenAccount::valid_account_data: 165 bytes, initialized or frozen (no tag checks). */
export function isInitializedAccountData(data: Uint8Array): boolean {
  return data.length === ACCOUNT_LEN && data[108] !== 0;
}

/** The mint of a valid token account's data (get_token_account_mint), else null. */
export function tokenAccountMint(data: Uint8Array): Address | null {
  return isInitializedAccountData(data) ? addressAt(data, 0) : null;
}

/** The owner of a valid token account's data, else null. */
export function tokenAccountOwner(data: Uint8Array): Address | null {
  return isInitializedAccountData(data) ? addressAt(data, 32) : null;
}

// ---- Multisig ----

export function unpackMultisigUnchecked(data: Uint8Array): Multisig {
  if (data.length !== MULTISIG_LEN) throw invalidData();
  const signers: Address[] = [];
  for (let i = 0; i < MAX_SIGNERS; i++) signers.push(addressAt(data, 3 + 32 * i));
  return { m: data[0]!, n: data[1]!, isInitialized: readBool(data, 2), signers };
}

export function unpackMultisig(data: Uint8Array): Multisig {
  const m = unpackMultisigUnchecked(data);
  if (!m.isInitialized) throw new InstructionError('UninitializedAccount');
  return m;
}

export function packMultisig(m: Multisig, data: Uint8Array): void {
  if (data.length !== MULTISIG_LEN) throw invalidData();
  data[0] = m.m;
  data[1] = m.n;
  data[2] = m.isInitialized ? 1 : 0;
  m.signers.forEach((s, i) => data.set(addressBytes(s), 3 + 32 * i));
}

/** The native mint's data as the Token program ships it: no authorities, 9 decimals, initialized. */
export function nativeMintData(): Uint8Array {
  const data = new Uint8Array(MINT_LEN);
  packMint({ mintAuthority: null, supply: 0n, decimals: NATIVE_MINT_DECIMALS, isInitialized: true, freezeAuthority: null }, data);
  return data;
}
