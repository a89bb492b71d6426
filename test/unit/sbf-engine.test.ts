/**
 * The executor's sBPF engine path over accounts in a map: real compiled programs (test/fixtures/sbf)
 * deployed as the BPF Upgradeable Loader lays them out, run with the node's fee, sysvars and account
 * rules, and compared with what LiteSVM reports for each (the fixtures' README).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SYSTEM_PROGRAM_ID, type Address } from '../../node-core/common/pubkey.ts';
import { DEFAULT_RENT } from '../../node-core/ledger/genesis-config.ts';
import { generateKeypair, type Keypair } from '../../node-core/keys/keypair.ts';
import { minimumBalanceForRentExemption, type Account } from '../../node-core/runtime/account.ts';
import { builtinProgramAccount } from '../../node-core/runtime/executor.ts';
import { buildTransaction } from '../helpers/tx-builder.ts';
import { encodeComputeBudgetInstruction } from '../../node-core/runtime/programs/compute-budget.ts';
import { COMPUTE_BUDGET_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { BPF_LOADER_UPGRADEABLE_ID, encodeUpgradeableState, programDataAddress, programDataBytes } from '../../node-core/runtime/programs/bpf-loader/upgradeable-state.ts';
import { SYSVAR_CLOCK_ID, type Sysvars } from '../../node-core/runtime/sysvars.ts';
import { executeOnMap } from '../helpers/map-executor.ts';
import { findProgramAddress } from '../../node-core/common/pda.ts';
import { addressToBytes, BPF_LOADER_2_ID } from '../../node-core/common/pubkey.ts';
import { MINT_LEN, NATIVE_MINT, TOKEN_PROGRAM_ID, nativeMintData } from '../../node-core/runtime/programs/token/state.ts';

const FIXTURES = new URL('../fixtures/sbf/', import.meta.url);
const elf = (name: string) => new Uint8Array(readFileSync(new URL(name, FIXTURES)));
const BLOCKHASH = '11111111111111111111111111111111';

function sysvarsAt(slot: number, lamportsPerSignature = 5000): Sysvars {
  return {
    clock: { slot, epochStartTimestamp: 1_767_225_000, epoch: 0, leaderScheduleEpoch: 1, unixTimestamp: 1_767_225_600 },
    rent: DEFAULT_RENT,
    epochSchedule: { slotsPerEpoch: 432_000, leaderScheduleSlotOffset: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
    recentBlockhashes: [{ blockhash: BLOCKHASH, lamportsPerSignature }],
    slotHashes: [],
    lamportsPerSignature,
  };
}

class World {
  readonly accounts = new Map<Address, Account>();
  readonly payer: Keypair = generateKeypair();
  constructor() {
    this.accounts.set(SYSTEM_PROGRAM_ID, builtinProgramAccount('system_program'));
    this.accounts.set(COMPUTE_BUDGET_PROGRAM_ID, builtinProgramAccount('compute_budget_program'));
    this.accounts.set(this.payer.address, { lamports: 10_000_000_000, data: new Uint8Array(0), owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: 0 });
  }
  /** Puts `bytes` as an upgradeable program deployed at `slot`; returns its address. */
  deploy(bytes: Uint8Array, slot: number, id: Address = generateKeypair().address): Address {
    const pd = programDataAddress(id);
    const pdData = programDataBytes(slot, this.payer.address, bytes);
    this.accounts.set(pd, { lamports: minimumBalanceForRentExemption(DEFAULT_RENT, pdData.length), data: pdData, owner: BPF_LOADER_UPGRADEABLE_ID, executable: false, rentEpoch: 0 });
    this.accounts.set(id, { lamports: minimumBalanceForRentExemption(DEFAULT_RENT, 36), data: encodeUpgradeableState({ kind: 'program', programData: pd }), owner: BPF_LOADER_UPGRADEABLE_ID, executable: true, rentEpoch: 0 });
    return id;
  }
  /** simple_transfer_program (deployed at `program`) paying `lamports` from the payer to `recipient`, at slot 10. */
  payThrough(program: Address, recipient: Address, lamports: bigint) {
    const amount = new Uint8Array(8);
    new DataView(amount.buffer).setBigUint64(0, lamports, false);
    return this.run(sysvarsAt(10), [
      { programId: program, accounts: [{ key: this.payer.address, signer: true, writable: true }, { key: recipient, writable: true }, { key: SYSTEM_PROGRAM_ID }], data: amount },
    ]);
  }
  run(sysvars: Sysvars, instructions: Parameters<typeof buildTransaction>[1]) {
    return executeOnMap(buildTransaction(this.payer, instructions, BLOCKHASH), this.accounts, sysvars);
  }
  balance(a: Address): number {
    return this.accounts.get(a)?.lamports ?? 0;
  }
}

