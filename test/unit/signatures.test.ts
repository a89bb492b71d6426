import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair as Web3Keypair, PublicKey, SystemProgram, Transaction as Web3Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { keypairFromSeed, sign } from '../../node-core/keys/keypair.ts';
import { SYSTEM_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { verifySignature, verifyTransactionSignatures } from '../../node-core/runtime/signatures.ts';
import { Point } from '@noble/ed25519';
import { speccheckCases } from '../helpers/ed25519-speccheck.ts';
import { parseTransaction, serializeTransaction, type Transaction } from '../../node-core/runtime/wire.ts';
import { buildTransaction, transferIx } from '../helpers/tx-builder.ts';

const BLOCKHASH = bs58.encode(new Uint8Array(32).fill(3));
const alice = keypairFromSeed(new Uint8Array(32).fill(11));
const bob = keypairFromSeed(new Uint8Array(32).fill(12));
const message = new TextEncoder().encode('isthmus signature test');
/** The order of the Ed25519 base point. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;


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

  test('a key or R of small order is refused: every encoding of the eight torsion points, with R = A and S = 0 (verify_strict)', () => {
    // With a small-order key A, R = A and S = 0 satisfy the cofactorless equation for many messages
    // (for the identity, all): OpenSSL's check accepts them, ed25519-dalek's verify_strict does not.
    const order8 = Point.fromBytes(Buffer.from('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', 'hex'), true);
    const torsion = [Point.ZERO, ...Array.from({ length: 7 }, (_, i) => order8.multiplyUnsafe(BigInt(i + 1)))];
    const encodings = torsion.flatMap((p) => {
      const bytes = p.toBytes();
      const flipped = bytes.slice();
      flipped[31]! ^= 0x80;
      return [bytes, flipped];
    });
    for (const key of encodings) {
      const forged = new Uint8Array(64);
      forged.set(key, 0);
      assert.equal(verifySignature(bs58.encode(key), message, forged), false, Buffer.from(key).toString('hex'));
      // A real signature whose R is replaced by a small-order point.
      const withWeakR = sign(alice, message);
      withWeakR.set(key, 0);
      assert.equal(verifySignature(alice.address, message, withWeakR), false);
    }
    assert.equal(bs58.encode(new Uint8Array(32)), SYSTEM_PROGRAM_ID, 'the System program id is a small-order key');
  });

  test("the speccheck edge cases: exactly ed25519-dalek verify_strict's answers (OpenSSL differs on four)", () => {
    const cases = speccheckCases();
    assert.equal(cases.length, 12);
    for (const [i, c] of cases.entries()) assert.equal(verifySignature(bs58.encode(c.publicKey), c.message, c.signature), c.dalekStrict, `case ${i}`);
    assert.equal(cases.filter((c) => c.dalekStrict !== c.openssl3).length, 4);
  });
});

describe('verifyTransactionSignatures', () => {
  test('single signer built by the node', () => {
    const tx = buildTransaction(alice, [transferIx(alice.address, bob.address, 5)], BLOCKHASH);
    assert.equal(verifyTransactionSignatures(tx), true);
  });

  test('two signers built by web3.js', () => {
    const tx = twoSignerTx();
    assert.equal(tx.signatures.length, 2);
    assert.equal(verifyTransactionSignatures(tx), true);
  });

  test('swapped, missing or corrupted signatures fail', () => {
    const tx = twoSignerTx();
    const [s0, s1] = tx.signatures as [Uint8Array, Uint8Array];
    assert.equal(verifyTransactionSignatures(withSignatures(tx, [s1, s0])), false, 'swapped');
    const bad = s1.slice();
    bad[5]! ^= 1;
    assert.equal(verifyTransactionSignatures(withSignatures(tx, [s0, bad])), false, 'second corrupted');
    assert.equal(verifyTransactionSignatures(withSignatures(tx, [s0, new Uint8Array(64)])), false, 'second zeroed');
    assert.equal(verifyTransactionSignatures({ ...tx, signatures: [s0] }), false, 'fewer signatures than required');
    assert.equal(verifyTransactionSignatures({ ...tx, signatures: [s0, s1, s1] }), false, 'more signatures than required');
  });

  test('a changed message byte fails every signature', () => {
    const tx = buildTransaction(alice, [transferIx(alice.address, bob.address, 5)], BLOCKHASH);
    const wire = tx.wire.slice();
    wire[wire.length - 1]! ^= 1; // the transfer amount
    assert.equal(verifyTransactionSignatures(parseTransaction(wire)), false);
  });

  test('a batch of transactions, each checked on its own', () => {
    const txs = Array.from({ length: 64 }, (_, i) => buildTransaction(alice, [transferIx(alice.address, bob.address, i + 1)], BLOCKHASH));
    const expected = txs.map((_, i) => i % 3 !== 0);
    const inputs = txs.map((tx, i) => (expected[i] ? tx : withSignatures(tx, [txs[(i + 1) % txs.length]!.signatures[0]!])));
    assert.deepEqual(inputs.map((tx) => verifyTransactionSignatures(tx)), expected);
  });
});
