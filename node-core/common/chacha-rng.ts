/**
 * The random draws Agave's leader schedule makes, bit for bit: rand_chacha's ChaCha20Rng seeded with
 * 32 bytes (the original ChaCha20 keystream, key = seed, nonce and counter 0, read as little-endian
 * words), and rand 0.8's WeightedIndex<u64> over it (one uniform draw below the total weight by
 * widening multiply with rejection, then the first cumulative weight above it).
 */
import { chacha20orig } from '@noble/ciphers/chacha.js';

const U64_MAX = (1n << 64n) - 1n;
const BLOCKS_PER_REFILL = 64;
const BLOCK_BYTES = 64;

export class ChaCha20Rng {
  private readonly key: Uint8Array;
  private readonly zeros = new Uint8Array(BLOCKS_PER_REFILL * BLOCK_BYTES);
  private readonly buffer = new Uint8Array(BLOCKS_PER_REFILL * BLOCK_BYTES);
  private readonly view = new DataView(this.buffer.buffer);
  private offset = this.buffer.length;
  private nextBlock = 0;

  constructor(seed: Uint8Array) {
    if (seed.length !== 32) throw new Error('ChaCha20Rng: the seed is 32 bytes');
    this.key = seed.slice();
  }

  /** BlockRng::next_u64 on a fresh or u64-aligned stream: the next 8 keystream bytes, little-endian. */
  nextU64(): bigint {
    if (this.offset === this.buffer.length) this.refill();
    const value = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return value;
  }

  private refill(): void {
    chacha20orig(this.key, new Uint8Array(8), this.zeros, this.buffer, this.nextBlock);
    this.nextBlock += BLOCKS_PER_REFILL;
    this.offset = 0;
  }
}

/** rand 0.8's UniformInt<u64>::sample over [0, range). */
function uniformBelow(rng: ChaCha20Rng, range: bigint): bigint {
  const zone = U64_MAX - ((U64_MAX - range + 1n) % range);
  for (;;) {
    const product = rng.nextU64() * range;
    if ((product & U64_MAX) <= zone) return product >> 64n;
  }
}

/** rand 0.8's WeightedIndex<u64>: indexes drawn with probability weight / total. */
export class WeightedIndex {
  /** Running totals of every weight but the last (as rand keeps them). */
  private readonly cumulative: bigint[] = [];
  private readonly total: bigint;

  constructor(weights: readonly bigint[]) {
    if (weights.length === 0) throw new Error('WeightedIndex: no weights');
    let total = 0n;
    for (const [i, w] of weights.entries()) {
      if (w < 0n) throw new Error('WeightedIndex: a negative weight');
      if (i > 0) this.cumulative.push(total);
      total += w;
    }
    if (total === 0n) throw new Error('WeightedIndex: all weights are zero');
    if (total > U64_MAX) throw new Error('WeightedIndex: the weights overflow u64');
    this.total = total;
  }

  sample(rng: ChaCha20Rng): number {
    const chosen = uniformBelow(rng, this.total);
    // The first running total above the chosen weight (binary_search_by(..).unwrap_err()).
    let lo = 0;
    let hi = this.cumulative.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid]! <= chosen) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
