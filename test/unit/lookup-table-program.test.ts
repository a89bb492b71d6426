/**
 * The Address Lookup Table program and v0 address loading, on the executor with a bank stand-in:
 * Agave's instruction rules, logs and errors, the account layout, the slot rules (recent slots from
 * the slot hashes, addresses appended in the current slot not yet usable, the deactivation cool-down)
 * and the jsonParsed shapes.
 */
import { test, describe } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import bs58 from 'bs58';
import { AddressLookupTableProgram, PublicKey } from '@solana/web3.js';
import { ByteWriter } from '../../node-core/common/bytes.ts';
import { createProgramAddress } from '../../node-core/common/pda.ts';
import { SYSTEM_PROGRAM_ID, addressToBytes, type Address } from '../../node-core/common/pubkey.ts';
import { keypairFromSeed, type Keypair } from '../../node-core/keys/keypair.ts';
import { DEFAULT_RENT } from '../../node-core/ledger/genesis-config.ts';
import { BlockhashQueue } from '../../node-core/ledger/blockhash-queue.ts';
import type { Chain } from '../../node-core/ledger/chain.ts';
import { createGenesis, genesisHashOf, LAMPORTS_PER_SOL } from '../../node-core/ledger/genesis.ts';
import { openChain, writeGenesis } from '../../node-core/ledger/open-chain.ts';
import { MemoryStore } from '../../node-core/store/memory-store.ts';
import { cloneAccount, minimumBalanceForRentExemption, newAccount, type Account } from '../../node-core/runtime/account.ts';
import { loadMessageAddresses, MAX_TX_ACCOUNT_LOCKS } from '../../node-core/runtime/address-loader.ts';
import { builtinProgramAccount, executeTransaction, type ExecutedTransaction } from '../../node-core/runtime/executor.ts';
import { deriveLookupTableAddress, encodeLookupTableInstruction, lookupTableSeeds, type LookupTableInstruction } from '../../node-core/runtime/programs/address-lookup-table/instruction.ts';
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM_ID as ALT,
  LOOKUP_TABLE_META_SIZE,
  SLOT_HASHES_MAX_ENTRIES,
  SLOT_MAX,
  decodeLookupTable,
  encodeLookupTable,
  newLookupTableMeta,
} from '../../node-core/runtime/programs/address-lookup-table/state.ts';
import { builtinPrograms } from '../../node-core/runtime/programs/index.ts';
import { encodeSystemInstruction } from '../../node-core/runtime/programs/system-instruction.ts';
import { renderSysvar, SYSVAR_IDS, type Sysvars } from '../../node-core/runtime/sysvars.ts';
import type { Message, Transaction } from '../../node-core/runtime/wire.ts';
import { parseAccountData, parseInstruction } from '../../node-core/rpc/encoding/parsed/index.ts';
import { refused } from '../helpers/refused.ts';
import { buildTransaction, signMessage, type InstructionSpec, type UnsignedMessage } from '../helpers/tx-builder.ts';

const FEE = 5000;
const BLOCKHASH = bs58.encode(new Uint8Array(32).fill(1));
const kp = (n: number): Keypair => keypairFromSeed(new Uint8Array(32).fill(n));
const payer = kp(1);
const authority = kp(2);
const other = kp(3);
const rent = (len: number) => minimumBalanceForRentExemption(DEFAULT_RENT, len);

