/**
 * Cross-program invocation between builtins (runtime/invoke.ts), with test programs that call the
 * System program and each other: privileges, PDA signers, the caller/callee account rules, depth and
 * re-entry limits, logs, compute units, inner instructions and return data.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import bs58 from 'bs58';
import { createProgramAddress } from '../../node-core/common/pda.ts';
import { BPF_LOADER_2_ID, SYSTEM_PROGRAM_ID, type Address } from '../../node-core/common/pubkey.ts';
import { keypairFromSeed } from '../../node-core/keys/keypair.ts';
import { DEFAULT_RENT } from '../../node-core/ledger/genesis-config.ts';
import { newAccount, type Account } from '../../node-core/runtime/account.ts';
import { builtinProgramAccount, executeTransaction, type ExecutedTransaction } from '../../node-core/runtime/executor.ts';
import { INVOKE_UNITS } from '../../node-core/runtime/invoke.ts';
import type { CpiInstruction, InstructionContext, Program } from '../../node-core/runtime/program.ts';
import { builtinPrograms } from '../../node-core/runtime/programs/index.ts';
import type { Sysvars } from '../../node-core/runtime/sysvars.ts';
import { buildTransaction, transferIx, type InstructionSpec } from '../helpers/tx-builder.ts';

const BLOCKHASH = bs58.encode(new Uint8Array(32).fill(7));
const kp = (n: number) => keypairFromSeed(new Uint8Array(32).fill(n));
const payer = kp(1);
const A = kp(50).address;
const B = kp(51).address;
const SEED = new TextEncoder().encode('vault');
const bumpFor = (program: Address) => {
  for (let bump = 255; bump >= 0; bump--) if (createProgramAddress([SEED, Uint8Array.of(bump)], program)) return bump;
  throw new Error('no bump');
};

const sysvars: Sysvars = {
  clock: { slot: 1, epochStartTimestamp: 0, epoch: 0, leaderScheduleEpoch: 1, unixTimestamp: 0 },
  rent: DEFAULT_RENT,
  epochSchedule: { slotsPerEpoch: 432_000, leaderScheduleSlotOffset: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
  recentBlockhashes: [{ blockhash: BLOCKHASH, lamportsPerSignature: 5000 }],
  slotHashes: [],
  lamportsPerSignature: 5000,
};

/** Programs A and B run `behaviour(ctx)`; both emulate BPF programs (consumed lines, invoke cost). */
function run(ixs: InstructionSpec[], behaviour: Record<Address, (ctx: InstructionContext) => void>, accounts: Array<[Address, Account]> = []): ExecutedTransaction {
  const programs = new Map<Address, Program>(builtinPrograms);
  const state = new Map<Address, Account>([[payer.address, newAccount(10_000_000_000, 0, SYSTEM_PROGRAM_ID)], [SYSTEM_PROGRAM_ID, builtinProgramAccount('system_program')], ...accounts]);
  for (const [id, process] of Object.entries(behaviour)) {
    programs.set(id, { id, name: 'test', computeUnits: 0, logsConsumption: true, process: (ctx) => (ctx.consumeUnits(100), process(ctx)) });
    state.set(id, { lamports: 1, data: new Uint8Array(0), owner: BPF_LOADER_2_ID, executable: true, rentEpoch: 0 });
  }
  return executeTransaction(buildTransaction(payer, ixs, BLOCKHASH, []), {
    readAccount: (a) => state.get(a) ?? null,
    sysvars,
    programs,
    simulation: false,
    durableNonce: false,
  });
}

const systemTransfer = (from: Address, to: Address, lamports: number, fromSigner = true): CpiInstruction => {
  const spec = transferIx(from, to, lamports);
  return { programId: SYSTEM_PROGRAM_ID, accounts: [{ key: from, isSigner: fromSigner, isWritable: true }, { key: to, isSigner: false, isWritable: true }], data: spec.data as Uint8Array };
};

const accountsOf = (...metas: Array<[Address, boolean, boolean?]>) => metas.map(([key, writable, signer]) => ({ key, writable, signer: signer ?? false }));
const invoke = (ctx: InstructionContext, ix: CpiInstruction, seeds?: Uint8Array[][]) => ctx.invoke!(ix, seeds);
const to = kp(9).address;

