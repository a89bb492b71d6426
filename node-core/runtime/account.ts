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

export function cloneAccount(a: Account): Account {
  return { lamports: a.lamports, data: a.data.slice(), owner: a.owner, executable: a.executable, rentEpoch: a.rentEpoch };
}

export function newAccount(lamports: number, space: number, owner: Address): Account {
  return { lamports, data: new Uint8Array(space), owner, executable: false, rentEpoch: 0 };
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