/** A bank stand-in whose slot can advance: every slot has a block, so the slot hashes hold the 512 before it. */
class World {
  readonly accounts = new Map<Address, Account>();
  slot = 1000;
  constructor() {
    this.accounts.set(payer.address, newAccount(1_000_000_000, 0, SYSTEM_PROGRAM_ID));
    this.accounts.set(authority.address, newAccount(1_000_000_000, 0, SYSTEM_PROGRAM_ID));
    this.accounts.set(SYSTEM_PROGRAM_ID, builtinProgramAccount('system_program'));
    this.accounts.set(ALT, builtinProgramAccount('address_lookup_table_program'));
  }
  get sysvars(): Sysvars {
    const slotHashes: Array<[number, string]> = [];
    for (let s = this.slot - 1; s >= Math.max(0, this.slot - 512); s--) slotHashes.push([s, BLOCKHASH]);
    return {
      clock: { slot: this.slot, epochStartTimestamp: 0, epoch: 0, leaderScheduleEpoch: 1, unixTimestamp: 1_700_000_000 },
      rent: DEFAULT_RENT,
      epochSchedule: { slotsPerEpoch: 432_000, leaderScheduleSlotOffset: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
      recentBlockhashes: [{ blockhash: BLOCKHASH, lamportsPerSignature: FEE }],
      slotHashes,
      lamportsPerSignature: FEE,
    };
  }
  read = (a: Address): Account | null => {
    const acc = this.accounts.get(a);
    return acc ? acc : SYSVAR_IDS.has(a) ? renderSysvar(a, this.sysvars) : null;
  };
  /** Executes `tx` and keeps its writes, as a bank does. */
  run(tx: Transaction): ExecutedTransaction {
    const result = executeTransaction(tx, { readAccount: this.read, sysvars: this.sysvars, programs: builtinPrograms, simulation: false, durableNonce: false });
    for (const [k, a] of result.writes) (a.lamports === 0 ? this.accounts.delete(k) : this.accounts.set(k, cloneAccount(a)));
    return result;
  }
  table(address: Address) {
    return decodeLookupTable(this.accounts.get(address)!.data);
  }
}

const altIx = (ix: LookupTableInstruction, accounts: InstructionSpec['accounts']): InstructionSpec => ({ programId: ALT, accounts, data: encodeLookupTableInstruction(ix) });

function createIx(tableAddress: Address, recentSlot: number, bumpSeed: number, auth = authority.address): InstructionSpec {
  return altIx({ type: 'createLookupTable', recentSlot: BigInt(recentSlot), bumpSeed }, [
    { key: tableAddress, writable: true },
    { key: auth },
    { key: payer.address, signer: true, writable: true },
    { key: SYSTEM_PROGRAM_ID },
  ]);
}

const extendIx = (table: Address, addresses: Address[], signer = true, auth = authority.address) =>
  altIx({ type: 'extendLookupTable', newAddresses: addresses }, [
    { key: table, writable: true },
    { key: auth, signer },
    { key: payer.address, signer: true, writable: true },
    { key: SYSTEM_PROGRAM_ID },
  ]);
const tableIx = (type: 'freezeLookupTable' | 'deactivateLookupTable', table: Address) =>
  altIx({ type }, [
    { key: table, writable: true },
    { key: authority.address, signer: true },
  ]);
const closeIx = (table: Address, recipient: Address) =>
  altIx({ type: 'closeLookupTable' }, [
    { key: table, writable: true },
    { key: authority.address, signer: true },
    { key: recipient, writable: true },
  ]);

const send = (ixs: InstructionSpec[], signers: Keypair[] = [authority]) => buildTransaction(payer, ixs, BLOCKHASH, signers);
const addresses = (n: number, from = 40) => Array.from({ length: n }, (_, i) => kp(from + i).address);

/** A table created at slot 999 with `entries` added in slot 1000, and the world moved to slot 1001. */
function worldWithTable(entries: Address[]): { world: World; table: Address } {
  const world = new World();
  const { address, bump } = deriveLookupTableAddress(authority.address, 999);
  assert.equal(world.run(send([createIx(address, 999, bump)])).err, null);
  if (entries.length) assert.equal(world.run(send([extendIx(address, entries)])).err, null);
  world.slot++;
  return { world, table: address };
}

describe('account layout', () => {
  test('the 56-byte header is the bincode of ProgramState::LookupTable, zero-padded', () => {
    const meta = newLookupTableMeta(authority.address);
    const data = encodeLookupTable({ meta, addresses: [other.address] });
    assert.equal(data.length, 56 + 32);
    assert.deepEqual([...data.subarray(0, 4)], [1, 0, 0, 0]);
    assert.deepEqual([...data.subarray(4, 12)], new Array(8).fill(0xff));
    assert.equal(data[21], 1, 'authority tag: Some');
    assert.deepEqual(data.subarray(22, 54), addressToBytes(authority.address));
    assert.deepEqual(data.subarray(56), addressToBytes(other.address));
    const frozen = encodeLookupTable({ meta: { ...meta, authority: null }, addresses: [] });
    assert.equal(frozen[21], 0);
    assert.ok(frozen.subarray(22, 56).every((b) => b === 0), 'a frozen table zero-fills the rest of the header');
    assert.deepEqual(decodeLookupTable(data), { meta, addresses: [other.address] });
  });
});

describe('CreateLookupTable', () => {
  test('the table address derives as web3.js derives it', () => {
    for (const recentSlot of [0, 997, 2 ** 40 + 3]) {
      const [, theirs] = AddressLookupTableProgram.createLookupTable({ authority: new PublicKey(authority.address), payer: new PublicKey(payer.address), recentSlot });
      const ours = deriveLookupTableAddress(authority.address, recentSlot);
      assert.equal(ours.address, theirs.toBase58());
      assert.equal(createProgramAddress([...lookupTableSeeds(authority.address, recentSlot), Uint8Array.of(ours.bump)], ALT), ours.address);
    }
  });

  test('creates the table at the address derived from authority and recent slot, through the System program', () => {
    const world = new World();
    const { address, bump } = deriveLookupTableAddress(authority.address, 990);
    const r = world.run(send([createIx(address, 990, bump)], []));
    assert.equal(r.err, null);
    const account = world.accounts.get(address)!;
    assert.equal(account.owner, ALT);
    assert.equal(account.lamports, rent(LOOKUP_TABLE_META_SIZE));
    assert.deepEqual(world.table(address), { meta: newLookupTableMeta(authority.address), addresses: [] });
    assert.deepEqual(r.logs, [
      `Program ${ALT} invoke [1]`,
      `Program ${SYSTEM_PROGRAM_ID} invoke [2]`,
      `Program ${SYSTEM_PROGRAM_ID} success`,
      `Program ${SYSTEM_PROGRAM_ID} invoke [2]`,
      `Program ${SYSTEM_PROGRAM_ID} success`,
      `Program ${SYSTEM_PROGRAM_ID} invoke [2]`,
      `Program ${SYSTEM_PROGRAM_ID} success`,
      `Program ${ALT} success`,
    ]);
    assert.equal(r.computeUnitsConsumed, 750 + 3 * 150);
    assert.deepEqual(r.innerInstructions[0]!.instructions.map((i) => i.data[0]), [2, 8, 1], 'transfer, allocate, assign');
  });

  test('a slot outside the slot hashes is not a recent slot; a wrong address names the derived one', () => {
    const world = new World();
    const current = deriveLookupTableAddress(authority.address, 1000);
    const r = world.run(send([createIx(current.address, 1000, current.bump)]));
    assert.deepEqual(r.err, { InstructionError: [0, 'InvalidInstructionData'] });
    assert.ok(r.logs.includes('1000 is not a recent slot'));
    const good = deriveLookupTableAddress(authority.address, 998);
    const wrong = world.run(send([createIx(other.address, 998, good.bump)]));
    assert.deepEqual(wrong.err, { InstructionError: [0, 'InvalidArgument'] });
    assert.ok(wrong.logs.includes(`Table address must match derived address: ${good.address}`));
    assert.equal(world.accounts.get(good.address), undefined, 'nothing created');
  });

  test('a bump whose address lies on the curve is InvalidSeeds; creating an existing table again does nothing', () => {
    const world = new World();
    let onCurve = 255;
    const seeds = (b: number) => [...lookupTableSeeds(authority.address, 997), Uint8Array.of(b)];
    while (createProgramAddress(seeds(onCurve), ALT) !== null) onCurve--;
    assert.deepEqual(world.run(send([createIx(other.address, 997, onCurve)])).err, { InstructionError: [0, 'InvalidSeeds'] });
    const { address, bump } = deriveLookupTableAddress(authority.address, 997);
    assert.equal(world.run(send([createIx(address, 997, bump)])).err, null);
    const before = structuredClone(world.accounts.get(address));
    const again = world.run(send([createIx(address, 997, bump)]));
    assert.equal(again.err, null);
    assert.deepEqual(again.innerInstructions, []);
    assert.deepEqual(world.accounts.get(address), before);
  });

  test('the payer must sign', () => {
    const world = new World();
    const { address, bump } = deriveLookupTableAddress(authority.address, 999);
    const ix = createIx(address, 999, bump);
    ix.accounts![2] = { key: other.address, writable: true };
    const r = world.run(send([ix]));
    assert.deepEqual(r.err, { InstructionError: [0, 'MissingRequiredSignature'] });
    assert.ok(r.logs.includes('Payer account must be a signer'));
  });
});

describe('ExtendLookupTable', () => {
  test('appends addresses, tops up rent from the payer and records the slot and start index', () => {
    const { world, table } = worldWithTable(addresses(3));
    let t = world.table(table);
    assert.deepEqual(t.addresses, addresses(3));
    assert.equal(t.meta.lastExtendedSlot, 1000n);
    assert.equal(t.meta.lastExtendedSlotStartIndex, 0);
    assert.equal(world.accounts.get(table)!.lamports, rent(56 + 3 * 32));
    // Two extensions in one slot keep that slot's start index.
    assert.equal(world.run(send([extendIx(table, addresses(2, 60))])).err, null);
    assert.equal(world.run(send([extendIx(table, addresses(1, 70))])).err, null);
    t = world.table(table);
    assert.equal(t.addresses.length, 6);
    assert.equal(t.meta.lastExtendedSlot, 1001n);
    assert.equal(t.meta.lastExtendedSlotStartIndex, 3);
  });

  test('Agave\'s errors: authority must sign, be the authority, the table must hold 256 at most and get at least one', () => {
    const { world, table } = worldWithTable(addresses(1));
    const unsigned = world.run(send([extendIx(table, addresses(1, 80), false)], []));
    assert.deepEqual(unsigned.err, { InstructionError: [0, 'MissingRequiredSignature'] });
    assert.ok(unsigned.logs.includes('Authority account must be a signer'));
    assert.deepEqual(world.run(send([extendIx(table, addresses(1, 80), true, other.address)], [other])).err, { InstructionError: [0, 'IncorrectAuthority'] });
    const empty = world.run(send([extendIx(table, [])]));
    assert.deepEqual(empty.err, { InstructionError: [0, 'InvalidInstructionData'] });
    assert.ok(empty.logs.includes('Must extend with at least one address'));
    // 20 addresses a transaction: fill up to 241, then 16 more would make 257.
    for (let n = 1; n < 241; n += 20) assert.equal(world.run(send([extendIx(table, addresses(20, 100 + n))])).err, null);
    const over = world.run(send([extendIx(table, addresses(16, 90))]));
    assert.deepEqual(over.err, { InstructionError: [0, 'InvalidInstructionData'] });
    assert.ok(over.logs.includes('Extended lookup table length 257 would exceed max capacity of 256'));
    assert.equal(world.table(table).addresses.length, 241);
    const notOwned = world.run(send([extendIx(payer.address, addresses(1))]));
    assert.deepEqual(notOwned.err, { InstructionError: [0, 'InvalidAccountOwner'] });
  });
});

describe('FreezeLookupTable, DeactivateLookupTable, CloseLookupTable', () => {
  test('an empty table cannot be frozen; a frozen one cannot be extended, deactivated or closed', () => {
    const empty = worldWithTable([]);
    const r = empty.world.run(send([tableIx('freezeLookupTable', empty.table)]));
    assert.deepEqual(r.err, { InstructionError: [0, 'InvalidInstructionData'] });
    assert.ok(r.logs.includes('Empty lookup tables cannot be frozen'));

    const { world, table } = worldWithTable(addresses(2));
    assert.equal(world.run(send([tableIx('freezeLookupTable', table)])).err, null);
    assert.equal(world.table(table).meta.authority, null);
    const before = structuredClone(world.accounts.get(table));
    const extend = world.run(send([extendIx(table, addresses(1, 90))]));
    assert.deepEqual(extend.err, { InstructionError: [0, 'Immutable'] });
    assert.ok(extend.logs.every((l) => l.startsWith('Program ')), 'extend logs nothing of its own for a frozen table');
    const freeze = world.run(send([tableIx('freezeLookupTable', table)]));
    assert.ok(freeze.logs.includes('Lookup table is already frozen'));
    const deactivate = world.run(send([tableIx('deactivateLookupTable', table)]));
    assert.deepEqual(deactivate.err, { InstructionError: [0, 'Immutable'] });
    assert.ok(deactivate.logs.includes('Lookup table is frozen'));
    assert.deepEqual(world.accounts.get(table), before);
  });

  test('a deactivated table closes only once its deactivation slot has left the slot hashes', () => {
    const { world, table } = worldWithTable(addresses(2));
    const notDeactivated = world.run(send([closeIx(table, other.address)]));
    assert.ok(notDeactivated.logs.includes('Lookup table is not deactivated'));
    assert.equal(world.run(send([tableIx('deactivateLookupTable', table)])).err, null);
    assert.equal(world.table(table).meta.deactivationSlot, 1001n);
    const again = world.run(send([tableIx('deactivateLookupTable', table)]));
    assert.ok(again.logs.includes('Lookup table is already deactivated'));
    const extend = world.run(send([extendIx(table, addresses(1, 90))]));
    assert.ok(extend.logs.includes('Deactivated tables cannot be extended'));
    const sameSlot = world.run(send([closeIx(table, other.address)]));
    assert.deepEqual(sameSlot.err, { InstructionError: [0, 'InvalidArgument'] });
    assert.ok(sameSlot.logs.includes("Table cannot be closed until it's fully deactivated in 513 blocks"));
    world.slot = 1002;
    assert.ok(world.run(send([closeIx(table, other.address)])).logs.includes("Table cannot be closed until it's fully deactivated in 512 blocks"));
    world.slot = 1001 + 512;
    assert.ok(world.run(send([closeIx(table, other.address)])).logs.includes("Table cannot be closed until it's fully deactivated in 1 blocks"));
    const self = world.run(send([closeIx(table, table)]));
    assert.ok(self.logs.includes('Lookup table cannot be the recipient of reclaimed lamports'));
    world.slot = 1001 + 513;
    const lamports = world.accounts.get(table)!.lamports;
    const closed = world.run(send([closeIx(table, other.address)]));
    assert.equal(closed.err, null);
    assert.equal(world.accounts.get(table), undefined);
    assert.equal(world.accounts.get(other.address)!.lamports, lamports);
  });
});

/** A v0 message: `statics` signed by the payer, plus lookups; instructions index the full key list. */
function v0(statics: { keys: Address[]; readonlyUnsigned: number }, lookups: Message['addressTableLookups'], instructions: Message['instructions']): Transaction {
  const m: UnsignedMessage = {
    version: 0,
    header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: statics.readonlyUnsigned },
    accountKeys: statics.keys,
    recentBlockhash: BLOCKHASH,
    instructions,
    addressTableLookups: lookups,
  };
  return signMessage(m, [payer]);
}

