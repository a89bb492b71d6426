/** The explorer's page loader: an unreachable node is retried until it answers; an RPC error is shown, not retried. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, type LoadState } from '../../renderer/src/lib/loader.ts';
import { RpcError, TransportError } from '../../renderer/src/lib/rpc.ts';

const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

test('a transport error shows and is retried until the data comes; then it shows the data', async () => {
  const states: LoadState<number>[] = [];
  let calls = 0;
  const l = load(async () => {
    calls++;
    if (calls < 3) throw Object.assign(new TransportError('cannot reach the node'), { retryMs: 20 });
    return 42;
  }, (s) => states.push(s));
  await until(() => states.some((s) => s.loaded));
  l.stop();
  assert.equal(calls, 3);
  assert.deepEqual(states[0], { data: null, error: 'cannot reach the node', loaded: false });
  assert.deepEqual(states.at(-1), { data: 42, error: null, loaded: true });
});

test('an RPC error is shown once and not retried; retry() asks again', async () => {
  const states: LoadState<number>[] = [];
  let calls = 0;
  const l = load(async () => {
    calls++;
    if (calls === 1) throw new RpcError(-32004, 'Block not available for slot 5');
    return 7;
  }, (s) => states.push(s));
  await until(() => states.length === 1);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(calls, 1);
  assert.equal(states[0]!.error, 'Block not available for slot 5 (JSON-RPC error -32004)');
  l.retry();
  await until(() => states.length === 2);
  assert.deepEqual(states[1], { data: 7, error: null, loaded: true });
  l.stop();
});

test('with a refresh, an error after data keeps the data shown under the error; stop() ends it', async () => {
  const states: LoadState<number>[] = [];
  let calls = 0;
  const l = load(async () => {
    calls++;
    if (calls === 2) throw Object.assign(new TransportError('dropped'), { retryMs: 10 });
    return calls;
  }, (s) => states.push(s), { refreshMs: 10 });
  await until(() => states.length >= 3);
  l.stop();
  const n = calls;
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(calls, n, 'no call after stop');
  assert.deepEqual(states[1], { data: 1, error: 'dropped', loaded: true });
  assert.deepEqual(states[2], { data: 3, error: null, loaded: true });
});
