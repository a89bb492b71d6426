import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, NonceAccount, PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { SYSTEM_PROGRAM_ID, createWithSeed, type Address } from '../../node-core/common/pubkey.ts';
import { minimumBalanceForRentExemption, newAccount, type Account, type RentConfig } from '../../node-core/runtime/account.ts';
import { InstructionError, type InstructionErrorValue } from '../../node-core/runtime/errors.ts';
import type { InstructionAccount, InstructionContext } from '../../node-core/runtime/program.ts';
import { SYSVAR_RECENT_BLOCKHASHES_ID, SYSVAR_RENT_ID, type RecentBlockhashEntry, type Sysvars } from '../../node-core/runtime/sysvars.ts';
import { systemProgram } from '../../node-core/runtime/programs/system.ts';
import { decodeSystemInstruction, encodeSystemInstruction, type SystemInstruction } from '../../node-core/runtime/programs/system-instruction.ts';
import { durableNonceFromBlockhash,
  NONCE_ACCOUNT_LENGTH,
  decodeNonceState,
  encodeNonceState,
  nonceAccountData,
  type NonceState,
} from '../../node-core/runtime/programs/nonce-account.ts';
import { parseSystemInstruction } from '../../node-core/rpc/encoding/parsed/system.ts';
import { parseNonceAccount } from '../../node-core/rpc/encoding/parsed/nonce.ts';

const RENT: RentConfig = { lamportsPerByteYear: 3480, exemptionThreshold: 2, burnPercent: 50 };
const NONCE_MIN = minimumBalanceForRentExemption(RENT, NONCE_ACCOUNT_LENGTH);
const OTHER_PROGRAM = new PublicKey(new Uint8Array(32).fill(9));

const key = () => Keypair.generate().publicKey;
const hash = (n: number) => new PublicKey(new Uint8Array(32).fill(n)).toBase58();
const entry = (n: number, lamportsPerSignature = 5000): RecentBlockhashEntry => ({ blockhash: hash(n), lamportsPerSignature });

function sysvars(recentBlockhashes: RecentBlockhashEntry[] = [entry(1)]): Sysvars {
  return {
    clock: { slot: 10, epochStartTimestamp: 0, epoch: 0, leaderScheduleEpoch: 1, unixTimestamp: 0 },
    rent: RENT,
    epochSchedule: { slotsPerEpoch: 432000, leaderScheduleSlotOffset: 432000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
    recentBlockhashes,
    slotHashes: [],
    lamportsPerSignature: 5000,
  };
}

type State = Map<Address, Account>;

interface RunResult {
  error: InstructionErrorValue | null;
  logs: string[];
}

/** Runs one instruction on a fake context; accounts missing from `state` start as empty system accounts. */
function run(ix: { keys: TransactionInstruction['keys']; data: Uint8Array }, state: State, recent?: RecentBlockhashEntry[]): RunResult {
  const logs: string[] = [];
  const indexOf = new Map<Address, number>();
  const accounts: InstructionAccount[] = ix.keys.map((k) => {
    const key = k.pubkey.toBase58();
    let account = state.get(key);
    if (!account) state.set(key, (account = newAccount(0, 0, SYSTEM_PROGRAM_ID)));
    if (!indexOf.has(key)) indexOf.set(key, indexOf.size);
    return { index: indexOf.get(key)!, key, isSigner: k.isSigner, isWritable: k.isWritable, account };
  });
  const sv = sysvars(recent);
  const ctx: InstructionContext = {
    programId: SYSTEM_PROGRAM_ID,
    data: ix.data,
    accounts,
    instructionIndex: 0,
    sysvars: sv,
    scope: { extension: () => { throw new Error('unused'); } },
    simulation: false,
    log: (m) => logs.push(`Program log: ${m}`),
    logRaw: (l) => logs.push(l),
    consumeUnits: () => assert.fail('system program must not consume units itself'),
    minimumBalance: (len) => minimumBalanceForRentExemption(sv.rent, len),
    bankExtension: () => undefined,
    feePayer: SYSTEM_PROGRAM_ID,
    signature: '1111111111111111111111111111111111111111111111111111111111111111',
  };
  try {
    systemProgram.process(ctx);
    return { error: null, logs };
  } catch (e) {
    if (!(e instanceof InstructionError)) throw e;
    return { error: e.value, logs };
  }
}

const meta = (pubkey: PublicKey, isSigner: boolean, isWritable: boolean) => ({ pubkey, isSigner, isWritable });
const withKeys = (ix: TransactionInstruction, keys: TransactionInstruction['keys']) => ({ keys, data: ix.data });
const systemAccount = (lamports: number) => newAccount(lamports, 0, SYSTEM_PROGRAM_ID);
const custom = (n: number) => ({ Custom: n });

describe('System instruction data', () => {
  const from = key();
  const to = key();
  const base = key();

  // Every instruction as web3.js writes it, beside what it decodes to.
  const cases: Array<[TransactionInstruction | Buffer, SystemInstruction]> = [
    [SystemProgram.createAccount({ fromPubkey: from, newAccountPubkey: to, lamports: 123, space: 80, programId: OTHER_PROGRAM }), { type: 'createAccount', lamports: 123n, space: 80n, owner: OTHER_PROGRAM.toBase58() }],
    [SystemProgram.assign({ accountPubkey: to, programId: OTHER_PROGRAM }), { type: 'assign', owner: OTHER_PROGRAM.toBase58() }],
    [SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 2n ** 64n - 1n }), { type: 'transfer', lamports: 2n ** 64n - 1n }],
    [
      SystemProgram.createAccountWithSeed({ fromPubkey: from, newAccountPubkey: to, basePubkey: base, seed: 'séed', lamports: 5, space: 7, programId: OTHER_PROGRAM }),
      { type: 'createAccountWithSeed', base: base.toBase58(), seed: 'séed', lamports: 5n, space: 7n, owner: OTHER_PROGRAM.toBase58() },
    ],
    [SystemProgram.nonceAdvance({ noncePubkey: to, authorizedPubkey: from }), { type: 'advanceNonceAccount' }],
    [SystemProgram.nonceWithdraw({ noncePubkey: to, toPubkey: from, authorizedPubkey: from, lamports: 42 }), { type: 'withdrawNonceAccount', lamports: 42n }],
    [SystemProgram.nonceInitialize({ noncePubkey: to, authorizedPubkey: from }), { type: 'initializeNonceAccount', authority: from.toBase58() }],
    [SystemProgram.nonceAuthorize({ noncePubkey: to, authorizedPubkey: from, newAuthorizedPubkey: base }), { type: 'authorizeNonceAccount', authority: base.toBase58() }],
    [SystemProgram.allocate({ accountPubkey: to, space: 1000 }), { type: 'allocate', space: 1000n }],
    [
      SystemProgram.allocate({ accountPubkey: to, basePubkey: base, seed: 'a', space: 3, programId: OTHER_PROGRAM }),
      { type: 'allocateWithSeed', base: base.toBase58(), seed: 'a', space: 3n, owner: OTHER_PROGRAM.toBase58() },
    ],
    [
      SystemProgram.assign({ accountPubkey: to, basePubkey: base, seed: 'b', programId: OTHER_PROGRAM }),
      { type: 'assignWithSeed', base: base.toBase58(), seed: 'b', owner: OTHER_PROGRAM.toBase58() },
    ],
    [
      SystemProgram.transfer({ fromPubkey: to, basePubkey: base, toPubkey: from, lamports: 9, seed: 'c', programId: OTHER_PROGRAM }),
      { type: 'transferWithSeed', lamports: 9n, fromSeed: 'c', fromOwner: OTHER_PROGRAM.toBase58() },
    ],
    [Buffer.from([12, 0, 0, 0]), { type: 'upgradeNonceAccount' }],
  ];
  const dataOf = (ix: TransactionInstruction | Buffer) => (ix instanceof TransactionInstruction ? ix.data : ix);

  test('decodes every web3.js system instruction', () => {
    for (const [ix, expected] of cases) assert.deepEqual(decodeSystemInstruction(dataOf(ix)), expected);
  });

  test('encodes every system instruction to the bytes web3.js writes', () => {
    for (const [ix, decoded] of cases) assert.deepEqual(Buffer.from(encodeSystemInstruction(decoded)), Buffer.from(dataOf(ix)), decoded.type);
  });

  test('rejects malformed data; trailing bytes only when allowed', () => {
    const transfer = SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 1 }).data;
    const trailing = Buffer.concat([transfer, Buffer.from([0])]);
    assert.equal(decodeSystemInstruction(trailing), null);
    assert.deepEqual(decodeSystemInstruction(trailing, { allowTrailingBytes: true }), { type: 'transfer', lamports: 1n });
    assert.equal(decodeSystemInstruction(transfer.subarray(0, 11)), null);
    assert.equal(decodeSystemInstruction(new Uint8Array(0)), null);
    assert.equal(decodeSystemInstruction(Buffer.from([13, 0, 0, 0])), null);
    // A seed that is not UTF-8.
    const bad = Buffer.from(SystemProgram.assign({ accountPubkey: to, basePubkey: base, seed: 'x', programId: OTHER_PROGRAM }).data);
    bad[4 + 32 + 8] = 0xff;
    assert.equal(decodeSystemInstruction(bad), null);
    // A string length past the end.
    const long = Buffer.from(bad);
    long[4 + 32] = 200;
    assert.equal(decodeSystemInstruction(long), null);
  });
});

