import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair as Web3Keypair, PublicKey, SystemProgram, Transaction as Web3Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { keypairFromSeed, sign } from '../../node-core/keys/keypair.ts';
import { SYSTEM_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { verifySignature, verifyTransactionSignatures, verifyTransactionSignaturesAsync } from '../../node-core/runtime/signatures.ts';
import { Point } from '@noble/ed25519';
import { hasSmallOrder } from '../../node-core/common/ed25519-small-order.ts';
import { parseTransaction, serializeTransaction, type Transaction } from '../../node-core/runtime/wire.ts';
import { buildTransaction, transferIx } from '../helpers/tx-builder.ts';

const BLOCKHASH = bs58.encode(new Uint8Array(32).fill(3));
const alice = keypairFromSeed(new Uint8Array(32).fill(11));
const bob = keypairFromSeed(new Uint8Array(32).fill(12));
const message = new TextEncoder().encode('isthmus signature test');
/** The order of the Ed25519 base point. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

const both = async (tx: Transaction) => {
  const sync = verifyTransactionSignatures(tx);
  const async_ = await verifyTransactionSignaturesAsync(tx);
  assert.equal(sync, async_, 'sync and async verification agree');
  return sync;
};

/** Rebuilds a transaction with other signatures over the same message. */
const withSignatures = (tx: Transaction, sigs: Uint8Array[]) => parseTransaction(serializeTransaction(sigs, tx.message.bytes));

function twoSignerTx(): Transaction {
  const a = Web3Keypair.fromSeed(alice.secretKey.subarray(0, 32));
  const b = Web3Keypair.fromSeed(bob.secretKey.subarray(0, 32));
  const tx = new Web3Transaction({ feePayer: a.publicKey, recentBlockhash: BLOCKHASH })
    .add(SystemProgram.transfer({ fromPubkey: a.publicKey, toPubkey: b.publicKey, lamports: 1 }))
    .add(SystemProgram.transfer({ fromPubkey: b.publicKey, toPubkey: a.publicKey, lamports: 2 }));
  tx.sign(a, b);
  return parseTransaction(tx.serialize());
}

describe('verifySignature', () => {
  test('accepts a valid signature and rejects any change', () => {
    const sig = sign(alice, message);
    assert.equal(verifySignature(alice.address, message, sig), true);
    assert.equal(verifySignature(bob.address, message, sig), false, 'wrong key');
    const otherMessage = message.slice();
    otherMessage[0]! ^= 1;
    assert.equal(verifySignature(alice.address, otherMessage, sig), false, 'changed message');
    for (const i of [0, 31, 32, 63]) {
      const bad = sig.slice();
      bad[i]! ^= 0x10;
      assert.equal(verifySignature(alice.address, message, bad), false, `flipped byte ${i}`);
    }
  });

  test('wrong-length signatures are false, not exceptions', () => {
    const sig = sign(alice, message);
    assert.equal(verifySignature(alice.address, message, sig.subarray(0, 63)), false);
    assert.equal(verifySignature(alice.address, message, new Uint8Array(65)), false);
    assert.equal(verifySignature(alice.address, message, new Uint8Array(0)), false);
  });

  test('a key that is not a curve point verifies nothing', () => {
    let offCurve: string | null = null;
    for (let n = 1; n < 256 && !offCurve; n++) {
      const bytes = new Uint8Array(32).fill(n);
      if (!PublicKey.isOnCurve(bytes)) offCurve = bs58.encode(bytes);
    }
    assert.ok(offCurve);
    assert.equal(verifySignature(offCurve, message, sign(alice, message)), false);
    assert.equal(verifySignature(offCurve, message, new Uint8Array(64)), false, 'cached as invalid, still false');
  });

  test('non-canonical S (S + L) is refused', () => {
    const sig = sign(alice, message);
    let s = 0n;
    for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(sig[32 + i]!);
    const t = s + L;
    assert.ok(t < 2n ** 256n);
    const bad = sig.slice();
    for (let i = 0, v = t; i < 32; i++, v >>= 8n) bad[32 + i] = Number(v & 0xffn);
    assert.equal(verifySignature(alice.address, message, bad), false);
  });

  test('small-order public keys cannot be "signed" for (verify_strict)', () => {
    // With a small-order key A, R = A and S = 0 satisfy the cofactorless equation for any message.
    const allZero = new Uint8Array(32); // y = 0: order 4. Its address is the System program's.
    const identity = new Uint8Array(32);
    identity[0] = 1; // the neutral element
    for (const key of [allZero, identity]) {
      const forged = new Uint8Array(64);
      forged.set(key, 0);
      assert.equal(verifySignature(bs58.encode(key), message, forged), false, bs58.encode(key));
    }
    assert.equal(bs58.encode(allZero), SYSTEM_PROGRAM_ID);
  });

  test('the small-order table agrees with point decompression: all eight torsion points, both signs, and random keys', () => {
    const order8 = Point.fromBytes(Buffer.from('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', 'hex'), true);
    const torsion = [Point.ZERO, ...Array.from({ length: 7 }, (_, i) => order8.multiplyUnsafe(BigInt(i + 1)))];
    for (const p of torsion) {
      const bytes = p.toBytes();
      assert.ok(p.isSmallOrder());
      assert.equal(hasSmallOrder(bytes), true, Buffer.from(bytes).toString('hex'));
      const flipped = bytes.slice();
      flipped[31]! ^= 0x80;
      assert.equal(hasSmallOrder(flipped), true);
    }
    for (let i = 0; i < 200; i++) {
      const key = Web3Keypair.generate().publicKey.toBytes();
      assert.equal(hasSmallOrder(key), false);
    }
  });
});

describe('verifyTransactionSignatures', () => {
  test('single signer built by the node', async () => {
    const tx = buildTransaction(alice, [transferIx(alice.address, bob.address, 5)], BLOCKHASH);
    assert.equal(await both(tx), true);
  });

  test('two signers built by web3.js', async () => {
    const tx = twoSignerTx();
    assert.equal(tx.signatures.length, 2);
    assert.equal(await both(tx), true);
  });

  test('swapped, missing or corrupted signatures fail', async () => {
    const tx = twoSignerTx();
    const [s0, s1] = tx.signatures as [Uint8Array, Uint8Array];
    assert.equal(await both(withSignatures(tx, [s1, s0])), false, 'swapped');
    const bad = s1.slice();
    bad[5]! ^= 1;
    assert.equal(await both(withSignatures(tx, [s0, bad])), false, 'second corrupted');
    assert.equal(await both(withSignatures(tx, [s0, new Uint8Array(64)])), false, 'second zeroed');
    assert.equal(await both({ ...tx, signatures: [s0] }), false, 'fewer signatures than required');
    assert.equal(await both({ ...tx, signatures: [s0, s1, s1] }), false, 'more signatures than required');
  });

  test('a changed message byte fails every signature', async () => {
    const tx = buildTransaction(alice, [transferIx(alice.address, bob.address, 5)], BLOCKHASH);
    const wire = tx.wire.slice();
    wire[wire.length - 1]! ^= 1; // the transfer amount
    assert.equal(await both(parseTransaction(wire)), false);
  });

  test('many concurrent async checks each get their own answer', async () => {
    const txs = Array.from({ length: 64 }, (_, i) => buildTransaction(alice, [transferIx(alice.address, bob.address, i + 1)], BLOCKHASH));
    const expected = txs.map((_, i) => i % 3 !== 0);
    const inputs = txs.map((tx, i) => (expected[i] ? tx : withSignatures(tx, [txs[(i + 1) % txs.length]!.signatures[0]!])));
    const results = await Promise.all(inputs.map((tx) => verifyTransactionSignaturesAsync(tx)));
    assert.deepEqual(results, expected);
    assert.deepEqual(inputs.map((tx) => verifyTransactionSignatures(tx)), expected);
  });
});
