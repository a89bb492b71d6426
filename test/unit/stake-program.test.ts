import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Authorized, Keypair, Lockup, PublicKey, StakeAuthorizationLayout, StakeProgram, SYSVAR_CLOCK_PUBKEY, SYSVAR_STAKE_HISTORY_PUBKEY, type TransactionInstruction } from '@solana/web3.js';
import { DEFAULT_PUBKEY, STAKE_PROGRAM_ID, VOTE_PROGRAM_ID, type Address } from '../../node-core/common/pubkey.ts';
import { minimumBalanceForRentExemption, type Account } from '../../node-core/runtime/account.ts';
import { stakeProgram } from '../../node-core/runtime/programs/stake/program.ts';
import { decodeStakeInstruction } from '../../node-core/runtime/programs/stake/instruction.ts';
import {
  EPOCH_MAX,
  MINIMUM_DELEGATION,
  STAKE_STATE_SIZE,
  addHistoryEntry,
  decodeStakeHistory,
  decodeStakeState,
  encodeStakeHistory,
  encodeStakeState,
  newDelegation,
  stakeActivatingAndDeactivating,
  type StakeHistory,
  type StakeState,
} from '../../node-core/runtime/programs/stake/state.ts';
import { encodeVoteState, newVoteState, incrementCredits, VOTE_STATE_V3_SIZE } from '../../node-core/runtime/programs/vote/state.ts';
import { commissionSplit, processEpochBoundary, stakePoints } from '../../node-core/ledger/epoch-rewards.ts';
import { Bank } from '../../node-core/ledger/bank.ts';
import { SYSVAR_STAKE_HISTORY_ID } from '../../node-core/runtime/sysvars.ts';
import type { GenesisConfig } from '../../node-core/ledger/genesis-config.ts';
import { epochValidatorRewards, validatorRate } from '../../node-core/ledger/inflation.ts';
import { DEFAULT_INFLATION } from '../../node-core/ledger/genesis-config.ts';
import { parseStakeAccount, parseStakeInstruction } from '../../node-core/rpc/encoding/parsed/stake.ts';
import { TEST_RENT, runInstruction, testSysvars } from '../helpers/program-context.ts';

const SOL = 1_000_000_000;
const RESERVE = minimumBalanceForRentExemption(TEST_RENT, STAKE_STATE_SIZE);

const stakeAccount = (lamports: number, s: StakeState = { kind: 'uninitialized' }): Account => ({
  lamports,
  data: encodeStakeState(s, new Uint8Array(STAKE_STATE_SIZE)),
  owner: STAKE_PROGRAM_ID,
  executable: false,
  rentEpoch: 0,
});

function voteAccount(): Account {
  const v = newVoteState({ nodePubkey: Keypair.generate().publicKey.toBase58(), authorizedVoter: Keypair.generate().publicKey.toBase58(), authorizedWithdrawer: Keypair.generate().publicKey.toBase58(), commission: 10 }, 0);
  incrementCredits(v, 1, 500);
  return { lamports: 1, data: encodeVoteState(v, VOTE_STATE_V3_SIZE), owner: VOTE_PROGRAM_ID, executable: false, rentEpoch: 0 };
}

const stateOf = (state: Map<Address, Account>, k: PublicKey) => decodeStakeState(state.get(k.toBase58())!.data);