const transferData = (lamports: number) => encodeSystemInstruction({ type: 'transfer', lamports: BigInt(lamports) });

describe('v0 transactions with lookups', () => {
  test('writable and read-only addresses load from the table; meta lists them', () => {
    const entries = addresses(4);
    const { world, table } = worldWithTable(entries);
    // payer, system program (static); entries[2] writable and entries[0] read-only from the table.
    const t = v0({ keys: [payer.address, SYSTEM_PROGRAM_ID], readonlyUnsigned: 1 }, [{ accountKey: table, writableIndexes: [2], readonlyIndexes: [0] }], [
      { programIdIndex: 1, accounts: [0, 2], data: transferData(2_000_000) },
    ]);
    const r = world.run(t);
    assert.equal(r.err, null);
    assert.deepEqual(r.loadedAddresses, { writable: [entries[2]], readonly: [entries[0]] });
    assert.deepEqual(r.accountKeys, [payer.address, SYSTEM_PROGRAM_ID, entries[2], entries[0]]);
    assert.equal(world.accounts.get(entries[2]!)!.lamports, 2_000_000);
    assert.equal(r.preBalances.length, 4);
  });

  test('a read-only looked-up account cannot be credited', () => {
    const entries = addresses(2);
    const { world, table } = worldWithTable(entries);
    const t = v0({ keys: [payer.address, SYSTEM_PROGRAM_ID], readonlyUnsigned: 1 }, [{ accountKey: table, writableIndexes: [], readonlyIndexes: [1] }], [
      { programIdIndex: 1, accounts: [0, 2], data: transferData(2_000_000) },
    ]);
    assert.deepEqual(world.run(t).err, { InstructionError: [0, 'ReadonlyLamportChange'] });
  });

  test('missing table, wrong owner, bad data, wrong index: Agave\'s errors, nothing charged', () => {
    const entries = addresses(2);
    const { world, table } = worldWithTable(entries);
    const lookup = (accountKey: Address, writableIndexes: number[]) =>
      v0({ keys: [payer.address, SYSTEM_PROGRAM_ID], readonlyUnsigned: 1 }, [{ accountKey, writableIndexes, readonlyIndexes: [] }], [
        { programIdIndex: 1, accounts: [0, 2], data: transferData(1) },
      ]);
    const payerBefore = world.accounts.get(payer.address)!.lamports;
    assert.equal(refused(() => world.run(lookup(other.address, [0]))), 'AddressLookupTableNotFound');
    assert.equal(refused(() => world.run(lookup(payer.address, [0]))), 'InvalidAddressLookupTableOwner');
    world.accounts.set(kp(9).address, { lamports: 1, data: new Uint8Array(10), owner: ALT, executable: false, rentEpoch: 0 });
    assert.equal(refused(() => world.run(lookup(kp(9).address, [0]))), 'InvalidAddressLookupTableData');
    assert.equal(refused(() => world.run(lookup(table, [2]))), 'InvalidAddressLookupTableIndex');
    assert.equal(world.accounts.get(payer.address)!.lamports, payerBefore);
  });

  test('addresses appended in the current slot are usable from the next slot', () => {
    const { world, table } = worldWithTable(addresses(1));
    assert.equal(world.run(send([extendIx(table, addresses(1, 90))])).err, null);
    const message = { addressTableLookups: [{ accountKey: table, writableIndexes: [1], readonlyIndexes: [] }] };
    assert.equal(refused(() => loadMessageAddresses(message, world.read, world.sysvars)), 'InvalidAddressLookupTableIndex');
    world.slot++;
    assert.deepEqual(loadMessageAddresses(message, world.read, world.sysvars), { writable: addresses(1, 90), readonly: [] });
  });

  test('a deactivated table serves lookups until the cool-down ends, then is not found', () => {
    const { world, table } = worldWithTable(addresses(1));
    assert.equal(world.run(send([tableIx('deactivateLookupTable', table)])).err, null);
    const message = { addressTableLookups: [{ accountKey: table, writableIndexes: [], readonlyIndexes: [0] }] };
    world.slot = 1001 + 512;
    assert.deepEqual(loadMessageAddresses(message, world.read, world.sysvars).readonly, addresses(1));
    world.slot = 1001 + 513;
    assert.equal(refused(() => loadMessageAddresses(message, world.read, world.sysvars)), 'AddressLookupTableNotFound');
  });

  test('a key loaded twice, or more than 64 keys locked, is refused', () => {
    const entries = [payer.address, ...addresses(70)];
    const { world, table } = (() => {
      const w = new World();
      const { address, bump } = deriveLookupTableAddress(authority.address, 999);
      w.run(send([createIx(address, 999, bump)]));
      for (let i = 0; i < entries.length; i += 20) assert.equal(w.run(send([extendIx(address, entries.slice(i, i + 20))])).err, null);
      w.slot++;
      return { world: w, table: address };
    })();
    const twice = v0({ keys: [payer.address, SYSTEM_PROGRAM_ID], readonlyUnsigned: 1 }, [{ accountKey: table, writableIndexes: [0], readonlyIndexes: [] }], [
      { programIdIndex: 1, accounts: [0, 2], data: transferData(1) },
    ]);
    assert.equal(refused(() => world.run(twice)), 'AccountLoadedTwice');
    const many = Array.from({ length: MAX_TX_ACCOUNT_LOCKS - 1 }, (_, i) => i + 1);
    const tooMany = v0({ keys: [payer.address, SYSTEM_PROGRAM_ID], readonlyUnsigned: 1 }, [{ accountKey: table, writableIndexes: [], readonlyIndexes: many }], [
      { programIdIndex: 1, accounts: [0, 2], data: transferData(1) },
    ]);
    assert.equal(refused(() => world.run(tooMany)), 'TooManyAccountLocks');
  });
});

