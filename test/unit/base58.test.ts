import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import bs58 from 'bs58';
import { decodeBase58, encodeBase58 } from '../../node-core/common/base58.ts';
import { prng } from '../helpers/prng.ts';

describe('encodeBase58', () => {
  it('spells what bs58 spells, leading zeros, empty input and all-ones bytes included', () => {
    const rng = prng(58);
    const cases: Uint8Array[] = [new Uint8Array(0), Uint8Array.of(0), Uint8Array.of(0, 0, 0), Uint8Array.of(1), Uint8Array.of(57), Uint8Array.of(58), Uint8Array.of(0, 0, 255), new Uint8Array(32).fill(255), new Uint8Array(64).fill(255), new Uint8Array(32)];
    for (let length = 0; length <= 80; length++) {
      for (let k = 0; k < 40; k++) {
        const bytes = Uint8Array.from({ length }, () => Math.floor(rng() * 256));
        bytes.fill(0, 0, k % 5 === 0 ? Math.floor(length / (1 + (k % 3))) : 0);
        cases.push(bytes);
      }
    }
    for (const bytes of cases) {
      const text = encodeBase58(bytes);
      assert.equal(text, bs58.encode(bytes), Buffer.from(bytes).toString('hex'));
      assert.deepEqual(decodeBase58(text), Uint8Array.from(bytes));
    }
  });

  it('spells the System program and a zero signature as Solana does', () => {
    assert.equal(encodeBase58(new Uint8Array(32)), '11111111111111111111111111111111');
    assert.equal(encodeBase58(new Uint8Array(64)), '1'.repeat(64));
  });
});