describe('StakeStateV2 and StakeHistory layouts', () => {
  test('a delegated stake is 200 bytes in the bincode layout and round-trips; the parsed form is Agave\'s', () => {
    const staker = Keypair.generate().publicKey.toBase58();
    const voter = Keypair.generate().publicKey.toBase58();
    const s: StakeState = {
      kind: 'stake',
      meta: { rentExemptReserve: RESERVE, staker, withdrawer: staker, lockup: { unixTimestamp: 5, epoch: 6, custodian: voter } },
      stake: { delegation: newDelegation(voter, 7 * SOL, 3), creditsObserved: 42 },
      flags: 0,
    };
    const data = encodeStakeState(s, new Uint8Array(STAKE_STATE_SIZE));
    assert.equal(data.length, 200);
    // tag, then meta: reserve at 4, staker at 12, withdrawer at 44, lockup at 76..124, voter at 124, stake at 156
    assert.equal(new DataView(data.buffer).getUint32(0, true), 2);
    assert.equal(new DataView(data.buffer).getBigUint64(4, true), BigInt(RESERVE));
    assert.equal(new PublicKey(data.subarray(124, 156)).toBase58(), voter);
    assert.equal(new DataView(data.buffer).getBigUint64(156, true), BigInt(7 * SOL));
    assert.equal(new DataView(data.buffer).getBigUint64(172, true), 2n ** 64n - 1n, 'not deactivated: u64::MAX');
    assert.equal(new DataView(data.buffer).getFloat64(180, true), 0.25, 'the 1.18 warmup_cooldown_rate field');
    assert.deepEqual(decodeStakeState(data), s);
    const parsed = parseStakeAccount('x', { lamports: RESERVE + 7 * SOL, data, owner: STAKE_PROGRAM_ID, executable: false, rentEpoch: 0 });
    assert.deepEqual(parsed, {
      program: 'stake',
      space: 200,
      parsed: {
        type: 'delegated',
        info: {
          meta: { rentExemptReserve: String(RESERVE), authorized: { staker, withdrawer: staker }, lockup: { unixTimestamp: 5, epoch: 6, custodian: voter } },
          stake: { delegation: { voter, stake: String(7 * SOL), activationEpoch: '3', deactivationEpoch: '18446744073709551615', warmupCooldownRate: 0.25 }, creditsObserved: 42 },
        },
      },
    });
  });

  test('StakeHistory keeps the newest epoch first in 16,392 bytes', () => {
    let h: StakeHistory = [];
    h = addHistoryEntry(h, 0, { effective: 1, activating: 2, deactivating: 3 });
    h = addHistoryEntry(h, 1, { effective: 4, activating: 5, deactivating: 6 });
    const data = encodeStakeHistory(h);
    assert.equal(data.length, 16392);
    assert.deepEqual(decodeStakeHistory(data), [
      [1, { effective: 4, activating: 5, deactivating: 6 }],
      [0, { effective: 1, activating: 2, deactivating: 3 }],
    ]);
  });
});

describe('warm-up and cool-down', () => {
  // A cluster with 1,000 SOL effective, and one delegation of 500 SOL made in epoch 10.
  const d = newDelegation('x', 500 * SOL, 10);
  const history: StakeHistory = [
    [12, { effective: 1180 * SOL, activating: 320 * SOL, deactivating: 0 }],
    [11, { effective: 1090 * SOL, activating: 410 * SOL, deactivating: 0 }],
    [10, { effective: 1000 * SOL, activating: 500 * SOL, deactivating: 0 }],
  ];
  test('activating in its epoch; 9% of the cluster\'s effective stake a epoch, by share of the activating stake', () => {
    assert.deepEqual(stakeActivatingAndDeactivating(d, 10, history), { effective: 0, activating: 500 * SOL, deactivating: 0 });
    // epoch 11: 9% of 1000 = 90 SOL, all of it ours (we are all the activating stake)
    assert.deepEqual(stakeActivatingAndDeactivating(d, 11, history), { effective: 90 * SOL, activating: 410 * SOL, deactivating: 0 });
    // epoch 12: 9% of 1090 = 98.1 SOL
    assert.deepEqual(stakeActivatingAndDeactivating(d, 12, history), { effective: 188.1 * SOL, activating: 311.9 * SOL, deactivating: 0 });
  });

  test('bootstrap stake (activation epoch u64::MAX) is always effective; deactivating cools down the same way', () => {
    assert.deepEqual(stakeActivatingAndDeactivating(newDelegation('x', 5, EPOCH_MAX), 0, []), { effective: 5, activating: 0, deactivating: 0 });
    const off = { ...newDelegation('x', 100 * SOL, EPOCH_MAX), deactivationEpoch: 20 };
    const h: StakeHistory = [[20, { effective: 1000 * SOL, activating: 0, deactivating: 100 * SOL }]];
    assert.deepEqual(stakeActivatingAndDeactivating(off, 20, h), { effective: 100 * SOL, activating: 0, deactivating: 100 * SOL });
    assert.deepEqual(stakeActivatingAndDeactivating(off, 21, h), { effective: 10 * SOL, activating: 0, deactivating: 10 * SOL });
  });
});