describe('system program: create account', () => {
  const setup = (fromLamports = 100) => {
    const from = key();
    const to = key();
    const state: State = new Map([[from.toBase58(), systemAccount(fromLamports)]]);
    return { from, to, state };
  };

  test('creates, funds, allocates and assigns', () => {
    const { from, to, state } = setup();
    const ix = SystemProgram.createAccount({ fromPubkey: from, newAccountPubkey: to, lamports: 50, space: 2, programId: OTHER_PROGRAM });
    assert.deepEqual(run(ix, state), { error: null, logs: [] });
    assert.equal(state.get(from.toBase58())!.lamports, 50);
    const created = state.get(to.toBase58())!;
    assert.equal(created.lamports, 50);
    assert.equal(created.owner, OTHER_PROGRAM.toBase58());
    assert.deepEqual([...created.data], [0, 0]);
  });

  test('the new account must sign', () => {
    const { from, to, state } = setup();
    const ix = SystemProgram.createAccount({ fromPubkey: from, newAccountPubkey: to, lamports: 50, space: 2, programId: OTHER_PROGRAM });
    const r = run(withKeys(ix, [meta(from, true, true), meta(to, false, true)]), state);
    assert.equal(r.error, 'MissingRequiredSignature');
    assert.deepEqual(r.logs, [`Allocate: 'to' account Address { address: ${to.toBase58()}, base: None } must sign`]);
    assert.equal(state.get(from.toBase58())!.lamports, 100);
  });

  test('an account with lamports, data or another owner is already in use', () => {
    const { from, to, state } = setup();
    const ix = SystemProgram.createAccount({ fromPubkey: from, newAccountPubkey: to, lamports: 50, space: 2, programId: OTHER_PROGRAM });
    state.set(to.toBase58(), systemAccount(1));
    const r = run(ix, state);
    assert.deepEqual(r.error, custom(0));
    assert.deepEqual(r.logs, [`Create Account: account Address { address: ${to.toBase58()}, base: None } already in use`]);

    state.set(to.toBase58(), newAccount(0, 1, SYSTEM_PROGRAM_ID));
    const withData = run(ix, state);
    assert.deepEqual(withData.error, custom(0));
    assert.match(withData.logs[0]!, /^Allocate: account Address .* already in use$/);

    state.set(to.toBase58(), newAccount(0, 0, OTHER_PROGRAM.toBase58()));
    assert.deepEqual(run(ix, state).error, custom(0));
  });

  test('space above 10 MiB is an invalid data length', () => {
    const { from, to, state } = setup();
    const ix = SystemProgram.createAccount({ fromPubkey: from, newAccountPubkey: to, lamports: 1, space: 10 * 1024 * 1024 + 1, programId: OTHER_PROGRAM });
    const r = run(ix, state);
    assert.deepEqual(r.error, custom(3));
    assert.deepEqual(r.logs, ['Allocate: requested 10485761, max allowed 10485760']);
    const ok = SystemProgram.createAccount({ fromPubkey: from, newAccountPubkey: to, lamports: 1, space: 10 * 1024 * 1024, programId: OTHER_PROGRAM });
    assert.equal(run(ok, state).error, null);
  });

  test('insufficient funds: ResultWithNegativeLamports with a log', () => {
    const { from, to, state } = setup();
    const ix = SystemProgram.createAccount({ fromPubkey: from, newAccountPubkey: to, lamports: 150, space: 2, programId: OTHER_PROGRAM });
    const r = run(ix, state);
    assert.deepEqual(r.error, custom(1));
    assert.deepEqual(r.logs, ['Transfer: insufficient lamports 100, need 150']);
  });

  test('the funder must sign and carry no data', () => {
    const { from, to, state } = setup();
    const ix = SystemProgram.createAccount({ fromPubkey: from, newAccountPubkey: to, lamports: 50, space: 2, programId: OTHER_PROGRAM });
    const r = run(withKeys(ix, [meta(from, false, true), meta(to, true, true)]), state);
    assert.equal(r.error, 'MissingRequiredSignature');
    assert.deepEqual(r.logs, [`Transfer: \`from\` account ${from.toBase58()} must sign`]);

    const other = setup();
    other.state.set(other.from.toBase58(), newAccount(100, 1, SYSTEM_PROGRAM_ID));
    const ix2 = SystemProgram.createAccount({ fromPubkey: other.from, newAccountPubkey: other.to, lamports: 50, space: 2, programId: OTHER_PROGRAM });
    const r2 = run(ix2, other.state);
    assert.equal(r2.error, 'InvalidArgument');
    assert.deepEqual(r2.logs, ['Transfer: `from` must not carry data']);
  });

  test('zero lamports from an account owned elsewhere is fine', () => {
    const { from, to, state } = setup();
    state.set(from.toBase58(), newAccount(100, 0, OTHER_PROGRAM.toBase58()));
    const ix = SystemProgram.createAccount({ fromPubkey: from, newAccountPubkey: to, lamports: 0, space: 2, programId: OTHER_PROGRAM });
    assert.equal(run(ix, state).error, null);
    assert.equal(state.get(to.toBase58())!.owner, OTHER_PROGRAM.toBase58());
  });

  test('too few accounts', () => {
    const { from, to, state } = setup();
    const ix = SystemProgram.createAccount({ fromPubkey: from, newAccountPubkey: to, lamports: 50, space: 2, programId: OTHER_PROGRAM });
    assert.equal(run(withKeys(ix, [meta(from, true, true)]), state).error, 'NotEnoughAccountKeys');
  });

  test('undecodable data', () => {
    const { from, to, state } = setup();
    assert.equal(run({ keys: [meta(from, true, true), meta(to, true, true)], data: Buffer.from([0, 0, 0]) }, state).error, 'InvalidInstructionData');
    assert.equal(run({ keys: [meta(from, true, true)], data: Buffer.from([99, 0, 0, 0]) }, state).error, 'InvalidInstructionData');
  });
});

