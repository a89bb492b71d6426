/**
 * Staking against @solana/web3.js v1 on a real node with short epochs: the validator's votes, a stake
 * account's whole life (create, delegate, warm-up over an epoch boundary, split, authorize,
 * deactivate, cool-down, withdraw), inflation rewards paid at epoch boundaries, and the stake
 * program's exact errors for bad input, with nothing changed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Authorized,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SendTransactionError,
  StakeAuthorizationLayout,
  StakeProgram,
  SystemProgram,
  Transaction,
  sendAndConfirmTransaction,
  type Signer,
} from '@solana/web3.js';
import fs from 'node:fs';
import { rpc, startTestNode, tempLedger, waitFor, type TestNode } from '../helpers/node.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';
import { checkValueConservation } from '../helpers/conservation.ts';
import { rejectionOf } from '../helpers/thrown.ts';

const SLOTS_PER_EPOCH = 32;
const VOTE_PROGRAM = 'Vote111111111111111111111111111111111111111';

let node: TestNode;
let conn: Connection;
let payer: Keypair;
let votePubkey: PublicKey;

async function send(tx: Transaction, signers: Signer[]) {
  return sendAndConfirmTransaction(conn, tx, signers, { commitment: 'confirmed' });
}

const sendError = (p: Promise<unknown>) => rejectionOf(p, SendTransactionError);

async function epochNow(): Promise<number> {
  return (await conn.getEpochInfo('confirmed')).epoch;
}

async function waitForEpoch(epoch: number): Promise<void> {
  await waitFor(async () => (await epochNow()) >= epoch, { what: `epoch ${epoch}`, timeoutMs: 30_000 });
}

const activation = (pubkey: PublicKey) => conn.getStakeActivation(pubkey, 'confirmed');

/** A new stake account funded by `payer` with `lamports` on top of its rent-exempt reserve. */
async function createStake(authorized: Authorized, lamports: number): Promise<{ stake: Keypair; reserve: number }> {
  const stake = Keypair.generate();
  const reserve = await conn.getMinimumBalanceForRentExemption(StakeProgram.space);
  await send(new Transaction().add(StakeProgram.createAccount({ fromPubkey: payer.publicKey, stakePubkey: stake.publicKey, authorized, lamports: reserve + lamports })), [payer, stake]);
  return { stake, reserve };
}

before(async () => {
  node = await startTestNode({ slotMs: 40, slotsPerEpoch: SLOTS_PER_EPOCH });
  conn = new Connection(node.rpcUrl, { commitment: 'confirmed', wsEndpoint: node.pubsubUrl });
  payer = Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey);
  votePubkey = new PublicKey(node.genesis.voteAccount);
});

after(async () => {
  await closeConnectionSocket(conn);
  await node.stop();
});

