/**
 * The leader schedule comes from stake, seen through @solana/web3.js v1: a second validator identity
 * (a vote account no node runs) gets stake; once it is active, the epoch schedules give that identity
 * slots, and those slots pass without a block (skipped), as they would on a cluster where that
 * validator is down. Everything a client reads agrees: the schedule, the slot leaders, the blocks and
 * their parents, block production, block height, the delinquent vote account; transactions still land.
 * The schedule survives a restart.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  Authorized,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  StakeProgram,
  SystemProgram,
  Transaction,
  VoteInit,
  VoteProgram,
  sendAndConfirmTransaction,
  type Signer,
} from '@solana/web3.js';
import { address, createSolanaRpc } from '@solana/kit';
import { fetchSysvarSlotHistory } from '@solana/sysvars';
import { rpc, startTestNode, tempLedger, waitFor, type TestNode } from '../helpers/node.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';

const SLOTS_PER_EPOCH = 32;
const SLOT_MS = 40;

let node: TestNode;
let conn: Connection;
let ledger: string;
const payer = Keypair.generate();
const otherIdentity = Keypair.generate();
const otherVote = Keypair.generate();
let self: string;
let other: string;
/** An epoch whose schedule gives the other identity slots, and those slots (absolute). */
let epoch: number;
let firstSlot: number;
let otherSlots: number[];
let ownSlots: number[];

const send = (tx: Transaction, signers: Signer[]) => sendAndConfirmTransaction(conn, tx, signers, { commitment: 'confirmed' });

async function connect(n: TestNode): Promise<void> {
  node = n;
  conn = new Connection(n.rpcUrl, { commitment: 'confirmed', wsEndpoint: n.pubsubUrl });
  // web3.js reuses a fetched blockhash for 30 s; at 40 ms slots a blockhash expires after ~6 s.
  (conn as unknown as { _disableBlockhashCaching: boolean })._disableBlockhashCaching = true;
}

before(async () => {
  ledger = tempLedger();
  await connect(await startTestNode({ ledger, slotMs: SLOT_MS, slotsPerEpoch: SLOTS_PER_EPOCH }));
  self = node.keys.identity.address;
  other = otherIdentity.publicKey.toBase58();
});

after(async () => {
  await closeConnectionSocket(conn);
  await node.stop();
  fs.rmSync(ledger, { recursive: true, force: true });
});

describe('a lone validator', () => {
  it('leads every slot: getLeaderSchedule, getSlotLeaders and getBlockProduction name only it', async () => {
    const schedule = await conn.getLeaderSchedule();
    assert.deepEqual(Object.keys(schedule), [self]);
    assert.deepEqual(schedule[self], Array.from({ length: SLOTS_PER_EPOCH }, (_, i) => i));
    const slot = await conn.getSlot('finalized');
    assert.deepEqual((await conn.getSlotLeaders(slot, 40)).map((k) => k.toBase58()), new Array(40).fill(self), 'into the next epoch too');
    const production = await conn.getBlockProduction();
    const { firstSlot: from, lastSlot: to } = production.value.range;
    assert.deepEqual(production.value.byIdentity, { [self]: [to - from + 1, to - from + 1] });
  });

  it('refuses schedules it does not know and ranges past its slot, with the messages Agave gives', async () => {
    const slot = await conn.getSlot('finalized');
    assert.equal((await rpc(node.rpcUrl, 'getLeaderSchedule', [slot + 10 * SLOTS_PER_EPOCH])).result, null);
    const leaders = await rpc(node.rpcUrl, 'getSlotLeaders', [slot + 10 * SLOTS_PER_EPOCH, 1]);
    assert.equal(leaders.error.code, -32602);
    assert.match(leaders.error.message, /^Invalid slot range: leader schedule for epoch \d+ is unavailable$/);
    const production = await rpc(node.rpcUrl, 'getBlockProduction', [{ range: { firstSlot: 0, lastSlot: slot + 1000 } }]);
    assert.equal(production.error.code, -32602);
    assert.match(production.error.message, /^lastSlot, \d+, is too large; max \d+$/);
  });
});

