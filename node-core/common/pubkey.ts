import { decodeBase58, encodeBase58, tryDecodeBase58 } from './base58.ts';
import { sha256 } from './hash.ts';

/** Accounts and programs are addressed by the base-58 text of their 32-byte public key everywhere in the node. */
export type Address = string;

export const PUBKEY_LENGTH = 32;

export function isAddress(text: unknown): text is Address {
  return tryAddressToBytes(text) !== null;
}

/** The 32 bytes `text` names as a base-58 public key, or null when it names none. */
export function tryAddressToBytes(text: unknown): Uint8Array | null {
  if (typeof text !== 'string' || text.length < 32 || text.length > 44) return null;
  const bytes = tryDecodeBase58(text);
  return bytes !== null && bytes.length === PUBKEY_LENGTH ? bytes : null;
}

export const addressToBytes = (a: Address): Uint8Array => decodeBase58(a);
export const bytesToAddress = (b: Uint8Array): Address => encodeBase58(b);

/** Pubkey::default(), the all-zero key: "no key" in account layouts. The System program has it as its id. */
export const DEFAULT_PUBKEY: Address = '11111111111111111111111111111111';
export const SYSTEM_PROGRAM_ID: Address = DEFAULT_PUBKEY;
export const COMPUTE_BUDGET_PROGRAM_ID: Address = 'ComputeBudget111111111111111111111111111111';
export const MEMO_PROGRAM_ID: Address = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
export const MEMO_V1_PROGRAM_ID: Address = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';
export const NATIVE_LOADER_ID: Address = 'NativeLoader1111111111111111111111111111111';
export const BPF_LOADER_2_ID: Address = 'BPFLoader2111111111111111111111111111111111';
export const VOTE_PROGRAM_ID: Address = 'Vote111111111111111111111111111111111111111';
export const STAKE_PROGRAM_ID: Address = 'Stake11111111111111111111111111111111111111';
export const CONFIG_PROGRAM_ID: Address = 'Config1111111111111111111111111111111111111';
export const SYSVAR_OWNER_ID: Address = 'Sysvar1111111111111111111111111111111111111';
export const INCINERATOR_ID: Address = '1nc1nerator11111111111111111111111111111111';

export const MAX_SEED_LEN = 32;

/** Pubkey::create_with_seed: sha256(base || seed || owner). */
export function createWithSeed(base: Address, seed: string, owner: Address): Address {
  const seedBytes = new TextEncoder().encode(seed);
  if (seedBytes.length > MAX_SEED_LEN) throw new RangeError('MaxSeedLengthExceeded');
  return bytesToAddress(sha256(addressToBytes(base), seedBytes, addressToBytes(owner)));
}