describe('the validator votes', () => {
  it('puts a Vote transaction for the previous slot first in each block, signed by its identity', async () => {
    await waitFor(async () => (await conn.getSlot('confirmed')) > 3, { what: 'a few slots' });
    const slot = (await conn.getSlot('confirmed')) - 1;
    const block = await conn.getBlock(slot, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    assert.ok(block);
    const vote = block.transactions[0]!;
    const keys = vote.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    assert.equal(keys[0], node.genesis.identity);
    assert.ok(keys.includes(VOTE_PROGRAM) && keys.includes(node.genesis.voteAccount));
    assert.equal(vote.meta?.err, null);
    assert.deepEqual(vote.meta?.logMessages, [`Program ${VOTE_PROGRAM} invoke [1]`, `Program ${VOTE_PROGRAM} success`]);
    assert.equal(vote.meta?.fee, 5000);
    const parent = await conn.getBlock(slot - 1, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    assert.equal(vote.transaction.message.recentBlockhash, parent!.blockhash, 'it votes on its parent with that block\'s hash');
  });

  it('getVoteAccounts shows the vote account as current, with its stake, last vote, root and epoch credits', async () => {
    await waitForEpoch(2);
    const epoch = await epochNow();
    const slotBefore = await conn.getSlot('confirmed');
    const { current, delinquent } = await conn.getVoteAccounts('confirmed');
    const slotAfter = await conn.getSlot('confirmed');
    assert.equal(delinquent.length, 0);
    assert.equal(current.length, 1);
    const v = current[0]!;
    assert.equal(v.votePubkey, node.genesis.voteAccount);
    assert.equal(v.nodePubkey, node.genesis.identity);
    assert.equal(v.commission, 0);
    assert.ok(v.activatedStake >= 500_000 * LAMPORTS_PER_SOL);
    assert.equal(v.epochVoteAccount, true);
    assert.ok(v.lastVote >= slotBefore - 1 && v.lastVote <= slotAfter - 1, 'it voted on the slot before the confirmed one');
    const raw = await rpc(node.rpcUrl, 'getVoteAccounts', [{ commitment: 'confirmed' }]);
    const rootSlot: number = raw.result.current[0].rootSlot;
    assert.ok(rootSlot > 0 && rootSlot <= raw.result.current[0].lastVote - 31, 'the tower roots a slot after 31 newer votes');
    // Timely votes land one slot late: 16 credits for each rooted slot.
    const full = v.epochCredits.find(([e]) => e === epoch - 1);
    assert.ok(full, JSON.stringify(v.epochCredits));
    assert.equal(full[1] - full[2], 16 * SLOTS_PER_EPOCH);
  });

  it('jsonParsed shows the vote account\'s state and the Vote instruction', async () => {
    const parsed = await conn.getParsedAccountInfo(votePubkey, 'confirmed');
    const data = parsed.value?.data as { program: string; space: number; parsed: { type: string; info: { nodePubkey: string; votes: Array<{ slot: number; confirmationCount: number }>; epochCredits: unknown[]; rootSlot: number | null } } };
    assert.equal(data.program, 'vote');
    assert.equal(data.space, 3762);
    assert.equal(data.parsed.type, 'vote');
    assert.equal(data.parsed.info.nodePubkey, node.genesis.identity);
    assert.equal(data.parsed.info.votes.length, 31);
    assert.deepEqual(data.parsed.info.votes.map((v) => v.confirmationCount), Array.from({ length: 31 }, (_, i) => 31 - i));
    const slot = (await conn.getSlot('confirmed')) - 1;
    const block = (await rpc(node.rpcUrl, 'getBlock', [slot, { encoding: 'jsonParsed', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }])).result;
    const ix = block.transactions[0].transaction.message.instructions[0] as { program: string; parsed: { type: string; info: { voteAccount: string; voteAuthority: string; vote: { slots: number[]; hash: string } } } };
    assert.equal(ix.program, 'vote');
    assert.equal(ix.parsed.type, 'vote');
    assert.equal(ix.parsed.info.voteAccount, node.genesis.voteAccount);
    assert.equal(ix.parsed.info.voteAuthority, node.genesis.identity);
    assert.deepEqual(ix.parsed.info.vote.slots, [slot - 1]);
    assert.equal(ix.parsed.info.vote.hash, block.previousBlockhash);
  });

  it('counts votes in getTransactionCount but leaves them out of logsSubscribe `all`', async () => {
    const a = await conn.getTransactionCount('confirmed');
    await waitFor(async () => (await conn.getTransactionCount('confirmed')) >= a + 3, { what: 'votes counted' });
    const seen: string[] = [];
    const withVotes: string[] = [];
    const s1 = conn.onLogs('all', (l) => seen.push(l.signature), 'confirmed');
    const s2 = conn.onLogs('allWithVotes', (l) => withVotes.push(l.signature), 'confirmed');
    await waitFor(() => withVotes.length >= 3, { what: 'vote logs' });
    await conn.removeOnLogsListener(s1);
    await conn.removeOnLogsListener(s2);
    assert.equal(seen.filter((s) => withVotes.includes(s)).length, 0);
  });
});

describe('a stake account across epochs', () => {
  const staker = Keypair.generate();
  const withdrawer = Keypair.generate();
  let stake: Keypair;
  let reserve: number;
  let delegatedEpoch: number;

  it('getStakeMinimumDelegation is 1 SOL, as the stake program enforces', async () => {
    // web3.js returns the whole RpcResponse here.
    const res = (await conn.getStakeMinimumDelegation({ commitment: 'confirmed' })) as unknown as { context: { slot: number }; value: number };
    assert.equal(res.value, LAMPORTS_PER_SOL);
    assert.ok(res.context.slot > 0);
  });

  it('creates, then delegates; the stake is activating in its epoch', async () => {
    ({ stake, reserve } = await createStake(new Authorized(staker.publicKey, withdrawer.publicKey), 5 * LAMPORTS_PER_SOL));
    assert.deepEqual(await activation(stake.publicKey), { state: 'inactive', active: 0, inactive: 5 * LAMPORTS_PER_SOL });
    await send(new Transaction().add(StakeProgram.delegate({ stakePubkey: stake.publicKey, authorizedPubkey: staker.publicKey, votePubkey })), [payer, staker]);
    delegatedEpoch = await epochNow();
    const a = await activation(stake.publicKey);
    if (delegatedEpoch === (await epochNow())) assert.deepEqual(a, { state: 'activating', active: 0, inactive: 5 * LAMPORTS_PER_SOL });
  });

  it('a delegation below the minimum fails with InsufficientDelegation (0xc) and changes nothing', async () => {
    const { stake: small } = await createStake(new Authorized(staker.publicKey, withdrawer.publicKey), LAMPORTS_PER_SOL / 2);
    const before = await conn.getAccountInfo(small.publicKey);
    const e = await sendError(send(new Transaction().add(StakeProgram.delegate({ stakePubkey: small.publicKey, authorizedPubkey: staker.publicKey, votePubkey })), [payer, staker]));
    assert.match(e.message, /custom program error: 0xc/);
    assert.deepEqual((await conn.getAccountInfo(small.publicKey))?.data, before?.data);
  });

  it('is fully active from the next epoch (9% of the cluster stake may warm up per epoch)', async () => {
    await waitForEpoch(delegatedEpoch + 1);
    assert.deepEqual(await activation(stake.publicKey), { state: 'active', active: 5 * LAMPORTS_PER_SOL, inactive: 0 });
    const { current } = await conn.getVoteAccounts('confirmed');
    assert.ok(current[0]!.activatedStake >= 500_005 * LAMPORTS_PER_SOL);
  });

  it('withdrawing staked lamports fails with InsufficientFunds and changes nothing', async () => {
    const before = await conn.getBalance(stake.publicKey);
    const to = Keypair.generate().publicKey;
    const tx = new Transaction().add(StakeProgram.withdraw({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey, toPubkey: to, lamports: LAMPORTS_PER_SOL }));
    const e = await sendError(send(tx, [payer, withdrawer]));
    assert.match(e.message, /Error processing Instruction 0: insufficient funds for instruction/);
    const logs = await e.getLogs(conn);
    assert.deepEqual(logs, [`Program ${StakeProgram.programId.toBase58()} invoke [1]`, `Program ${StakeProgram.programId.toBase58()} failed: insufficient funds for instruction`]);
    // On chain too (no preflight): the fee is charged, the stake and the recipient are untouched.
    tx.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
    tx.feePayer = payer.publicKey;
    tx.sign(payer, withdrawer);
    const sig = await conn.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    await conn.confirmTransaction(sig, 'confirmed').catch(() => undefined);
    const landed = await waitFor(() => conn.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }), { what: 'the failed withdrawal' });
    assert.deepEqual(landed!.meta?.err, { InstructionError: [0, 'InsufficientFunds'] });
    assert.equal(await conn.getBalance(stake.publicKey), before);
    assert.equal(await conn.getBalance(to), 0);
  });

  it('earns inflation rewards once active: getInflationReward and the block rewards show them', async () => {
    const epoch = delegatedEpoch + 1;
    await waitForEpoch(epoch + 1);
    const [reward] = await conn.getInflationReward([stake.publicKey], epoch, 'confirmed');
    assert.ok(reward, 'a reward for the epoch after activation');
    assert.equal(reward.epoch, epoch);
    assert.equal(reward.effectiveSlot, (epoch + 1) * SLOTS_PER_EPOCH);
    assert.ok(reward.amount > 0);
    const block = await conn.getBlock(reward.effectiveSlot, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, rewards: true });
    const inBlock = block!.rewards!.find((r) => r.pubkey === stake.publicKey.toBase58());
    assert.deepEqual(inBlock, { pubkey: stake.publicKey.toBase58(), lamports: reward.amount, postBalance: reward.postBalance, rewardType: 'Staking', commission: 0 });
    // Rewards compound into the delegation.
    const parsed = await conn.getParsedAccountInfo(stake.publicKey, 'confirmed');
    const info = (parsed.value?.data as { parsed?: { info?: { stake?: { delegation?: { stake?: string } } } } }).parsed?.info;
    assert.ok(Number(info?.stake?.delegation?.stake) >= 5 * LAMPORTS_PER_SOL + reward.amount);
    await checkValueConservation(node);
  });

  let split: Keypair;
  it('splits 2 SOL of active stake into a prefunded account', async () => {
    split = Keypair.generate();
    // web3.js's split creates the new account paid by the stake authority.
    await send(new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: staker.publicKey, lamports: LAMPORTS_PER_SOL })), [payer]);
    const before = await activation(stake.publicKey);
    await send(new Transaction().add(StakeProgram.split({ stakePubkey: stake.publicKey, authorizedPubkey: staker.publicKey, splitStakePubkey: split.publicKey, lamports: 2 * LAMPORTS_PER_SOL }, reserve)), [payer, staker, split]);
    assert.deepEqual(await activation(split.publicKey), { state: 'active', active: 2 * LAMPORTS_PER_SOL, inactive: 0 });
    const after = await activation(stake.publicKey);
    assert.equal(after.active, before.active - 2 * LAMPORTS_PER_SOL);
  });

  const newStaker = Keypair.generate();
  it('re-authorizes the staker; the old one can no longer deactivate', async () => {
    await send(
      new Transaction().add(StakeProgram.authorize({ stakePubkey: stake.publicKey, authorizedPubkey: staker.publicKey, newAuthorizedPubkey: newStaker.publicKey, stakeAuthorizationType: StakeAuthorizationLayout.Staker })),
      [payer, staker],
    );
    const parsed = await conn.getParsedAccountInfo(stake.publicKey, 'confirmed');
    const meta = (parsed.value?.data as { parsed: { info: { meta: { authorized: { staker: string; withdrawer: string } } } } }).parsed.info.meta;
    assert.deepEqual(meta.authorized, { staker: newStaker.publicKey.toBase58(), withdrawer: withdrawer.publicKey.toBase58() });
    const e = await sendError(send(new Transaction().add(StakeProgram.deactivate({ stakePubkey: stake.publicKey, authorizedPubkey: staker.publicKey })), [payer, staker]));
    assert.match(e.message, /missing required signature for instruction/);
  });

  let deactivatedEpoch: number;
  it('deactivates: deactivating in this epoch, a second deactivation is AlreadyDeactivated (0x2)', async () => {
    await send(new Transaction().add(StakeProgram.deactivate({ stakePubkey: stake.publicKey, authorizedPubkey: newStaker.publicKey })), [payer, newStaker]);
    deactivatedEpoch = await epochNow();
    const a = await activation(stake.publicKey);
    const balance = await conn.getBalance(stake.publicKey, 'confirmed');
    if (deactivatedEpoch === (await epochNow())) {
      assert.equal(a.state, 'deactivating');
      assert.equal(a.inactive, balance - a.active - reserve);
    }
    const e = await sendError(send(new Transaction().add(StakeProgram.deactivate({ stakePubkey: stake.publicKey, authorizedPubkey: newStaker.publicKey })), [payer, newStaker]));
    assert.match(e.message, /custom program error: 0x2/);
  });

  it('is inactive after cool-down, and then everything can be withdrawn (the account closes)', async () => {
    await waitForEpoch(deactivatedEpoch + 1);
    const balance = await conn.getBalance(stake.publicKey, 'confirmed');
    assert.deepEqual(await activation(stake.publicKey), { state: 'inactive', active: 0, inactive: balance - reserve });
    const to = Keypair.generate().publicKey;
    // One lamport more than the balance is refused.
    const e = await sendError(send(new Transaction().add(StakeProgram.withdraw({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey, toPubkey: to, lamports: balance + 1 })), [payer, withdrawer]));
    assert.match(e.message, /insufficient funds for instruction/);
    await send(new Transaction().add(StakeProgram.withdraw({ stakePubkey: stake.publicKey, authorizedPubkey: withdrawer.publicKey, toPubkey: to, lamports: balance })), [payer, withdrawer]);
    assert.equal(await conn.getAccountInfo(stake.publicKey, 'confirmed'), null);
    assert.equal(await conn.getBalance(to, 'confirmed'), balance);
  });

  it('getStakeActivation refuses other epochs and accounts that are not stake accounts', async () => {
    const epoch = await epochNow();
    const e1 = await rpc(node.rpcUrl, 'getStakeActivation', [split.publicKey.toBase58(), { commitment: 'confirmed', epoch: epoch + 5 }]);
    assert.equal(e1.error.code, -32602);
    assert.match(e1.error.message, /Only the current epoch/);
    const e2 = await rpc(node.rpcUrl, 'getStakeActivation', [payer.publicKey.toBase58(), { commitment: 'confirmed' }]);
    assert.equal(e2.error.message, 'Invalid param: not a stake account');
    const e3 = await rpc(node.rpcUrl, 'getStakeActivation', [Keypair.generate().publicKey.toBase58(), { commitment: 'confirmed' }]);
    assert.equal(e3.error.message, 'Invalid param: account not found');
  });

  it('the stake config account of genesis parses as Agave shows it', async () => {
    const parsed = await conn.getParsedAccountInfo(new PublicKey('StakeConfig11111111111111111111111111111111'), 'confirmed');
    assert.deepEqual(parsed.value?.data, { program: 'config', parsed: { type: 'stakeConfig', info: { warmupCooldownRate: 0.25, slashPenalty: 12 } }, space: 10 });
  });

  it('getSupply counts the bootstrap stake as non-circulating and the minted rewards in the total', async () => {
    const { value } = await conn.getSupply({ commitment: 'confirmed' });
    assert.ok(value.nonCirculatingAccounts.map((k) => k.toBase58()).includes(node.genesis.stakeAccount));
    assert.equal(value.circulating + value.nonCirculating, value.total);
    const genesis = node.genesis.accounts.reduce((n, a) => n + a.lamports, 0);
    const { burned, minted } = node.chain.supply();
    assert.ok(minted > 0);
    assert.ok(Math.abs(value.total - (genesis + minted - burned)) < 10 * LAMPORTS_PER_SOL);
  });
});