describe('stake instructions from web3.js', () => {
  const staker = Keypair.generate();
  const withdrawer = Keypair.generate();
  const stake = Keypair.generate();
  const votePubkey = Keypair.generate().publicKey;

  test('decode as the stake program reads them', () => {
    const init = StakeProgram.initialize({ stakePubkey: stake.publicKey, authorized: new Authorized(staker.publicKey, withdrawer.publicKey), lockup: new Lockup(1, 2, staker.publicKey) });
    assert.deepEqual(decodeStakeInstruction(init.data), {
      type: 'initialize',
      staker: staker.publicKey.toBase58(),
      withdrawer: withdrawer.publicKey.toBase58(),
      lockup: { unixTimestamp: 1, epoch: 2, custodian: staker.publicKey.toBase58() },
    });
    const ix = (t: { instructions: TransactionInstruction[] }) => t.instructions[0]!;
    assert.deepEqual(decodeStakeInstruction(ix(StakeProgram.delegate({ stakePubkey: stake.publicKey, authorizedPubkey: staker.publicKey, votePubkey })).data), { type: 'delegate' });
    assert.deepEqual(decodeStakeInstruction(ix(StakeProgram.withdraw({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey, toPubkey: votePubkey, lamports: 9 })).data), { type: 'withdraw', lamports: 9n });
    assert.deepEqual(
      decodeStakeInstruction(ix(StakeProgram.authorize({ stakePubkey: stake.publicKey, authorizedPubkey: staker.publicKey, newAuthorizedPubkey: votePubkey, stakeAuthorizationType: StakeAuthorizationLayout.Withdrawer })).data),
      { type: 'authorize', newAuthority: votePubkey.toBase58(), stakeAuthorize: 'withdrawer' },
    );
    const seeded = ix(StakeProgram.authorizeWithSeed({ stakePubkey: stake.publicKey, authorityBase: staker.publicKey, authoritySeed: 'seed', authorityOwner: votePubkey, newAuthorizedPubkey: votePubkey, stakeAuthorizationType: StakeAuthorizationLayout.Staker }));
    assert.deepEqual(decodeStakeInstruction(seeded.data), { type: 'authorizeWithSeed', newAuthority: votePubkey.toBase58(), stakeAuthorize: 'staker', seed: 'seed', owner: votePubkey.toBase58() });
    const keys = ix(StakeProgram.deactivate({ stakePubkey: stake.publicKey, authorizedPubkey: staker.publicKey })).keys.map((k) => k.pubkey.toBase58());
    assert.deepEqual(parseStakeInstruction(Uint8Array.of(5, 0, 0, 0), keys), { type: 'deactivate', info: { stakeAccount: keys[0], clockSysvar: keys[1], stakeAuthority: keys[2] } });
  });

  function setup(lamports = RESERVE + 10 * SOL) {
    const state = new Map<Address, Account>([
      [stake.publicKey.toBase58(), stakeAccount(lamports)],
      [votePubkey.toBase58(), voteAccount()],
    ]);
    const init = StakeProgram.initialize({ stakePubkey: stake.publicKey, authorized: new Authorized(staker.publicKey, withdrawer.publicKey) });
    assert.equal(runInstruction(stakeProgram, init, state).error, null);
    return state;
  }

  test('initialize: rent-exempt reserve recorded; twice is InvalidAccountData', () => {
    const state = setup();
    const s = stateOf(state, stake.publicKey);
    assert.equal(s.kind, 'initialized');
    assert.equal(s.kind === 'initialized' && s.meta.rentExemptReserve, RESERVE);
    const again = StakeProgram.initialize({ stakePubkey: stake.publicKey, authorized: new Authorized(staker.publicKey, withdrawer.publicKey) });
    assert.equal(runInstruction(stakeProgram, again, state).error, 'InvalidAccountData');
  });

  test('delegate: the staker signs, at least 1 SOL, credits observed from the vote account', () => {
    const state = setup();
    const delegate = StakeProgram.delegate({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey, votePubkey }).instructions[0]!;
    assert.equal(runInstruction(stakeProgram, delegate, state).error, 'MissingRequiredSignature');
    const ok = StakeProgram.delegate({ stakePubkey: stake.publicKey, authorizedPubkey: staker.publicKey, votePubkey }).instructions[0]!;
    assert.equal(runInstruction(stakeProgram, ok, state).error, null);
    const s = stateOf(state, stake.publicKey);
    assert.ok(s.kind === 'stake');
    assert.deepEqual([s.stake.delegation.voter, s.stake.delegation.stake, s.stake.delegation.activationEpoch, s.stake.creditsObserved], [votePubkey.toBase58(), 10 * SOL, 3, 500]);
    // Still activating (nothing effective): re-delegating is allowed; deactivated-then-delegated in the same epoch cancels it.
    const small = setup(RESERVE + SOL / 2);
    assert.deepEqual(runInstruction(stakeProgram, ok, small).error, { Custom: 12 }); // InsufficientDelegation
  });

  test('withdraw: never the delegated stake, never below the reserve, all of it closes; lockups hold without the custodian', () => {
    const state = setup();
    const to = Keypair.generate().publicKey;
    const withdraw = (lamports: number, by = withdrawer.publicKey) => StakeProgram.withdraw({ stakePubkey: stake.publicKey, authorizedPubkey: by, toPubkey: to, lamports }).instructions[0]!;
    assert.equal(runInstruction(stakeProgram, withdraw(10 * SOL + 1), state).error, 'InsufficientFunds');
    assert.equal(runInstruction(stakeProgram, withdraw(SOL, staker.publicKey), state).error, 'MissingRequiredSignature');
    assert.equal(runInstruction(stakeProgram, withdraw(SOL), state).error, null);
    const delegate = StakeProgram.delegate({ stakePubkey: stake.publicKey, authorizedPubkey: staker.publicKey, votePubkey }).instructions[0]!;
    assert.equal(runInstruction(stakeProgram, delegate, state).error, null);
    assert.equal(runInstruction(stakeProgram, withdraw(1), state).error, 'InsufficientFunds', 'all but the reserve is staked');
    const deactivate = StakeProgram.deactivate({ stakePubkey: stake.publicKey, authorizedPubkey: staker.publicKey }).instructions[0]!;
    const later = testSysvars({ clock: { ...testSysvars().clock, epoch: 4 } });
    assert.equal(runInstruction(stakeProgram, deactivate, state, later).error, null);
    assert.deepEqual(runInstruction(stakeProgram, deactivate, state, later).error, { Custom: 2 }); // AlreadyDeactivated
    // Activated in 3 and deactivated in 4 with no history: by epoch 6 it is all withdrawable.
    const h: StakeHistory = [
      [5, { effective: 0, activating: 0, deactivating: 0 }],
      [4, { effective: 9 * SOL, activating: 0, deactivating: 9 * SOL }],
      [3, { effective: 0, activating: 9 * SOL, deactivating: 0 }],
    ];
    const done = testSysvars({ clock: { ...testSysvars().clock, epoch: 6 }, stakeHistory: h });
    const balance = state.get(stake.publicKey.toBase58())!.lamports;
    assert.equal(runInstruction(stakeProgram, withdraw(balance), state, done).error, null);
    assert.equal(state.get(stake.publicKey.toBase58())!.lamports, 0);
    assert.equal(stateOf(state, stake.publicKey).kind, 'uninitialized');

    const locked = new Map<Address, Account>([[stake.publicKey.toBase58(), stakeAccount(RESERVE + SOL)]]);
    const custodian = Keypair.generate().publicKey;
    const init = StakeProgram.initialize({ stakePubkey: stake.publicKey, authorized: new Authorized(staker.publicKey, withdrawer.publicKey), lockup: new Lockup(0, 99, custodian) });
    assert.equal(runInstruction(stakeProgram, init, locked).error, null);
    const w = StakeProgram.withdraw({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey, toPubkey: to, lamports: 1 }).instructions[0]!;
    assert.deepEqual(runInstruction(stakeProgram, w, locked).error, { Custom: 1 }); // LockupInForce
    const withCustodian = StakeProgram.withdraw({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey, toPubkey: to, lamports: 1, custodianPubkey: custodian }).instructions[0]!;
    assert.equal(runInstruction(stakeProgram, withCustodian, locked).error, null);
  });

  test('split of an initialized account; a destination that is not an uninitialized stake account is refused', () => {
    const state = setup();
    const dest = Keypair.generate();
    state.set(dest.publicKey.toBase58(), stakeAccount(0));
    const split = (lamports: number) => ({
      keys: [
        { pubkey: stake.publicKey, isSigner: false, isWritable: true },
        { pubkey: dest.publicKey, isSigner: false, isWritable: true },
        { pubkey: staker.publicKey, isSigner: true, isWritable: false },
      ],
      data: Buffer.from([3, 0, 0, 0, ...new Uint8Array(new BigUint64Array([BigInt(lamports)]).buffer)]),
    });
    assert.equal(runInstruction(stakeProgram, split(RESERVE - 1), state).error, 'InsufficientFunds', 'the destination would not be rent-exempt');
    assert.equal(runInstruction(stakeProgram, split(RESERVE + SOL), state).error, null);
    assert.equal(stateOf(state, dest.publicKey).kind, 'initialized');
    assert.equal(state.get(dest.publicKey.toBase58())!.lamports, RESERVE + SOL);
    assert.equal(runInstruction(stakeProgram, split(RESERVE), state).error, 'InvalidAccountData');
  });

  test('authorize with seed, authorize checked; GetMinimumDelegation returns 1 SOL', () => {
    const state = setup();
    const newStaker = Keypair.generate().publicKey;
    const base = Keypair.generate().publicKey;
    const ix = StakeProgram.authorize({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey, newAuthorizedPubkey: newStaker, stakeAuthorizationType: StakeAuthorizationLayout.Staker }).instructions[0]!;
    assert.equal(runInstruction(stakeProgram, ix, state).error, null, 'the withdrawer may change the staker');
    const s = stateOf(state, stake.publicKey);
    assert.equal(s.kind === 'initialized' && s.meta.staker, newStaker.toBase58());
    const seeded = StakeProgram.authorizeWithSeed({ stakePubkey: stake.publicKey, authorityBase: base, authoritySeed: 's', authorityOwner: STAKE_PROGRAM_ID_KEY, newAuthorizedPubkey: base, stakeAuthorizationType: StakeAuthorizationLayout.Staker }).instructions[0]!;
    assert.equal(runInstruction(stakeProgram, seeded, state).error, 'MissingRequiredSignature', 'the derived key is not an authority');
    const min = runInstruction(stakeProgram, { keys: [], data: Buffer.from([13, 0, 0, 0]) }, new Map());
    assert.equal(min.error, null);
    assert.equal(Buffer.from(min.returnData!).readBigUInt64LE(0), BigInt(MINIMUM_DELEGATION));
    assert.equal(runInstruction(stakeProgram, { keys: ix.keys, data: Buffer.from([16, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]) }, state).error, 'InvalidInstructionData', 'MoveStake is not in this program');
    void SYSVAR_CLOCK_PUBKEY;
    void SYSVAR_STAKE_HISTORY_PUBKEY;
  });
});

