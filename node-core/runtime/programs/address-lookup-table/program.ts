/**
 * The Address Lookup Table program (AddressLookupTab1e1111111111111111111111111) as Agave's builtin
 * runs it (programs/address-lookup-table/src/processor.rs, 750 compute units an instruction, with
 * relax_authority_signer_check_for_lookup_table_creation active as on every cluster): tables at the
 * address derived from [authority, recent slot (LE u64), bump], a recent slot taken from the slot
 * hashes sysvar, extension by up to 256 addresses (the rent top-up paid through the System program),
 * freezing, deactivation, and closing once the deactivation slot has left the slot hashes.
 * The System program is called through ctx.invoke, as native_invoke does, so the inner instructions
 * and `invoke [2]` logs are Agave's. Log lines and errors are the builtin's own; like every builtin's
 * ic_msg! lines they carry no `Program log:` prefix.
 */
import { createProgramAddress } from '../../../common/pda.ts';
import { SYSTEM_PROGRAM_ID, addressToBytes, type Address } from '../../../common/pubkey.ts';
import { InstructionError } from '../../errors.ts';
import type { InstructionAccount, InstructionContext, Program } from '../../program.ts';
import { encodeSystemInstruction } from '../system-instruction.ts';
import { decodeLookupTableInstruction, lookupTableSeeds } from './instruction.ts';
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM_ID,
  LOOKUP_TABLE_MAX_ADDRESSES,
  LOOKUP_TABLE_META_SIZE,
  SLOT_MAX,
  decodeLookupTable,
  encodeLookupTableMeta,
  lookupTableStatus,
  newLookupTableMeta,
  slotHashPosition,
  type LookupTable,
} from './state.ts';

const fail = (value: string) => new InstructionError(value);

function at(ctx: InstructionContext, i: number): InstructionAccount {
  const a = ctx.accounts[i];
  if (!a) throw fail('NotEnoughAccountKeys');
  return a;
}

function invoke(ctx: InstructionContext, accounts: Array<{ key: Address; isSigner: boolean; isWritable: boolean }>, data: Uint8Array, seeds?: Uint8Array[][]): void {
  if (!ctx.invoke) throw new Error('address lookup table program: the executor provides no cross-program invocation');
  ctx.invoke({ programId: SYSTEM_PROGRAM_ID, accounts, data }, seeds);
}

const systemTransfer = (ctx: InstructionContext, from: Address, to: Address, lamports: number) =>
  invoke(ctx, [{ key: from, isSigner: true, isWritable: true }, { key: to, isSigner: false, isWritable: true }], encodeSystemInstruction({ type: 'transfer', lamports: BigInt(lamports) }));

/** The table account must belong to this program (checked before anything else). */
function ownedTable(ctx: InstructionContext): InstructionAccount {
  const table = at(ctx, 0);
  if (table.account.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM_ID) throw fail('InvalidAccountOwner');
  return table;
}

function signingAuthority(ctx: InstructionContext): Address {
  const authority = at(ctx, 1);
  if (!authority.isSigner) {
    ctx.logRaw('Authority account must be a signer');
    throw fail('MissingRequiredSignature');
  }
  return authority.key;
}

/** The table's authority must be `authority`; `frozenLog` is the line each instruction logs for a frozen table (extend logs none). */
function checkAuthority(ctx: InstructionContext, table: LookupTable, authority: Address, frozenLog: string | null): void {
  if (table.meta.authority === null) {
    if (frozenLog) ctx.logRaw(frozenLog);
    throw fail('Immutable');
  }
  if (table.meta.authority !== authority) throw fail('IncorrectAuthority');
}

/** Rewrites the 56-byte header in place (AddressLookupTable::overwrite_meta_data). */
function writeMeta(account: InstructionAccount, table: LookupTable, data = account.account.data.slice()): void {
  data.set(encodeLookupTableMeta(table.meta), 0);
  account.account.data = data;
}

function create(ctx: InstructionContext, recentSlot: bigint, bumpSeed: number): void {
  const table = at(ctx, 0);
  const tableLamports = table.account.lamports;
  const tableOwner = table.account.owner;
  const authority = at(ctx, 1).key;
  const payer = at(ctx, 2);
  if (!payer.isSigner) {
    ctx.logRaw('Payer account must be a signer');
    throw fail('MissingRequiredSignature');
  }
  if (slotHashPosition(ctx.sysvars.slotHashes, recentSlot) === -1) {
    ctx.logRaw(`${recentSlot} is not a recent slot`);
    throw fail('InvalidInstructionData');
  }
  const seeds = [...lookupTableSeeds(authority, recentSlot), Uint8Array.of(bumpSeed)];
  const derived = createProgramAddress(seeds, ADDRESS_LOOKUP_TABLE_PROGRAM_ID);
  if (derived === null) throw fail('InvalidSeeds');
  if (table.key !== derived) {
    ctx.logRaw(`Table address must match derived address: ${derived}`);
    throw fail('InvalidArgument');
  }
  // Already created at this address: nothing to do (the relaxed creation rules).
  if (tableOwner === ADDRESS_LOOKUP_TABLE_PROGRAM_ID) return;

  const required = Math.max(Math.max(ctx.minimumBalance(LOOKUP_TABLE_META_SIZE), 1) - tableLamports, 0);
  if (required > 0) systemTransfer(ctx, payer.key, table.key, required);
  const self = [{ key: table.key, isSigner: true, isWritable: true }];
  invoke(ctx, self, encodeSystemInstruction({ type: 'allocate', space: BigInt(LOOKUP_TABLE_META_SIZE) }), [seeds]);
  invoke(ctx, self, encodeSystemInstruction({ type: 'assign', owner: ADDRESS_LOOKUP_TABLE_PROGRAM_ID }), [seeds]);
  writeMeta(table, { meta: newLookupTableMeta(authority), addresses: [] });
}