describe('system program: create account with seed', () => {
  test('creates at the derived address with the base signing', async () => {
    const from = key();
    const base = key();
    const seed = 'shiny pepper';
    const to = await PublicKey.createWithSeed(base, seed, OTHER_PROGRAM);
    assert.equal(to.toBase58(), createWithSeed(base.toBase58(), seed, OTHER_PROGRAM.toBase58()));
    const state: State = new Map([[from.toBase58(), systemAccount(100)]]);
    const ix = SystemProgram.createAccountWithSeed({ fromPubkey: from, newAccountPubkey: to, basePubkey: base, seed, lamports: 50, space: 2, programId: OTHER_PROGRAM });
    assert.equal(run(ix, state).error, null);
    const created = state.get(to.toBase58())!;
    assert.deepEqual([created.lamports, created.owner, created.data.length], [50, OTHER_PROGRAM.toBase58(), 2]);
  });

  test('address mismatch, missing base signature, seed too long', async () => {
    const from = key();
    const wrong = key();
    const state: State = new Map([[from.toBase58(), systemAccount(100)]]);
    const ix = SystemProgram.createAccountWithSeed({ fromPubkey: from, newAccountPubkey: wrong, basePubkey: from, seed: 'x', lamports: 50, space: 2, programId: OTHER_PROGRAM });
    const r = run(ix, state);
    assert.deepEqual(r.error, custom(5));
    const derived = createWithSeed(from.toBase58(), 'x', OTHER_PROGRAM.toBase58());
    assert.deepEqual(r.logs, [`Create: address ${wrong.toBase58()} does not match derived address ${derived}`]);

    const base = key();
    const to = await PublicKey.createWithSeed(base, 'y', OTHER_PROGRAM);
    const ix2 = SystemProgram.createAccountWithSeed({ fromPubkey: from, newAccountPubkey: to, basePubkey: base, seed: 'y', lamports: 50, space: 2, programId: OTHER_PROGRAM });
    const r2 = run(withKeys(ix2, [ix2.keys[0]!, ix2.keys[1]!, meta(base, false, false)]), state);
    assert.equal(r2.error, 'MissingRequiredSignature');
    assert.deepEqual(r2.logs, [`Allocate: 'to' account Address { address: ${to.toBase58()}, base: Some(${base.toBase58()}) } must sign`]);

    // Agave converts PubkeyError::MaxSeedLengthExceeded by its discriminant: Custom(0).
    const ix3 = SystemProgram.createAccountWithSeed({ fromPubkey: from, newAccountPubkey: wrong, basePubkey: from, seed: 'x'.repeat(33), lamports: 1, space: 0, programId: OTHER_PROGRAM });
    assert.deepEqual(run(ix3, state).error, custom(0));
    // An owner ending in the PDA marker is IllegalOwner: Custom(2).
    const pdaOwner = new PublicKey(Buffer.concat([Buffer.alloc(11, 1), Buffer.from('ProgramDerivedAddress')]));
    const ix4 = SystemProgram.createAccountWithSeed({ fromPubkey: from, newAccountPubkey: wrong, basePubkey: from, seed: 'x', lamports: 1, space: 0, programId: pdaOwner });
    assert.deepEqual(run(ix4, state).error, custom(2));
  });
});

