/**
 * Every sysvar as @solana/kit's own codecs (@solana/sysvars) read it, from one bank (one
 * getMultipleAccounts call), checked against what the RPC says of that bank and its chain; and the
 * jsonParsed view of each agrees with the bytes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  address,
  createSolanaRpc,
  getArrayDecoder,
  getBase58Decoder,
  getStructDecoder,
  getU64Decoder,
  fixDecoderSize,
  type Address,
  type Base64EncodedBytes,
} from '@solana/kit';
import fs from 'node:fs';
import {
  fetchSysvarClock,
  fetchSysvarEpochRewards,
  fetchSysvarLastRestartSlot,
  getSysvarClockDecoder,
  getSysvarEpochScheduleDecoder,
  getSysvarLastRestartSlotDecoder,
  getSysvarRentDecoder,
  getSysvarSlotHistoryDecoder,
  getSysvarStakeHistoryDecoder,
} from '@solana/sysvars';
import { rpc, startTestNode, tempLedger, waitFor, type TestNode } from '../helpers/node.ts';

const SLOTS_PER_EPOCH = 64;
const SYSVARS = {
  clock: address('SysvarC1ock11111111111111111111111111111111'),
  epochSchedule: address('SysvarEpochSchedu1e111111111111111111111111'),
  rent: address('SysvarRent111111111111111111111111111111111'),
  recentBlockhashes: address('SysvarRecentB1ockHashes11111111111111111111'),
  slotHashes: address('SysvarS1otHashes111111111111111111111111111'),
  slotHistory: address('SysvarS1otHistory11111111111111111111111111'),
  stakeHistory: address('SysvarStakeHistory1111111111111111111111111'),
  lastRestartSlot: address('SysvarLastRestartS1ot1111111111111111111111'),
  epochRewards: address('SysvarEpochRewards1111111111111111111111111'),
} as const;
type Name = keyof typeof SYSVARS;

/*
 * @solana/sysvars 8.4.0 reads the SlotHashes and RecentBlockhashes vectors with a u32 length, where
 * bincode (and every validator) writes a u64: its decoders misread a real validator's bytes from the
 * fifth byte on (StakeHistory's was fixed in anza-xyz/kit#379). These are kit's own codecs with the u64 length.
 */
const hash = fixDecoderSize(getBase58Decoder(), 32);
const slotHashesDecoder = getArrayDecoder(getStructDecoder([['slot', getU64Decoder()], ['hash', hash]]), { size: getU64Decoder() });
const recentBlockhashesDecoder = getArrayDecoder(
  getStructDecoder([['blockhash', hash], ['feeCalculator', getStructDecoder([['lamportsPerSignature', getU64Decoder()]])]]),
  { size: getU64Decoder() },
);

let node: TestNode;
const ledger = tempLedger();
let kit: ReturnType<typeof createSolanaRpc>;
/** The bank read: its slot and each sysvar's bytes and jsonParsed form. */
let slot: number;
const bytes = {} as Record<Name, Uint8Array | null>;
const parsed = {} as Record<Name, { type: string; info: any } | null>;

before(async () => {
  node = await startTestNode({ ledger, slotMs: 40, slotsPerEpoch: SLOTS_PER_EPOCH });
  kit = createSolanaRpc(node.rpcUrl);
  // Into epoch 1, so the stake history has an entry.
  await waitFor(async () => (await rpc(node.rpcUrl, 'getSlot', [{ commitment: 'finalized' }])).result > SLOTS_PER_EPOCH + 4, { what: 'epoch 1 finalized', timeoutMs: 30_000 });
  const names = Object.keys(SYSVARS) as Name[];
  const read = (encoding: 'base64' | 'jsonParsed') => kit.getMultipleAccounts(names.map((n) => SYSVARS[n]), { encoding, commitment: 'finalized' } as never).send();
  // The two encodings must come from one bank: the clock is paused so the root stops moving (on a
  // busy machine two reads rarely fit in one 40 ms slot), then read again until no new root came between them.
  assert.equal((await rpc(node.rpcUrl, 'surfnet_pauseClock', [])).error, undefined);
  const [binary, json] = (await waitFor(
    async () => {
      const pair = [await read('base64'), await read('jsonParsed')] as const;
      return pair[0].context.slot === pair[1].context.slot ? pair : null;
    },
    { what: 'both encodings read at one bank', timeoutMs: 30_000, everyMs: 0 },
  ))!;
  assert.equal((await rpc(node.rpcUrl, 'surfnet_resumeClock', [])).error, undefined);
  slot = Number(binary.context.slot);
  names.forEach((n, i) => {
    const b = binary.value[i];
    bytes[n] = b ? new Uint8Array(Buffer.from(b.data[0] as Base64EncodedBytes, 'base64')) : null;
    const p = json.value[i]?.data as { program: string; parsed: { type: string; info: unknown } } | undefined;
    if (p) assert.equal(p.program, 'sysvar', n);
    // Kit hands every number in a response over as a bigint; the node sent plain JSON numbers.
    parsed[n] = p ? JSON.parse(JSON.stringify(p.parsed, (_, v) => (typeof v === 'bigint' ? Number(v) : v))) : null;
  });
});

