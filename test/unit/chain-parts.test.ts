/**
 * The chain's parts on their own (ledger/slot-clock.ts, transaction-queue.ts, status-cache.ts): what
 * the whole chain only shows under a real clock or a full EVM block.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_RECENT_BLOCKHASHES } from '../../node-core/ledger/blockhash-queue.ts';
import { SlotClock } from '../../node-core/ledger/slot-clock.ts';
import { StatusCache } from '../../node-core/ledger/status-cache.ts';
import { TransactionQueue, type QueueExecutor } from '../../node-core/ledger/transaction-queue.ts';
import { TransactionError, type TransactionErrorValue } from '../../node-core/runtime/errors.ts';
import type { Transaction } from '../../node-core/runtime/wire.ts';

/** Lets pending callbacks (promise reactions, setImmediate) run until `done` holds; nothing here waits on real time. */
async function until(done: () => boolean): Promise<void> {
  for (let turns = 0; !done(); turns++) {
    if (turns === 1000) throw new Error('the condition never came true');
    await new Promise((r) => setImmediate(r));
  }
}

describe('slot clock', () => {
  /** Moves the mocked clock on, then lets the promise reactions it caused run. */
  const advance = async (t: { mock: { timers: { tick(ms: number): void } } }, ms: number) => {
    t.mock.timers.tick(ms);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };

  test('ends a slot every slotMs, later when others lead the slots between, and skips ahead after a stall', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    const ends: number[] = [];
    let working = 1;
    let othersSlots = 0;
    const clock = new SlotClock(400, async () => {
      ends.push(Date.now());
      const sealed = working;
      working += 1 + othersSlots;
      return { sealed, working };
    });
    clock.start();
    await advance(t, 399);
    assert.deepEqual(ends, []);
    await advance(t, 1);
    await advance(t, 400);
    assert.deepEqual(ends, [400, 800]);
    // This end opens a bank 3 slots on (2 led by others): the next end is 3 slot times later.
    othersSlots = 2;
    await advance(t, 400);
    othersSlots = 0;
    await advance(t, 1199);
    assert.deepEqual(ends, [400, 800, 1200]);
    await advance(t, 1);
    assert.deepEqual(ends, [400, 800, 1200, 2400]);
    // A stall of 10 s: one slot ends at once, the next a whole slot later (no burst of catch-up slots).
    t.mock.timers.setTime(12_400);
    await advance(t, 0);
    await advance(t, 399);
    assert.deepEqual(ends.slice(4), [12_400]);
    await advance(t, 1);
    assert.deepEqual(ends.slice(4), [12_400, 12_800]);
    clock.stop();
  });

  test('stopped between slots: no slot ends after it', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    let ended = 0;
    const clock = new SlotClock(400, async () => ({ sealed: ++ended, working: ended + 1 }));
    clock.start();
    await advance(t, 400);
    assert.equal(ended, 1);
    clock.stop();
    await advance(t, 4000);
    assert.equal(ended, 1);
  });

  test('stopped while a slot is ending (waiting for an EVM transaction): no slot ends after it', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    let ended = 0;
    let finish = () => {};
    const clock = new SlotClock(400, () => {
      ended++;
      return new Promise((resolve) => (finish = () => resolve({ sealed: ended, working: ended + 1 })));
    });
    clock.start();
    await advance(t, 400);
    assert.equal(ended, 1);
    clock.stop();
    finish();
    await advance(t, 0);
    await advance(t, 4000);
    assert.equal(ended, 1);
  });

  test('a slot that fails to end stops the clock and is reported once', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    let ended = 0;
    const failures: unknown[] = [];
    const clock = new SlotClock(
      400,
      async () => {
        ended++;
        if (ended === 2) throw new Error('seal failed');
        return { sealed: ended, working: ended + 1 };
      },
      (e) => failures.push(e),
    );
    clock.start();
    await advance(t, 400);
    await advance(t, 400);
    assert.equal(ended, 2);
    assert.deepEqual(failures.map((e) => (e as Error).message), ['seal failed']);
    await advance(t, 4000);
    assert.equal(ended, 2, 'no slot ends after the failure');
    assert.equal(failures.length, 1);
  });

  test('paused: no slot ends until resume; resumed: the next ends a slot time later', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    const ends: number[] = [];
    let n = 0;
    const clock = new SlotClock(400, async () => {
      ends.push(Date.now());
      n++;
      return { sealed: n, working: n + 1 };
    });
    clock.start();
    await advance(t, 400);
    clock.pause();
    assert.equal(clock.paused, true);
    await advance(t, 4000);
    assert.deepEqual(ends, [400]);
    clock.resume();
    await advance(t, 399);
    assert.deepEqual(ends, [400]);
    await advance(t, 1);
    await advance(t, 400);
    assert.deepEqual(ends, [400, 4800, 5200]);
    clock.stop();
  });

  test('paused and resumed while a slot is ending: one clock goes on, not two', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    const ends: number[] = [];
    let finish = () => {};
    let n = 0;
    const clock = new SlotClock(400, () => {
      ends.push(Date.now());
      n++;
      if (n > 1) return Promise.resolve({ sealed: n, working: n + 1 });
      return new Promise((resolve) => (finish = () => resolve({ sealed: n, working: n + 1 })));
    });
    clock.start();
    await advance(t, 400);
    clock.pause();
    clock.resume();
    finish();
    await advance(t, 0);
    await advance(t, 400);
    await advance(t, 400);
    // One end per slot time after the resume: a doubled clock would end two per slot.
    assert.deepEqual(ends, [400, 800, 1200]);
    clock.stop();
  });
});