describe('system program: assign / allocate', () => {
  test('assign changes the owner; same owner needs no signature', () => {
    const account = key();
    const state: State = new Map([[account.toBase58(), systemAccount(10)]]);
    const ix = SystemProgram.assign({ accountPubkey: account, programId: OTHER_PROGRAM });
    assert.equal(run(ix, state).error, null);
    assert.equal(state.get(account.toBase58())!.owner, OTHER_PROGRAM.toBase58());
    assert.equal(run(withKeys(ix, [meta(account, false, true)]), state).error, null);
  });

  test('assign requires a signature, the system owner, a writable account', () => {
    const account = key();
    const state: State = new Map([[account.toBase58(), systemAccount(10)]]);
    const ix = SystemProgram.assign({ accountPubkey: account, programId: OTHER_PROGRAM });
    const r = run(withKeys(ix, [meta(account, false, true)]), state);
    assert.equal(r.error, 'MissingRequiredSignature');
    assert.deepEqual(r.logs, [`Assign: account Address { address: ${account.toBase58()}, base: None } must sign`]);

    const readonly = run(withKeys(ix, [meta(account, true, false)]), state);
    assert.equal(readonly.error, 'ModifiedProgramId');
    assert.equal(state.get(account.toBase58())!.owner, SYSTEM_PROGRAM_ID, 'a read-only account is never touched');

    state.set(account.toBase58(), newAccount(10, 0, key().toBase58()));
    assert.equal(run(ix, state).error, 'ModifiedProgramId');
    assert.equal(run(withKeys(ix, []), state).error, 'NotEnoughAccountKeys');
  });

  test('assign with seed', async () => {
    const base = key();
    const account = await PublicKey.createWithSeed(base, 'seed', OTHER_PROGRAM);
    const state: State = new Map();
    const ix = SystemProgram.assign({ accountPubkey: account, basePubkey: base, seed: 'seed', programId: OTHER_PROGRAM });
    assert.equal(run(ix, state).error, null);
    assert.equal(state.get(account.toBase58())!.owner, OTHER_PROGRAM.toBase58());
    const wrong = SystemProgram.assign({ accountPubkey: key(), basePubkey: base, seed: 'seed', programId: OTHER_PROGRAM });
    assert.deepEqual(run(wrong, state).error, custom(5));
  });

  test('allocate sets the data length', () => {
    const account = key();
    const state: State = new Map();
    const ix = SystemProgram.allocate({ accountPubkey: account, space: 100 });
    assert.equal(run(ix, state).error, null);
    assert.equal(state.get(account.toBase58())!.data.length, 100);
    const again = run(ix, state);
    assert.deepEqual(again.error, custom(0));
  });

  test('allocate errors', () => {
    const account = key();
    const state: State = new Map();
    const big = SystemProgram.allocate({ accountPubkey: account, space: 10 * 1024 * 1024 + 1 });
    assert.deepEqual(run(big, state).error, custom(3));
    const ix = SystemProgram.allocate({ accountPubkey: account, space: 8 });
    assert.equal(run(withKeys(ix, [meta(account, false, true)]), state).error, 'MissingRequiredSignature');
    assert.equal(run(withKeys(ix, [meta(account, true, false)]), state).error, 'ReadonlyDataModified');
    assert.equal(state.get(account.toBase58())!.data.length, 0);
  });

  test('allocate with seed also assigns', async () => {
    const base = key();
    const account = await PublicKey.createWithSeed(base, 's', OTHER_PROGRAM);
    const state: State = new Map();
    const ix = SystemProgram.allocate({ accountPubkey: account, basePubkey: base, seed: 's', space: 5, programId: OTHER_PROGRAM });
    assert.equal(run(ix, state).error, null);
    const a = state.get(account.toBase58())!;
    assert.deepEqual([a.data.length, a.owner], [5, OTHER_PROGRAM.toBase58()]);
    const unsigned = run(withKeys(ix, [ix.keys[0]!, meta(base, false, false)]), new Map());
    assert.equal(unsigned.error, 'MissingRequiredSignature');
  });
});

