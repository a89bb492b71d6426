import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, PublicKey, SYSVAR_CLOCK_PUBKEY, SYSVAR_SLOT_HASHES_PUBKEY, VoteAccount, VoteInit, VoteProgram, VoteAuthorizationLayout } from '@solana/web3.js';
import { VOTE_PROGRAM_ID, type Address } from '../../node-core/common/pubkey.ts';
import type { Account } from '../../node-core/runtime/account.ts';
import { voteProgram } from '../../node-core/runtime/programs/vote/program.ts';
import { decodeVoteInstruction, encodeVoteInstruction } from '../../node-core/runtime/programs/vote/instruction.ts';
import {
  VOTE_STATE_V1_14_11_SIZE,
  VOTE_STATE_V3_SIZE,
  creditsForLatency,
  credits,
  decodeVoteState,
  encodeVoteState,
  newVoteState,
  processNextVoteSlot,
  type VoteState,
} from '../../node-core/runtime/programs/vote/state.ts';
import { voteStateData } from '../../node-core/ledger/genesis-accounts.ts';
import { parseVoteAccount, parseVoteInstruction } from '../../node-core/rpc/encoding/parsed/vote.ts';
import { TEST_RENT, runInstruction, testSysvars } from '../helpers/program-context.ts';
import { minimumBalanceForRentExemption } from '../../node-core/runtime/account.ts';

const addr = () => Keypair.generate().publicKey.toBase58();
const hashOf = (n: number) => new PublicKey(new Uint8Array(32).fill(n)).toBase58();

function voteAccount(s: VoteState, size = VOTE_STATE_V3_SIZE, lamports = minimumBalanceForRentExemption(TEST_RENT, size)): Account {
  return { lamports, data: encodeVoteState(s, size), owner: VOTE_PROGRAM_ID, executable: false, rentEpoch: 0 };
}

describe('vote state layouts', () => {
  test('V3 is 3,762 bytes and V1_14_11 3,731; both round-trip', () => {
    const s = newVoteState({ nodePubkey: addr(), authorizedVoter: addr(), authorizedWithdrawer: addr(), commission: 7 }, 2);
    for (let slot = 1; slot <= 40; slot++) processNextVoteSlot(s, slot, 2, slot + 1);
    s.lastTimestamp = { slot: 40, timestamp: 1_700_000_040 };
    const v3 = encodeVoteState(s, VOTE_STATE_V3_SIZE);
    assert.equal(v3.length, 3762);
    assert.deepEqual(decodeVoteState(v3), s);
    const old = encodeVoteState(s, VOTE_STATE_V1_14_11_SIZE);
    assert.equal(old.length, 3731);
    assert.equal(old[0], 1);
    const back = decodeVoteState(old)!;
    assert.deepEqual(back.votes.map((v) => [v.slot, v.confirmationCount]), s.votes.map((v) => [v.slot, v.confirmationCount]));
  });

  test('web3.js VoteAccount (which reads the 1.14.11 layout) agrees with the encoder', () => {
    const node = addr();
    const withdrawer = addr();
    const s = newVoteState({ nodePubkey: node, authorizedVoter: node, authorizedWithdrawer: withdrawer, commission: 10 }, 0);
    for (let slot = 1; slot <= 35; slot++) processNextVoteSlot(s, slot, 1, slot + 1);
    const va = VoteAccount.fromAccountData(Buffer.from(encodeVoteState(s, VOTE_STATE_V1_14_11_SIZE)));
    assert.equal(va.nodePubkey.toBase58(), node);
    assert.equal(va.authorizedWithdrawer.toBase58(), withdrawer);
    assert.equal(va.commission, 10);
    assert.equal(va.rootSlot, 4);
    assert.deepEqual(va.votes.map((v) => v.slot), s.votes.map((v) => v.slot));
    assert.deepEqual(va.epochCredits, [{ epoch: 1, credits: 64, prevCredits: 0 }]);
  });

  test('the genesis vote account is an initialized V3 state with commission 0', () => {
    const node = addr();
    const s = decodeVoteState(voteStateData(node, node, 0))!;
    assert.equal(s.nodePubkey, node);
    assert.equal(s.commission, 0);
    assert.deepEqual(s.authorizedVoters, [[0, node]]);
    assert.equal(decodeVoteState(new Uint8Array(VOTE_STATE_V3_SIZE)), null, 'zeroes are uninitialized');
  });
});