describe('jsonParsed', () => {
  test('lookup table accounts as Agave\'s account decoder shows them', () => {
    const { world, table } = worldWithTable(addresses(2));
    const parsed = parseAccountData(table, world.accounts.get(table)!);
    assert.deepEqual(parsed, {
      program: 'address-lookup-table',
      parsed: {
        type: 'lookupTable',
        info: {
          deactivationSlot: SLOT_MAX.toString(),
          lastExtendedSlot: '1000',
          lastExtendedSlotStartIndex: 0,
          authority: authority.address,
          addresses: addresses(2),
        },
      },
      space: 56 + 64,
    });
    const uninitialized = { lamports: 1, data: new Uint8Array(56), owner: ALT, executable: false, rentEpoch: 0 };
    assert.deepEqual(parseAccountData(table, uninitialized)?.parsed, { type: 'uninitialized' });
  });

  test('instructions as transaction-status parses them', () => {
    const { address, bump } = deriveLookupTableAddress(authority.address, 5);
    const keys = [address, authority.address, payer.address, SYSTEM_PROGRAM_ID];
    const create = encodeLookupTableInstruction({ type: 'createLookupTable', recentSlot: 5n, bumpSeed: bump });
    assert.deepEqual(parseInstruction(ALT, create, keys), {
      program: 'address-lookup-table',
      parsed: {
        type: 'createLookupTable',
        info: { lookupTableAccount: address, lookupTableAuthority: authority.address, payerAccount: payer.address, systemProgram: SYSTEM_PROGRAM_ID, recentSlot: 5, bumpSeed: bump },
      },
    });
    const extend = encodeLookupTableInstruction({ type: 'extendLookupTable', newAddresses: [other.address] });
    assert.deepEqual(parseInstruction(ALT, extend, keys.slice(0, 2))?.parsed, {
      type: 'extendLookupTable',
      info: { lookupTableAccount: address, lookupTableAuthority: authority.address, newAddresses: [other.address] },
    });
    assert.deepEqual(parseInstruction(ALT, encodeLookupTableInstruction({ type: 'closeLookupTable' }), [address, authority.address, other.address])?.parsed, {
      type: 'closeLookupTable',
      info: { lookupTableAccount: address, lookupTableAuthority: authority.address, recipient: other.address },
    });
    assert.equal(parseInstruction(ALT, encodeLookupTableInstruction({ type: 'closeLookupTable' }), keys.slice(0, 2)), null, 'too few accounts');
    assert.equal(parseInstruction(ALT, Uint8Array.of(9, 0, 0, 0), keys), null);
  });
});

