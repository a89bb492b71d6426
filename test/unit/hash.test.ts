import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@ethereumjs/util';
import { keccak256, sha256 } from '../../node-core/common/hash.ts';

test('keccak256: the known digests, on views into larger buffers too, each digest its own bytes', () => {
  assert.equal(bytesToHex(keccak256(new Uint8Array(0))), '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  assert.equal(bytesToHex(keccak256(new TextEncoder().encode('abc'))), '0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
  const big = Uint8Array.from({ length: 1_000 }, (_, i) => (i * 7) & 255);
  for (const [start, end] of [[0, 1_000], [3, 139], [136, 272], [999, 1_000]] as const) {
    assert.equal(bytesToHex(keccak256(big.subarray(start, end))), bytesToHex(keccak_256(big.slice(start, end))));
  }
  const first = keccak256(Uint8Array.of(1));
  const second = keccak256(Uint8Array.of(2));
  assert.notEqual(bytesToHex(first), bytesToHex(second));
  assert.equal(bytesToHex(first), bytesToHex(keccak_256(Uint8Array.of(1))), 'a later hash does not overwrite an earlier digest');
});

test('sha256 of parts equals sha256 of their concatenation', () => {
  assert.equal(bytesToHex(sha256(Uint8Array.of(1, 2), Uint8Array.of(3))), bytesToHex(sha256(Uint8Array.of(1, 2, 3))));
  assert.equal(bytesToHex(sha256(new Uint8Array(0))), '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
});
