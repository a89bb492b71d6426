/**
 * Loading a v0 message's address-table lookups (Agave's load_lookup_table_addresses): each table is
 * read from the bank, must be owned by the Address Lookup Table program, decode, and still be active
 * (a deactivated table stays usable until its deactivation slot leaves the slot hashes); only
 * addresses appended before the current slot may be used. The writable addresses of every table
 * come first, then the read-only ones, in lookup order.
 */
import type { Address } from '../common/pubkey.ts';
import type { Account } from './account.ts';
import { TransactionError } from './errors.ts';
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM_ID,
  activeAddressCount,
  decodeLookupTableHeader,
  lookupTableAddressAt,
  lookupTableStatus,
  type LookupTableMeta,
} from './programs/address-lookup-table/state.ts';
import type { Sysvars } from './sysvars.ts';
import type { Message } from './wire.ts';

export interface LoadedAddresses {
  writable: Address[];
  readonly: Address[];
}

export const NO_LOADED_ADDRESSES: LoadedAddresses = Object.freeze({ writable: [], readonly: [] }) as LoadedAddresses;

/**
 * Agave's limit on the accounts one transaction may lock (MAX_TX_ACCOUNT_LOCKS, before
 * increase_tx_account_lock_limit): only a message with lookups can name more.
 */
export const MAX_TX_ACCOUNT_LOCKS = 64;

/** The addresses `m`'s lookups load at the bank `readAccount` reads; throws TransactionError as Agave. */
export function loadMessageAddresses(m: Pick<Message, 'addressTableLookups'>, readAccount: (a: Address) => Account | null, sysvars: Pick<Sysvars, 'clock' | 'slotHashes'>): LoadedAddresses {
  if (m.addressTableLookups.length === 0) return NO_LOADED_ADDRESSES;
  const writable: Address[] = [];
  const readonly: Address[] = [];
  const slot = sysvars.clock.slot;
  for (const lookup of m.addressTableLookups) {
    const account = readAccount(lookup.accountKey);
    if (!account || account.lamports === 0) throw new TransactionError('AddressLookupTableNotFound');
    if (account.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM_ID) throw new TransactionError('InvalidAddressLookupTableOwner');
    let header: { meta: LookupTableMeta; addressCount: number };
    try {
      header = decodeLookupTableHeader(account.data);
    } catch {
      throw new TransactionError('InvalidAddressLookupTableData');
    }
    if (lookupTableStatus(header.meta, slot, sysvars.slotHashes).kind === 'deactivated') throw new TransactionError('AddressLookupTableNotFound');
    const active = activeAddressCount(header.meta, header.addressCount, slot);
    const pick = (indexes: number[], out: Address[]) => {
      for (const i of indexes) {
        if (i >= active) throw new TransactionError('InvalidAddressLookupTableIndex');
        out.push(lookupTableAddressAt(account.data, i));
      }
    };
    pick(lookup.writableIndexes, writable);
    pick(lookup.readonlyIndexes, readonly);
  }
  return { writable, readonly };
}

/** Static keys, then the loaded writable and read-only ones: the indexes instructions use. */
export function messageAccountKeys(m: Message, loaded: LoadedAddresses): Address[] {
  if (loaded.writable.length === 0 && loaded.readonly.length === 0) return m.accountKeys;
  return [...m.accountKeys, ...loaded.writable, ...loaded.readonly];
}

/** Agave's validate_account_locks over every key: no key twice, at most MAX_TX_ACCOUNT_LOCKS. */
export function validateAccountLocks(keys: readonly Address[]): void {
  if (new Set(keys).size !== keys.length) throw new TransactionError('AccountLoadedTwice');
  if (keys.length > MAX_TX_ACCOUNT_LOCKS) throw new TransactionError('TooManyAccountLocks');
}