describe('the tower', () => {
  test('lockouts double, the 32nd vote roots the first, and each rooted slot earns timely credits', () => {
    const s = newVoteState({ nodePubkey: addr(), authorizedVoter: addr(), authorizedWithdrawer: addr(), commission: 0 }, 0);
    for (let slot = 1; slot <= 31; slot++) processNextVoteSlot(s, slot, 0, slot + 1);
    assert.equal(s.rootSlot, null);
    assert.deepEqual(s.votes.map((v) => v.confirmationCount), Array.from({ length: 31 }, (_, i) => 31 - i));
    processNextVoteSlot(s, 32, 0, 33);
    assert.equal(s.rootSlot, 1);
    assert.equal(credits(s), 16);
    // A vote after a gap pops the lockouts that expired.
    processNextVoteSlot(s, 40, 0, 41);
    assert.ok(s.votes.length < 31);
    assert.equal(s.votes[s.votes.length - 1]!.slot, 40);
  });

  test('credits by latency: 16 within 2 slots, one fewer per slot after, at least 1', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 17, 18, 100].map(creditsForLatency), [1, 16, 16, 15, 14, 1, 1, 1]);
  });
});

describe('vote instructions', () => {
  test('decodes what web3.js VoteProgram emits and the validator\'s own Vote', () => {
    const votePubkey = Keypair.generate().publicKey;
    const init = VoteProgram.initializeAccount({ votePubkey, nodePubkey: votePubkey, voteInit: new VoteInit(votePubkey, votePubkey, votePubkey, 5) });
    assert.deepEqual(decodeVoteInstruction(init.data), { type: 'initialize', nodePubkey: votePubkey.toBase58(), authorizedVoter: votePubkey.toBase58(), authorizedWithdrawer: votePubkey.toBase58(), commission: 5 });
    const auth = VoteProgram.authorize({ votePubkey, authorizedPubkey: votePubkey, newAuthorizedPubkey: PublicKey.default, voteAuthorizationType: VoteAuthorizationLayout.Withdrawer });
    assert.deepEqual(decodeVoteInstruction(auth.instructions[0]!.data), { type: 'authorize', newAuthority: PublicKey.default.toBase58(), authorizeType: 'withdrawer' });
    const w = VoteProgram.withdraw({ votePubkey, authorizedWithdrawerPubkey: votePubkey, lamports: 42, toPubkey: votePubkey });
    assert.deepEqual(decodeVoteInstruction(w.instructions[0]!.data), { type: 'withdraw', lamports: 42n });
    const vote = { slots: [7, 8], hash: hashOf(3), timestamp: 1_700_000_000 };
    assert.deepEqual(decodeVoteInstruction(encodeVoteInstruction(vote)), { type: 'vote', vote });
    const accounts = [addr(), SYSVAR_SLOT_HASHES_PUBKEY.toBase58(), SYSVAR_CLOCK_PUBKEY.toBase58(), addr()];
    assert.deepEqual(parseVoteInstruction(encodeVoteInstruction(vote), accounts), {
      type: 'vote',
      info: { voteAccount: accounts[0], slotHashesSysvar: accounts[1], clockSysvar: accounts[2], voteAuthority: accounts[3], vote },
    });
  });

  function voteSetup() {
    const voter = Keypair.generate();
    const vote = Keypair.generate();
    const s = newVoteState({ nodePubkey: voter.publicKey.toBase58(), authorizedVoter: voter.publicKey.toBase58(), authorizedWithdrawer: voter.publicKey.toBase58(), commission: 0 }, 0);
    const state = new Map<Address, Account>([[vote.publicKey.toBase58(), voteAccount(s)]]);
    const keys = (signer = true) => [
      { pubkey: vote.publicKey, isSigner: false, isWritable: true },
      { pubkey: SYSVAR_SLOT_HASHES_PUBKEY, isSigner: false, isWritable: false },
      { pubkey: SYSVAR_CLOCK_PUBKEY, isSigner: false, isWritable: false },
      { pubkey: voter.publicKey, isSigner: signer, isWritable: false },
    ];
    return { voter, vote, state, keys };
  }

  const slotHashes: Array<[number, string]> = [
    [99, hashOf(99)],
    [98, hashOf(98)],
    [97, hashOf(97)],
  ];
  const sysvars = testSysvars({ slotHashes });

  test('a vote checked against SlotHashes lands; bad ones fail with the VoteError and change nothing', () => {
    const { vote, state, keys } = voteSetup();
    const key = vote.publicKey.toBase58();
    const before = state.get(key)!.data;
    const run = (v: { slots: number[]; hash: string; timestamp: number | null }, signer = true) => runInstruction(voteProgram, { keys: keys(signer), data: encodeVoteInstruction(v) }, state, sysvars).error;
    assert.deepEqual(run({ slots: [98], hash: hashOf(1), timestamp: null }), { Custom: 2 }); // SlotHashMismatch
    assert.deepEqual(run({ slots: [50], hash: hashOf(50), timestamp: null }), { Custom: 16 }); // VotesTooOldAllFiltered
    assert.deepEqual(run({ slots: [], hash: hashOf(1), timestamp: null }), { Custom: 3 }); // EmptySlots
    assert.deepEqual(run({ slots: [97, 100], hash: hashOf(99), timestamp: null }), { Custom: 1 }); // SlotsMismatch
    assert.equal(run({ slots: [99], hash: hashOf(99), timestamp: null }, false), 'MissingRequiredSignature');
    assert.deepEqual(state.get(key)!.data, before);
    assert.equal(run({ slots: [98], hash: hashOf(98), timestamp: 1_700_000_000 }), null);
    assert.deepEqual(run({ slots: [98], hash: hashOf(98), timestamp: null }), { Custom: 0 }); // VoteTooOld
    assert.deepEqual(run({ slots: [99], hash: hashOf(99), timestamp: 1_600_000_000 }), { Custom: 4 }); // TimestampTooOld
    const s = decodeVoteState(state.get(key)!.data)!;
    assert.deepEqual(s.votes, [{ latency: 2, slot: 98, confirmationCount: 1 }]);
    assert.deepEqual(s.lastTimestamp, { slot: 98, timestamp: 1_700_000_000 });
  });

  test('withdraw keeps the rent-exempt minimum unless it closes the account; the withdrawer must sign', () => {
    const { voter, vote, state } = voteSetup();
    const key = vote.publicKey.toBase58();
    state.get(key)!.lamports += 1000;
    const to = Keypair.generate().publicKey;
    const withdraw = (lamports: number) => VoteProgram.withdraw({ votePubkey: vote.publicKey, authorizedWithdrawerPubkey: voter.publicKey, lamports, toPubkey: to }).instructions[0]!;
    assert.equal(runInstruction(voteProgram, withdraw(1001), state, sysvars).error, 'InsufficientFunds');
    assert.equal(runInstruction(voteProgram, withdraw(1000), state, sysvars).error, null);
    assert.equal(state.get(to.toBase58())!.lamports, 1000);
    const rest = state.get(key)!.lamports;
    assert.equal(runInstruction(voteProgram, withdraw(rest), state, sysvars).error, null, 'no credits yet: it may close');
    assert.equal(state.get(key)!.lamports, 0);
    assert.equal(decodeVoteState(state.get(key)!.data), null);
  });

  test('authorize a new voter: it takes effect at the leader-schedule epoch + 1; the parsed account shows it', () => {
    const { voter, vote, state } = voteSetup();
    const newVoter = Keypair.generate().publicKey;
    const tx = VoteProgram.authorize({ votePubkey: vote.publicKey, authorizedPubkey: voter.publicKey, newAuthorizedPubkey: newVoter, voteAuthorizationType: VoteAuthorizationLayout.Voter });
    assert.equal(runInstruction(voteProgram, tx.instructions[0]!, state, sysvars).error, null);
    const s = decodeVoteState(state.get(vote.publicKey.toBase58())!.data)!;
    assert.deepEqual(s.authorizedVoters, [
      [3, voter.publicKey.toBase58()],
      [5, newVoter.toBase58()],
    ]);
    assert.deepEqual(runInstruction(voteProgram, tx.instructions[0]!, state, sysvars).error, { Custom: 5 }); // TooSoonToReauthorize
    const parsed = parseVoteAccount(vote.publicKey.toBase58(), state.get(vote.publicKey.toBase58())!) as { parsed: { type: string; info: Record<string, unknown> } };
    assert.equal(parsed.parsed.type, 'vote');
    assert.deepEqual(parsed.parsed.info.priorVoters, [{ authorizedPubkey: voter.publicKey.toBase58(), epochOfLastAuthorizedSwitch: 0, targetEpoch: 5 }]);
  });
});