const STAKE_PROGRAM_ID_KEY = new PublicKey(STAKE_PROGRAM_ID);

describe('rewards', () => {
  test('points are stake × credits earned since the stake last observed; commission splits the reward', () => {
    const v = newVoteState({ nodePubkey: 'a', authorizedVoter: 'a', authorizedWithdrawer: 'a', commission: 0 }, 0);
    v.epochCredits = [
      [1, 100, 0],
      [2, 300, 100],
    ];
    const stake = { delegation: newDelegation('v', 10 * SOL, EPOCH_MAX), creditsObserved: 150 };
    const p = stakePoints(stake, v, []);
    assert.equal(p.points, BigInt(10 * SOL) * 150n);
    assert.equal(p.newCreditsObserved, 300);
    assert.deepEqual(commissionSplit(0, 1000), [0, 1000, false]);
    assert.deepEqual(commissionSplit(10, 1001), [100, 900, true]);
    assert.deepEqual(commissionSplit(100, 7), [7, 0, false]);
  });

  test('inflation: 8% tapering 15% a year to 1.5%, 5% to the foundation for 7 years', () => {
    assert.equal(validatorRate(DEFAULT_INFLATION, 0), 0.08 * 0.95);
    assert.ok(Math.abs(validatorRate(DEFAULT_INFLATION, 1) - 0.08 * 0.85 * 0.95) < 1e-15);
    assert.equal(validatorRate(DEFAULT_INFLATION, 50), 0.015);
    const schedule = { slotsPerEpoch: 432000, leaderScheduleSlotOffset: 432000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 };
    // One 432,000-slot epoch at 400 ms is 2 days; the rate is the one at the next epoch's first slot.
    const years = (432000 * 0.4) / (365.25 * 86400);
    const rewards = epochValidatorRewards(DEFAULT_INFLATION, schedule, 400, 0, 1e15);
    assert.equal(rewards, Math.floor(validatorRate(DEFAULT_INFLATION, years) * 1e15 * years));
    assert.ok(rewards > 4.15e11 && rewards < 4.17e11);
  });
});