describe('system program: transfer', () => {
  const setup = () => {
    const from = key();
    const to = key();
    const state: State = new Map([[from.toBase58(), systemAccount(100)]]);
    return { from, to, state };
  };

  test('moves lamports', () => {
    const { from, to, state } = setup();
    assert.equal(run(SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 40 }), state).error, null);
    assert.equal(state.get(from.toBase58())!.lamports, 60);
    assert.equal(state.get(to.toBase58())!.lamports, 40);
    // To itself: the same object, no net change.
    assert.equal(run(SystemProgram.transfer({ fromPubkey: from, toPubkey: from, lamports: 60 }), state).error, null);
    assert.equal(state.get(from.toBase58())!.lamports, 60);
  });

  test('insufficient funds, including amounts no balance can reach', () => {
    const { from, to, state } = setup();
    const r = run(SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 101 }), state);
    assert.deepEqual(r.error, custom(1));
    assert.deepEqual(r.logs, ['Transfer: insufficient lamports 100, need 101']);
    const huge = run(SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 2n ** 64n - 1n }), state);
    assert.deepEqual(huge.error, custom(1));
    assert.deepEqual(huge.logs, ['Transfer: insufficient lamports 100, need 18446744073709551615']);
    assert.equal(state.get(from.toBase58())!.lamports, 100);
  });

  test('from must sign, carry no data, be writable; to must be writable', () => {
    const { from, to, state } = setup();
    const ix = SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 1 });
    assert.equal(run(withKeys(ix, [meta(from, false, true), meta(to, false, true)]), state).error, 'MissingRequiredSignature');
    assert.equal(run(withKeys(ix, [meta(from, true, false), meta(to, false, true)]), state).error, 'ReadonlyLamportChange');
    assert.equal(run(withKeys(ix, [meta(from, true, true), meta(to, false, false)]), state).error, 'ReadonlyLamportChange');
    state.set(from.toBase58(), newAccount(100, 80, SYSTEM_PROGRAM_ID));
    const r = run(ix, state);
    assert.equal(r.error, 'InvalidArgument');
    assert.deepEqual(r.logs, ['Transfer: `from` must not carry data']);
    assert.equal(run(withKeys(ix, [meta(from, true, true)]), state).error, 'NotEnoughAccountKeys');
  });

  test('spending from an account the system program does not own', () => {
    const { from, to, state } = setup();
    state.set(from.toBase58(), newAccount(100, 0, OTHER_PROGRAM.toBase58()));
    assert.equal(run(SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 1 }), state).error, 'ExternalAccountLamportSpend');
  });

  test('transfer with seed', async () => {
    const base = key();
    const to = key();
    const from = await PublicKey.createWithSeed(base, 'pay', OTHER_PROGRAM);
    const state: State = new Map([[from.toBase58(), systemAccount(100)]]);
    const ix = SystemProgram.transfer({ fromPubkey: from, basePubkey: base, toPubkey: to, lamports: 30, seed: 'pay', programId: OTHER_PROGRAM });
    assert.equal(run(ix, state).error, null);
    assert.deepEqual([state.get(from.toBase58())!.lamports, state.get(to.toBase58())!.lamports], [70, 30]);

    const unsigned = run(withKeys(ix, [ix.keys[0]!, meta(base, false, false), ix.keys[2]!]), state);
    assert.equal(unsigned.error, 'MissingRequiredSignature');
    assert.deepEqual(unsigned.logs, [`Transfer: 'from' account ${base.toBase58()} must sign`]);

    const other = key();
    const mismatch = SystemProgram.transfer({ fromPubkey: other, basePubkey: base, toPubkey: to, lamports: 30, seed: 'pay', programId: OTHER_PROGRAM });
    const r = run(mismatch, state);
    assert.deepEqual(r.error, custom(5));
    assert.deepEqual(r.logs, [`Transfer: 'from' address ${other.toBase58()} does not match derived address ${from.toBase58()}`]);

    const tooMuch = SystemProgram.transfer({ fromPubkey: from, basePubkey: base, toPubkey: to, lamports: 71, seed: 'pay', programId: OTHER_PROGRAM });
    assert.deepEqual(run(tooMuch, state).error, custom(1));
    assert.equal(run(withKeys(ix, ix.keys.slice(0, 2)), state).error, 'NotEnoughAccountKeys');
  });
});

describe('nonce account layout', () => {
  test('round-trips and matches web3.js NonceAccount', () => {
    const authority = key();
    const state: NonceState = { version: 'current', state: 'initialized', data: { authority: authority.toBase58(), blockhash: hash(7), lamportsPerSignature: 5000 } };
    const data = nonceAccountData(state);
    assert.equal(data.length, NONCE_ACCOUNT_LENGTH);
    assert.deepEqual(decodeNonceState(data), state);
    const web3 = NonceAccount.fromAccountData(Buffer.from(data));
    assert.equal(web3.authorizedPubkey.toBase58(), authority.toBase58());
    assert.equal(web3.nonce, hash(7));
    assert.equal(web3.feeCalculator.lamportsPerSignature, 5000);
    assert.deepEqual([...data.subarray(0, 8)], [1, 0, 0, 0, 1, 0, 0, 0]);
  });

  test('uninitialized, legacy, malformed', () => {
    assert.deepEqual(decodeNonceState(new Uint8Array(80)), { version: 'legacy', state: 'uninitialized' });
    assert.equal(encodeNonceState({ version: 'current', state: 'uninitialized' }).length, 8);
    assert.equal(decodeNonceState(new Uint8Array(4)), null);
    assert.equal(decodeNonceState(new Uint8Array(0)), null);
    assert.equal(decodeNonceState(Uint8Array.from([2, 0, 0, 0, 0, 0, 0, 0])), null);
    assert.equal(decodeNonceState(Uint8Array.from([1, 0, 0, 0, 2, 0, 0, 0])), null);
    assert.equal(decodeNonceState(Uint8Array.from([1, 0, 0, 0, 1, 0, 0, 0, 5])), null, 'initialized but truncated');
  });
});