describe('warm-up of a large stake', () => {
  it('90,000 SOL on a 500,000 SOL cluster activates over several epochs, 9% of the effective stake at a time', async () => {
    const whale = Keypair.fromSecretKey(node.keys.devAccounts[1]!.secretKey);
    const stake = Keypair.generate();
    const reserve = await conn.getMinimumBalanceForRentExemption(StakeProgram.space);
    const amount = 90_000 * LAMPORTS_PER_SOL;
    await send(
      new Transaction()
        .add(StakeProgram.createAccount({ fromPubkey: whale.publicKey, stakePubkey: stake.publicKey, authorized: new Authorized(whale.publicKey, whale.publicKey), lamports: reserve + amount }))
        .add(StakeProgram.delegate({ stakePubkey: stake.publicKey, authorizedPubkey: whale.publicKey, votePubkey })),
      [whale, stake],
    );
    const start = await epochNow();
    await waitForEpoch(start + 1);
    const partial = await activation(stake.publicKey);
    // The cluster's effective stake is a little over 500,000 SOL: about 45,000 SOL may warm up in the first epoch.
    assert.equal(partial.state, 'activating');
    assert.ok(partial.active > 44_000 * LAMPORTS_PER_SOL && partial.active < 47_000 * LAMPORTS_PER_SOL, String(partial.active));
    assert.equal(partial.active + partial.inactive, amount);
    await waitFor(async () => (await activation(stake.publicKey)).state === 'active', { what: 'full activation', timeoutMs: 30_000 });
    assert.ok((await epochNow()) >= start + 2, 'more than one epoch');
    const parsed = (await rpc(node.rpcUrl, 'getAccountInfo', ['SysvarStakeHistory1111111111111111111111111', { encoding: 'jsonParsed', commitment: 'confirmed' }])).result.value.data.parsed;
    const atStart = parsed.info.find((e: { epoch: number }) => e.epoch === start);
    assert.ok(atStart.stakeHistory.activating >= amount, 'the stake history counted it as activating in its first epoch');
  });
});

