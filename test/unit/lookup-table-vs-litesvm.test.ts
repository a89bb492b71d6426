/**
 * The Address Lookup Table program and v0 address loading, differentially: every transaction runs on
 * LiteSVM (the real runtime with its Core BPF build of the program) and on this node's executor, and
 * both must agree on the result and on the table accounts' bytes, lamports and owner, and on the
 * inner instructions. Logs and compute units are not compared: the Core BPF build logs its own lines
 * (`Program log: Instruction: …`, a `consumed` line) where Agave's builtin, which this node follows,
 * logs its ic_msg! lines without a prefix.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import bs58 from 'bs58';
import { LiteSVM, type FailedTransactionMetadata, type TransactionMetadata } from 'litesvm';
import { getTransactionDecoder } from '@solana/kit';
import { SYSTEM_PROGRAM_ID, type Address } from '../../node-core/common/pubkey.ts';
import { generateKeypair, type Keypair } from '../../node-core/keys/keypair.ts';
import { DEFAULT_RENT } from '../../node-core/ledger/genesis-config.ts';
import { newAccount, type Account } from '../../node-core/runtime/account.ts';
import { TransactionError } from '../../node-core/runtime/errors.ts';
import { builtinProgramAccount, type ExecutedTransaction } from '../../node-core/runtime/executor.ts';
import { deriveLookupTableAddress, encodeLookupTableInstruction, type LookupTableInstruction } from '../../node-core/runtime/programs/address-lookup-table/instruction.ts';
import { ADDRESS_LOOKUP_TABLE_PROGRAM_ID as ALT } from '../../node-core/runtime/programs/address-lookup-table/state.ts';
import { encodeSystemInstruction } from '../../node-core/runtime/programs/system-instruction.ts';
import { type Sysvars } from '../../node-core/runtime/sysvars.ts';
import type { Transaction } from '../../node-core/runtime/wire.ts';
import { executeOnMap } from '../helpers/map-executor.ts';
import { buildTransaction, signMessage, type InstructionSpec, type UnsignedMessage } from '../helpers/tx-builder.ts';
import { engineTransactionError } from '../../node-core/runtime/sbf/engine-errors.ts';

const FUNDS = 10_000_000_000;
const SLOT_HASH = bs58.encode(new Uint8Array(32).fill(7));

class Twin {
  readonly svm = new LiteSVM();
  readonly accounts = new Map<Address, Account>();
  readonly decoder = getTransactionDecoder();
  slot = 0;
  constructor() {
    this.accounts.set(SYSTEM_PROGRAM_ID, builtinProgramAccount('system_program'));
    this.accounts.set(ALT, builtinProgramAccount('address_lookup_table_program'));
    this.warp(1000);
  }
  /** Every slot has a block: the slot hashes hold the 512 before the current one. */
  warp(slot: number): void {
    this.slot = slot;
    this.svm.warpToSlot(BigInt(slot));
    this.svm.setSlotHashes(Array.from({ length: Math.min(512, slot) }, (_, i) => ({ slot: BigInt(slot - 1 - i), hash: SLOT_HASH })));
  }
  get sysvars(): Sysvars {
    const slotHashes: Array<[number, string]> = [];
    for (let s = this.slot - 1; s >= Math.max(0, this.slot - 512); s--) slotHashes.push([s, SLOT_HASH]);
    return {
      clock: { slot: this.slot, epochStartTimestamp: 0, epoch: 0, leaderScheduleEpoch: 1, unixTimestamp: 1_700_000_000 },
      rent: DEFAULT_RENT,
      epochSchedule: { slotsPerEpoch: 432_000, leaderScheduleSlotOffset: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
      recentBlockhashes: [{ blockhash: SLOT_HASH, lamportsPerSignature: 5000 }],
      slotHashes,
      lamportsPerSignature: 5000,
    };
  }
  fund(k: Keypair): void {
    this.svm.airdrop(k.address as never, BigInt(FUNDS) as never);
    this.accounts.set(k.address, newAccount(FUNDS, 0, SYSTEM_PROGRAM_ID));
  }
  blockhash(): string {
    this.svm.expireBlockhash();
    return this.svm.latestBlockhash();
  }
  /** Runs `tx` on both; asserts they agree on the outcome, on `watch`'s accounts and on the inner instructions. */
  run(tx: Transaction, watch: Address[], expect: string | null = null): ExecutedTransaction | null {
    const raw = this.svm.sendTransaction(this.decoder.decode(tx.wire) as never) as TransactionMetadata | FailedTransactionMetadata;
    let ours: ExecutedTransaction | null = null;
    let ourErr: unknown = null;
    try {
      ours = executeOnMap(tx, this.accounts, this.sysvars);
      ourErr = ours.err;
    } catch (e) {
      if (!(e instanceof TransactionError)) throw e;
      ourErr = e.value;
    }
    const failed = 'err' in raw && typeof raw.err === 'function';
    const theirErr = failed ? engineTransactionError((raw as FailedTransactionMetadata).err()) : null;
    const what = `${tx.id}: ${ours?.logs.join(' | ')}`;
    assert.deepEqual(ourErr, theirErr, what);
    assert.equal(ourErr === null ? null : JSON.stringify(ourErr), expect, what);
    for (const key of watch) {
      const theirs = this.svm.getAccount(key as never);
      const mine = this.accounts.get(key);
      if (!theirs.exists) {
        assert.equal(mine, undefined, `${key} exists only here: ${what}`);
        continue;
      }
      assert.ok(mine, `${key} missing here: ${what}`);
      assert.deepEqual([mine.lamports, mine.owner, Buffer.from(mine.data).toString('hex')], [Number(theirs.lamports), theirs.programAddress, Buffer.from(theirs.data).toString('hex')], `${key}: ${what}`);
    }
    if (ours && !failed) {
      const meta = raw as TransactionMetadata;
      const theirInner = meta
        .innerInstructions()
        .map((group, index) => ({ index, instructions: group.map((i) => ({ programIdIndex: i.instruction().programIdIndex(), accounts: [...i.instruction().accounts()], data: Buffer.from(i.instruction().data()).toString('hex') })) }))
        .filter((g) => g.instructions.length > 0);
      const ourInner = ours.innerInstructions.map((g) => ({ index: g.index, instructions: g.instructions.map((i) => ({ programIdIndex: i.programIdIndex, accounts: i.accounts, data: Buffer.from(i.data).toString('hex') })) }));
      assert.deepEqual(ourInner, theirInner, `inner instructions: ${what}`);
    }
    return ours;
  }
}