describe('transaction queue', () => {
  const tx = (id: string) => ({ id }) as Transaction;

  /** An executor that records what ran; ids starting with "evm" are asynchronous and wait for `finish`. */
  function executor() {
    const ran: string[] = [];
    const refused: Array<[string, unknown]> = [];
    const running = new Map<string, { resolve: () => void; reject: (e: unknown) => void }>();
    const e: QueueExecutor = {
      isAsync: (t) => t.id.startsWith('evm'),
      execute: (t) => {
        if (t.id.startsWith('bad')) throw new TransactionError('AccountNotFound');
        ran.push(t.id);
      },
      executeAsync: (t) =>
        new Promise<void>((resolve, reject) => {
          running.set(t.id, {
            resolve: () => {
              ran.push(t.id);
              resolve();
            },
            reject,
          });
        }),
      refused: (t, err) => refused.push([t.id, err]),
    };
    return { e, ran, refused, running };
  }

  test('runs in arrival order, once per signature; a refused one is reported', async () => {
    const { e, ran, refused } = executor();
    const queue = new TransactionQueue(e);
    assert.equal(queue.push(tx('a')), true);
    assert.equal(queue.push(tx('bad')), true);
    assert.equal(queue.push(tx('b')), true);
    assert.equal(queue.push(tx('a')), false);
    assert.equal(queue.has('a'), true);
    queue.scheduleDrain();
    await until(() => queue.length === 0);
    assert.deepEqual(ran, ['a', 'b']);
    assert.deepEqual(
      refused.map(([id, err]) => [id, (err as TransactionError).value]),
      [['bad', 'AccountNotFound']],
    );
    assert.equal(queue.has('a'), false);
  });

  test('an asynchronous transaction runs alone: the queue waits behind it, and a seal does not start it', async () => {
    const { e, ran, running } = executor();
    const queue = new TransactionQueue(e);
    for (const id of ['a', 'evm1', 'b']) queue.push(tx(id));
    queue.drain(Infinity, false);
    assert.deepEqual(ran, ['a']);
    assert.equal(queue.busy, false);
    queue.scheduleDrain();
    await until(() => running.has('evm1'));
    assert.equal(queue.busy, true);
    assert.equal(queue.length, 1);
    running.get('evm1')!.resolve();
    await queue.idle();
    await until(() => queue.length === 0);
    assert.deepEqual(ran, ['a', 'evm1', 'b']);
  });

  test('an asynchronous transaction refused as the block is full goes first into the next bank', async () => {
    const { e, ran, refused, running } = executor();
    const queue = new TransactionQueue(e);
    for (const id of ['evm1', 'b']) queue.push(tx(id));
    queue.scheduleDrain();
    await until(() => running.has('evm1'));
    running.get('evm1')!.reject(new TransactionError('WouldExceedMaxBlockCostLimit'));
    running.delete('evm1');
    await queue.idle();
    // It is back at the front, not refused, and waits (with everything behind it) for the next bank.
    assert.equal(queue.has('evm1'), true);
    assert.equal(queue.length, 2);
    queue.scheduleDrain();
    await new Promise((r) => setImmediate(r));
    assert.equal(running.has('evm1'), false);
    assert.deepEqual(refused, []);
    queue.bankOpened();
    queue.scheduleDrain();
    await until(() => running.has('evm1'));
    running.get('evm1')!.resolve();
    await until(() => queue.length === 0);
    assert.deepEqual(ran, ['evm1', 'b']);
  });

  test('an asynchronous transaction that fails otherwise is refused', async () => {
    const { e, refused, running } = executor();
    const queue = new TransactionQueue(e);
    queue.push(tx('evm1'));
    queue.scheduleDrain();
    await until(() => running.has('evm1'));
    running.get('evm1')!.reject(new TransactionError('BlockhashNotFound'));
    await queue.idle();
    assert.deepEqual(
      refused.map(([id, err]) => [id, (err as TransactionError).value]),
      [['evm1', 'BlockhashNotFound']],
    );
    assert.equal(queue.length, 0);
  });
});

