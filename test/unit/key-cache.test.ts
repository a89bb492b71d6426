import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { addressAt, addressBytes, isCachedAddress } from '../../node-core/common/key-cache.ts';
import { bytesToAddress } from '../../node-core/common/pubkey.ts';

test('addressAt answers the base-58 of the 32 bytes at an offset, hit or miss, across many keys', () => {
  const buffers = Array.from({ length: 3000 }, () => crypto.randomBytes(70));
  for (let round = 0; round < 2; round++) {
    for (const b of buffers) {
      assert.equal(addressAt(b, 5), bytesToAddress(b.subarray(5, 37)));
      assert.equal(addressAt(b), bytesToAddress(b.subarray(0, 32)));
    }
  }
});

test('addressAt does not answer a key whose bytes changed in place with the old address', () => {
  const b = crypto.randomBytes(32);
  const before = addressAt(b);
  b[31] ^= 1;
  assert.notEqual(addressAt(b), before);
  assert.equal(addressAt(b), bytesToAddress(b));
});

test('addressAt of keys that differ in one byte, and of the all-zero key', () => {
  const zero = new Uint8Array(32);
  assert.equal(addressAt(zero), '11111111111111111111111111111111');
  for (let i = 0; i < 32; i++) {
    const k = new Uint8Array(32);
    k[i] = 1;
    assert.equal(addressAt(k), bytesToAddress(k));
  }
  assert.equal(addressAt(zero), '11111111111111111111111111111111');
});

test('addressAt of fewer than 32 bytes answers their text, uncached', () => {
  const b = crypto.randomBytes(40);
  assert.equal(addressAt(b, 20), bytesToAddress(b.subarray(20)));
});

test('addressBytes round-trips with addressAt', () => {
  const b = crypto.randomBytes(32);
  assert.deepEqual(addressBytes(addressAt(b)), new Uint8Array(b));
});

test('isCachedAddress answers as isAddress, the first time and from the cache, and never caches what is not an address', () => {
  const key = bytesToAddress(crypto.randomBytes(32));
  assert.equal(isCachedAddress(key), true);
  assert.equal(isCachedAddress(key), true, 'from the cache');
  assert.equal(addressAt(addressBytes(key)), key, 'the cached bytes are the address’s');
  // Not addresses: too short or long, not base-58, 31 or 33 bytes, not a string; asked twice (nothing cached).
  const notAddresses = ['', 'abc', `${key}1`, key.replace(/.$/, '0'), bytesToAddress(crypto.randomBytes(31)), bytesToAddress(crypto.randomBytes(33)), 42, null, undefined, { key }];
  for (const text of notAddresses) {
    assert.equal(isCachedAddress(text), false, String(text));
    assert.equal(isCachedAddress(text), false, `${String(text)}, asked again`);
  }
});
