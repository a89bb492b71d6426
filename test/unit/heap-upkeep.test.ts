import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import { startHeapUpkeep } from '../../node-core/node/heap-upkeep.ts';

const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 50));
};

test('a heap grown by a burst is collected once the event loop is quiet, and its pages given back', { timeout: 60_000 }, async () => {
  const upkeep = startHeapUpkeep({ checkMs: 200 });
  try {
    let burst: object[] = [];
    for (let i = 0; i < 2_000_000; i++) burst.push({ i, text: `garbage ${i}` });
    const grown = v8.getHeapStatistics().total_heap_size;
    burst = [];
    await until(() => upkeep.collections > 0);
    await until(() => v8.getHeapStatistics().total_heap_size < grown - 48 * 1024 * 1024);
    const after = upkeep.collections;
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(upkeep.collections, after, 'no further collection while the heap does not grow again');
  } finally {
    upkeep.stop();
  }
});

test('a grown heap is not collected in a pause between bursts: only once the loop has been quiet for two checks in a row', { timeout: 60_000 }, async () => {
  // The loop's busy share, one reading per check: quiet and busy by turns, then quiet.
  const readings = [0, 1, 0, 1, 0, 1, 0, 1];
  const upkeep = startHeapUpkeep({ checkMs: 100, loopUtilization: () => readings.shift() ?? 0 });
  try {
    let burst: object[] = [];
    for (let i = 0; i < 2_000_000; i++) burst.push({ i, text: `garbage ${i}` });
    burst = [];
    await until(() => upkeep.checks >= 8);
    assert.equal(upkeep.collections, 0, 'no collection while quiet and busy checks take turns');
    await until(() => upkeep.collections > 0);
    assert.ok(upkeep.checks >= 10, `collected after two quiet checks in a row (at check ${upkeep.checks})`);
  } finally {
    upkeep.stop();
  }
});