function freeze(ctx: InstructionContext): void {
  const account = ownedTable(ctx);
  const authority = signingAuthority(ctx);
  const table = decodeLookupTable(account.account.data);
  checkAuthority(ctx, table, authority, 'Lookup table is already frozen');
  if (table.meta.deactivationSlot !== SLOT_MAX) {
    ctx.logRaw('Deactivated tables cannot be frozen');
    throw fail('InvalidArgument');
  }
  if (table.addresses.length === 0) {
    ctx.logRaw('Empty lookup tables cannot be frozen');
    throw fail('InvalidInstructionData');
  }
  table.meta.authority = null;
  writeMeta(account, table);
}

function extend(ctx: InstructionContext, newAddresses: Address[]): void {
  const account = ownedTable(ctx);
  const authority = signingAuthority(ctx);
  const lamports = account.account.lamports;
  const table = decodeLookupTable(account.account.data);
  checkAuthority(ctx, table, authority, null);
  if (table.meta.deactivationSlot !== SLOT_MAX) {
    ctx.logRaw('Deactivated tables cannot be extended');
    throw fail('InvalidArgument');
  }
  if (table.addresses.length >= LOOKUP_TABLE_MAX_ADDRESSES) {
    ctx.logRaw('Lookup table is full and cannot contain more addresses');
    throw fail('InvalidArgument');
  }
  if (newAddresses.length === 0) {
    ctx.logRaw('Must extend with at least one address');
    throw fail('InvalidInstructionData');
  }
  const newCount = table.addresses.length + newAddresses.length;
  if (newCount > LOOKUP_TABLE_MAX_ADDRESSES) {
    ctx.logRaw(`Extended lookup table length ${newCount} would exceed max capacity of ${LOOKUP_TABLE_MAX_ADDRESSES}`);
    throw fail('InvalidInstructionData');
  }
  const slot = BigInt(ctx.sysvars.clock.slot);
  if (slot !== table.meta.lastExtendedSlot) {
    table.meta.lastExtendedSlot = slot;
    table.meta.lastExtendedSlotStartIndex = table.addresses.length;
  }
  const newLength = LOOKUP_TABLE_META_SIZE + 32 * newCount;
  const data = new Uint8Array(newLength);
  data.set(account.account.data.subarray(0, LOOKUP_TABLE_META_SIZE + 32 * table.addresses.length));
  newAddresses.forEach((a, i) => data.set(addressToBytes(a), LOOKUP_TABLE_META_SIZE + 32 * (table.addresses.length + i)));
  writeMeta(account, table, data);

  const required = Math.max(Math.max(ctx.minimumBalance(newLength), 1) - lamports, 0);
  if (required > 0) {
    const payer = at(ctx, 2);
    if (!payer.isSigner) {
      ctx.logRaw('Payer account must be a signer');
      throw fail('MissingRequiredSignature');
    }
    systemTransfer(ctx, payer.key, account.key, required);
  }
}

function deactivate(ctx: InstructionContext): void {
  const account = ownedTable(ctx);
  const authority = signingAuthority(ctx);
  const table = decodeLookupTable(account.account.data);
  checkAuthority(ctx, table, authority, 'Lookup table is frozen');
  if (table.meta.deactivationSlot !== SLOT_MAX) {
    ctx.logRaw('Lookup table is already deactivated');
    throw fail('InvalidArgument');
  }
  table.meta.deactivationSlot = BigInt(ctx.sysvars.clock.slot);
  writeMeta(account, table);
}

function close(ctx: InstructionContext): void {
  const account = ownedTable(ctx);
  const authority = signingAuthority(ctx);
  const recipient = at(ctx, 2);
  if (recipient.index === account.index) {
    ctx.logRaw('Lookup table cannot be the recipient of reclaimed lamports');
    throw fail('InvalidArgument');
  }
  const withdrawn = account.account.lamports;
  const table = decodeLookupTable(account.account.data);
  checkAuthority(ctx, table, authority, 'Lookup table is frozen');
  const status = lookupTableStatus(table.meta, ctx.sysvars.clock.slot, ctx.sysvars.slotHashes);
  if (status.kind === 'activated') {
    ctx.logRaw('Lookup table is not deactivated');
    throw fail('InvalidArgument');
  }
  if (status.kind === 'deactivating') {
    ctx.logRaw(`Table cannot be closed until it's fully deactivated in ${status.remainingBlocks} blocks`);
    throw fail('InvalidArgument');
  }
  const credited = recipient.account.lamports + withdrawn;
  if (!Number.isSafeInteger(credited)) throw fail('ArithmeticOverflow');
  recipient.account.lamports = credited;
  account.account.data = new Uint8Array(0);
  account.account.lamports = 0;
}

export const addressLookupTableProgram: Program = {
  id: ADDRESS_LOOKUP_TABLE_PROGRAM_ID,
  name: 'address-lookup-table',
  computeUnits: 750,
  process(ctx) {
    const ix = decodeLookupTableInstruction(ctx.data);
    if (!ix) throw fail('InvalidInstructionData');
    switch (ix.type) {
      case 'createLookupTable':
        return create(ctx, ix.recentSlot, ix.bumpSeed);
      case 'freezeLookupTable':
        return freeze(ctx);
      case 'extendLookupTable':
        return extend(ctx, ix.newAddresses);
      case 'deactivateLookupTable':
        return deactivate(ctx);
      case 'closeLookupTable':
        return close(ctx);
    }
  },
};