describe('status cache', () => {
  test('a slot is forgotten once it is older than the newest usable blockhash can be', () => {
    const cache = new StatusCache();
    cache.insert('a', { slot: 10, index: 0, err: null });
    cache.insert('b', { slot: 10, index: 1, err: 'AccountNotFound' });
    cache.insert('c', { slot: 11, index: 0, err: null });
    cache.purgeOldSlots(10 + MAX_RECENT_BLOCKHASHES);
    assert.deepEqual(cache.get('b'), { slot: 10, index: 1, err: 'AccountNotFound' });
    cache.purgeOldSlots(11 + MAX_RECENT_BLOCKHASHES);
    assert.equal(cache.has('a'), false);
    assert.equal(cache.has('b'), false);
    assert.equal(cache.has('c'), true);
  });

  test('keeps each status exactly: large slots, an index past the packed range, an error object, a status inserted again', () => {
    const cache = new StatusCache();
    const err: TransactionErrorValue = { InstructionError: [0, { Custom: 7 }] };
    cache.insert('big-slot', { slot: 2 ** 32 + 5, index: 1_048_575, err: null });
    cache.insert('failed', { slot: 2 ** 32 + 5, index: 3, err });
    cache.insert('huge-index', { slot: 2 ** 32 + 5, index: 2 ** 20, err: 'AccountInUse' });
    assert.deepEqual(cache.get('big-slot'), { slot: 2 ** 32 + 5, index: 1_048_575, err: null });
    assert.deepEqual(cache.get('failed'), { slot: 2 ** 32 + 5, index: 3, err });
    assert.deepEqual(cache.get('huge-index'), { slot: 2 ** 32 + 5, index: 2 ** 20, err: 'AccountInUse' });
    cache.insert('failed', { slot: 2 ** 32 + 6, index: 0, err: null });
    assert.deepEqual(cache.get('failed'), { slot: 2 ** 32 + 6, index: 0, err: null });
    assert.equal(cache.get('unknown'), undefined);
    cache.purgeOldSlots(2 ** 32 + 7 + MAX_RECENT_BLOCKHASHES);
    for (const sig of ['big-slot', 'failed', 'huge-index']) assert.equal(cache.has(sig), false, sig);
  });
});