const ixErr = (name: string) => JSON.stringify({ InstructionError: [0, name] });
const altIx = (ix: LookupTableInstruction, accounts: InstructionSpec['accounts']): InstructionSpec => ({ programId: ALT, accounts, data: encodeLookupTableInstruction(ix) });
const addresses = (n: number) => Array.from({ length: n }, () => generateKeypair().address);

describe('the Address Lookup Table program against LiteSVM', () => {
  it('create, extend, freeze, deactivate, close and v0 lookups: same accounts and outcomes', () => {
    const w = new Twin();
    const payer = generateKeypair();
    w.fund(payer);
    const metas = (table: Address) => [{ key: table, writable: true }, { key: payer.address, signer: true }, { key: payer.address, signer: true, writable: true }, { key: SYSTEM_PROGRAM_ID }];
    const send = (ixs: InstructionSpec[]) => buildTransaction(payer, ixs, w.blockhash());
    const a = deriveLookupTableAddress(payer.address, 990);
    const b = deriveLookupTableAddress(payer.address, 991);
    const watch = [a.address, b.address];

    w.run(send([altIx({ type: 'createLookupTable', recentSlot: 1000n, bumpSeed: deriveLookupTableAddress(payer.address, 1000).bump }, metas(deriveLookupTableAddress(payer.address, 1000).address))]), watch, ixErr('InvalidInstructionData'));
    w.run(send([altIx({ type: 'createLookupTable', recentSlot: 990n, bumpSeed: a.bump }, metas(b.address))]), watch, ixErr('InvalidArgument'));
    w.run(send([altIx({ type: 'createLookupTable', recentSlot: 990n, bumpSeed: a.bump }, metas(a.address))]), watch);
    const entries = addresses(6);
    w.run(send([altIx({ type: 'extendLookupTable', newAddresses: entries.slice(0, 3) }, metas(a.address))]), watch);
    w.run(send([altIx({ type: 'extendLookupTable', newAddresses: entries.slice(3, 5) }, metas(a.address))]), watch);
    w.run(send([altIx({ type: 'extendLookupTable', newAddresses: [] }, metas(a.address))]), watch, ixErr('InvalidInstructionData'));

    w.warp(1001);
    w.run(send([altIx({ type: 'extendLookupTable', newAddresses: entries.slice(5) }, metas(a.address))]), watch);
    const transfer = (table: Address, index: number, lamports: number) => {
      const m: UnsignedMessage = {
        version: 0,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
        accountKeys: [payer.address, SYSTEM_PROGRAM_ID],
        recentBlockhash: w.blockhash(),
        instructions: [{ programIdIndex: 1, accounts: [0, 2], data: encodeSystemInstruction({ type: 'transfer', lamports: BigInt(lamports) }) }],
        addressTableLookups: [{ accountKey: table, writableIndexes: [index], readonlyIndexes: [] }],
      };
      return signMessage(m, [payer]);
    };
    // Appended in this slot: not usable yet; appended before: usable.
    w.run(transfer(a.address, 5, 1_000_000), [...watch, entries[5]!], JSON.stringify('InvalidAddressLookupTableIndex'));
    w.run(transfer(a.address, 2, 1_000_000), [...watch, entries[2]!]);
    w.run(transfer(a.address, 6, 1_000_000), watch, JSON.stringify('InvalidAddressLookupTableIndex'));
    w.run(transfer(payer.address, 0, 1_000_000), watch, JSON.stringify('InvalidAddressLookupTableOwner'));
    w.run(transfer(generateKeypair().address, 0, 1_000_000), watch, JSON.stringify('AddressLookupTableNotFound'));
    const stranger = generateKeypair();
    w.fund(stranger);
    const byStranger = buildTransaction(stranger, [altIx({ type: 'extendLookupTable', newAddresses: entries.slice(0, 1) }, [{ key: a.address, writable: true }, { key: stranger.address, signer: true }, { key: stranger.address, signer: true, writable: true }, { key: SYSTEM_PROGRAM_ID }])], w.blockhash());
    w.run(byStranger, watch, ixErr('IncorrectAuthority'));
    w.run(send([altIx({ type: 'freezeLookupTable' }, metas(a.address).slice(0, 2))]), watch);
    w.run(send([altIx({ type: 'extendLookupTable', newAddresses: entries.slice(0, 1) }, metas(a.address))]), watch, ixErr('Immutable'));
    w.run(send([altIx({ type: 'freezeLookupTable' }, metas(a.address).slice(0, 2))]), watch, ixErr('Immutable'));
    w.run(send([altIx({ type: 'deactivateLookupTable' }, metas(a.address).slice(0, 2))]), watch, ixErr('Immutable'));

    w.run(send([altIx({ type: 'createLookupTable', recentSlot: 991n, bumpSeed: b.bump }, metas(b.address)), altIx({ type: 'extendLookupTable', newAddresses: [...entries.slice(0, 2), payer.address] }, metas(b.address))]), watch);
    w.run(send([altIx({ type: 'deactivateLookupTable' }, metas(b.address).slice(0, 2))]), watch);
    w.run(send([altIx({ type: 'extendLookupTable', newAddresses: entries.slice(2, 3) }, metas(b.address))]), watch, ixErr('InvalidArgument'));
    w.run(send([altIx({ type: 'closeLookupTable' }, [...metas(b.address).slice(0, 2), { key: payer.address, writable: true }])]), watch, ixErr('InvalidArgument'));
    w.warp(1001 + 512);
    w.run(transfer(b.address, 0, 1_000_001), [...watch, entries[0]!]);
    w.run(transfer(b.address, 2, 1_000_001), watch, JSON.stringify('AccountLoadedTwice'));
    w.warp(1001 + 513);
    w.run(transfer(b.address, 0, 1_000_002), watch, JSON.stringify('AddressLookupTableNotFound'));
    w.run(send([altIx({ type: 'closeLookupTable' }, [...metas(b.address).slice(0, 2), { key: payer.address, writable: true }])]), watch);
    assert.equal(w.accounts.get(b.address), undefined);
  });
});
