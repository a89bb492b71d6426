import { refused as thrown } from '../helpers/refused.ts';
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import bs58 from 'bs58';
import {
  BPF_LOADER_2_ID,
  COMPUTE_BUDGET_PROGRAM_ID,
  INCINERATOR_ID,
  SYSTEM_PROGRAM_ID,
  type Address,
} from '../../node-core/common/pubkey.ts';
import { keypairFromSeed, type Keypair } from '../../node-core/keys/keypair.ts';
import { DEFAULT_RENT } from '../../node-core/ledger/genesis-config.ts';
import { markRentExempt, minimumBalanceForRentExemption, newAccount, RENT_EXEMPT_RENT_EPOCH, type Account } from '../../node-core/runtime/account.ts';
import { InstructionError } from '../../node-core/runtime/errors.ts';
import { builtinProgramAccount, executeTransaction, type ExecutedTransaction, type ExecutionEnv } from '../../node-core/runtime/executor.ts';
import type { InstructionContext, Program, TransactionExtension } from '../../node-core/runtime/program.ts';
import { builtinPrograms } from '../../node-core/runtime/programs/index.ts';
import { decodeNonceState, durableNonceFromBlockhash, nonceAccountData, NONCE_ACCOUNT_LENGTH } from '../../node-core/runtime/programs/nonce-account.ts';
import { renderSysvar, SYSVAR_CLOCK_ID, SYSVAR_IDS, SYSVAR_RECENT_BLOCKHASHES_ID, type Sysvars } from '../../node-core/runtime/sysvars.ts';
import { addressToBytes } from '../../node-core/common/pubkey.ts';
import { parseTransaction, serializeMessage, serializeTransaction, type Transaction } from '../../node-core/runtime/wire.ts';
import {
  buildTransaction,
  compileMessage,
  setComputeUnitLimitIx,
  setComputeUnitPriceIx,
  signMessage,
  transferIx,
  type InstructionSpec,
} from '../helpers/tx-builder.ts';

const FEE = 5000;
const RENT_EXEMPT_0 = minimumBalanceForRentExemption(DEFAULT_RENT, 0); // 890,880
const BLOCKHASH = bs58.encode(new Uint8Array(32).fill(1));
const OLD_BLOCKHASH = bs58.encode(new Uint8Array(32).fill(2));

const kp = (n: number): Keypair => keypairFromSeed(new Uint8Array(32).fill(n));
const addr = (n: number): Address => kp(n).address;

const payer = kp(1);
const P = addr(100); // the fake program under test
const Q = addr(101); // another program that owns accounts