describe('a restart keeps the staking state', () => {
  it('stake history, minted rewards and the vote tower survive; votes and epochs go on', async () => {
    const ledger = tempLedger();
    const first = await startTestNode({ ledger, slotMs: 20, slotsPerEpoch: SLOTS_PER_EPOCH });
    try {
      await waitFor(() => first.chain.currentStakeHistory().length >= 3 && first.chain.supply().minted > 0, { what: 'three epochs with rewards', timeoutMs: 30_000 });
      await checkValueConservation(first);
    } finally {
      await first.close();
    }
    const minted = first.chain.supply().minted;
    const historyBefore = [...first.chain.currentStakeHistory()];
    const second = await startTestNode({ ledger, slotMs: 20, slotsPerEpoch: SLOTS_PER_EPOCH });
    try {
      assert.ok(second.chain.supply().minted >= minted);
      assert.deepEqual(second.chain.currentStakeHistory().slice(-historyBefore.length), historyBefore);
      const history = (await rpc(second.rpcUrl, 'getAccountInfo', ['SysvarStakeHistory1111111111111111111111111', { encoding: 'jsonParsed', commitment: 'confirmed' }])).result.value.data.parsed;
      assert.equal(history.type, 'stakeHistory');
      assert.ok(history.info.length >= historyBefore.length);
      const epoch = (await rpc(second.rpcUrl, 'getEpochInfo', [{ commitment: 'confirmed' }])).result.epoch;
      await waitFor(async () => (await rpc(second.rpcUrl, 'getEpochInfo', [{ commitment: 'confirmed' }])).result.epoch > epoch, { what: 'the next epoch', timeoutMs: 30_000 });
      const votes = (await rpc(second.rpcUrl, 'getVoteAccounts', [{ commitment: 'confirmed' }])).result;
      assert.equal(votes.current.length, 1, 'the validator kept voting after the restart');
      assert.ok(second.chain.supply().minted > minted, 'rewards were paid after the restart');
      await checkValueConservation(second);
    } finally {
      await second.stop();
      fs.rmSync(ledger, { recursive: true, force: true });
    }
  });
});