describe('sBPF engine in the executor', () => {
  it('runs a deployed program with Agave\'s logs and compute units, charging exactly the node\'s fee (not the engine\'s)', () => {
    const w = new World();
    const noop = w.deploy(elf('noop.so'), 0);
    // 7,000 lamports per signature here, 5,000 in the engine, plus a priority fee both charge.
    const sysvars = sysvarsAt(10, 7000);
    const before = w.balance(w.payer.address);
    const r = w.run(sysvars, [
      { programId: COMPUTE_BUDGET_PROGRAM_ID, data: encodeComputeBudgetInstruction({ type: 'setComputeUnitPrice', microLamports: 1_000_000n }) },
      { programId: noop, accounts: [], data: [] },
    ]);
    assert.equal(r.err, null);
    // Priority fee: the limit (200,000 for the program + 3,000 for Compute Budget) at 1 lamport per unit.
    assert.equal(r.fee, 7000 + 203_000);
    assert.equal(w.balance(w.payer.address), before - r.fee);
    assert.deepEqual(r.logs, [
      `Program ${COMPUTE_BUDGET_PROGRAM_ID} invoke [1]`,
      `Program ${COMPUTE_BUDGET_PROGRAM_ID} success`,
      `Program ${noop} invoke [1]`,
      `Program ${noop} consumed 5 of 202850 compute units`,
      `Program ${noop} success`,
    ]);
    assert.equal(r.computeUnitsConsumed, 155);
    assert.deepEqual(r.preBalances.slice(0, 1), [before]);
    assert.deepEqual(r.postBalances.slice(0, 1), [before - r.fee]);
  });

  it('returns the bank\'s Clock through return data', () => {
    const w = new World();
    const clock = w.deploy(elf('clock_sysvar_program.so'), 0);
    const r = w.run(sysvarsAt(10), [{ programId: clock, data: [] }]);
    assert.equal(r.err, null);
    const expected = new Uint8Array(8);
    new DataView(expected.buffer).setBigInt64(0, 1_767_225_600n, false);
    assert.deepEqual(r.returnData, { programId: clock, data: expected });
    assert.ok(r.logs.includes(`Program return: ${clock} ${Buffer.from(expected).toString('base64')}`));
    assert.equal(r.computeUnitsConsumed, 419);
  });

  it('records a CPI into System as an inner instruction and moves the lamports', () => {
    const w = new World();
    const transfer = w.deploy(elf('simple_transfer_program.so'), 0);
    const recipient = generateKeypair().address;
    const r = w.payThrough(transfer, recipient, 1_000_000n);
    assert.equal(r.err, null);
    assert.equal(w.balance(recipient), 1_000_000);
    assert.equal(r.computeUnitsConsumed, 2361);
    assert.equal(r.innerInstructions.length, 1);
    const inner = r.innerInstructions[0]!;
    assert.equal(inner.index, 0);
    assert.equal(inner.instructions[0]!.stackHeight, 2);
    assert.equal(r.accountKeys[inner.instructions[0]!.programIdIndex], SYSTEM_PROGRAM_ID);
    assert.ok(r.logs.includes(`Program ${SYSTEM_PROGRAM_ID} invoke [2]`));
  });

  it('an account the engine already holds is copied in again once the bank holds another object for it: a recipient paid twice has both payments', () => {
    const w = new World();
    const transfer = w.deploy(elf('simple_transfer_program.so'), 0);
    const recipient = generateKeypair().address;
    assert.equal(w.payThrough(transfer, recipient, 1_000_000n).err, null);
    assert.equal(w.balance(recipient), 1_000_000);
    assert.equal(w.payThrough(transfer, recipient, 1_000_000n).err, null);
    assert.equal(w.balance(recipient), 2_000_000);
  });

  it('a failing program: its Custom error, the fee charged and nothing else changed', () => {
    const w = new World();
    const up = w.deploy(elf('solana_bpf_rust_upgradeable.so'), 0);
    const before = w.balance(w.payer.address);
    const r = w.run(sysvarsAt(10), [{ programId: up, accounts: [{ key: SYSVAR_CLOCK_ID }], data: [] }]);
    assert.deepEqual(r.err, { InstructionError: [0, { Custom: 42 }] });
    assert.ok(r.logs.includes('Program log: Upgradeable program'));
    assert.equal(r.logs.at(-1), `Program ${up} failed: custom program error: 0x2a`);
    assert.equal(r.computeUnitsConsumed, 715);
    assert.deepEqual(r.writes.map(([k]) => k), [w.payer.address]);
    assert.equal(w.balance(w.payer.address), before - 5000);
  });

  it('compute exhaustion inside BPF code is ProgramFailedToComplete', () => {
    const w = new World();
    const hello = w.deploy(elf('hello_solana_program.so'), 0);
    const r = w.run(sysvarsAt(10), [
      { programId: COMPUTE_BUDGET_PROGRAM_ID, data: encodeComputeBudgetInstruction({ type: 'setComputeUnitLimit', units: 5000 }) },
      { programId: hello, data: [] },
    ]);
    assert.deepEqual(r.err, { InstructionError: [1, 'ProgramFailedToComplete'] });
    assert.ok(r.logs.includes(`Program ${hello} consumed 4850 of 4850 compute units`));
    assert.ok(r.logs.includes(`Program ${hello} failed: exceeded CUs meter at BPF instruction`));
    assert.equal(r.computeUnitsConsumed, 5000);
  });

  it('a heap frame request: a valid size runs the program, an invalid one keeps the transaction out as Agave does', () => {
    const w = new World();
    const hello = w.deploy(elf('hello_solana_program.so'), 0);
    const ok = w.run(sysvarsAt(10), [
      { programId: COMPUTE_BUDGET_PROGRAM_ID, data: encodeComputeBudgetInstruction({ type: 'requestHeapFrame', bytes: 256 * 1024 }) },
      { programId: hello, data: [] },
    ]);
    assert.equal(ok.err, null);
    assert.ok(ok.logs.includes('Program log: Hello, Solana!'));
    const before = w.balance(w.payer.address);
    // Not a multiple of 1 KiB: Agave refuses the transaction before executing it (no fee).
    assert.throws(
      () => w.run(sysvarsAt(10), [{ programId: COMPUTE_BUDGET_PROGRAM_ID, data: encodeComputeBudgetInstruction({ type: 'requestHeapFrame', bytes: 40_000 }) }, { programId: hello, data: [] }]),
      (e: { value?: unknown }) => JSON.stringify(e.value) === JSON.stringify({ InstructionError: [0, 'InvalidInstructionData'] }),
    );
    assert.equal(w.balance(w.payer.address), before);
  });

  it('keeps Agave\'s one-slot delay: a program deployed in the bank\'s slot is not deployed until the next', () => {
    const w = new World();
    const noop = w.deploy(elf('noop.so'), 10);
    const early = w.run(sysvarsAt(10), [{ programId: noop, data: [] }]);
    assert.deepEqual(early.err, { InstructionError: [0, 'UnsupportedProgramId'] });
    assert.deepEqual(early.logs, [`Program ${noop} invoke [1]`, 'Program is not deployed', `Program ${noop} failed: Unsupported program id`]);
    const next = w.run(sysvarsAt(11), [{ programId: noop, data: [] }]);
    assert.equal(next.err, null);
  });

  it('a bank of the deployment slot finds the program not deployed even after a later bank ran it (the very same accounts)', () => {
    const w = new World();
    const noop = w.deploy(elf('noop.so'), 10);
    assert.equal(w.run(sysvarsAt(11), [{ programId: noop, data: [] }]).err, null);
    const early = w.run(sysvarsAt(10), [{ programId: noop, data: [] }]);
    assert.deepEqual(early.err, { InstructionError: [0, 'UnsupportedProgramId'] });
    assert.equal(w.run(sysvarsAt(12), [{ programId: noop, data: [] }]).err, null);
  });

  it('a program whose programdata is gone (closed) is not deployed', () => {
    const w = new World();
    const noop = w.deploy(elf('noop.so'), 0);
    assert.equal(w.run(sysvarsAt(10), [{ programId: noop, data: [] }]).err, null);
    w.accounts.delete(programDataAddress(noop));
    const r = w.run(sysvarsAt(11), [{ programId: noop, data: [] }]);
    assert.deepEqual(r.err, { InstructionError: [0, 'UnsupportedProgramId'] });
    assert.ok(r.logs.includes('Program is not deployed'));
  });

  it('banks with different bytes for one program each run their own code (the engine recompiles by content)', () => {
    const id = generateKeypair().address;
    const older = new World();
    const newer = new World();
    older.deploy(elf('solana_bpf_rust_upgradeable.so'), 0, id);
    newer.deploy(elf('solana_bpf_rust_upgraded.so'), 5, id);
    for (let i = 0; i < 2; i++) {
      const a = older.run(sysvarsAt(10 + i), [{ programId: id, accounts: [{ key: SYSVAR_CLOCK_ID }], data: [] }]);
      const b = newer.run(sysvarsAt(10 + i), [{ programId: id, accounts: [{ key: SYSVAR_CLOCK_ID }], data: [] }]);
      assert.deepEqual(a.err, { InstructionError: [0, { Custom: 42 }] });
      assert.deepEqual(b.err, { InstructionError: [0, { Custom: 43 }] });
    }
  });

  it('the ATA program deployed at another address CPIs into System with a PDA signer and into Token (the real SPL Token 3.5.0 inside the engine)', () => {
    const w = new World();
    w.accounts.set(TOKEN_PROGRAM_ID, { lamports: 1, data: new Uint8Array(0), owner: BPF_LOADER_2_ID, executable: true, rentEpoch: 0 });
    w.accounts.set(NATIVE_MINT, { lamports: minimumBalanceForRentExemption(DEFAULT_RENT, MINT_LEN), data: nativeMintData(), owner: TOKEN_PROGRAM_ID, executable: false, rentEpoch: 0 });
    const ata = w.deploy(elf('spl_associated_token_account-1.1.1.so'), 0);
    const wallet = generateKeypair().address;
    const associated = findProgramAddress([addressToBytes(wallet), addressToBytes(TOKEN_PROGRAM_ID), addressToBytes(NATIVE_MINT)], ata).address;
    const r = w.run(sysvarsAt(10), [
      {
        programId: ata,
        accounts: [
          { key: w.payer.address, signer: true, writable: true },
          { key: associated, writable: true },
          { key: wallet },
          { key: NATIVE_MINT },
          { key: SYSTEM_PROGRAM_ID },
          { key: TOKEN_PROGRAM_ID },
        ],
        data: [],
      },
    ]);
    assert.equal(r.err, null, r.logs.join('\n'));
    const created = w.accounts.get(associated)!;
    assert.equal(created.owner, TOKEN_PROGRAM_ID);
    assert.equal(created.data.length, 165);
    assert.deepEqual(created.data.subarray(0, 32), addressToBytes(NATIVE_MINT));
    assert.deepEqual(created.data.subarray(32, 64), addressToBytes(wallet));
    assert.ok(r.logs.includes('Program log: Create'));
    // SPL Token 3.5.0's own log lines, not LiteSVM's pinocchio build (which logs none).
    assert.ok(r.logs.includes('Program log: Instruction: InitializeAccount3'));
    const inner = r.innerInstructions[0]!.instructions;
    assert.ok(inner.some((ix) => r.accountKeys[ix.programIdIndex] === SYSTEM_PROGRAM_ID && ix.stackHeight === 2));
    assert.ok(inner.some((ix) => r.accountKeys[ix.programIdIndex] === TOKEN_PROGRAM_ID && ix.stackHeight === 2));
    assert.equal(r.returnData, null);
  });
});
