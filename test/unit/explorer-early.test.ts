/**
 * The reads the explorer's entry starts at boot (renderer/src/lib/early.ts): the first page takes its
 * read once, by name and URL, and shows it without asking the node again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { get, writable } from 'svelte/store';
import { DashboardModel, type DashboardSource } from '../../renderer/src/lib/dashboard.ts';
import { EARLY_DASHBOARD, readDashboardFirst } from '../../renderer/src/lib/dashboard-read.ts';
import { startEarly, takeEarly } from '../../renderer/src/lib/early.ts';
import type { SocketState } from '../../renderer/src/lib/pubsub.ts';

type Call = [string, unknown[]];

const until = async (check: () => boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('a read started early is taken once, by its name and URL', async () => {
  startEarly('a page', 'http://node-a', async () => 42);
  assert.equal(takeEarly('a page', 'http://node-b'), undefined, 'another node takes nothing');
  assert.equal(takeEarly('another page', 'http://node-a'), undefined, 'another page takes nothing');
  assert.equal(await takeEarly('a page', 'http://node-a'), 42);
  assert.equal(takeEarly('a page', 'http://node-a'), undefined, 'taken once');
  // A failed read is the page's to handle: taking it gives the error.
  startEarly('a page', 'http://node-a', async () => {
    throw new Error('refused');
  });
  await assert.rejects(takeEarly('a page', 'http://node-a')!, /refused/);
});

test("the dashboard shows the read started at boot and does not ask the node again for it", async () => {
  const confirmed = 5;
  const blocks = new Map([0, 1, 2, 3, 4, 5].map((slot) => [slot, { parentSlot: Math.max(0, slot - 1), blockHeight: slot, blockhash: `hash${slot}`, blockTime: 1_700_000_000 + slot, signatures: [`sig${slot}`] }]));
  const answer = ([method, params]: Call): unknown => {
    switch (method) {
      case 'getSlot': return confirmed;
      case 'getTransactionCount': return 5;
      case 'getBlockHeight': return 5;
      case 'getFirstAvailableBlock': return 0;
      case 'getSupply': return { value: { total: 7, circulating: 6, nonCirculating: 1 } };
      case 'getRecentPerformanceSamples': return [];
      case 'getBlock': return blocks.get(params[0] as number) ?? new Error('skipped');
      default: throw new Error(`unexpected ${method}`);
    }
  };
  const url = 'http://127.0.0.1:8899';
  const bootRpc = { url, batch: async (calls: Call[]) => calls.map(answer) };
  startEarly(EARLY_DASHBOARD, url, () => readDashboardFirst(bootRpc as never));

  const asked: string[] = [];
  const c = {
    rpc: { url, call: async (m: string) => (asked.push(m), answer([m, []])), batch: async (calls: Call[]) => (asked.push(...calls.map(([m]) => m)), calls.map(answer)) },
    pubsub: { subscribe: () => () => undefined, state: writable<SocketState>('open') },
  } as unknown as DashboardSource;
  const model = new DashboardModel(c);
  model.start();
  try {
    await until(() => get(model.state).loaded, 'the first load');
    const state = get(model.state);
    assert.deepEqual(state.blocks.map((b) => b.slot), [5, 4, 3, 2, 1, 0]);
    assert.deepEqual([state.transactionCount, state.blockHeight, state.supply?.total], [5, 5, 7]);
    assert.deepEqual(asked, [], 'the model asked the node nothing for its first load');
  } finally {
    model.stop();
  }
});
