/**
 * The dashboard's live block lists: a block pushed before the first load's range reaches it leaves a
 * hole, which the next catch-up fills; a skipped slot is not a hole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { get, writable } from 'svelte/store';
import { DashboardModel, type DashboardSource } from '../../renderer/src/lib/dashboard.ts';
import { EvmLiveModel, type EvmLiveSource } from '../../renderer/src/lib/evm-live.ts';
import type { SocketState } from '../../renderer/src/lib/pubsub.ts';

const until = async (check: () => boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

type Call = [string, unknown[]];
type Push = (value: unknown) => void;

test('native: blocks confirmed between the first load and the first push are fetched; skipped slots are not; a dropped socket is not live until a push comes again', async () => {
  // Slot 8 is skipped: block 9's parent is 7.
  const parents = new Map([[0, 0], [1, 0], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5], [7, 6], [9, 7], [10, 9]]);
  const heights = new Map([...parents.keys()].map((slot, height) => [slot, height]));
  const block = (slot: number) => ({ parentSlot: parents.get(slot)!, blockHeight: heights.get(slot)!, blockhash: `hash${slot}`, blockTime: 1_700_000_000 + slot, signatures: [`sig${slot}`] });
  let confirmed = 5;
  const socket = writable<SocketState>('open');
  const slotsAsked: number[] = [];
  let push: Push | undefined;
  const answer = ([method, params]: Call): unknown => {
    switch (method) {
      case 'getSlot': return confirmed;
      case 'getTransactionCount': return [...parents.keys()].filter((s) => s > 0 && s <= confirmed).length;
      case 'getBlockHeight': return heights.get(confirmed)!;
      case 'getFirstAvailableBlock': return 0;
      case 'getSupply': return { value: { total: 1, circulating: 1, nonCirculating: 0 } };
      case 'getRecentPerformanceSamples': return [];
      case 'getBlock': {
        const slot = params[0] as number;
        slotsAsked.push(slot);
        return parents.has(slot) ? block(slot) : new Error('skipped');
      }
      default: throw new Error(`unexpected ${method}`);
    }
  };
  const c = {
    rpc: { call: async (method: string, params: unknown[]) => answer([method, params]), batch: async (calls: Call[]) => calls.map(answer) },
    pubsub: { subscribe: (_m: string, _p: unknown, cb: Push) => ((push = cb), () => (push = undefined)), state: socket },
  } as unknown as DashboardSource;

  const model = new DashboardModel(c);
  model.start();
  try {
    await until(() => get(model.state).loaded, 'the first load');
    assert.deepEqual(get(model.state).blocks.map((b) => b.slot), [5, 4, 3, 2, 1, 0]);
    assert.deepEqual([get(model.state).blockHeight, get(model.state).transactionCount], [5, 5]);
    // PubSub's first pushes come after slot 6 was confirmed.
    confirmed = 10;
    for (const slot of [7, 9, 10]) push!({ value: { slot, block: block(slot) } });
    assert.deepEqual(get(model.state).blocks.map((b) => b.slot), [10, 9, 7, 5, 4, 3, 2, 1, 0]);
    // The counters follow the pushed blocks before the next poll (which then counts slot 6 too).
    assert.deepEqual([get(model.state).blockHeight, get(model.state).transactionCount], [9, 8]);
    await until(() => get(model.state).blocks.some((b) => b.slot === 6), 'the missed block');
    const state = get(model.state);
    assert.deepEqual(state.blocks.map((b) => b.slot), [10, 9, 7, 6, 5, 4, 3, 2, 1, 0]);
    assert.deepEqual(state.txs.map((t) => t.signature).slice(0, 4), ['sig10', 'sig9', 'sig7', 'sig6']);
    assert.deepEqual(slotsAsked, [0, 1, 2, 3, 4, 5, 6], 'the first range, then only the hole, and never the skipped slot 8');
    assert.deepEqual([state.blockHeight, state.transactionCount], [9, 9]);
    // The socket drops (the node restarts): the list is no longer live until a push comes again.
    assert.equal(get(model.state).live, true);
    socket.set('reconnecting');
    assert.equal(get(model.state).live, false);
    socket.set('open');
    assert.equal(get(model.state).live, false, 'open again, but nothing pushed yet');
    confirmed = 11;
    parents.set(11, 10);
    heights.set(11, 10);
    push!({ value: { slot: 11, block: block(11) } });
    assert.equal(get(model.state).live, true);
  } finally {
    model.stop();
  }
});

test('EVM: a head pushed while the poll reads older blocks leaves no hole; a dropped socket is not live until a head comes again', async () => {
  let latest = 5;
  const socket = writable<SocketState>('open');
  let push: Push | undefined;
  let pushDuringPoll = true;
  const evmBlock = (n: number) => ({ number: `0x${n.toString(16)}`, hash: `0xh${n}`, transactions: [], timestamp: '0x1', nativeSlot: `0x${n.toString(16)}`, isFinalized: true });
  const c = {
    evm: {
      call: async (method: string, params: unknown[]) => {
        if (method === 'eth_blockNumber') return `0x${latest.toString(16)}`;
        if (method === 'eth_getBlockByHash') return evmBlock(Number((params[0] as string).slice(3)));
        throw new Error(`unexpected ${method}`);
      },
      batch: async (calls: Call[]) => {
        if (pushDuringPoll) {
          // Blocks 6 and 7 are made while this poll is in flight; the socket announces only 7.
          pushDuringPoll = false;
          latest = 7;
          push!({ hash: '0xh7' });
          await new Promise((r) => setTimeout(r, 20));
        }
        return calls.map(([, [n]]) => evmBlock(Number(BigInt(n as string))));
      },
    },
    evmSocket: { subscribe: (_m: string, _p: unknown, cb: Push) => ((push = cb), () => (push = undefined)), state: socket },
  } as unknown as EvmLiveSource;

  const model = new EvmLiveModel(c);
  model.start();
  try {
    await until(() => get(model.state).loaded, 'the first poll');
    assert.deepEqual(get(model.state).blocks.map((b) => b.number), [7, 5, 4, 3, 2, 1, 0]);
    await until(() => get(model.state).blocks.some((b) => b.number === 6), 'the block between');
    assert.deepEqual(get(model.state).blocks.map((b) => b.number), [7, 6, 5, 4, 3, 2, 1, 0]);
    // The EVM socket drops: not live until a head is pushed after it reconnects.
    latest = 8;
    push!({ hash: '0xh8' });
    await until(() => get(model.state).live && get(model.state).blocks[0]!.number === 8, 'the pushed head');
    socket.set('reconnecting');
    assert.equal(get(model.state).live, false);
    socket.set('open');
    latest = 9;
    push!({ hash: '0xh9' });
    await until(() => get(model.state).live, 'live again');
  } finally {
    model.stop();
  }
});