after(async () => {
  await node?.stop();
  fs.rmSync(ledger, { recursive: true, force: true });
});

/** Clock.epochStartTimestamp is the block time of the epoch's first block (the genesis time in epoch 0). */
async function assertEpochStart(clock: { epoch: bigint; slot: bigint; epochStartTimestamp: bigint }): Promise<void> {
  const first = Number(clock.epoch) * SLOTS_PER_EPOCH;
  const [firstBlock] = (await rpc(node.rpcUrl, 'getBlocksWithLimit', [first, 1, { commitment: 'confirmed' }])).result as number[];
  assert.ok(firstBlock !== undefined && firstBlock <= Number(clock.slot));
  assert.equal(clock.epochStartTimestamp, BigInt((await rpc(node.rpcUrl, 'getBlockTime', [firstBlock])).result), `epoch ${clock.epoch} began with block ${firstBlock}`);
}

describe('sysvars through @solana/kit', () => {
  it('Clock: the bank\'s slot, epoch, leader-schedule epoch and block time', async () => {
    const clock = getSysvarClockDecoder().decode(bytes.clock!);
    assert.equal(clock.slot, BigInt(slot));
    assert.equal(clock.epoch, BigInt(Math.floor(slot / SLOTS_PER_EPOCH)));
    assert.equal(clock.leaderScheduleEpoch, clock.epoch + 1n);
    assert.equal(clock.unixTimestamp, BigInt((await rpc(node.rpcUrl, 'getBlockTime', [slot])).result), 'the block time is the bank\'s clock');
    assert.ok(clock.epoch >= 1n, 'read after epoch 0 ended (a busy machine may be further on)');
    await assertEpochStart(clock);
    assert.deepEqual(parsed.clock, {
      type: 'clock',
      info: { slot, epoch: Number(clock.epoch), epochStartTimestamp: Number(clock.epochStartTimestamp), leaderScheduleEpoch: Number(clock.leaderScheduleEpoch), unixTimestamp: Number(clock.unixTimestamp) },
    });
  });

  it('EpochSchedule and Rent: what getEpochSchedule and getMinimumBalanceForRentExemption say', async () => {
    const schedule = getSysvarEpochScheduleDecoder().decode(bytes.epochSchedule!);
    const rpcSchedule = await kit.getEpochSchedule().send();
    assert.deepEqual(schedule, rpcSchedule);
    assert.deepEqual(parsed.epochSchedule, { type: 'epochSchedule', info: JSON.parse(JSON.stringify(rpcSchedule, (_, v) => (typeof v === 'bigint' ? Number(v) : v))) });

    const rent = getSysvarRentDecoder().decode(bytes.rent!);
    assert.deepEqual(rent, { lamportsPerByteYear: 3480n, exemptionThreshold: 2, burnPercent: 50 });
    const forSpace = (n: number) => BigInt(128 + n) * rent.lamportsPerByteYear * BigInt(rent.exemptionThreshold);
    assert.equal(await kit.getMinimumBalanceForRentExemption(165n).send(), forSpace(165));
    assert.deepEqual(parsed.rent, { type: 'rent', info: { lamportsPerByteYear: '3480', exemptionThreshold: 2, burnPercent: 50 } });
  });

  it('SlotHashes and RecentBlockhashes: the blocks before the bank, newest first, with their hashes', async () => {
    const slotHashes = slotHashesDecoder.decode(bytes.slotHashes!);
    const blocksBefore = (await kit.getBlocks(0n, BigInt(slot - 1), { commitment: 'finalized' }).send()).map(Number).reverse();
    assert.deepEqual(slotHashes.map((e) => Number(e.slot)), blocksBefore.slice(0, 512));
    const newest = await kit.getBlock(slotHashes[0]!.slot, { transactionDetails: 'none', rewards: false, maxSupportedTransactionVersion: 0 }).send();
    assert.equal(slotHashes[0]!.hash, newest!.blockhash);
    assert.deepEqual(parsed.slotHashes, { type: 'slotHashes', info: slotHashes.map((e) => ({ slot: Number(e.slot), hash: e.hash })) });

    // A sealed bank's RecentBlockhashes starts with its own blockhash (Agave registers it when the slot
    // ends); SlotHashes gains that slot only in the next bank.
    const recent = recentBlockhashesDecoder.decode(bytes.recentBlockhashes!);
    assert.equal(recent.length, Math.min(150, slotHashes.length + 1));
    const own = await kit.getBlock(BigInt(slot), { transactionDetails: 'none', rewards: false, maxSupportedTransactionVersion: 0 }).send();
    assert.equal(recent[0]!.blockhash, own!.blockhash);
    recent.slice(1).forEach((e, i) => assert.equal(e.blockhash, slotHashes[i]!.hash, `entry ${i + 1}`));
    for (const e of recent) assert.equal(e.feeCalculator.lamportsPerSignature, 5000n);
    assert.deepEqual(parsed.recentBlockhashes, {
      type: 'recentBlockhashes',
      info: recent.map((e) => ({ blockhash: e.blockhash, feeCalculator: { lamportsPerSignature: '5000' } })),
    });
  });

  it('SlotHistory: a bit for every block up to the bank\'s slot', async () => {
    const history = getSysvarSlotHistoryDecoder().decode(bytes.slotHistory!);
    assert.equal(history.nextSlot, BigInt(slot + 1));
    const blocks = new Set((await kit.getBlocks(0n, BigInt(slot), { commitment: 'finalized' }).send()).map(Number));
    const bit = (s: number) => Number((history.bits[Math.floor(s / 64)]! >> BigInt(s % 64)) & 1n);
    for (let s = 0; s <= slot + 64; s++) assert.equal(bit(s), blocks.has(s) ? 1 : 0, `slot ${s}`);
    assert.equal(parsed.slotHistory!.info.nextSlot, slot + 1);
    assert.equal(parsed.slotHistory!.info.bits.slice(0, slot + 1), Array.from({ length: slot + 1 }, (_, s) => String(bit(s))).join(''));
  });

  it('StakeHistory: the ended epochs, newest first; epoch 0 had the genesis stake, fully effective', async () => {
    const history = getSysvarStakeHistoryDecoder().decode(bytes.stakeHistory!);
    const epoch = Math.floor(slot / SLOTS_PER_EPOCH);
    assert.deepEqual(history.map((e) => Number(e.epoch)), Array.from({ length: epoch }, (_, i) => epoch - 1 - i));
    // Epoch 0 had the genesis delegation, active from the start; its rewards compound into epoch 1's stake.
    const genesisStake = 500_000n * 1_000_000_000n;
    assert.deepEqual(history.at(-1)!.stakeHistory, { effective: genesisStake, activating: 0n, deactivating: 0n });
    const { current } = await kit.getVoteAccounts({ commitment: 'finalized' }).send();
    assert.ok(current.reduce((n, v) => n + v.activatedStake, 0n) > genesisStake);
    assert.deepEqual(parsed.stakeHistory, {
      type: 'stakeHistory',
      info: history.map((e) => ({ epoch: Number(e.epoch), stakeHistory: { effective: Number(e.stakeHistory.effective), activating: Number(e.stakeHistory.activating), deactivating: Number(e.stakeHistory.deactivating) } })),
    });
  });

  it('LastRestartSlot is 0; EpochRewards does not exist (rewards are not partitioned)', async () => {
    assert.deepEqual(getSysvarLastRestartSlotDecoder().decode(bytes.lastRestartSlot!), { lastRestartSlot: 0n });
    assert.deepEqual(await fetchSysvarLastRestartSlot(kit), { lastRestartSlot: 0n });
    assert.deepEqual(parsed.lastRestartSlot, { type: 'lastRestartSlot', info: { lastRestartSlot: 0 } });
    assert.equal(bytes.epochRewards, null);
    await assert.rejects(fetchSysvarEpochRewards(kit), /not found|does not exist/i);
  });

  it('after a restart the Clock still starts its epoch at the epoch\'s first block', async () => {
    await node.stop();
    node = await startTestNode({ ledger, slotMs: 40, slotsPerEpoch: SLOTS_PER_EPOCH });
    kit = createSolanaRpc(node.rpcUrl);
    const clock = await fetchSysvarClock(kit, { commitment: 'processed' });
    await assertEpochStart(clock);
    assert.ok(clock.epoch >= 1n);
  });

  it('every sysvar is owned by Sysvar1111… and rent-exempt for its size', async () => {
    const owner: Address = address('Sysvar1111111111111111111111111111111111111');
    const names = (Object.keys(SYSVARS) as Name[]).filter((n) => n !== 'epochRewards');
    const accounts = await kit.getMultipleAccounts(names.map((n) => SYSVARS[n]), { encoding: 'base64', dataSlice: { offset: 0, length: 0 } }).send();
    for (const [i, a] of accounts.value.entries()) {
      assert.equal(a?.owner, owner, names[i]);
      assert.equal(a!.lamports, await kit.getMinimumBalanceForRentExemption(BigInt(a!.space)).send(), names[i]);
    }
  });
});