describe('the slot hashes the chain keeps', () => {
  test('512 slots for the slot hashes sysvar, while lookups by hash see the newest 300', () => {
    const q = new BlockhashQueue();
    const hash = (slot: number) => bs58.encode(new ByteWriter(32).u64(slot + 1).u64(0).u64(0).u64(0).finish());
    for (let slot = 0; slot < 700; slot++) q.push({ blockhash: hash(slot), slot, blockHeight: slot, lamportsPerSignature: FEE });
    const recent = q.recent(699, SLOT_HASHES_MAX_ENTRIES);
    assert.equal(recent.length, 512);
    assert.deepEqual([recent[0]!.slot, recent[511]!.slot], [699, 188]);
    assert.ok(q.get(hash(699 - 299)), 'the 300th newest is found by hash');
    assert.equal(q.get(hash(699 - 300)), undefined, 'the 301st newest is not');
  });
});

describe('on the chain, across a restart', () => {
  test('a table serves v0 transactions from the slot after its extension, through the cool-down and a restart, then is not found', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-alt-test-'));
    try {
      const { config, keys } = createGenesis({
        ledger: dir,
        mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
        slotMs: 400,
        slotsPerEpoch: 432_000,
        devAccountLamports: 100 * LAMPORTS_PER_SOL,
      });
      const hash = genesisHashOf(config);
      const store = new MemoryStore();
      await writeGenesis(store, config, hash);
      const open = () => openChain({ store, genesis: config, genesisHash: hash, programs: builtinPrograms, slotMs: 400, rootDepth: 2 });
      const seal = async (c: Chain, n: number) => {
        for (let i = 0; i < n; i++) {
          c.sealWorkingBank();
          await c.flushed();
        }
      };
      const owner = keys.devAccounts[0]!;
      let chain = await open();
      await seal(chain, 3);
      const recentSlot = chain.confirmedSlot;
      const { address: table, bump } = deriveLookupTableAddress(owner.address, recentSlot);
      const entries = addresses(2);
      const bh = () => chain.latestBlockhash('processed').blockhash;
      const metas = [{ key: table, writable: true }, { key: owner.address, signer: true }, { key: owner.address, signer: true, writable: true }, { key: SYSTEM_PROGRAM_ID }];
      const created = chain.processTransaction(
        buildTransaction(owner, [
          altIx({ type: 'createLookupTable', recentSlot: BigInt(recentSlot), bumpSeed: bump }, metas),
          altIx({ type: 'extendLookupTable', newAddresses: entries }, metas),
        ], bh()),
      );
      assert.equal(created.err, null);
      const transfer = (lamports: number) => {
        const m: UnsignedMessage = {
          version: 0,
          header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
          accountKeys: [owner.address, SYSTEM_PROGRAM_ID],
          recentBlockhash: bh(),
          instructions: [{ programIdIndex: 1, accounts: [0, 2], data: transferData(lamports) }],
          addressTableLookups: [{ accountKey: table, writableIndexes: [1], readonlyIndexes: [] }],
        };
        return signMessage(m, [owner]);
      };
      // Same slot as the extension: the address is not usable yet.
      assert.equal(refused(() => chain.processTransaction(transfer(2_000_000))), 'InvalidAddressLookupTableIndex');
      await seal(chain, 1);
      const sent = chain.processTransaction(transfer(2_000_000));
      assert.equal(sent.err, null);
      assert.deepEqual(sent.loadedAddresses, { writable: [entries[1]], readonly: [] });
      await seal(chain, 1);

      const deactivated = chain.processTransaction(buildTransaction(owner, [altIx({ type: 'deactivateLookupTable' }, metas.slice(0, 2))], bh()));
      assert.equal(deactivated.err, null);
      const deactivationSlot = chain.processedSlot;
      await seal(chain, 400);
      await chain.stop();
      chain = await open();
      const slotHashes = chain.bankAt('processed').sysvars.slotHashes;
      assert.deepEqual([slotHashes.length, slotHashes[0]![0], slotHashes.at(-1)![0]], [chain.processedSlot, chain.processedSlot - 1, 0], 'every slot is in the slot hashes after the restart');
      assert.equal(chain.processTransaction(transfer(3_000_000)).err, null, 'deactivating: still usable 400 slots on, after a restart');
      await seal(chain, deactivationSlot + 513 - chain.processedSlot);
      assert.equal(chain.processedSlot, deactivationSlot + 513);
      assert.equal(refused(() => chain.processTransaction(transfer(4_000_000))), 'AddressLookupTableNotFound');
      const recipient = owner.address;
      const closed = chain.processTransaction(buildTransaction(owner, [altIx({ type: 'closeLookupTable' }, [...metas.slice(0, 2), { key: recipient, writable: true }])], bh()));
      assert.equal(closed.err, null);
      assert.equal(chain.getAccount(table, 'processed'), null);
      assert.equal(chain.getAccount(entries[1]!, 'processed')!.lamports, 5_000_000);
      await chain.stop();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