describe('a second validator that gets stake but makes no blocks', () => {
  it('is set up with web3.js: a vote account for another identity, and stake delegated to it', async () => {
    await conn.confirmTransaction(await conn.requestAirdrop(payer.publicKey, 420_000 * LAMPORTS_PER_SOL), 'confirmed');
    const voteRent = await conn.getMinimumBalanceForRentExemption(VoteProgram.space);
    await send(
      VoteProgram.createAccount({
        fromPubkey: payer.publicKey,
        votePubkey: otherVote.publicKey,
        voteInit: new VoteInit(otherIdentity.publicKey, otherIdentity.publicKey, otherIdentity.publicKey, 10),
        lamports: voteRent,
      }),
      [payer, otherVote, otherIdentity],
    );
    const stake = Keypair.generate();
    const reserve = await conn.getMinimumBalanceForRentExemption(StakeProgram.space);
    await send(
      new Transaction()
        .add(StakeProgram.createAccount({ fromPubkey: payer.publicKey, stakePubkey: stake.publicKey, authorized: new Authorized(payer.publicKey, payer.publicKey), lamports: reserve + 400_000 * LAMPORTS_PER_SOL }))
        .add(StakeProgram.delegate({ stakePubkey: stake.publicKey, authorizedPubkey: payer.publicKey, votePubkey: otherVote.publicKey })),
      [payer, stake],
    );
  });

  it('gets leader slots in the schedule once its stake is active (in whole groups of 4 slots)', async () => {
    // Stake warms up by 9% of the cluster's stake an epoch; an epoch's schedule is drawn from the stake active when the one before it began.
    const found = await waitFor(
      async () => {
        const info = await conn.getEpochInfo('finalized');
        for (const e of [info.epoch, info.epoch + 1]) {
          // web3.js asks only for the current epoch's schedule; the next one by slot over plain JSON-RPC.
          const schedule = (await rpc(node.rpcUrl, 'getLeaderSchedule', [e * SLOTS_PER_EPOCH])).result as Record<string, number[]> | null;
          if (schedule?.[other]) return { epoch: e, schedule };
        }
        return null;
      },
      { what: 'the other identity in a schedule', timeoutMs: 60_000, everyMs: 200 },
    );
    ({ epoch } = found!);
    firstSlot = epoch * SLOTS_PER_EPOCH;
    const schedule = found!.schedule;
    otherSlots = schedule[other]!.map((i) => firstSlot + i);
    ownSlots = schedule[self]!.map((i) => firstSlot + i);
    assert.deepEqual(Object.keys(schedule).sort(), [self, other].sort());
    assert.equal(otherSlots.length + ownSlots.length, SLOTS_PER_EPOCH);
    assert.equal(otherSlots.length % 4, 0);
    const leaders = (await conn.getSlotLeaders(firstSlot, SLOTS_PER_EPOCH)).map((k) => k.toBase58());
    leaders.forEach((leader, i) => assert.equal(leader, otherSlots.includes(firstSlot + i) ? other : self, `slot ${firstSlot + i}`));
    const only = await rpc(node.rpcUrl, 'getLeaderSchedule', [firstSlot, { identity: other }]);
    assert.deepEqual(only.result, { [other]: schedule[other] });
  });

  it('its slots pass without a block: getBlocks leaves them out, getBlock says skipped, the next block\'s parent jumps over them', async () => {
    const last = firstSlot + SLOTS_PER_EPOCH - 1;
    await waitFor(async () => (await conn.getSlot('finalized')) > last, { what: 'the epoch finalized', timeoutMs: 30_000 });
    assert.deepEqual(await conn.getBlocks(firstSlot, last, 'finalized'), ownSlots, 'a block in each of its own slots, none in the other\'s');
    const skipped = otherSlots[0]!;
    const answer = await rpc(node.rpcUrl, 'getBlock', [skipped, { maxSupportedTransactionVersion: 0 }]);
    assert.deepEqual(answer.error, { code: -32007, message: `Slot ${skipped} was skipped, or missing due to ledger jump to recent snapshot` });
    await assert.rejects(conn.getBlock(skipped, { maxSupportedTransactionVersion: 0 }), /was skipped/);
    assert.equal((await rpc(node.rpcUrl, 'getBlockTime', [skipped])).error.code, -32007);
    const after = ownSlots.find((s) => s > skipped);
    if (after !== undefined) {
      const block = await conn.getBlock(after, { maxSupportedTransactionVersion: 0, transactionDetails: 'none', rewards: false });
      const parent = [...(await conn.getBlocks(0, after - 1, 'finalized'))].pop()!;
      assert.equal(block!.parentSlot, parent, 'the parent is the newest block before it');
      assert.ok(parent < skipped);
    }
  });

  it('getBlockProduction counts its leader slots with no block made, and the node\'s with every block made', async () => {
    const production = await conn.getBlockProduction({ range: { firstSlot, lastSlot: firstSlot + SLOTS_PER_EPOCH - 1 } } as never);
    assert.deepEqual(production.value.byIdentity, { [self]: [ownSlots.length, ownSlots.length], [other]: [otherSlots.length, 0] });
    const one = await rpc(node.rpcUrl, 'getBlockProduction', [{ identity: other, range: { firstSlot, lastSlot: firstSlot + SLOTS_PER_EPOCH - 1 } }]);
    assert.deepEqual(one.result.value.byIdentity, { [other]: [otherSlots.length, 0] });
  });

  it('@solana/kit reads the same schedule, slot leaders and block production', async () => {
    const kit = createSolanaRpc(node.rpcUrl);
    const schedule = await kit.getLeaderSchedule(BigInt(firstSlot), { commitment: 'confirmed' }).send();
    assert.deepEqual(schedule?.[address(other)]?.map(Number), otherSlots.map((s) => s - firstSlot));
    const leaders = await kit.getSlotLeaders(BigInt(firstSlot), 32).send();
    assert.deepEqual(leaders.map((l, i) => (l === other) === otherSlots.includes(firstSlot + i)), new Array(32).fill(true));
    const range = { firstSlot: BigInt(firstSlot), lastSlot: BigInt(firstSlot + SLOTS_PER_EPOCH - 1) };
    const production = await kit.getBlockProduction({ identity: address(other), range }).send();
    assert.deepEqual(production.value.byIdentity, { [other]: [BigInt(otherSlots.length), 0n] });
    assert.deepEqual(production.value.range, range);
  });

  it('block height counts blocks, not slots', async () => {
    const info = await conn.getEpochInfo('finalized');
    const blocks = await conn.getBlocks(0, info.absoluteSlot, 'finalized');
    assert.equal(info.blockHeight, blocks.length - 1, 'the genesis block is height 0');
    assert.ok(info.blockHeight < info.absoluteSlot);
    const block = (await rpc(node.rpcUrl, 'getBlock', [info.absoluteSlot, { maxSupportedTransactionVersion: 0, transactionDetails: 'none', rewards: false }])).result;
    assert.equal(block.blockHeight, info.blockHeight);
  });

  it('getRecentPrioritizationFees answers for the newest 150 blocks, not slots', async () => {
    const fees = await conn.getRecentPrioritizationFees();
    const top = Math.max(...fees.map((f) => f.slot));
    const blocks = await conn.getBlocks(0, top, 'confirmed');
    assert.deepEqual(fees.map((f) => f.slot), blocks.slice(-150));
  });

  it('getVoteAccounts shows its vote account delinquent, with the stake behind it', async () => {
    const { current, delinquent } = await conn.getVoteAccounts('finalized');
    const vote = delinquent.find((v) => v.votePubkey === otherVote.publicKey.toBase58());
    assert.ok(vote, JSON.stringify(delinquent));
    assert.equal(vote.nodePubkey, other);
    assert.ok(vote.activatedStake > 0);
    assert.deepEqual(current.map((v) => v.nodePubkey), [self]);
  });

  it('the SlotHistory sysvar has a bit for each block and none for the skipped slots (@solana/kit and jsonParsed)', async () => {
    await slotHistoryMatchesBlocks();
  });

  it('transactions still land, in slots the node leads', async () => {
    const to = Keypair.generate().publicKey;
    for (let i = 0; i < 5; i++) {
      const signature = await send(new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: LAMPORTS_PER_SOL })), [payer]);
      const status = (await conn.getSignatureStatus(signature)).value!;
      const [leader] = await conn.getSlotLeaders(status.slot, 1);
      assert.equal(leader!.toBase58(), self);
    }
    assert.equal(await conn.getBalance(to, 'confirmed'), 5 * LAMPORTS_PER_SOL);
  });

  it('keeps the schedule across a restart (the epoch stakes are in the ledger)', async () => {
    const slot = await conn.getSlot('finalized');
    const schedule = async () => (await rpc(node.rpcUrl, 'getLeaderSchedule', [slot])).result;
    const before = await schedule();
    assert.ok(before[other], 'the other identity still leads slots');
    await closeConnectionSocket(conn);
    await node.stop();
    await connect(await startTestNode({ ledger, slotMs: SLOT_MS, slotsPerEpoch: SLOTS_PER_EPOCH }));
    assert.deepEqual(await schedule(), before);
    // The slot history is rebuilt from the stored blocks, skipped slots and all.
    await waitFor(async () => (await conn.getSlot('finalized')) > slot, { what: 'a block finalized after the restart' });
    await slotHistoryMatchesBlocks();
  });
});