describe('whole proposed towers (UpdateVoteState, TowerSync)', () => {
  const bytes32 = (b58: string) => new PublicKey(b58).toBytes();
  function updateVoteStateData(lockouts: Array<{ slot: number; confirmationCount: number }>, root: number | null, hash: string, timestamp: number | null): Buffer {
    const parts: number[] = [8, 0, 0, 0];
    const u64 = (v: bigint | number) => parts.push(...new Uint8Array(new BigUint64Array([BigInt(v)]).buffer));
    u64(lockouts.length);
    for (const l of lockouts) {
      u64(l.slot);
      parts.push(...new Uint8Array(new Uint32Array([l.confirmationCount]).buffer));
    }
    if (root === null) parts.push(0);
    else {
      parts.push(1);
      u64(root);
    }
    parts.push(...bytes32(hash));
    if (timestamp === null) parts.push(0);
    else {
      parts.push(1);
      u64(timestamp);
    }
    return Buffer.from(parts);
  }
  function towerSyncData(lockouts: Array<{ slot: number; confirmationCount: number }>, root: number, hash: string, blockId: string): Buffer {
    const parts: number[] = [14, 0, 0, 0, ...new Uint8Array(new BigUint64Array([BigInt(root)]).buffer), lockouts.length];
    let prev = root;
    for (const l of lockouts) {
      let off = l.slot - prev;
      prev = l.slot;
      do {
        const b = off & 0x7f;
        off = Math.floor(off / 128);
        parts.push(off ? b | 0x80 : b);
      } while (off);
      parts.push(l.confirmationCount);
    }
    parts.push(...bytes32(hash), 0, ...bytes32(blockId));
    return Buffer.from(parts);
  }

  function setup() {
    const voter = Keypair.generate();
    const vote = Keypair.generate();
    const s = newVoteState({ nodePubkey: voter.publicKey.toBase58(), authorizedVoter: voter.publicKey.toBase58(), authorizedWithdrawer: voter.publicKey.toBase58(), commission: 0 }, 0);
    for (let slot = 1; slot <= 35; slot++) processNextVoteSlot(s, slot, 0, slot + 1);
    const expected = decodeVoteState(encodeVoteState(s, VOTE_STATE_V3_SIZE))!;
    processNextVoteSlot(expected, 36, 0, 37);
    const state = new Map<Address, Account>([[vote.publicKey.toBase58(), voteAccount(s)]]);
    const keys = [
      { pubkey: vote.publicKey, isSigner: false, isWritable: true },
      { pubkey: voter.publicKey, isSigner: true, isWritable: false },
    ];
    const slotHashes: Array<[number, string]> = Array.from({ length: 37 }, (_, i) => [36 - i, hashOf(36 - i)] as [number, string]);
    const sysvars = testSysvars({ clock: { ...testSysvars().clock, slot: 37, epoch: 0 }, slotHashes });
    return { vote, state, keys, expected, sysvars };
  }

  test('UpdateVoteState with the tower after one more vote gives the same state as that vote', () => {
    const { vote, state, keys, expected, sysvars } = setup();
    const lockouts = expected.votes.map((v) => ({ slot: v.slot, confirmationCount: v.confirmationCount }));
    const data = updateVoteStateData(lockouts, expected.rootSlot, hashOf(36), null);
    assert.equal(runInstruction(voteProgram, { keys, data }, state, sysvars).error, null);
    assert.deepEqual(decodeVoteState(state.get(vote.publicKey.toBase58())!.data), expected);
    assert.equal(credits(expected), 5 * 16);
  });

  test('TowerSync (compact, with offsets) likewise; a wrong hash or a root rolled back is refused', () => {
    const { vote, state, keys, expected, sysvars } = setup();
    const lockouts = expected.votes.map((v) => ({ slot: v.slot, confirmationCount: v.confirmationCount }));
    assert.deepEqual(runInstruction(voteProgram, { keys, data: towerSyncData(lockouts, expected.rootSlot!, hashOf(1), hashOf(9)) }, state, sysvars).error, { Custom: 2 });
    assert.equal(runInstruction(voteProgram, { keys, data: towerSyncData(lockouts, expected.rootSlot!, hashOf(36), hashOf(9)) }, state, sysvars).error, null);
    assert.deepEqual(decodeVoteState(state.get(vote.publicKey.toBase58())!.data), expected);
    const parsed = parseVoteInstruction(towerSyncData(lockouts, expected.rootSlot!, hashOf(36), hashOf(9)), keys.map((k) => k.pubkey.toBase58())) as { type: string; info: { towerSync: { root: number; lockouts: unknown[] } } };
    assert.equal(parsed.type, 'towersync');
    assert.equal(parsed.info.towerSync.root, expected.rootSlot);
    assert.equal(parsed.info.towerSync.lockouts.length, 31);
    // Proposing an older root than the account's: RootRollBack (12).
    const older = updateVoteStateData([{ slot: 36, confirmationCount: 1 }], 2, hashOf(36), null);
    const moreSysvars = testSysvars({ clock: { ...sysvars.clock, slot: 38 }, slotHashes: [[37, hashOf(37)], ...sysvars.slotHashes] });
    assert.deepEqual(runInstruction(voteProgram, { keys, data: older }, state, moreSysvars).error, { Custom: 0 }, 'not newer than the last vote: VoteTooOld');
    const rollback = updateVoteStateData([{ slot: 37, confirmationCount: 1 }], 2, hashOf(37), null);
    assert.deepEqual(runInstruction(voteProgram, { keys, data: rollback }, state, moreSysvars).error, { Custom: 12 });
  });
});