function sysvars(): Sysvars {
  return {
    clock: { slot: 10, epochStartTimestamp: 0, epoch: 0, leaderScheduleEpoch: 1, unixTimestamp: 1_700_000_000 },
    rent: DEFAULT_RENT,
    epochSchedule: { slotsPerEpoch: 432_000, leaderScheduleSlotOffset: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
    recentBlockhashes: [
      { blockhash: BLOCKHASH, lamportsPerSignature: FEE },
      { blockhash: OLD_BLOCKHASH, lamportsPerSignature: FEE },
    ],
    slotHashes: [],
    lamportsPerSignature: FEE,
  };
}

/** A bank stand-in: accounts by address, the builtin programs plus test programs. */
class World {
  readonly accounts = new Map<Address, Account>();
  readonly programs = new Map<Address, Program>(builtinPrograms);
  readonly sysvars = sysvars();
  constructor() {
    this.accounts.set(payer.address, newAccount(10 * RENT_EXEMPT_0, 0, SYSTEM_PROGRAM_ID));
    this.accounts.set(SYSTEM_PROGRAM_ID, builtinProgramAccount('system_program'));
    this.accounts.set(COMPUTE_BUDGET_PROGRAM_ID, builtinProgramAccount('compute_budget_program'));
  }
  set(address: Address, account: Account): this {
    this.accounts.set(address, account);
    return this;
  }
  program(id: Address, process: (ctx: InstructionContext) => void, computeUnits = 100): this {
    this.programs.set(id, { id, name: 'test', computeUnits, process });
    this.accounts.set(id, { lamports: 1, data: new Uint8Array(0), owner: BPF_LOADER_2_ID, executable: true, rentEpoch: 0 });
    return this;
  }
  env(over: Partial<ExecutionEnv> = {}): ExecutionEnv {
    return {
      readAccount: (a) => this.accounts.get(a) ?? (SYSVAR_IDS.has(a) ? renderSysvar(a, this.sysvars) : null),
      sysvars: this.sysvars,
      programs: this.programs,
      simulation: false,
      durableNonce: false,
      ...over,
    };
  }
  /** Runs `tx`, checking that the executor changed none of the bank's own account objects. */
  run(tx: Transaction, over: Partial<ExecutionEnv> = {}): ExecutedTransaction {
    const before = structuredClone([...this.accounts]);
    try {
      return executeTransaction(tx, this.env(over));
    } finally {
      assert.deepEqual([...this.accounts], before, 'the bank’s accounts must not be mutated by execution');
    }
  }
}

const tx = (ixs: InstructionSpec[], signers: Keypair[] = [], feePayer: Keypair = payer, blockhash = BLOCKHASH) => buildTransaction(feePayer, ixs, blockhash, signers);
const ix = (programId: Address, accounts: Array<[Address, boolean]> = [], data: number[] = []): InstructionSpec => ({
  programId,
  accounts: accounts.map(([key, writable]) => ({ key, writable })),
  data,
});
const owned = (lamports: number, owner: Address, data: number[] | Uint8Array = []): Account => ({
  lamports,
  data: Uint8Array.from(data),
  owner,
  executable: false,
  rentEpoch: 0,
});


const failedLogs = (programId: Address, message: string) => [`Program ${programId} invoke [1]`, `Program ${programId} failed: ${message}`];

/** The result of a failed transaction: fee charged to the payer, nothing else written. */
function assertOnlyFeeCharged(world: World, r: ExecutedTransaction, feePayer = payer.address): void {
  const before = world.accounts.get(feePayer)!;
  assert.equal(r.writes.length, 1, `writes: ${r.writes.map(([k]) => k).join(', ')}`);
  assert.equal(r.writes[0]![0], feePayer);
  // A written account that is rent-exempt carries Agave's u64::MAX rent epoch.
  assert.deepEqual(r.writes[0]![1], { ...markRentExempt({ ...before }, DEFAULT_RENT), lamports: before.lamports - r.fee });
  assert.deepEqual(r.postBalances, r.preBalances.map((b, i) => (i === 0 ? b - r.fee : b)));
}

describe('successful execution', () => {
  test('a system transfer: logs, fee, balances, writes', () => {
    const world = new World();
    const to = addr(2);
    const r = world.run(tx([transferIx(payer.address, to, RENT_EXEMPT_0)]));
    assert.equal(r.err, null);
    assert.equal(r.fee, FEE);
    assert.deepEqual(r.logs, [`Program ${SYSTEM_PROGRAM_ID} invoke [1]`, `Program ${SYSTEM_PROGRAM_ID} success`]);
    assert.deepEqual(r.accountKeys, [payer.address, to, SYSTEM_PROGRAM_ID]);
    assert.deepEqual(r.preBalances, [10 * RENT_EXEMPT_0, 0, 1]);
    assert.deepEqual(r.postBalances, [9 * RENT_EXEMPT_0 - FEE, RENT_EXEMPT_0, 1]);
    assert.equal(r.computeUnitsConsumed, 150);
    // Both rent-exempt: the payer as loaded, the new account from its creation (Agave's u64::MAX).
    const exempt = (a: Account) => ({ ...a, rentEpoch: RENT_EXEMPT_RENT_EPOCH });
    assert.deepEqual(new Map(r.writes), new Map([[payer.address, exempt(newAccount(9 * RENT_EXEMPT_0 - FEE, 0, SYSTEM_PROGRAM_ID))], [to, exempt(newAccount(RENT_EXEMPT_0, 0, SYSTEM_PROGRAM_ID))]]));
  });

  test('a fee per signature plus the priority fee', () => {
    const world = new World().program(P, () => {});
    const cosigner = kp(3);
    world.set(cosigner.address, newAccount(RENT_EXEMPT_0, 0, SYSTEM_PROGRAM_ID));
    const r = world.run(tx([setComputeUnitPriceIx(1_000_000), setComputeUnitLimitIx(1000), { programId: P, accounts: [{ key: cosigner.address, signer: true }] }], [cosigner]));
    assert.equal(r.err, null);
    assert.equal(r.fee, 2 * FEE + 1000);
    assert.equal(r.computeUnitsConsumed, 150 + 150 + 100);
  });
});

describe('per-instruction account rules', () => {
  const A = addr(10); // system-owned
  const B = addr(11); // owned by P
  const R = addr(12); // owned by P, passed read-only
  const W = addr(13); // owned by Q
  const E = addr(14); // executable, owned by P

  function world(process: (ctx: InstructionContext) => void): World {
    return new World()
      .program(P, process)
      .set(A, owned(RENT_EXEMPT_0 * 2, SYSTEM_PROGRAM_ID))
      .set(B, owned(RENT_EXEMPT_0 * 2, P, [1, 2, 3, 4]))
      .set(R, owned(RENT_EXEMPT_0 * 2, P, [5, 6, 7, 8]))
      .set(W, owned(RENT_EXEMPT_0 * 2, Q, [9, 9, 9, 9]))
      .set(E, { ...owned(RENT_EXEMPT_0 * 2, P, [1]), executable: true });
  }
  const acct = (ctx: InstructionContext, key: Address) => ctx.accounts.find((a) => a.key === key)!.account;

  function expectInstructionError(process: (ctx: InstructionContext) => void, accounts: Array<[Address, boolean]>, error: string, message: string) {
    const w = world(process);
    const r = w.run(tx([ix(P, accounts)]));
    assert.deepEqual(r.err, { InstructionError: [0, error] });
    assert.deepEqual(r.logs, failedLogs(P, message));
    assertOnlyFeeCharged(w, r);
  }

  test('debiting an account the program does not own: ExternalAccountLamportSpend', () => {
    expectInstructionError(
      (ctx) => {
        acct(ctx, A).lamports -= 10;
        acct(ctx, B).lamports += 10;
      },
      [[A, true], [B, true]],
      'ExternalAccountLamportSpend',
      'instruction spent from the balance of an account it does not own',
    );
  });

  test('crediting a read-only account: ReadonlyLamportChange', () => {
    expectInstructionError(
      (ctx) => {
        acct(ctx, B).lamports -= 10;
        acct(ctx, R).lamports += 10;
      },
      [[B, true], [R, false]],
      'ReadonlyLamportChange',
      'instruction changed the balance of a read-only account',
    );
  });

  test('writing a read-only account’s data in place: ReadonlyDataModified', () => {
    expectInstructionError((ctx) => void (acct(ctx, R).data[0] = 42), [[R, false]], 'ReadonlyDataModified', 'instruction modified data of a read-only account');
  });

  test('replacing a read-only account’s data: ReadonlyDataModified', () => {
    expectInstructionError((ctx) => void (acct(ctx, R).data = Uint8Array.of(0, 0, 0, 0)), [[R, false]], 'ReadonlyDataModified', 'instruction modified data of a read-only account');
  });

  test('resizing a read-only account the program owns: ReadonlyDataModified', () => {
    expectInstructionError((ctx) => void (acct(ctx, R).data = new Uint8Array(5)), [[R, false]], 'ReadonlyDataModified', 'instruction modified data of a read-only account');
  });

  test('a second instruction answers for changes from the state the first left, not the loaded one', () => {
    // P (B's owner) changes B's data; then Q, which does not own B, puts the loaded bytes back: a change Q made.
    const w = world((ctx) => void (acct(ctx, B).data[0] = 7)).program(Q, (ctx) => acct(ctx, B).data.set([1, 2, 3, 4]));
    const r = w.run(tx([ix(P, [[B, true]]), ix(Q, [[B, true]])]));
    assert.deepEqual(r.err, { InstructionError: [1, 'ExternalAccountDataModified'] });
    assertOnlyFeeCharged(w, r);
    // Without Q, P's change is kept.
    const kept = world((ctx) => void (acct(ctx, B).data[0] = 7)).run(tx([ix(P, [[B, true]])]));
    assert.equal(kept.err, null);
    assert.deepEqual([...new Map(kept.writes).get(B)!.data], [7, 2, 3, 4]);
  });

  test('writing another owner’s data: ExternalAccountDataModified', () => {
    expectInstructionError((ctx) => void (acct(ctx, W).data[3] = 0), [[W, true]], 'ExternalAccountDataModified', 'instruction modified data of an account it does not own');
  });

  test('read-only and not owned: ReadonlyDataModified', () => {
    expectInstructionError((ctx) => void (acct(ctx, W).data[3] = 0), [[W, false]], 'ReadonlyDataModified', 'instruction modified data of a read-only account');
  });

  test('resizing another owner’s data: AccountDataSizeChanged', () => {
    expectInstructionError(
      (ctx) => void (acct(ctx, W).data = new Uint8Array(8)),
      [[W, true]],
      'AccountDataSizeChanged',
      'program other than the account\'s owner changed the size of the account data',
    );
  });

  test('lamports created or destroyed: UnbalancedInstruction', () => {
    expectInstructionError((ctx) => void (acct(ctx, B).lamports += 1), [[B, true]], 'UnbalancedInstruction', 'sum of account balances before and after instruction do not match');
    expectInstructionError((ctx) => void (acct(ctx, B).lamports -= 1), [[B, true]], 'UnbalancedInstruction', 'sum of account balances before and after instruction do not match');
  });

  test('changing the owner of an account with non-zero data: ModifiedProgramId', () => {
    expectInstructionError((ctx) => void (acct(ctx, B).owner = Q), [[B, true]], 'ModifiedProgramId', 'instruction illegally modified the program id of an account');
    expectInstructionError((ctx) => void (acct(ctx, A).owner = Q), [[A, true]], 'ModifiedProgramId', 'instruction illegally modified the program id of an account');
  });

  test('the owner may hand over an account whose data it zeroed', () => {
    const w = world((ctx) => {
      const b = acct(ctx, B);
      b.data.fill(0);
      b.owner = Q;
    });
    const r = w.run(tx([ix(P, [[B, true]])]));
    assert.equal(r.err, null);
    assert.deepEqual(new Map(r.writes).get(B), { ...owned(RENT_EXEMPT_0 * 2, Q, [0, 0, 0, 0]), rentEpoch: RENT_EXEMPT_RENT_EPOCH });
  });

  test('the owner may resize and rewrite a writable account', () => {
    const w = world((ctx) => {
      const b = acct(ctx, B);
      b.data = Uint8Array.of(7, 7, 7, 7, 7, 7);
      acct(ctx, A).lamports += 5;
      b.lamports -= 5;
    });
    const r = w.run(tx([ix(P, [[A, true], [B, true]])]));
    assert.equal(r.err, null);
    const writes = new Map(r.writes);
    assert.deepEqual(writes.get(B), { ...owned(RENT_EXEMPT_0 * 2 - 5, P, [7, 7, 7, 7, 7, 7]), rentEpoch: RENT_EXEMPT_RENT_EPOCH });
    assert.equal(writes.get(A)!.lamports, RENT_EXEMPT_0 * 2 + 5);
  });

  test('executable accounts: no lamport changes, executable stays set', () => {
    expectInstructionError(
      (ctx) => {
        acct(ctx, E).lamports -= 1;
        acct(ctx, B).lamports += 1;
      },
      [[E, true], [B, true]],
      'ExecutableLamportChange',
      'instruction changed the balance of an executable account',
    );
    expectInstructionError((ctx) => void (acct(ctx, E).executable = false), [[E, true]], 'ExecutableModified', 'instruction changed executable bit of an account');
    expectInstructionError((ctx) => void (acct(ctx, E).data[0] = 2), [[E, true]], 'ExecutableDataModified', 'instruction changed executable accounts data');
  });

  test('the owner may mark a writable, rent-exempt account executable', () => {
    const r = world((ctx) => void (acct(ctx, B).executable = true)).run(tx([ix(P, [[B, true]])]));
    assert.equal(r.err, null);
    assert.equal(new Map(r.writes).get(B)!.executable, true);
    expectInstructionError((ctx) => void (acct(ctx, W).executable = true), [[W, true]], 'ExecutableModified', 'instruction changed executable bit of an account');
    expectInstructionError((ctx) => void (acct(ctx, R).executable = true), [[R, false]], 'ExecutableModified', 'instruction changed executable bit of an account');
    expectInstructionError(
      (ctx) => {
        const b = acct(ctx, B);
        b.data = new Uint8Array(1000); // no longer rent-exempt at this size
        b.executable = true;
      },
      [[B, true]],
      'ExecutableAccountNotRentExempt',
      'executable accounts must be rent exempt',
    );
  });

  test('data past 10 MiB: InvalidRealloc', () => {
    expectInstructionError((ctx) => void (acct(ctx, B).data = new Uint8Array(10 * 1024 * 1024 + 1)), [[B, true]], 'InvalidRealloc', 'Failed to reallocate account data');
  });

  test('rent epoch is immutable: RentEpochModified', () => {
    expectInstructionError((ctx) => void (acct(ctx, B).rentEpoch = 1), [[B, true]], 'RentEpochModified', 'instruction modified rent epoch of an account');
  });

  test('an account passed twice is one account', () => {
    const w = world((ctx) => {
      assert.equal(ctx.accounts[0]!.account, ctx.accounts[1]!.account);
      ctx.accounts[0]!.account.lamports -= 3;
      ctx.accounts[1]!.account.lamports += 3;
    });
    const r = w.run(tx([ix(P, [[B, true], [B, true]])]));
    assert.equal(r.err, null);
  });

  test('a later instruction sees the changes of an earlier one', () => {
    const seen: number[] = [];
    const w = world((ctx) => {
      seen.push(acct(ctx, B).lamports);
      acct(ctx, B).lamports -= 7;
      acct(ctx, A).lamports += 7;
    });
    const r = w.run(tx([ix(P, [[A, true], [B, true]]), ix(P, [[A, true], [B, true]])]));
    assert.equal(r.err, null);
    assert.deepEqual(seen, [RENT_EXEMPT_0 * 2, RENT_EXEMPT_0 * 2 - 7]);
    assert.equal(new Map(r.writes).get(B)!.lamports, RENT_EXEMPT_0 * 2 - 14);
  });

  test('instruction errors a program throws are reported with their index and message', () => {
    const w = world(() => {
      throw InstructionError.custom(0x1f);
    });
    const r = w.run(tx([transferIx(payer.address, A, 1), ix(P)]));
    assert.deepEqual(r.err, { InstructionError: [1, { Custom: 0x1f }] });
    assert.deepEqual(r.logs, [`Program ${SYSTEM_PROGRAM_ID} invoke [1]`, `Program ${SYSTEM_PROGRAM_ID} success`, ...failedLogs(P, 'custom program error: 0x1f')]);
  });
});

describe('compute budget', () => {
  test('past the default 200k limit: ComputationalBudgetExceeded, units capped at the limit', () => {
    const world = new World().program(P, (ctx) => ctx.consumeUnits(250_000));
    const r = world.run(tx([ix(P)]));
    assert.deepEqual(r.err, { InstructionError: [0, 'ComputationalBudgetExceeded'] });
    assert.deepEqual(r.logs, failedLogs(P, 'Computational budget exceeded'));
    assert.equal(r.computeUnitsConsumed, 200_000);
    assertOnlyFeeCharged(world, r);
  });

  test('a requested limit is exact: the budget program’s 150 units count too', () => {
    const limit = (units: number) => {
      const world = new World().program(P, (ctx) => ctx.consumeUnits(units));
      return world.run(tx([setComputeUnitLimitIx(1000), ix(P)]));
    };
    const ok = limit(750);
    assert.equal(ok.err, null);
    assert.equal(ok.computeUnitsConsumed, 1000);
    const over = limit(751);
    assert.deepEqual(over.err, { InstructionError: [1, 'ComputationalBudgetExceeded'] });
    assert.equal(over.computeUnitsConsumed, 1000);
    assert.deepEqual(over.logs, [`Program ${COMPUTE_BUDGET_PROGRAM_ID} invoke [1]`, `Program ${COMPUTE_BUDGET_PROGRAM_ID} success`, ...failedLogs(P, 'Computational budget exceeded')]);
  });

  test('a builtin’s own charge can exceed the limit before it runs', () => {
    let ran = false;
    const world = new World().program(P, () => void (ran = true), 500);
    const r = world.run(tx([setComputeUnitLimitIx(600), ix(P)]));
    assert.deepEqual(r.err, { InstructionError: [1, 'ComputationalBudgetExceeded'] });
    assert.equal(ran, false);
  });

  test('malformed or repeated budget instructions keep the transaction out (no fee)', () => {
    const world = new World().program(P, () => {});
    assert.deepEqual(thrown(() => world.run(tx([setComputeUnitLimitIx(1), setComputeUnitLimitIx(2), ix(P)]))), { DuplicateInstruction: 1 });
    assert.deepEqual(thrown(() => world.run(tx([{ programId: COMPUTE_BUDGET_PROGRAM_ID, data: [9] }]))), { InstructionError: [0, 'InvalidInstructionData'] });
  });
});

describe('logs', () => {
  /** Agave's LogCollector: a line is kept while the bytes kept stay under 10,000; "Log truncated" once. */
  function agaveLogs(lines: string[]): string[] {
    const out: string[] = [];
    let bytes = 0;
    let warned = false;
    for (const line of lines) {
      const n = Buffer.byteLength(line);
      if (bytes + n >= 10_000) {
        if (!warned) out.push('Log truncated');
        warned = true;
      } else {
        bytes += n;
        out.push(line);
      }
    }
    return out;
  }

  test('past 10 KB: "Log truncated" once; later lines that still fit are kept', () => {
    const message = 'x'.repeat(80);
    const world = new World().program(P, (ctx) => {
      for (let i = 0; i < 200; i++) ctx.log(message);
    });
    const r = world.run(tx([ix(P)]));
    assert.equal(r.err, null);
    const all = [`Program ${P} invoke [1]`, ...Array(200).fill(`Program log: ${message}`), `Program ${P} success`];
    assert.deepEqual(r.logs, agaveLogs(all));
    assert.equal(r.logs.filter((l) => l === 'Log truncated').length, 1);
    assert.equal(r.logs.at(-1), `Program ${P} success`, 'the outcome line still fits after truncation');
    assert.ok(r.logs.filter((l) => l !== 'Log truncated').reduce((n, l) => n + Buffer.byteLength(l), 0) < 10_000);
  });

  test('the limit counts UTF-8 bytes, not UTF-16 units', () => {
    const world = new World().program(P, (ctx) => ctx.log('é'.repeat(4990)));
    const r = world.run(tx([ix(P)]));
    assert.deepEqual(r.logs, [`Program ${P} invoke [1]`, 'Log truncated', `Program ${P} success`]);
  });

  test('raw lines are logged as they are', () => {
    const world = new World().program(P, (ctx) => {
      ctx.logRaw('Program data: AAEC');
      ctx.log('hi');
    });
    assert.deepEqual(world.run(tx([ix(P)])).logs, [`Program ${P} invoke [1]`, 'Program data: AAEC', 'Program log: hi', `Program ${P} success`]);
  });
});

describe('failure leaves only the fee', () => {
  test('an earlier transfer is rolled back when a later instruction fails', () => {
    const world = new World().program(P, () => {
      throw new InstructionError('InvalidArgument');
    });
    const to = addr(20);
    const r = world.run(tx([transferIx(payer.address, to, 3 * RENT_EXEMPT_0), ix(P)]));
    assert.deepEqual(r.err, { InstructionError: [1, 'InvalidArgument'] });
    assert.equal(r.fee, FEE);
    assertOnlyFeeCharged(world, r);
    assert.deepEqual(r.postBalances, [10 * RENT_EXEMPT_0 - FEE, 0, 1, 1]);
  });

  test('a failed transaction that debited the payer in an instruction still pays only the fee', () => {
    const world = new World().program(P, (ctx) => {
      ctx.accounts[0]!.account.lamports -= 0; // touch nothing
      throw InstructionError.custom(1);
    });
    const to = addr(21);
    world.set(to, newAccount(RENT_EXEMPT_0, 0, SYSTEM_PROGRAM_ID));
    const r = world.run(tx([transferIx(payer.address, to, 5 * RENT_EXEMPT_0), transferIx(payer.address, to, RENT_EXEMPT_0), ix(P, [[payer.address, true]])]));
    assert.deepEqual(r.err, { InstructionError: [2, { Custom: 1 }] });
    assertOnlyFeeCharged(world, r);
  });
});

describe('fee payer', () => {
  const run = (payerAccount: Account | null, fee = FEE) => {
    const world = new World().program(P, () => {});
    if (payerAccount) world.set(payer.address, payerAccount);
    else world.accounts.delete(payer.address);
    const t = fee > FEE ? tx([setComputeUnitPriceIx(((fee - FEE) * 1_000_000) / 1000), setComputeUnitLimitIx(1000), ix(P)]) : tx([ix(P)]);
    return () => world.run(t);
  };

  test('missing: AccountNotFound', () => {
    assert.equal(thrown(run(null)), 'AccountNotFound');
  });

  test('not owned by the System program: InvalidAccountForFee', () => {
    assert.equal(thrown(run(owned(10 * RENT_EXEMPT_0, P))), 'InvalidAccountForFee');
  });

  test('System-owned with data that is not a nonce: InvalidAccountForFee', () => {
    assert.equal(thrown(run(owned(10 * RENT_EXEMPT_0, SYSTEM_PROGRAM_ID, new Uint8Array(10)))), 'InvalidAccountForFee');
    assert.equal(thrown(run(owned(10 * RENT_EXEMPT_0, SYSTEM_PROGRAM_ID, new Uint8Array(NONCE_ACCOUNT_LENGTH)))), 'InvalidAccountForFee', 'an uninitialized nonce');
  });

  test('an initialized nonce account pays but keeps its rent-exempt reserve', () => {
    const reserve = minimumBalanceForRentExemption(DEFAULT_RENT, NONCE_ACCOUNT_LENGTH);
    const data = nonceAccountData({ version: 'current', state: 'initialized', data: { authority: payer.address, blockhash: OLD_BLOCKHASH, lamportsPerSignature: FEE } });
    assert.equal(run(owned(reserve + FEE, SYSTEM_PROGRAM_ID, data))().err, null);
    assert.equal(thrown(run(owned(reserve + FEE - 1, SYSTEM_PROGRAM_ID, data))), 'InsufficientFundsForFee');
  });

  test('too poor: InsufficientFundsForFee, priority fee included', () => {
    assert.equal(thrown(run(newAccount(FEE - 1, 0, SYSTEM_PROGRAM_ID))), 'InsufficientFundsForFee');
    assert.equal(thrown(run(newAccount(FEE + 999, 0, SYSTEM_PROGRAM_ID), FEE + 1000)), 'InsufficientFundsForFee');
  });

  test('paying down to exactly zero is allowed', () => {
    const r = run(newAccount(FEE, 0, SYSTEM_PROGRAM_ID))();
    assert.equal(r.err, null);
    assert.deepEqual(new Map(r.writes).get(payer.address)!.lamports, 0);
  });

  test('a rent-exempt payer may not be left rent-paying by the fee', () => {
    assert.deepEqual(thrown(run(newAccount(RENT_EXEMPT_0 + FEE - 1, 0, SYSTEM_PROGRAM_ID))), { InsufficientFundsForRent: { account_index: 0 } });
    assert.equal(run(newAccount(RENT_EXEMPT_0 + FEE, 0, SYSTEM_PROGRAM_ID))().err, null);
  });
});

describe('rent state transitions', () => {
  test('a new account funded below rent exemption: InsufficientFundsForRent at its index', () => {
    const world = new World();
    const to = addr(30);
    const r = world.run(tx([transferIx(payer.address, to, 1000)]));
    assert.deepEqual(r.err, { InsufficientFundsForRent: { account_index: 1 } });
    assert.deepEqual(r.logs, [`Program ${SYSTEM_PROGRAM_ID} invoke [1]`, `Program ${SYSTEM_PROGRAM_ID} success`]);
    assertOnlyFeeCharged(world, r);
  });

  test('exactly rent-exempt is fine', () => {
    assert.equal(new World().run(tx([transferIx(payer.address, addr(31), RENT_EXEMPT_0)])).err, null);
  });

  test('the incinerator may hold any balance', () => {
    const r = new World().run(tx([transferIx(payer.address, INCINERATOR_ID, 1)]));
    assert.equal(r.err, null);
    assert.equal(new Map(r.writes).get(INCINERATOR_ID)!.lamports, 1);
  });

  test('a rent-paying account may shrink but not grow', () => {
    const poor = kp(32);
    const world = new World().set(poor.address, newAccount(100_000, 0, SYSTEM_PROGRAM_ID));
    assert.equal(world.run(tx([transferIx(poor.address, payer.address, 1000)], [poor])).err, null);
    const r = world.run(tx([transferIx(payer.address, poor.address, 1000)]));
    assert.deepEqual(r.err, { InsufficientFundsForRent: { account_index: 1 } });
  });

  test('a rent-paying fee payer is judged from its balance after the fee', () => {
    const poor = kp(33);
    const rich = kp(34);
    const world = new World().set(poor.address, newAccount(100_000, 0, SYSTEM_PROGRAM_ID)).set(rich.address, newAccount(10 * RENT_EXEMPT_0, 0, SYSTEM_PROGRAM_ID));
    // Two signatures: the fee is 10,000; a 3,000 credit leaves 93,000 — below the 100,000 it had, above the 90,000 it started executing with.
    const r = world.run(tx([transferIx(rich.address, poor.address, 3000)], [rich], poor));
    assert.deepEqual(r.err, { InsufficientFundsForRent: { account_index: 0 } });
    assert.equal(r.fee, 2 * FEE);
    assertOnlyFeeCharged(world, r, poor.address);
  });

  test('closing an account to zero is fine', () => {
    const gone = kp(35);
    const world = new World().set(gone.address, newAccount(RENT_EXEMPT_0 * 2, 0, SYSTEM_PROGRAM_ID));
    const r = world.run(tx([transferIx(gone.address, payer.address, RENT_EXEMPT_0 * 2)], [gone]));
    assert.equal(r.err, null);
    assert.equal(new Map(r.writes).get(gone.address)!.lamports, 0);
  });
});

describe('program accounts', () => {
  test('unknown program: ProgramAccountNotFound', () => {
    assert.equal(thrown(() => new World().run(tx([ix(addr(40))]))), 'ProgramAccountNotFound');
  });

  test('an executable account of no loader and no builtin: InvalidProgramForExecution', () => {
    const world = new World().set(addr(41), { lamports: 1, data: new Uint8Array(0), owner: SYSTEM_PROGRAM_ID, executable: true, rentEpoch: 0 });
    assert.equal(thrown(() => world.run(tx([ix(addr(41))]))), 'InvalidProgramForExecution');
  });

  test('a BPF Loader 2 account whose ELF does not verify goes to the sBPF engine, which answers as Agave: not deployed', () => {
    const world = new World().set(addr(43), { lamports: 1, data: new Uint8Array(0), owner: BPF_LOADER_2_ID, executable: true, rentEpoch: 0 });
    const r = world.run(tx([ix(addr(43))]));
    assert.deepEqual(r.err, { InstructionError: [0, 'UnsupportedProgramId'] });
    assert.ok(r.logs.includes('Program is not deployed'));
  });

  test('a plain account as a program: InvalidProgramForExecution', () => {
    const world = new World().set(addr(42), newAccount(RENT_EXEMPT_0, 0, SYSTEM_PROGRAM_ID));
    assert.equal(thrown(() => world.run(tx([ix(addr(42))]))), 'InvalidProgramForExecution');
  });

  test('the fee payer is validated before the programs', () => {
    const world = new World();
    world.accounts.delete(payer.address);
    assert.equal(thrown(() => world.run(tx([ix(addr(40))]))), 'AccountNotFound');
  });
});

describe('writable demotion', () => {
  test('sysvars, builtin programs and invoked programs are never writable', () => {
    let flags: Array<[Address, boolean]> = [];
    const world = new World().program(P, (ctx) => void (flags = ctx.accounts.map((a) => [a.key, a.isWritable])));
    const t = tx([{ programId: P, accounts: [{ key: SYSVAR_CLOCK_ID, writable: true }, { key: P, writable: true }, { key: SYSTEM_PROGRAM_ID, writable: true }, { key: addr(50), writable: true }] }]);
    // The header asks for all four to be writable.
    assert.equal(t.message.header.numReadonlyUnsignedAccounts, 0);
    const r = world.run(t);
    assert.equal(r.err, null);
    assert.deepEqual(flags, [[SYSVAR_CLOCK_ID, false], [P, false], [SYSTEM_PROGRAM_ID, false], [addr(50), true]]);
    assert.deepEqual(r.writes.map(([k]) => k).sort(), [payer.address, addr(50)].sort());
  });

  test('a program that writes a demoted sysvar fails like any read-only write', () => {
    const world = new World().program(P, (ctx) => void (ctx.accounts[0]!.account.data[0] = 1));
    const r = world.run(tx([{ programId: P, accounts: [{ key: SYSVAR_CLOCK_ID, writable: true }] }]));
    assert.deepEqual(r.err, { InstructionError: [0, 'ReadonlyDataModified'] });
  });
});

describe('transaction extensions (ctx.scope)', () => {
  class Ext implements TransactionExtension {
    commits = 0;
    rollbacks = 0;
    commit() {
      this.commits++;
    }
    rollback() {
      this.rollbacks++;
    }
  }
  const X = addr(60);

  function setup() {
    const exts: Ext[] = [];
    const world = new World()
      .program(X, (ctx) => {
        ctx.scope.extension('evm', () => {
          const e = new Ext();
          exts.push(e);
          return e;
        });
      })
      .program(P, () => {
        throw InstructionError.custom(2);
      });
    return { world, exts };
  }

  test('commit once on success, one extension per key per transaction', () => {
    const { world, exts } = setup();
    assert.equal(world.run(tx([ix(X), ix(X)])).err, null);
    assert.equal(exts.length, 1);
    assert.deepEqual([exts[0]!.commits, exts[0]!.rollbacks], [1, 0]);
    world.run(tx([ix(X)]));
    assert.equal(exts.length, 2, 'a new transaction gets a new extension');
  });

  test('roll back once when a later instruction fails', () => {
    const { world, exts } = setup();
    assert.deepEqual(world.run(tx([ix(X), ix(P)])).err, { InstructionError: [1, { Custom: 2 }] });
    assert.deepEqual([exts[0]!.commits, exts[0]!.rollbacks], [0, 1]);
  });

  test('roll back once when the rent check fails after all instructions succeeded', () => {
    const { world, exts } = setup();
    const r = world.run(tx([ix(X), transferIx(payer.address, addr(61), 10)]));
    assert.deepEqual(r.err, { InsufficientFundsForRent: { account_index: 1 } });
    assert.deepEqual([exts[0]!.commits, exts[0]!.rollbacks], [0, 1]);
  });

  test('a simulation never commits', () => {
    const { world, exts } = setup();
    assert.equal(world.run(tx([ix(X)]), { simulation: true }).err, null);
    assert.deepEqual([exts[0]!.commits, exts[0]!.rollbacks], [0, 1]);
  });

  test('roll back when a program crashes with a non-instruction error', () => {
    const exts: Ext[] = [];
    const world = new World().program(X, (ctx) => {
      ctx.scope.extension('evm', () => {
        const e = new Ext();
        exts.push(e);
        return e;
      });
      throw new TypeError('bug in a program');
    });
    assert.throws(() => world.run(tx([ix(X)])), TypeError);
    assert.deepEqual([exts[0]!.commits, exts[0]!.rollbacks], [0, 1]);
  });
});

describe('durable nonces', () => {
  const NONCE_RESERVE = minimumBalanceForRentExemption(DEFAULT_RENT, NONCE_ACCOUNT_LENGTH);
  const nonceData = (authority: Address, blockhash = OLD_BLOCKHASH) =>
    nonceAccountData({ version: 'current', state: 'initialized', data: { authority, blockhash, lamportsPerSignature: FEE } });
  const advance = (nonce: Address, authority: Address): InstructionSpec => ({
    programId: SYSTEM_PROGRAM_ID,
    accounts: [{ key: nonce, writable: true }, { key: SYSVAR_RECENT_BLOCKHASHES_ID }, { key: authority, signer: true }],
    data: [4, 0, 0, 0],
  });

  test('a failed durable-nonce transaction keeps the advanced nonce and the fee', () => {
    const nonce = addr(70);
    const world = new World()
      .program(P, () => {
        throw InstructionError.custom(3);
      })
      .set(nonce, owned(NONCE_RESERVE, SYSTEM_PROGRAM_ID, nonceData(payer.address)));
    const r = world.run(tx([advance(nonce, payer.address), ix(P)], [], payer, OLD_BLOCKHASH), { durableNonce: true });
    assert.deepEqual(r.err, { InstructionError: [1, { Custom: 3 }] });
    const writes = new Map(r.writes);
    assert.deepEqual([...writes.keys()], [payer.address, nonce]);
    assert.equal(writes.get(payer.address)!.lamports, 10 * RENT_EXEMPT_0 - FEE);
    const state = decodeNonceState(writes.get(nonce)!.data);
    assert.deepEqual(state, { version: 'current', state: 'initialized', data: { authority: payer.address, blockhash: durableNonceFromBlockhash(BLOCKHASH), lamportsPerSignature: FEE } });
    assert.equal(writes.get(nonce)!.lamports, NONCE_RESERVE);
  });

  test('without the durable-nonce flag a failure does not advance the nonce', () => {
    const nonce = addr(71);
    const world = new World()
      .program(P, () => {
        throw InstructionError.custom(3);
      })
      .set(nonce, owned(NONCE_RESERVE, SYSTEM_PROGRAM_ID, nonceData(payer.address)));
    const r = world.run(tx([advance(nonce, payer.address), ix(P)]));
    assertOnlyFeeCharged(world, r);
  });

  test('a nonce account paying its own fee keeps both the fee and the advance', () => {
    const nonceKp = kp(72);
    const world = new World()
      .program(P, () => {
        throw InstructionError.custom(3);
      })
      .set(nonceKp.address, owned(NONCE_RESERVE + 100_000, SYSTEM_PROGRAM_ID, nonceData(nonceKp.address)));
    const r = world.run(tx([advance(nonceKp.address, nonceKp.address), ix(P)], [], nonceKp, OLD_BLOCKHASH), { durableNonce: true });
    assert.deepEqual(r.err, { InstructionError: [1, { Custom: 3 }] });
    assert.equal(r.writes.length, 1);
    const [key, account] = r.writes[0]!;
    assert.equal(key, nonceKp.address);
    assert.equal(account.lamports, NONCE_RESERVE + 100_000 - FEE);
    const state = decodeNonceState(account.data);
    assert.equal(state?.state === 'initialized' && state.data.blockhash, durableNonceFromBlockhash(BLOCKHASH));
  });

  test('a successful durable-nonce transaction advances through its own instruction', () => {
    const nonce = addr(73);
    const world = new World().program(P, () => {}).set(nonce, owned(NONCE_RESERVE, SYSTEM_PROGRAM_ID, nonceData(payer.address)));
    const r = world.run(tx([advance(nonce, payer.address), ix(P)], [], payer, OLD_BLOCKHASH), { durableNonce: true });
    assert.equal(r.err, null);
    const state = decodeNonceState(new Map(r.writes).get(nonce)!.data);
    assert.equal(state?.state, 'initialized');
    assert.equal(state?.state === 'initialized' && state.data.blockhash, durableNonceFromBlockhash(BLOCKHASH));
  });
});

describe('refused before execution', () => {
  test('duplicate account keys: AccountLoadedTwice', () => {
    const m = compileMessage(payer.address, [ix(SYSTEM_PROGRAM_ID, [[addr(80), true]])], BLOCKHASH);
    m.accountKeys[1] = payer.address;
    assert.equal(thrown(() => new World().run(signMessage(m, [payer]))), 'AccountLoadedTwice');
  });

  test('address table lookups: AddressLookupTableNotFound', () => {
    const m = compileMessage(payer.address, [ix(SYSTEM_PROGRAM_ID, [])], BLOCKHASH);
    const v0 = { ...m, version: 0 as const, addressTableLookups: [{ accountKey: addr(81), writableIndexes: [0], readonlyIndexes: [] }] };
    const bytes = serializeMessage(v0, addressToBytes);
    const t = parseTransaction(serializeTransaction([new Uint8Array(64).fill(5)], bytes));
    assert.equal(thrown(() => new World().run(t)), 'AddressLookupTableNotFound');
  });

  test('sanitize failures', () => {
    const m = compileMessage(payer.address, [ix(SYSTEM_PROGRAM_ID, [])], BLOCKHASH);
    m.instructions[0]!.programIdIndex = 0;
    assert.equal(thrown(() => new World().run(signMessage(m, [payer]))), 'SanitizeFailure');
  });
});