describe('system program: durable nonces', () => {
  const authority = key();
  const nonce = key();
  const initialized = (blockhash: string, version: 'legacy' | 'current' = 'current', lamports = NONCE_MIN): Account => ({
    ...newAccount(lamports, 0, SYSTEM_PROGRAM_ID),
    data: nonceAccountData({ version, state: 'initialized', data: { authority: authority.toBase58(), blockhash, lamportsPerSignature: 5000 } }),
  });
  const uninitialized = (lamports = NONCE_MIN) => newAccount(lamports, NONCE_ACCOUNT_LENGTH, SYSTEM_PROGRAM_ID);

  test('initialize stores the newest blockhash and its fee', () => {
    const state: State = new Map([[nonce.toBase58(), uninitialized()]]);
    const ix = SystemProgram.nonceInitialize({ noncePubkey: nonce, authorizedPubkey: authority });
    assert.equal(run(ix, state, [entry(3, 7000), entry(2)]).error, null);
    const web3 = NonceAccount.fromAccountData(Buffer.from(state.get(nonce.toBase58())!.data));
    // Agave's durable nonce of the newest blockhash, not the blockhash itself.
    assert.equal(web3.nonce, durableNonceFromBlockhash(hash(3)));
    assert.equal(web3.authorizedPubkey.toBase58(), authority.toBase58());
    assert.equal(web3.feeCalculator.lamportsPerSignature, 7000);
  });

  test('initialize errors', () => {
    const ix = SystemProgram.nonceInitialize({ noncePubkey: nonce, authorizedPubkey: authority });
    const poor = run(ix, new Map([[nonce.toBase58(), uninitialized(NONCE_MIN - 1)]]));
    assert.equal(poor.error, 'InsufficientFunds');
    assert.deepEqual(poor.logs, [`Initialize nonce account: insufficient lamports ${NONCE_MIN - 1}, need ${NONCE_MIN}`]);

    const twice = run(ix, new Map([[nonce.toBase58(), initialized(hash(1))]]));
    assert.equal(twice.error, 'InvalidAccountData');
    assert.deepEqual(twice.logs, [`Initialize nonce account: Account ${nonce.toBase58()} state is invalid`]);

    const empty = run(ix, new Map([[nonce.toBase58(), uninitialized()]]), []);
    assert.deepEqual(empty.error, custom(6));
    assert.deepEqual(empty.logs, ['Initialize nonce account: recent blockhash list is empty']);

    assert.equal(run(withKeys(ix, [ix.keys[0]!, meta(key(), false, false), ix.keys[2]!]), new Map([[nonce.toBase58(), uninitialized()]])).error, 'InvalidArgument');
    assert.equal(run(withKeys(ix, [ix.keys[0]!, ix.keys[1]!, meta(key(), false, false)]), new Map([[nonce.toBase58(), uninitialized()]])).error, 'InvalidArgument');
    assert.equal(run(withKeys(ix, ix.keys.slice(0, 2)), new Map([[nonce.toBase58(), uninitialized()]])).error, 'NotEnoughAccountKeys');
    assert.equal(run(withKeys(ix, [meta(nonce, false, false), ix.keys[1]!, ix.keys[2]!]), new Map([[nonce.toBase58(), uninitialized()]])).error, 'InvalidArgument');
    // No nonce state in an empty account.
    assert.equal(run(ix, new Map([[nonce.toBase58(), systemAccount(NONCE_MIN)]])).error, 'InvalidAccountData');
    // Owned by another program: the data write is refused.
    const foreign = { ...uninitialized(), owner: OTHER_PROGRAM.toBase58() };
    assert.equal(run(ix, new Map([[nonce.toBase58(), foreign]])).error, 'ExternalAccountDataModified');
  });

  test('advance moves to the newest blockhash, once per blockhash', () => {
    const state: State = new Map([[nonce.toBase58(), initialized(hash(1), 'legacy')]]);
    const ix = SystemProgram.nonceAdvance({ noncePubkey: nonce, authorizedPubkey: authority });
    assert.equal(run(ix, state, [entry(2, 6000), entry(1)]).error, null);
    assert.deepEqual(decodeNonceState(state.get(nonce.toBase58())!.data), {
      version: 'current',
      state: 'initialized',
      data: { authority: authority.toBase58(), blockhash: durableNonceFromBlockhash(hash(2)), lamportsPerSignature: 6000 },
    });
    const again = run(ix, state, [entry(2)]);
    assert.deepEqual(again.error, custom(7));
    assert.deepEqual(again.logs, ['Advance nonce account: nonce can only advance once per slot']);
  });

  test('advance errors', () => {
    const ix = SystemProgram.nonceAdvance({ noncePubkey: nonce, authorizedPubkey: authority });
    const fresh = () => new Map([[nonce.toBase58(), initialized(hash(1))]]);
    const unsigned = run(withKeys(ix, [ix.keys[0]!, ix.keys[1]!, meta(authority, false, false)]), fresh(), [entry(2)]);
    assert.equal(unsigned.error, 'MissingRequiredSignature');
    assert.deepEqual(unsigned.logs, [`Advance nonce account: Account ${authority.toBase58()} must be a signer`]);
    assert.deepEqual(run(ix, fresh(), []).error, custom(6));
    const uninit = run(ix, new Map([[nonce.toBase58(), uninitialized()]]), [entry(2)]);
    assert.equal(uninit.error, 'InvalidAccountData');
    assert.equal(run(withKeys(ix, [ix.keys[0]!]), fresh(), [entry(2)]).error, 'NotEnoughAccountKeys');
    assert.equal(run(withKeys(ix, [ix.keys[0]!, meta(key(), false, false), ix.keys[2]!]), fresh(), [entry(2)]).error, 'InvalidArgument');
    const readonly = run(withKeys(ix, [meta(nonce, false, false), ix.keys[1]!, ix.keys[2]!]), fresh(), [entry(2)]);
    assert.equal(readonly.error, 'InvalidArgument');
    assert.deepEqual(readonly.logs, [`Advance nonce account: Account ${nonce.toBase58()} must be writeable`]);
  });

  test('withdraw keeps the rent-exempt reserve, or empties the account', () => {
    const to = key();
    const state: State = new Map([[nonce.toBase58(), initialized(durableNonceFromBlockhash(hash(1)), 'current', NONCE_MIN + 1000)]]);
    const partial = SystemProgram.nonceWithdraw({ noncePubkey: nonce, toPubkey: to, authorizedPubkey: authority, lamports: 1000 });
    assert.equal(run(partial, state, [entry(2)]).error, null);
    assert.deepEqual([state.get(nonce.toBase58())!.lamports, state.get(to.toBase58())!.lamports], [NONCE_MIN, 1000]);

    const tooMuch = run(SystemProgram.nonceWithdraw({ noncePubkey: nonce, toPubkey: to, authorizedPubkey: authority, lamports: 1 }), state, [entry(2)]);
    assert.equal(tooMuch.error, 'InsufficientFunds');
    assert.deepEqual(tooMuch.logs, [`Withdraw nonce account: insufficient lamports ${NONCE_MIN}, need ${NONCE_MIN + 1}`]);

    const all = SystemProgram.nonceWithdraw({ noncePubkey: nonce, toPubkey: to, authorizedPubkey: authority, lamports: NONCE_MIN });
    // Not while the stored nonce is the current blockhash.
    assert.deepEqual(run(all, state, [entry(1)]).error, custom(7));
    assert.equal(run(all, state, [entry(2)]).error, null);
    assert.equal(state.get(nonce.toBase58())!.lamports, 0);
    assert.deepEqual(decodeNonceState(state.get(nonce.toBase58())!.data), { version: 'current', state: 'uninitialized' });
  });

  test('withdraw errors and the uninitialized case', () => {
    const to = key();
    const ix = SystemProgram.nonceWithdraw({ noncePubkey: nonce, toPubkey: to, authorizedPubkey: authority, lamports: 10 });
    const fresh = () => new Map([[nonce.toBase58(), initialized(hash(1), 'current', NONCE_MIN + 100)]]);
    const unsigned = run(withKeys(ix, [...ix.keys.slice(0, 4), meta(authority, false, false)]), fresh(), [entry(2)]);
    assert.equal(unsigned.error, 'MissingRequiredSignature');
    assert.deepEqual(unsigned.logs, [`Withdraw nonce account: Account ${authority.toBase58()} must sign`]);
    assert.equal(run(withKeys(ix, [ix.keys[0]!, ix.keys[1]!, meta(key(), false, false), ix.keys[3]!, ix.keys[4]!]), fresh()).error, 'InvalidArgument');
    assert.equal(run(withKeys(ix, [ix.keys[0]!, ix.keys[1]!, ix.keys[2]!, meta(key(), false, false), ix.keys[4]!]), fresh()).error, 'InvalidArgument');
    assert.equal(run(withKeys(ix, ix.keys.slice(0, 3)), fresh()).error, 'NotEnoughAccountKeys');
    const huge = SystemProgram.nonceWithdraw({ noncePubkey: nonce, toPubkey: to, authorizedPubkey: authority, lamports: Number.MAX_SAFE_INTEGER });
    assert.equal(run(huge, fresh()).error, 'InsufficientFunds');

    // Uninitialized: the nonce account itself must sign, and may withdraw everything.
    const state: State = new Map([[nonce.toBase58(), uninitialized(500)]]);
    const own = SystemProgram.nonceWithdraw({ noncePubkey: nonce, toPubkey: to, authorizedPubkey: nonce, lamports: 500 });
    const ownKeys = [meta(nonce, true, true), ...own.keys.slice(1, 4)];
    assert.equal(run(withKeys(own, ownKeys), state).error, null);
    assert.equal(state.get(to.toBase58())!.lamports, 500);
    state.set(nonce.toBase58(), uninitialized(500));
    assert.equal(run(withKeys(SystemProgram.nonceWithdraw({ noncePubkey: nonce, toPubkey: to, authorizedPubkey: nonce, lamports: 501 }), ownKeys), state).error, 'InsufficientFunds');
    const other = SystemProgram.nonceWithdraw({ noncePubkey: nonce, toPubkey: to, authorizedPubkey: authority, lamports: 500 });
    const r = run(other, state);
    assert.equal(r.error, 'MissingRequiredSignature', 'signed by someone else');
    assert.deepEqual(r.logs, [`Withdraw nonce account: Account ${nonce.toBase58()} must sign`]);
  });

  test('authorize hands the nonce to a new authority', () => {
    const next = key();
    const state: State = new Map([[nonce.toBase58(), initialized(hash(1), 'legacy')]]);
    const ix = SystemProgram.nonceAuthorize({ noncePubkey: nonce, authorizedPubkey: authority, newAuthorizedPubkey: next });
    assert.equal(run(ix, state).error, null);
    const after = decodeNonceState(state.get(nonce.toBase58())!.data);
    assert.deepEqual(after, { version: 'legacy', state: 'initialized', data: { authority: next.toBase58(), blockhash: hash(1), lamportsPerSignature: 5000 } });

    const r = run(ix, state);
    assert.equal(r.error, 'MissingRequiredSignature');
    assert.deepEqual(r.logs, [`Authorize nonce account: Account ${next.toBase58()} must sign`]);
    assert.equal(run(ix, new Map([[nonce.toBase58(), uninitialized()]])).error, 'InvalidAccountData');
    assert.equal(run(withKeys(ix, [meta(nonce, false, false), ix.keys[1]!]), new Map([[nonce.toBase58(), initialized(hash(1))]])).error, 'InvalidArgument');
  });

  test('upgrade turns a legacy nonce into a current one', () => {
    const ix = { keys: [meta(nonce, false, true)], data: Buffer.from([12, 0, 0, 0]) };
    const state: State = new Map([[nonce.toBase58(), initialized(hash(4), 'legacy')]]);
    assert.equal(run(ix, state).error, null);
    const after = decodeNonceState(state.get(nonce.toBase58())!.data);
    assert.equal(after?.version, 'current');
    // Agave's Versions::upgrade moves the legacy blockhash into the durable-nonce domain.
    assert.equal(after?.state === 'initialized' && after.data.blockhash, durableNonceFromBlockhash(hash(4)));
    assert.equal(run(ix, state).error, 'InvalidArgument', 'already current');
    assert.equal(run(ix, new Map([[nonce.toBase58(), uninitialized()]])).error, 'InvalidArgument');
    assert.equal(run(ix, new Map([[nonce.toBase58(), { ...initialized(hash(4), 'legacy'), owner: OTHER_PROGRAM.toBase58() }]])).error, 'InvalidAccountOwner');
    assert.equal(run({ ...ix, keys: [meta(nonce, false, false)] }, new Map([[nonce.toBase58(), initialized(hash(4), 'legacy')]])).error, 'InvalidArgument');
    assert.equal(run({ ...ix, keys: [] }, state).error, 'NotEnoughAccountKeys');
  });
});

