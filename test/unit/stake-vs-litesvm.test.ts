/**
 * The Stake program differentially: the same transactions run on LiteSVM (the real stake program,
 * with a vote account this node's encoder wrote, so the real program reads our VoteState V3) and on
 * this node's executor; both must agree on the error and on every byte and lamport of the accounts.
 * LiteSVM ships today's core-BPF stake program; the cases here are ones where its rules and the 1.18
 * builtin's agree. Logs and compute units differ (BPF `Program log: Instruction: …` and `consumed`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LiteSVM, type FailedTransactionMetadata } from 'litesvm';
import {
  AccountRole,
  addSignersToTransactionMessage,
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { Authorized, Keypair, LAMPORTS_PER_SOL, StakeAuthorizationLayout, StakeProgram, type PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { STAKE_PROGRAM_ID, SYSTEM_PROGRAM_ID, VOTE_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { DEFAULT_RENT } from '../../node-core/ledger/genesis-config.ts';
import type { Account } from '../../node-core/runtime/account.ts';
import { builtinProgramAccount } from '../../node-core/runtime/executor.ts';
import { encodeVoteState, incrementCredits, newVoteState, processNextVoteSlot } from '../../node-core/runtime/programs/vote/state.ts';
import { SYSVAR_IDS, type Sysvars } from '../../node-core/runtime/sysvars.ts';
import { parseTransaction } from '../../node-core/runtime/wire.ts';
import { executeOnMap } from '../helpers/map-executor.ts';
import { engineTransactionError } from '../../node-core/runtime/sbf/engine-errors.ts';


const kitIx = (ix: TransactionInstruction) => ({
  programAddress: address(ix.programId.toBase58()),
  accounts: ix.keys.map((k) => ({
    address: address(k.pubkey.toBase58()),
    role: k.isSigner ? (k.isWritable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER) : k.isWritable ? AccountRole.WRITABLE : AccountRole.READONLY,
  })),
  data: new Uint8Array(ix.data),
});

class Twin {
  readonly svm = new LiteSVM();
  readonly accounts = new Map<string, Account>();
  readonly sysvars: Sysvars;
  constructor() {
    const clock = this.svm.getClock();
    this.sysvars = {
      clock: { slot: Number(clock.slot), epochStartTimestamp: Number(clock.epochStartTimestamp), epoch: Number(clock.epoch), leaderScheduleEpoch: Number(clock.leaderScheduleEpoch), unixTimestamp: Number(clock.unixTimestamp) },
      rent: DEFAULT_RENT,
      epochSchedule: { slotsPerEpoch: 432_000, leaderScheduleSlotOffset: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
      recentBlockhashes: [{ blockhash: '11111111111111111111111111111111', lamportsPerSignature: 5000 }],
      slotHashes: [],
      lamportsPerSignature: 5000,
      stakeHistory: [],
    };
    this.accounts.set(SYSTEM_PROGRAM_ID, builtinProgramAccount('system_program'));
    this.accounts.set(STAKE_PROGRAM_ID, builtinProgramAccount('stake_program'));
  }

  set(key: PublicKey, a: Account): void {
    this.svm.setAccount({ address: address(key.toBase58()), lamports: lamports(BigInt(a.lamports)), data: a.data, programAddress: address(a.owner), executable: false, space: BigInt(a.data.length) } as never);
    this.accounts.set(key.toBase58(), a);
  }

  async run(signers: Keypair[], ixs: TransactionInstruction[], expectErr: unknown = null): Promise<void> {
    const [payer, ...rest] = await Promise.all(signers.map((k) => createKeyPairSignerFromBytes(k.secretKey)));
    const message = pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayerSigner(payer!, m),
      (m) => this.svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
      (m) => appendTransactionMessageInstructions(ixs.map(kitIx) as never, m),
      (m) => addSignersToTransactionMessage(rest, m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const raw = this.svm.sendTransaction(signed);
    this.svm.expireBlockhash();
    const tx = parseTransaction(new Uint8Array(Buffer.from(getBase64EncodedWireTransaction(signed), 'base64')));
    const ours = executeOnMap(tx, this.accounts, this.sysvars);
    const failed = 'err' in raw && typeof (raw as FailedTransactionMetadata).err === 'function';
    const theirs = failed ? engineTransactionError((raw as FailedTransactionMetadata).err()) : null;
    const what = ours.logs.join(' | ');
    assert.deepEqual(ours.err, theirs, what);
    assert.deepEqual(ours.err, expectErr, what);
    for (const key of tx.message.accountKeys) {
      // The stake config account (read by nothing since reduce_stake_warmup_cooldown) is only in LiteSVM's genesis.
      if (SYSVAR_IDS.has(key) || key === STAKE_PROGRAM_ID || key === SYSTEM_PROGRAM_ID || key === 'StakeConfig11111111111111111111111111111111') continue;
      const t = this.svm.getAccount(address(key));
      const mine = this.accounts.get(key);
      if (!t.exists) {
        assert.ok(!mine, `${key} exists only here`);
        continue;
      }
      assert.ok(mine, `${key} missing here`);
      assert.equal(mine.lamports, Number(t.lamports), `${key} lamports: ${what}`);
      assert.equal(mine.owner, t.programAddress, `${key} owner`);
      assert.equal(Buffer.from(mine.data).toString('hex'), Buffer.from(t.data).toString('hex'), `${key} data: ${what}`);
    }
  }
}

describe('the Stake program against the real one (LiteSVM)', () => {
  it('create, delegate to a vote account we encoded, split, authorize, deactivate, withdraw: same bytes and errors', async () => {
    const w = new Twin();
    const payer = Keypair.generate();
    w.set(payer.publicKey, { lamports: 1000 * LAMPORTS_PER_SOL, data: new Uint8Array(0), owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: 0 });
    const node = Keypair.generate().publicKey.toBase58();
    const v = newVoteState({ nodePubkey: node, authorizedVoter: node, authorizedWithdrawer: node, commission: 10 }, 0);
    for (let s = 1; s <= 40; s++) processNextVoteSlot(v, s, 0, s + 1);
    incrementCredits(v, 0, 5);
    const vote = Keypair.generate().publicKey;
    w.set(vote, { lamports: LAMPORTS_PER_SOL, data: encodeVoteState(v, 3762), owner: VOTE_PROGRAM_ID, executable: false, rentEpoch: 0 });

    const staker = Keypair.generate();
    const withdrawer = Keypair.generate();
    w.set(staker.publicKey, { lamports: 10 * LAMPORTS_PER_SOL, data: new Uint8Array(0), owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: 0 });
    const stake = Keypair.generate();
    const reserve = 2_282_880;
    const authorized = new Authorized(staker.publicKey, withdrawer.publicKey);
    await w.run([payer, stake], StakeProgram.createAccount({ fromPubkey: payer.publicKey, stakePubkey: stake.publicKey, authorized, lamports: reserve + 10 * LAMPORTS_PER_SOL }).instructions);
    // Below the minimum delegation, then the real delegation (credits observed from our vote state).
    const small = Keypair.generate();
    await w.run([payer, small], StakeProgram.createAccount({ fromPubkey: payer.publicKey, stakePubkey: small.publicKey, authorized, lamports: reserve + LAMPORTS_PER_SOL / 2 }).instructions);
    await w.run([payer, staker], StakeProgram.delegate({ stakePubkey: small.publicKey, authorizedPubkey: staker.publicKey, votePubkey: vote }).instructions, { InstructionError: [0, { Custom: 12 }] });
    await w.run([payer, withdrawer], StakeProgram.delegate({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey, votePubkey: vote }).instructions, { InstructionError: [0, 'MissingRequiredSignature'] });
    await w.run([payer, staker], StakeProgram.delegate({ stakePubkey: stake.publicKey, authorizedPubkey: staker.publicKey, votePubkey: vote }).instructions);
    // Staked lamports cannot be withdrawn.
    const to = Keypair.generate().publicKey;
    await w.run([payer, withdrawer], StakeProgram.withdraw({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey, toPubkey: to, lamports: 1 }).instructions, { InstructionError: [0, 'InsufficientFunds'] });
    // Split an activating stake into a new account.
    const split = Keypair.generate();
    await w.run([payer, staker, split], StakeProgram.split({ stakePubkey: stake.publicKey, authorizedPubkey: staker.publicKey, splitStakePubkey: split.publicKey, lamports: 3 * LAMPORTS_PER_SOL }, reserve).instructions);
    await w.run(
      [payer, staker],
      StakeProgram.authorize({ stakePubkey: stake.publicKey, authorizedPubkey: staker.publicKey, newAuthorizedPubkey: withdrawer.publicKey, stakeAuthorizationType: StakeAuthorizationLayout.Staker }).instructions,
    );
    await w.run([payer, withdrawer], StakeProgram.deactivate({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey }).instructions);
    await w.run([payer, withdrawer], StakeProgram.deactivate({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey }).instructions, { InstructionError: [0, { Custom: 2 }] });
    // Deactivated in its activation epoch: nothing was ever effective, so everything can be withdrawn.
    const balance = w.accounts.get(stake.publicKey.toBase58())!.lamports;
    await w.run([payer, withdrawer], StakeProgram.withdraw({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey, toPubkey: to, lamports: balance + 1 }).instructions, { InstructionError: [0, 'InsufficientFunds'] });
    await w.run([payer, withdrawer], StakeProgram.withdraw({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey, toPubkey: to, lamports: balance }).instructions);
  });
});