/** The finalized bank's SlotHistory against getBlocks, through @solana/kit's decoder and web3.js's jsonParsed. */
async function slotHistoryMatchesBlocks(): Promise<void> {
  const kit = createSolanaRpc(node.rpcUrl);
  const history = await fetchSysvarSlotHistory(kit, { commitment: 'finalized' });
  const finalized = Number(history.nextSlot) - 1;
  const blocks = new Set(await conn.getBlocks(0, finalized, 'finalized'));
  assert.ok(otherSlots.every((s) => s <= finalized && !blocks.has(s)), 'the other identity\'s slots are in the window, without blocks');
  const bit = (s: number) => (history.bits[Math.floor(s / 64)]! >> BigInt(s % 64)) & 1n;
  for (let s = 0; s <= finalized; s++) assert.equal(bit(s), blocks.has(s) ? 1n : 0n, `slot ${s}`);
  for (let s = finalized + 1; s < finalized + 64; s++) assert.equal(bit(s), 0n, `slot ${s} is after the bank`);

  const parsed = (await rpc(node.rpcUrl, 'getAccountInfo', ['SysvarS1otHistory11111111111111111111111111', { encoding: 'jsonParsed', commitment: 'finalized', minContextSlot: finalized }])).result.value;
  assert.equal(parsed.data.program, 'sysvar');
  assert.equal(parsed.data.parsed.type, 'slotHistory');
  assert.equal(parsed.data.space, 131_097);
  const { nextSlot, bits } = parsed.data.parsed.info as { nextSlot: number; bits: string };
  assert.equal(bits.length, 1024 * 1024);
  const blocksThen = new Set(await conn.getBlocks(0, nextSlot - 1, 'finalized'));
  for (let s = 0; s < nextSlot; s++) assert.equal(bits[s], blocksThen.has(s) ? '1' : '0', `slot ${s} (jsonParsed)`);
  assert.equal(bits.slice(nextSlot).indexOf('1'), -1, 'no bit after the bank\'s slot');
}