describe('jsonParsed: system instructions', () => {
  const a = () => key().toBase58();
  const parse = (ix: TransactionInstruction) => parseSystemInstruction(ix.data, ix.keys.map((k) => k.pubkey.toBase58()));

  test('shapes match Agave parse_system', () => {
    const from = key();
    const to = key();
    const base = key();
    const auth = key();
    const o = OTHER_PROGRAM.toBase58();
    assert.deepEqual(parse(SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 55 })), {
      type: 'transfer',
      info: { source: from.toBase58(), destination: to.toBase58(), lamports: 55 },
    });
    assert.deepEqual(parse(SystemProgram.createAccount({ fromPubkey: from, newAccountPubkey: to, lamports: 1, space: 2, programId: OTHER_PROGRAM })), {
      type: 'createAccount',
      info: { source: from.toBase58(), newAccount: to.toBase58(), lamports: 1, space: 2, owner: o },
    });
    assert.deepEqual(parse(SystemProgram.assign({ accountPubkey: to, programId: OTHER_PROGRAM })), { type: 'assign', info: { account: to.toBase58(), owner: o } });
    assert.deepEqual(
      parse(SystemProgram.createAccountWithSeed({ fromPubkey: from, newAccountPubkey: to, basePubkey: base, seed: 's', lamports: 3, space: 4, programId: OTHER_PROGRAM })),
      { type: 'createAccountWithSeed', info: { source: from.toBase58(), newAccount: to.toBase58(), base: base.toBase58(), seed: 's', lamports: 3, space: 4, owner: o } },
    );
    assert.deepEqual(parse(SystemProgram.nonceAdvance({ noncePubkey: to, authorizedPubkey: auth })), {
      type: 'advanceNonce',
      info: { nonceAccount: to.toBase58(), recentBlockhashesSysvar: SYSVAR_RECENT_BLOCKHASHES_ID, nonceAuthority: auth.toBase58() },
    });
    assert.deepEqual(parse(SystemProgram.nonceWithdraw({ noncePubkey: to, toPubkey: from, authorizedPubkey: auth, lamports: 9 })), {
      type: 'withdrawFromNonce',
      info: {
        nonceAccount: to.toBase58(),
        destination: from.toBase58(),
        recentBlockhashesSysvar: SYSVAR_RECENT_BLOCKHASHES_ID,
        rentSysvar: SYSVAR_RENT_ID,
        nonceAuthority: auth.toBase58(),
        lamports: 9,
      },
    });
    assert.deepEqual(parse(SystemProgram.nonceInitialize({ noncePubkey: to, authorizedPubkey: auth })), {
      type: 'initializeNonce',
      info: { nonceAccount: to.toBase58(), recentBlockhashesSysvar: SYSVAR_RECENT_BLOCKHASHES_ID, rentSysvar: SYSVAR_RENT_ID, nonceAuthority: auth.toBase58() },
    });
    assert.deepEqual(parse(SystemProgram.nonceAuthorize({ noncePubkey: to, authorizedPubkey: auth, newAuthorizedPubkey: base })), {
      type: 'authorizeNonce',
      info: { nonceAccount: to.toBase58(), nonceAuthority: auth.toBase58(), newAuthorized: base.toBase58() },
    });
    assert.deepEqual(parseSystemInstruction(Buffer.from([12, 0, 0, 0]), [to.toBase58()]), { type: 'upgradeNonce', info: { nonceAccount: to.toBase58() } });
    assert.deepEqual(parse(SystemProgram.allocate({ accountPubkey: to, space: 7 })), { type: 'allocate', info: { account: to.toBase58(), space: 7 } });
    assert.deepEqual(parse(SystemProgram.allocate({ accountPubkey: to, basePubkey: base, seed: 'q', space: 7, programId: OTHER_PROGRAM })), {
      type: 'allocateWithSeed',
      info: { account: to.toBase58(), base: base.toBase58(), seed: 'q', space: 7, owner: o },
    });
    assert.deepEqual(parse(SystemProgram.assign({ accountPubkey: to, basePubkey: base, seed: 'q', programId: OTHER_PROGRAM })), {
      type: 'assignWithSeed',
      info: { account: to.toBase58(), base: base.toBase58(), seed: 'q', owner: o },
    });
    assert.deepEqual(parse(SystemProgram.transfer({ fromPubkey: from, basePubkey: base, toPubkey: to, lamports: 5, seed: 'q', programId: OTHER_PROGRAM })), {
      type: 'transferWithSeed',
      info: { source: from.toBase58(), sourceBase: base.toBase58(), destination: to.toBase58(), lamports: 5, sourceSeed: 'q', sourceOwner: o },
    });
  });

  test('too few accounts or bad data do not parse', () => {
    const ix = SystemProgram.transfer({ fromPubkey: key(), toPubkey: key(), lamports: 1 });
    assert.equal(parseSystemInstruction(ix.data, [a()]), null);
    assert.equal(parseSystemInstruction(Buffer.from([2, 0, 0]), [a(), a()]), null);
    const w = SystemProgram.nonceWithdraw({ noncePubkey: key(), toPubkey: key(), authorizedPubkey: key(), lamports: 1 });
    assert.equal(parseSystemInstruction(w.data, [a(), a(), a(), a()]), null);
  });
});

