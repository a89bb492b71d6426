import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WireSlab } from '../../node-core/ledger/wire-slab.ts';

test('kept wire bytes are copies side by side in shared chunks, and a full chunk starts the next', () => {
  const slab = new WireSlab();
  const a = Uint8Array.from([1, 2, 3]);
  const b = new Uint8Array(1232).fill(7);
  const ca = slab.copy(a);
  const cb = slab.copy(b);
  assert.deepEqual(ca, a);
  assert.deepEqual(cb, b);
  assert.equal(ca.buffer, cb.buffer, 'one buffer for both');
  assert.equal(cb.byteOffset, ca.byteOffset + 3);
  a[0] = 9;
  assert.equal(ca[0], 1, 'a copy, not a view of the caller’s bytes');
  let last: Uint8Array = cb;
  const buffers = new Set<ArrayBufferLike>([ca.buffer]);
  for (let i = 0; i < 20; i++) {
    last = slab.copy(b);
    buffers.add(last.buffer);
  }
  assert.deepEqual(last, b);
  assert.ok(buffers.size > 1 && buffers.size < 20, `${buffers.size} chunks for 22 copies`);
});

test('bytes larger than a shared slot get a buffer of their own', () => {
  const slab = new WireSlab();
  const big = new Uint8Array(3000).fill(5);
  const copy = slab.copy(big);
  assert.deepEqual(copy, big);
  assert.notEqual(copy.buffer, big.buffer);
  assert.equal(copy.byteOffset, 0);
  assert.equal(copy.buffer.byteLength, 3000);
});
