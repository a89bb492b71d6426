import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RLP } from '@ethereumjs/rlp';
import { encodeRlp, type RlpInput } from '../../node-core/evm/rlp-encode.ts';

/** A deterministic generator, so a failure names its seed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/** Byte strings at RLP's length boundaries: empty, one byte either side of 0x80, 55/56 and 255/256/65,536 bytes. */
const LENGTHS = [0, 1, 1, 2, 32, 55, 56, 57, 255, 256, 1024, 65_536];

function bytes(next: () => number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(next() * 256);
  return out;
}

function randomInput(next: () => number, depth: number): RlpInput {
  if (depth > 3 || next() < 0.6) return bytes(next, LENGTHS[Math.floor(next() * LENGTHS.length)]!);
  return Array.from({ length: Math.floor(next() * 20) }, () => randomInput(next, depth + 1));
}

test('encodeRlp gives @ethereumjs/rlp’s bytes for strings and nested lists at every length boundary', () => {
  for (let seed = 1; seed <= 400; seed++) {
    const input = randomInput(random(seed), 0);
    assert.deepEqual(encodeRlp(input), RLP.encode(input as Uint8Array[]), `seed ${seed}`);
  }
});

test('encodeRlp of single bytes, the empty list and a 17-item trie branch', () => {
  assert.deepEqual(encodeRlp(Uint8Array.of(0x7f)), Uint8Array.of(0x7f));
  assert.deepEqual(encodeRlp(Uint8Array.of(0x80)), Uint8Array.of(0x81, 0x80));
  assert.deepEqual(encodeRlp([]), Uint8Array.of(0xc0));
  const branch = [...Array.from({ length: 16 }, (_, i) => (i % 3 ? new Uint8Array(32).fill(i) : new Uint8Array(0))), new Uint8Array(0)];
  const encoded = encodeRlp(branch);
  assert.equal(encoded[0], 0xf9, 'a 17-item branch of hashes is a long list');
  assert.deepEqual(encoded, RLP.encode(branch));
  assert.deepEqual(RLP.decode(encoded), branch);
});
