import type { Address } from '../common/pubkey.ts';

/**
 * An account as the bank holds it. Lamports are JS numbers: genesis keeps the total supply below
 * 2^53 (checked there), so every balance is exact; u64 amounts decoded from instructions above that
 * can never be covered and are rejected where they are read.
 */
export interface Account {
  lamports: number;
  data: Uint8Array;
  owner: Address;
  executable: boolean;
  rentEpoch: number;
}

/**
 * The data of every copy of an account without data: zero bytes cannot be written in place (a
 * program that gives an account data puts a new array there), so copies share one instead of each
 * allocating a zero-length buffer (a transfer copied ~12 of them between preflight and execution).
 */
export const NO_DATA: Uint8Array = new Uint8Array(0);

/** A copy whose data the caller may write in place (data bytes copied; zero-length data shared, see NO_DATA). */
export function cloneAccount(a: Account): Account {
  return { lamports: a.lamports, data: copyData(a.data), owner: a.owner, executable: a.executable, rentEpoch: a.rentEpoch };
}

/** A copy of account data to write in place or to compare against later; zero-length data is NO_DATA. */
export function copyData(data: Uint8Array): Uint8Array {
  return data.length === 0 ? NO_DATA : data.slice();
}

export function newAccount(lamports: number, space: number, owner: Address): Account {
  return { lamports, data: new Uint8Array(space), owner, executable: false, rentEpoch: 0 };
}

/**
 * Agave's RENT_EXEMPT_RENT_EPOCH, u64::MAX: the rent epoch of every rent-exempt account since rent
 * collection ended. Held as 2^64, the double nearest it (JSON.parse of the exact digits gives the
 * same number); the RPC writes the exact digits (rpc/json.ts).
 */
export const RENT_EXEMPT_RENT_EPOCH = 2 ** 64;

/**
 * Agave's update_rent_exempt_status_for_account: a rent-exempt account's rent epoch becomes u64::MAX
 * (in place; returns the account).
 */
export function markRentExempt(a: Account, rent: RentConfig): Account {
  if (a.rentEpoch !== RENT_EXEMPT_RENT_EPOCH && a.lamports > 0 && a.lamports >= minimumBalanceForRentExemption(rent, a.data.length)) a.rentEpoch = RENT_EXEMPT_RENT_EPOCH;
  return a;
}

/** The bytes that exist only to exist: an account's storage overhead in the rent formula. */
export const ACCOUNT_STORAGE_OVERHEAD = 128;
export const MAX_PERMITTED_DATA_LENGTH = 10 * 1024 * 1024;

export interface RentConfig {
  lamportsPerByteYear: number;
  exemptionThreshold: number;
  burnPercent: number;
}

export function minimumBalanceForRentExemption(rent: RentConfig, dataLength: number): number {
  return Math.floor((ACCOUNT_STORAGE_OVERHEAD + dataLength) * rent.lamportsPerByteYear * rent.exemptionThreshold);
}
