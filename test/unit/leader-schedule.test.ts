/**
 * The leader schedule drawn as Agave draws it: rand_chacha's stream, rand's WeightedIndex, Agave's
 * sort and 4-slot groups; and the node's rules around it (kept snapshots, the newest one for epochs
 * not yet snapshotted, a schedule without this node led by this node).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { ChaCha20Rng, WeightedIndex } from '../../node-core/common/chacha-rng.ts';
import { encodeBase58 } from '../../node-core/common/base58.ts';
import { drawLeaders, LeaderSchedules, MAX_LEADER_SCHEDULE_STAKES, stakedNodes } from '../../node-core/ledger/leader-schedule.ts';
import { fixedEpochSchedule } from '../../node-core/ledger/epoch.ts';
import { EPOCH_MAX } from '../../node-core/runtime/programs/stake/state.ts';
import type { StakeAccountView } from '../../node-core/ledger/stakes.ts';

const le64 = (v: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, v, true);
  return b;
};
const address = (n: number) => encodeBase58(new Uint8Array(32).fill(n));

describe('ChaCha20Rng', () => {
  it('gives rand_chacha\'s keystream for the zero seed (its test_chacha_true_values_a), two words per u64', () => {
    const rng = new ChaCha20Rng(new Uint8Array(32));
    assert.equal(rng.nextU64(), 0x903df1a0ade0b876n);
    assert.equal(rng.nextU64(), 0x28bd8653e56a5d40n);
    for (let i = 2; i < 8; i++) rng.nextU64();
    // The second 64-byte block starts with 0xbee7079f, 0x7a385155.
    assert.equal(rng.nextU64(), 0x7a385155bee7079fn);
  });

  it('keeps going past its buffer without repeating', () => {
    const rng = new ChaCha20Rng(new Uint8Array(32).fill(7));
    const seen = new Set<bigint>();
    for (let i = 0; i < 2_000; i++) seen.add(rng.nextU64());
    assert.equal(seen.size, 2_000);
  });
});

describe('WeightedIndex', () => {
  it('never draws a zero weight and refuses weights it cannot draw from', () => {
    const rng = new ChaCha20Rng(new Uint8Array(32));
    const index = new WeightedIndex([0n, 5n, 0n, 5n, 0n]);
    const drawn = new Set(Array.from({ length: 500 }, () => index.sample(rng)));
    assert.deepEqual([...drawn].sort(), [1, 3]);
    assert.throws(() => new WeightedIndex([]), /no weights/);
    assert.throws(() => new WeightedIndex([0n, 0n]), /all weights are zero/);
    assert.throws(() => new WeightedIndex([-1n, 2n]), /negative/);
    assert.throws(() => new WeightedIndex([1n << 63n, 1n << 63n]), /overflow/);
  });
});

describe('drawLeaders', () => {
  it('matches Agave for 100 staked nodes, epoch 123, 321 slots (Agave\'s output as published in Syndica/sig\'s leader_schedule test)', () => {
    // The nodes: from the zero-seeded stream, 32 bytes of identity then a u64 stake / 1000, 100 times.
    const rng = new ChaCha20Rng(new Uint8Array(32));
    const nodes: Array<[string, bigint]> = [];
    for (let i = 0; i < 100; i++) {
      const key = new Uint8Array(32);
      for (let j = 0; j < 4; j++) key.set(le64(rng.nextU64()), j * 8);
      nodes.push([encodeBase58(key), rng.nextU64() / 1000n]);
    }
    const groups = drawLeaders(123, nodes, 321);
    assert.equal(groups.length, 81, '321 slots: 80 groups of 4 and one of 1');
    const slots = Array.from({ length: 321 }, (_, i) => groups[Math.floor(i / 4)]!);
    assert.equal(slots[0], 'HU1g6zZ3LrXJeFYEmDAekv44kAv9XE8g8FQYz3rSrmNY');
    assert.equal(slots[4], 'AvsmCG8R1qGJtRvjqudkX974ihfbYZUVf4t515tzxyHv');
    assert.equal(slots[8], '5W6GpY2dKVsks2QF1EdrDSasdM1f9KqVNVFbZTzBy8V');
    assert.equal(slots[320], 'DUUJtWATcHjMhNHGh9pPud3HGp4yrrZe1tE7ELHXUAB6');
    // All 321 leaders, one per line.
    assert.equal(createHash('sha256').update(slots.join('\n')).digest('hex'), '040839049e02e5a578952a709280a2833a9c50cacabfbbbb246588cc2e0a593e');
  });

  it('gives each node a share of the slots close to its share of the stake', () => {
    const groups = drawLeaders(7, [[address(1), 3_000_000n], [address(2), 1_000_000n]], 432_000);
    const share = groups.filter((g) => g === address(1)).length / groups.length;
    assert.ok(Math.abs(share - 0.75) < 0.01, String(share));
  });

  it('depends on the epoch (the seed) but not on the order the stakes come in', () => {
    const nodes: Array<[string, bigint]> = [[address(1), 10n], [address(2), 10n], [address(3), 20n]];
    assert.deepEqual(drawLeaders(4, nodes, 64), drawLeaders(4, [...nodes].reverse(), 64));
    assert.notDeepEqual(drawLeaders(4, nodes, 64), drawLeaders(5, nodes, 64));
  });
});

describe('stakedNodes', () => {
  const delegation = (voter: string, stake: number, activationEpoch: number, deactivationEpoch = EPOCH_MAX) =>
    ({ state: { kind: 'stake', stake: { delegation: { voter, stake, activationEpoch, deactivationEpoch, warmupCooldownRate: 0.25 }, creditsObserved: 0 } } }) as unknown as StakeAccountView;

  it('sums effective stake per vote account\'s node identity, leaving out what is not active or not a vote account', () => {
    const nodeOf = (vote: string) => (vote === address(10) || vote === address(11) ? address(1) : vote === address(12) ? address(2) : null);
    const nodes = stakedNodes(
      [delegation(address(10), 5, EPOCH_MAX), delegation(address(11), 7, EPOCH_MAX), delegation(address(12), 9, 3), delegation(address(13), 100, EPOCH_MAX)],
      nodeOf,
      3,
      [],
    );
    // u64::MAX activation is the bootstrap stake (always active); the stake delegated in epoch 3 is not active in 3.
    assert.deepEqual(nodes, [[address(1), 12]]);
  });
});

describe('LeaderSchedules', () => {
  const schedule = fixedEpochSchedule(32);
  const self = address(1);
  const other = address(2);

  it('schedules the node alone when it alone has stake, and draws from stake when another identity has some', () => {
    const leaders = new LeaderSchedules(schedule, self, [[0, [[self, 100]]], [1, [[self, 100], [other, 100]]]]);
    assert.deepEqual(leaders.forEpoch(0)!.byIdentity(), { [self]: Array.from({ length: 32 }, (_, i) => i) });
    const epoch1 = leaders.forEpoch(1)!.byIdentity();
    assert.deepEqual(Object.keys(epoch1).sort(), [self, other].sort());
    assert.equal(epoch1[self]!.length + epoch1[other]!.length, 32);
    for (const slots of Object.values(epoch1)) assert.equal(slots.length % 4, 0, 'whole groups of 4');
  });

  it('skips the slots other identities lead when looking for the node\'s next slot', () => {
    const leaders = new LeaderSchedules(schedule, self, [[0, [[self, 1]]], [1, [[self, 100], [other, 100]]]]);
    const epoch1 = leaders.forEpoch(1)!;
    for (let slot = 31; slot < 63; slot++) {
      const next = leaders.nextOwnSlot(slot);
      assert.equal(leaders.leaderAt(next), self);
      for (let s = slot + 1; s < next; s++) assert.equal(epoch1.leaderAt(s - 32), other, `slot ${s} is another's`);
    }
  });

  it('leads every slot of an epoch whose schedule would not name it (no stake of its own, or none at all)', () => {
    const leaders = new LeaderSchedules(schedule, self, [[0, [[other, 100]]], [1, []]]);
    assert.deepEqual(Object.keys(leaders.forEpoch(0)!.byIdentity()), [self]);
    assert.deepEqual(Object.keys(leaders.forEpoch(1)!.byIdentity()), [self]);
    assert.equal(leaders.nextOwnSlot(5), 6);
  });

  it('uses the newest snapshot for epochs after it, none for epochs before the kept ones, and forgets old ones', () => {
    const leaders = new LeaderSchedules(schedule, self, [[3, [[self, 100], [other, 50]]]]);
    assert.equal(leaders.forEpoch(2), null);
    const later = leaders.forEpoch(9)!.byIdentity();
    assert.ok(later[self] && later[other], 'epoch 9 is drawn from epoch 3\'s stakes');
    const gap = new LeaderSchedules(schedule, self, [[3, [[self, 100], [other, 50]]], [5, [[self, 1]]]]);
    assert.ok(gap.forEpoch(4)!.byIdentity()[other], 'an epoch between snapshots takes the one before it');
    leaders.record(4, [[self, 1]]);
    assert.deepEqual(Object.keys(leaders.forEpoch(9)!.byIdentity()), [self], 'drawn again from epoch 4\'s stakes');
    leaders.record(4, [[other, 1]]);
    assert.deepEqual(leaders.toJSON(), [[3, [[self, 100], [other, 50]]], [4, [[self, 1]]]], 'the first snapshot of an epoch stays');
    leaders.record(4 + MAX_LEADER_SCHEDULE_STAKES, [[self, 1]]);
    assert.deepEqual(leaders.toJSON().map(([e]) => e), [4, 4 + MAX_LEADER_SCHEDULE_STAKES]);
    assert.equal(leaders.forEpoch(3), null, 'a forgotten epoch has no schedule');
  });
});