describe('jsonParsed: nonce accounts', () => {
  test('initialized nonce', () => {
    const authority = key().toBase58();
    const account = { ...newAccount(NONCE_MIN, 0, SYSTEM_PROGRAM_ID), data: nonceAccountData({ version: 'current', state: 'initialized', data: { authority, blockhash: hash(5), lamportsPerSignature: 5000 } }) };
    assert.deepEqual(parseNonceAccount(key().toBase58(), account), {
      program: 'nonce',
      parsed: { type: 'initialized', info: { authority, blockhash: hash(5), feeCalculator: { lamportsPerSignature: '5000' } } },
      space: 80,
    });
  });

  test('uninitialized, foreign or non-nonce data does not parse', () => {
    assert.equal(parseNonceAccount(key().toBase58(), newAccount(NONCE_MIN, 80, SYSTEM_PROGRAM_ID)), null);
    assert.equal(parseNonceAccount(key().toBase58(), newAccount(1, 0, SYSTEM_PROGRAM_ID)), null);
    const foreign = { ...newAccount(1, 0, OTHER_PROGRAM.toBase58()), data: nonceAccountData({ version: 'current', state: 'initialized', data: { authority: key().toBase58(), blockhash: hash(5), lamportsPerSignature: 1 } }) };
    assert.equal(parseNonceAccount(key().toBase58(), foreign), null);
  });
});
