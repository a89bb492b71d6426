/**
 * jsonParsed for the Address Lookup Table program: its accounts as Agave's account decoder shows
 * them (`parse_address_lookup_table`: slots as strings, `authority` left out once frozen) and its
 * instructions as transaction-status's `parse_address_lookup_table`.
 */
import { InstructionError } from '../../../runtime/errors.ts';
import { decodeLookupTableInstruction } from '../../../runtime/programs/address-lookup-table/instruction.ts';
import { decodeLookupTable } from '../../../runtime/programs/address-lookup-table/state.ts';
import type { AccountParser, InstructionParser } from './types.ts';

const PROGRAM = 'address-lookup-table';

export const parseLookupTableAccount: AccountParser = (_address, account) => {
  const space = account.data.length;
  let table;
  try {
    table = decodeLookupTable(account.data);
  } catch (e) {
    if (e instanceof InstructionError && e.value === 'UninitializedAccount') return { program: PROGRAM, parsed: { type: 'uninitialized' }, space };
    return null;
  }
  const info: Record<string, unknown> = {
    deactivationSlot: table.meta.deactivationSlot.toString(),
    lastExtendedSlot: table.meta.lastExtendedSlot.toString(),
    lastExtendedSlotStartIndex: table.meta.lastExtendedSlotStartIndex,
  };
  if (table.meta.authority !== null) info.authority = table.meta.authority;
  info.addresses = table.addresses;
  return { program: PROGRAM, parsed: { type: 'lookupTable', info }, space };
};

export const parseLookupTableInstruction: InstructionParser = (data, accounts) => {
  const ix = decodeLookupTableInstruction(data);
  if (!ix) return null;
  const need = (n: number) => accounts.length >= n;
  const a = (i: number) => accounts[i]!;
  switch (ix.type) {
    case 'createLookupTable':
      if (!need(4)) return null;
      return {
        type: 'createLookupTable',
        info: {
          lookupTableAccount: a(0),
          lookupTableAuthority: a(1),
          payerAccount: a(2),
          systemProgram: a(3),
          recentSlot: Number(ix.recentSlot),
          bumpSeed: ix.bumpSeed,
        },
      };
    case 'freezeLookupTable':
      if (!need(2)) return null;
      return { type: 'freezeLookupTable', info: { lookupTableAccount: a(0), lookupTableAuthority: a(1) } };
    case 'extendLookupTable': {
      if (!need(2)) return null;
      const info: Record<string, unknown> = { lookupTableAccount: a(0), lookupTableAuthority: a(1), newAddresses: ix.newAddresses };
      if (accounts.length >= 4) {
        info.payerAccount = a(2);
        info.systemProgram = a(3);
      }
      return { type: 'extendLookupTable', info };
    }
    case 'deactivateLookupTable':
      if (!need(2)) return null;
      return { type: 'deactivateLookupTable', info: { lookupTableAccount: a(0), lookupTableAuthority: a(1) } };
    case 'closeLookupTable':
      if (!need(3)) return null;
      return { type: 'closeLookupTable', info: { lookupTableAccount: a(0), lookupTableAuthority: a(1), recipient: a(2) } };
  }
};