describe('the epoch boundary', () => {
  test('adds the ended epoch to the stake history and pays its inflation by points, split by commission', () => {
    const vote = Keypair.generate().publicKey.toBase58();
    const v = newVoteState({ nodePubkey: vote, authorizedVoter: vote, authorizedWithdrawer: vote, commission: 10 }, 0);
    incrementCredits(v, 4, 512); // credits earned in epoch 4, the one ending
    const staker = Keypair.generate().publicKey.toBase58();
    const meta = { rentExemptReserve: RESERVE, staker, withdrawer: staker, lockup: { unixTimestamp: 0, epoch: 0, custodian: DEFAULT_PUBKEY } };
    const active = Keypair.generate().publicKey.toBase58();
    const fresh = Keypair.generate().publicKey.toBase58();
    const accounts = new Map<Address, Account>([
      [vote, { lamports: 10, data: encodeVoteState(v, VOTE_STATE_V3_SIZE), owner: VOTE_PROGRAM_ID, executable: false, rentEpoch: 0 }],
      [active, stakeAccount(RESERVE + 1000 * SOL, { kind: 'stake', meta, stake: { delegation: newDelegation(vote, 1000 * SOL, EPOCH_MAX), creditsObserved: 0 }, flags: 0 })],
      // Delegated in the ending epoch: activating, it earns nothing yet but observes the credits.
      [fresh, stakeAccount(RESERVE + 10 * SOL, { kind: 'stake', meta, stake: { delegation: newDelegation(vote, 10 * SOL, 4), creditsObserved: 0 }, flags: 0 })],
      [SYSVAR_STAKE_HISTORY_ID, { lamports: 1, data: encodeStakeHistory([]), owner: 'Sysvar1111111111111111111111111111111111111', executable: false, rentEpoch: 0 }],
    ]);
    const bank = new Bank(160, 159, null, accounts, testSysvars());
    const schedule = { slotsPerEpoch: 32, leaderScheduleSlotOffset: 32, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 };
    const genesis = { inflation: DEFAULT_INFLATION, epochSchedule: schedule, slotMs: 400 } as unknown as GenesisConfig;
    const capitalization = 1e16;
    const result = processEpochBoundary({ bank, genesis, endedEpoch: 4, epoch: 5, history: [], capitalization });
    assert.deepEqual(result.stakeHistory, [[4, { effective: 1000 * SOL, activating: 10 * SOL, deactivating: 0 }]]);
    assert.deepEqual(decodeStakeHistory(bank.get(SYSVAR_STAKE_HISTORY_ID)!.data), result.stakeHistory);
    const total = epochValidatorRewards(DEFAULT_INFLATION, schedule, 400, 4, capitalization);
    // All points are the active stake's: its reward is all of the epoch's, 10% of it to the vote account.
    const [voter, stakerShare] = commissionSplit(10, total);
    assert.deepEqual(bank.rewards, [
      { pubkey: vote, lamports: voter, postBalance: 10 + voter, rewardType: 'Voting', commission: 10 },
      { pubkey: active, lamports: stakerShare, postBalance: RESERVE + 1000 * SOL + stakerShare, rewardType: 'Staking', commission: 10 },
    ]);
    assert.equal(result.minted, voter + stakerShare);
    const after = decodeStakeState(bank.get(active)!.data);
    assert.ok(after.kind === 'stake');
    assert.deepEqual([after.stake.delegation.stake, after.stake.creditsObserved], [1000 * SOL + stakerShare, 512]);
    const freshAfter = decodeStakeState(bank.get(fresh)!.data);
    assert.ok(freshAfter.kind === 'stake' && freshAfter.stake.creditsObserved === 512 && freshAfter.stake.delegation.stake === 10 * SOL);
  });
});