describe('cross-program invocation', () => {
  test('a builtin invokes the System program: logs, units, inner instruction, balances', () => {
    const r = run([{ programId: A, accounts: accountsOf([payer.address, true, true], [to, true], [SYSTEM_PROGRAM_ID, false]) }], {
      [A]: (ctx) => invoke(ctx, systemTransfer(payer.address, to, 1_000_000)),
    });
    assert.equal(r.err, null);
    assert.deepEqual(r.logs, [
      `Program ${A} invoke [1]`,
      `Program ${SYSTEM_PROGRAM_ID} invoke [2]`,
      `Program ${SYSTEM_PROGRAM_ID} success`,
      `Program ${A} consumed ${100 + INVOKE_UNITS + 150} of 200000 compute units`,
      `Program ${A} success`,
    ]);
    assert.equal(r.computeUnitsConsumed, 100 + INVOKE_UNITS + 150);
    const keys = r.accountKeys;
    assert.deepEqual(r.innerInstructions, [
      { index: 0, instructions: [{ programIdIndex: keys.indexOf(SYSTEM_PROGRAM_ID), accounts: [keys.indexOf(payer.address), keys.indexOf(to)], data: systemTransfer(payer.address, to, 1_000_000).data, stackHeight: 2 }] },
    ]);
    assert.equal(r.postBalances[keys.indexOf(to)], 1_000_000);
  });

  test('privileges cannot grow: writable and signer escalation, with Agave\'s log lines', () => {
    const readOnlyTo = run([{ programId: A, accounts: accountsOf([payer.address, true, true], [to, false], [SYSTEM_PROGRAM_ID, false]) }], {
      [A]: (ctx) => invoke(ctx, systemTransfer(payer.address, to, 1)),
    });
    assert.deepEqual(readOnlyTo.err, { InstructionError: [0, 'PrivilegeEscalation'] });
    assert.ok(readOnlyTo.logs.includes(`${to}'s writable privilege escalated`));
    assert.deepEqual(readOnlyTo.innerInstructions, []);
    const unsigned = run([{ programId: A, accounts: accountsOf([payer.address, true, true], [B, true], [to, true], [SYSTEM_PROGRAM_ID, false]) }], {
      [A]: (ctx) => invoke(ctx, systemTransfer(B, to, 1)),
    });
    assert.deepEqual(unsigned.err, { InstructionError: [0, 'PrivilegeEscalation'] });
    assert.ok(unsigned.logs.includes(`${B}'s signer privilege escalated`));
  });

  test('a PDA of the caller signs with its seeds; wrong seeds do not', () => {
    const bump = bumpFor(A);
    const vault = createProgramAddress([SEED, Uint8Array.of(bump)], A)!;
    const funded: Array<[Address, Account]> = [[vault, newAccount(5_000_000, 0, SYSTEM_PROGRAM_ID)]];
    const ix = [{ programId: A, accounts: accountsOf([vault, true], [to, true], [SYSTEM_PROGRAM_ID, false]) }];
    const ok = run(ix, { [A]: (ctx) => invoke(ctx, systemTransfer(vault, to, 1_000_000), [[SEED, Uint8Array.of(bump)]]) }, funded);
    assert.equal(ok.err, null, ok.logs.join('\n'));
    assert.equal(ok.postBalances[ok.accountKeys.indexOf(vault)], 4_000_000);
    const wrong = run(ix, { [A]: (ctx) => invoke(ctx, systemTransfer(vault, to, 1_000_000), [[SEED, Uint8Array.of(bump === 255 ? 254 : 255)]]) }, funded);
    assert.ok(wrong.err !== null);
    // Seeds of another program do not sign for this one's address.
    const other = run(ix, { [A]: (ctx) => invoke(ctx, systemTransfer(vault, to, 1_000_000)) }, funded);
    assert.deepEqual(other.err, { InstructionError: [0, 'PrivilegeEscalation'] });
  });

  test('accounts and programs must be passed to the caller', () => {
    const unknown = run([{ programId: A, accounts: accountsOf([payer.address, true, true], [SYSTEM_PROGRAM_ID, false]) }], {
      [A]: (ctx) => invoke(ctx, systemTransfer(payer.address, to, 1)),
    });
    assert.deepEqual(unknown.err, { InstructionError: [0, 'MissingAccount'] });
    assert.ok(unknown.logs.includes(`Instruction references an unknown account ${to}`));
    const noProgram = run([{ programId: A, accounts: accountsOf([payer.address, true, true], [to, true]) }], {
      [A]: (ctx) => invoke(ctx, systemTransfer(payer.address, to, 1)),
    });
    assert.deepEqual(noProgram.err, { InstructionError: [0, 'MissingAccount'] });
    assert.ok(noProgram.logs.includes(`Unknown program ${SYSTEM_PROGRAM_ID}`));
  });

  test('a callee\'s failure fails the caller with the same error, both logged', () => {
    const r = run([{ programId: A, accounts: accountsOf([payer.address, true, true], [to, true], [SYSTEM_PROGRAM_ID, false]) }], {
      [A]: (ctx) => invoke(ctx, systemTransfer(payer.address, to, 100_000_000_000)),
    });
    assert.deepEqual(r.err, { InstructionError: [0, { Custom: 1 }] });
    assert.deepEqual(r.logs.slice(-3), [
      `Program ${SYSTEM_PROGRAM_ID} failed: custom program error: 0x1`,
      `Program ${A} consumed ${100 + INVOKE_UNITS + 150} of 200000 compute units`,
      `Program ${A} failed: custom program error: 0x1`,
    ]);
    // The failed call is still recorded.
    assert.equal(r.innerInstructions[0]!.instructions.length, 1);
  });

  test('the caller\'s own changes answer to its ownership at the call', () => {
    const foreign: Array<[Address, Account]> = [[B, { ...newAccount(1_000_000, 4, SYSTEM_PROGRAM_ID) }]];
    const r = run([{ programId: A, accounts: accountsOf([payer.address, true, true], [B, true], [to, true], [SYSTEM_PROGRAM_ID, false]) }], {
      [A]: (ctx) => {
        ctx.accounts[1]!.account.data[0] = 1; // B belongs to the System program, not to A
        invoke(ctx, systemTransfer(payer.address, to, 1));
      },
    }, foreign);
    assert.deepEqual(r.err, { InstructionError: [0, 'ExternalAccountDataModified'] });
    assert.deepEqual(r.innerInstructions, []);
  });

  test('depth is limited to 5 and a program may not re-enter through another', () => {
    let depth = 0;
    const selfAccounts = accountsOf([A, false]);
    const deep = run([{ programId: A, accounts: selfAccounts }], {
      [A]: (ctx) => {
        depth = Math.max(depth, ctx.stackHeight!);
        invoke(ctx, { programId: A, accounts: [{ key: A, isSigner: false, isWritable: false }], data: new Uint8Array(0) });
      },
    });
    assert.deepEqual(deep.err, { InstructionError: [0, 'CallDepth'] });
    assert.equal(depth, 5);
    assert.deepEqual(deep.innerInstructions[0]!.instructions.map((i) => i.stackHeight), [2, 3, 4, 5]);
    const reentry = run([{ programId: A, accounts: accountsOf([A, false], [B, false]) }], {
      [A]: (ctx) => {
        if (ctx.stackHeight === 1) invoke(ctx, { programId: B, accounts: [{ key: A, isSigner: false, isWritable: false }], data: new Uint8Array(0) });
      },
      [B]: (ctx) => invoke(ctx, { programId: A, accounts: [], data: new Uint8Array(0) }),
    });
    assert.deepEqual(reentry.err, { InstructionError: [0, 'ReentrancyNotAllowed'] });
  });

  test('return data: set by the callee, read by the caller, logged and kept in the result', () => {
    let seen: string | null = null;
    const r = run([{ programId: A, accounts: accountsOf([B, false]) }], {
      [A]: (ctx) => {
        invoke(ctx, { programId: B, accounts: [], data: new Uint8Array(0) });
        const ret = ctx.getReturnData!();
        seen = `${ret!.programId}:${Buffer.from(ret!.data).toString()}`;
        ctx.setReturnData!(new TextEncoder().encode('done'));
      },
      [B]: (ctx) => ctx.setReturnData!(new TextEncoder().encode('hello')),
    });
    assert.equal(r.err, null);
    assert.equal(seen, `${B}:hello`);
    assert.ok(r.logs.includes(`Program return: ${B} ${Buffer.from('hello').toString('base64')}`));
    assert.ok(r.logs.includes(`Program return: ${A} ${Buffer.from('done').toString('base64')}`));
    assert.deepEqual(r.returnData, { programId: A, data: new TextEncoder().encode('done') });
    const tooLong = run([{ programId: A }], { [A]: (ctx) => ctx.setReturnData!(new Uint8Array(1025)) });
    assert.deepEqual(tooLong.err, { InstructionError: [0, 'InvalidArgument'] });
  });
});
