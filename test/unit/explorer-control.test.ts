/** The explorer's Control page parts: what is typed into its forms, its messages, and the status bar following a revert. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ControlInputError, actionError, describeRevert, labelOrNull, parseSnapshotId, snapshotName, takenAtText, timeTravelConfig } from '../../renderer/src/lib/chain-control.ts';
import { RpcError } from '../../renderer/src/lib/rpc.ts';
import { SlotFollower } from '../../renderer/src/lib/slot-follower.ts';

describe('time travel input', () => {
  test('a slot or an epoch: a whole number (thousands separators taken)', () => {
    assert.deepEqual(timeTravelConfig('slot', ' 1,000 '), { absoluteSlot: 1000 });
    assert.deepEqual(timeTravelConfig('epoch', '3'), { absoluteEpoch: 3 });
    assert.throws(() => timeTravelConfig('slot', ''), /Enter a slot/);
    assert.throws(() => timeTravelConfig('epoch', '1.5'), /An epoch is a whole number, not "1.5"/);
    assert.throws(() => timeTravelConfig('slot', '-3'), ControlInputError);
    assert.throws(() => timeTravelConfig('slot', '99999999999999999999'), /too large/);
  });
  test('a unix time in seconds becomes the milliseconds the node takes', () => {
    assert.deepEqual(timeTravelConfig('timestamp', '1900000000'), { absoluteTimestamp: 1_900_000_000_000 });
    assert.throws(() => timeTravelConfig('timestamp', 'tomorrow'), ControlInputError);
  });
  test("a date and time is read in the browser's time zone", () => {
    const text = '2031-02-03T04:05:06';
    assert.deepEqual(timeTravelConfig('date', text), { absoluteTimestamp: new Date(2031, 1, 3, 4, 5, 6).getTime() });
    assert.deepEqual(timeTravelConfig('date', '2031-02-03T04:05'), { absoluteTimestamp: new Date(2031, 1, 3, 4, 5).getTime() });
    assert.throws(() => timeTravelConfig('date', ''), /Enter a date and time/);
    assert.throws(() => timeTravelConfig('date', '2031-13-45T99:00'), /is not a date and time/);
    assert.throws(() => timeTravelConfig('date', 'next week'), /is not a date and time/);
  });
});

describe('snapshot ids and labels', () => {
  test('an id typed as decimal or hex becomes the hex quantity the node answers ids as', () => {
    assert.equal(parseSnapshotId('12'), '0xc');
    assert.equal(parseSnapshotId(' 0x0C '), '0xc');
    assert.equal(parseSnapshotId('0x0'), '0x0');
    assert.throws(() => parseSnapshotId(''), /Enter a snapshot id/);
    assert.throws(() => parseSnapshotId('abc'), /"abc" is not a snapshot id/);
    assert.throws(() => parseSnapshotId('-1'), ControlInputError);
  });
  test('an empty label clears it; names and the revert message', () => {
    assert.equal(labelOrNull('  '), null);
    assert.equal(labelOrNull(' before deploy '), 'before deploy');
    assert.equal(snapshotName({ id: '0x2', label: null }), '0x2');
    assert.equal(snapshotName({ id: '0x2', label: 'first' }), '0x2 “first”');
    assert.equal(takenAtText({ takenAt: 1_700_000_000_999 }), '2023-11-14 22:13:20 UTC');
    const snapshot = { id: '0x0', label: 'first', slot: 1234, blockHeight: 1200, blockTime: 1_700_000_000, evmBlockNumber: 3, evmBlockHash: null, takenAt: 0 };
    assert.equal(describeRevert({ snapshot, discardedSlots: 1 }), 'Reverted to snapshot 0x0 “first” at slot 1,234: 1 stored slot discarded');
    assert.equal(describeRevert({ snapshot, discardedSlots: 1500 }), 'Reverted to snapshot 0x0 “first” at slot 1,234: 1,500 stored slots discarded');
  });
  test("a failed action shows the node's error with its code, or what is wrong with the input", () => {
    assert.equal(actionError(new RpcError(-32602, 'Invalid params: snapshot 0x63 does not exist')), 'Invalid params: snapshot 0x63 does not exist (JSON-RPC error -32602)');
    assert.equal(actionError(new ControlInputError('Enter a slot')), 'Enter a slot');
  });
});

describe('the status bar follows the chain back after a revert', () => {
  test('slots move forward from either source, never back on a late answer', () => {
    const f = new SlotFollower();
    f.polled(10, 0);
    f.pushed(11);
    f.pushed(12);
    f.polled(11, 0); // answered before the newest push arrived
    assert.equal(f.slot, 12);
    assert.equal(f.rewinds, 0);
  });
  test('a lower pushed slot is a rewind: the slot goes back, counted once though the poll sees it too', () => {
    const f = new SlotFollower();
    f.polled(100, 0);
    f.pushed(101);
    f.pushed(41);
    assert.equal(f.slot, 41);
    assert.equal(f.rewinds, 1);
    f.polled(101, 0); // asked before the rewind was seen: from before it, ignored
    assert.equal(f.slot, 41);
    f.polled(42, 1); // the poll's own view of the same rewind
    assert.equal(f.rewinds, 1);
    f.pushed(43);
    assert.equal(f.slot, 43);
  });
  test('a rewind seen only by the poll (the socket is down, or the clock is paused) is followed too', () => {
    const f = new SlotFollower();
    f.pushed(50);
    f.polled(50, 0);
    f.polled(20, 0);
    assert.equal(f.slot, 20);
    assert.equal(f.rewinds, 1);
    f.polled(20, 1);
    assert.equal(f.slot, 20);
    // A second revert later is a second rewind.
    f.pushed(21);
    f.pushed(22);
    f.pushed(5);
    assert.equal(f.rewinds, 2);
    assert.equal(f.slot, 5);
  });
});
