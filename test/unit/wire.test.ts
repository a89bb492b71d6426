import { prng as rng } from '../helpers/prng.ts';
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair as Web3Keypair,
  MessageV0,
  PublicKey,
  SystemProgram,
  SYSVAR_CLOCK_PUBKEY,
  Transaction as Web3Transaction,
  TransactionInstruction,
  VersionedTransaction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { ByteReader, ByteWriter, DecodeError } from '../../node-core/common/bytes.ts';
import { MEMO_PROGRAM_ID, SYSTEM_PROGRAM_ID, addressToBytes } from '../../node-core/common/pubkey.ts';
import { TransactionError } from '../../node-core/runtime/errors.ts';
import {
  PACKET_DATA_SIZE,
  isSignerIndex,
  isWritableIndex,
  parseMessage,
  parseTransaction,
  sanitizeTransaction,
  serializeMessage,
  serializeTransaction,
  type Transaction,
} from '../../node-core/runtime/wire.ts';
import { compileMessage, signMessage } from '../helpers/tx-builder.ts';
import { keypairFromSeed } from '../../node-core/keys/keypair.ts';

const seeded = (n: number) => Web3Keypair.fromSeed(new Uint8Array(32).fill(n));
const payer = seeded(1);
const cosigner = seeded(2);
const recipient = seeded(3).publicKey;
const other = seeded(4).publicKey;
const blockhash = bs58.encode(new Uint8Array(32).fill(7));
const memo = (text: string, signer = payer.publicKey) =>
  new TransactionInstruction({ programId: new PublicKey(MEMO_PROGRAM_ID), keys: [{ pubkey: signer, isSigner: true, isWritable: false }], data: Buffer.from(text) });

function legacyWeb3(): Web3Transaction {
  const tx = new Web3Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash })
    .add(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 10 }))
    .add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 1234 }))
    .add(SystemProgram.transfer({ fromPubkey: cosigner.publicKey, toPubkey: other, lamports: 5 }))
    .add(new TransactionInstruction({ programId: new PublicKey(MEMO_PROGRAM_ID), keys: [{ pubkey: SYSVAR_CLOCK_PUBKEY, isSigner: false, isWritable: false }], data: Buffer.from('x') }))
    .add(memo('hello'));
  tx.sign(payer, cosigner);
  return tx;
}

const table = new AddressLookupTableAccount({
  key: seeded(9).publicKey,
  state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, authority: undefined, addresses: [seeded(10).publicKey, seeded(11).publicKey, seeded(12).publicKey] },
});

function v0Web3(): VersionedTransaction {
  const message = MessageV0.compile({
    payerKey: payer.publicKey,
    recentBlockhash: blockhash,
    instructions: [
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: seeded(10).publicKey, lamports: 99 }),
      new TransactionInstruction({ programId: new PublicKey(MEMO_PROGRAM_ID), keys: [{ pubkey: seeded(12).publicKey, isSigner: false, isWritable: false }], data: Buffer.from('v0') }),
      memo('and me', cosigner.publicKey),
    ],
    addressLookupTableAccounts: [table],
  });
  const tx = new VersionedTransaction(message);
  tx.sign([payer, cosigner]);
  return tx;
}

function decodeError(fn: () => unknown, message?: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof DecodeError, `expected DecodeError, got ${String(e)}`);
    if (typeof message === 'string') assert.equal(e.message, message);
    else if (message) assert.match(e.message, message);
    return true;
  });
}

function sanitizeFails(tx: Transaction, value = 'SanitizeFailure'): void {
  assert.throws(() => sanitizeTransaction(tx), (e: unknown) => e instanceof TransactionError && e.value === value);
}


describe('short-vec', () => {
  const read = (bytes: number[]) => new ByteReader(Uint8Array.from(bytes)).shortVec();

  test('canonical encodings decode', () => {
    assert.equal(read([0x00]), 0);
    assert.equal(read([0x7f]), 127);
    assert.equal(read([0x80, 0x01]), 128);
    assert.equal(read([0xff, 0x7f]), 16383);
    assert.equal(read([0x80, 0x80, 0x01]), 16384);
    assert.equal(read([0xff, 0xff, 0x03]), 65535);
  });

  test('every u16 round-trips and uses the fewest bytes', () => {
    for (let n = 0; n <= 0xffff; n++) {
      const bytes = new ByteWriter(3).shortVec(n).finish();
      assert.equal(bytes.length, n < 0x80 ? 1 : n < 0x4000 ? 2 : 3);
      const r = new ByteReader(bytes);
      assert.equal(r.shortVec(), n);
      assert.equal(r.remaining, 0);
    }
  });

  test('aliases, overflow and truncation are DecodeErrors', () => {
    decodeError(() => read([0x80, 0x00]), 'non-canonical short-vec length');
    decodeError(() => read([0x81, 0x80, 0x00]), 'non-canonical short-vec length');
    decodeError(() => read([0xff, 0xff, 0x04]), 'short-vec length overflow');
    decodeError(() => read([0x80, 0x80, 0x80]), 'short-vec length overflow');
    decodeError(() => read([0x80, 0x80, 0x80, 0x01]), 'short-vec length overflow');
    decodeError(() => read([]), /unexpected end of data/);
    decodeError(() => read([0x80]), /unexpected end of data/);
    decodeError(() => read([0xff, 0xff]), /unexpected end of data/);
  });

  test('bincode byte strings check their length before reading', () => {
    decodeError(() => new ByteReader(new ByteWriter().u64(5).bytes(Uint8Array.of(1, 2)).finish()).bincodeBytes(), /unexpected end of data/);
    decodeError(() => new ByteReader(new ByteWriter().u64(2n ** 64n - 1n).finish()).bincodeBytes(), /unexpected end of data/);
    assert.deepEqual(new ByteReader(new ByteWriter().bincodeBytes(Uint8Array.of(9, 8)).finish()).bincodeBytes(), Uint8Array.of(9, 8));
  });
});

describe('legacy transactions', () => {
  const web3 = legacyWeb3();
  const wire = new Uint8Array(web3.serialize());
  const web3Message = web3.compileMessage();

  test('parse matches web3.js field by field', () => {
    const tx = parseTransaction(wire);
    const m = tx.message;
    assert.equal(m.version, 'legacy');
    assert.deepEqual(m.header, web3Message.header);
    assert.deepEqual(m.accountKeys, web3Message.accountKeys.map((k) => k.toBase58()));
    assert.equal(m.recentBlockhash, blockhash);
    assert.deepEqual(
      m.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: bs58.encode(ix.data) })),
      web3Message.instructions,
    );
    assert.deepEqual(m.addressTableLookups, []);
    assert.deepEqual(m.bytes, new Uint8Array(web3.serializeMessage()));
    assert.equal(tx.signatures.length, 2);
    assert.deepEqual(tx.signatures[0], new Uint8Array(web3.signatures[0]!.signature!));
    assert.deepEqual(tx.signatures[1], new Uint8Array(web3.signatures[1]!.signature!));
    assert.equal(tx.id, bs58.encode(web3.signature!));
    assert.equal(tx.wire, wire);
    sanitizeTransaction(tx);
  });

  test('serializeMessage and serializeTransaction reproduce web3.js bytes exactly', () => {
    const tx = parseTransaction(wire);
    const { bytes: _, ...unsigned } = tx.message;
    assert.deepEqual(serializeMessage(unsigned, addressToBytes), new Uint8Array(web3.serializeMessage()));
    assert.deepEqual(serializeTransaction(tx.signatures, tx.message.bytes), wire);
  });

  test('a message built by the node helper is what web3.js builds for the same instructions', () => {
    const ours = compileMessage(
      payer.publicKey.toBase58(),
      [{ programId: SYSTEM_PROGRAM_ID, accounts: [{ key: payer.publicKey.toBase58(), signer: true, writable: true }, { key: recipient.toBase58(), writable: true }], data: SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 77 }).data }],
      blockhash,
    );
    const theirs = new Web3Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 77 }));
    assert.deepEqual(serializeMessage(ours, addressToBytes), new Uint8Array(theirs.serializeMessage()));
    const signed = signMessage(ours, [keypairFromSeed(new Uint8Array(32).fill(1))]);
    theirs.sign(payer);
    assert.deepEqual(signed.wire, new Uint8Array(theirs.serialize()), 'Ed25519 is deterministic: same key, same bytes, same signature');
  });

  test('signer and writable flags agree with web3.js for every key', () => {
    const m = parseTransaction(wire).message;
    m.accountKeys.forEach((_, i) => {
      assert.equal(isWritableIndex(m, i), web3Message.isAccountWritable(i), `writable ${i}`);
      assert.equal(isSignerIndex(m, i), web3Message.isAccountSigner(i), `signer ${i}`);
    });
  });

  test('isWritableIndex follows the header for hand-made layouts', () => {
    const msg = (s: number, rs: number, ru: number, n: number) =>
      parseMessage(serializeMessage({ version: 'legacy', header: { numRequiredSignatures: s, numReadonlySignedAccounts: rs, numReadonlyUnsignedAccounts: ru }, accountKeys: Array.from({ length: n }, (_, i) => seeded(50 + i).publicKey.toBase58()), recentBlockhash: blockhash, instructions: [], addressTableLookups: [] }, addressToBytes));
    const flags = (m: ReturnType<typeof msg>) => m.accountKeys.map((_, i) => isWritableIndex(m, i));
    assert.deepEqual(flags(msg(3, 1, 2, 6)), [true, true, false, true, false, false]);
    assert.deepEqual(flags(msg(1, 0, 0, 3)), [true, true, true]);
    assert.deepEqual(flags(msg(2, 1, 1, 2)), [true, false]);
  });
});

describe('v0 transactions', () => {
  const web3 = v0Web3();
  const wire = web3.serialize();

  test('parse matches web3.js, lookups included', () => {
    const tx = parseTransaction(wire);
    const m = tx.message;
    const w = web3.message as MessageV0;
    assert.equal(m.version, 0);
    assert.deepEqual(m.header, w.header);
    assert.deepEqual(m.accountKeys, w.staticAccountKeys.map((k) => k.toBase58()));
    assert.deepEqual(
      m.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accountKeyIndexes: ix.accounts, data: ix.data })),
      w.compiledInstructions.map((ix) => ({ ...ix, data: new Uint8Array(ix.data) })),
    );
    assert.deepEqual(m.addressTableLookups, w.addressTableLookups.map((l) => ({ accountKey: l.accountKey.toBase58(), writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes })));
    assert.equal(m.addressTableLookups.length, 1);
    assert.deepEqual(m.bytes, w.serialize());
    assert.equal(tx.id, bs58.encode(web3.signatures[0]!));
    sanitizeTransaction(tx);
  });

  test('round-trips byte for byte', () => {
    const tx = parseTransaction(wire);
    const { bytes: _, ...unsigned } = tx.message;
    assert.deepEqual(serializeMessage(unsigned, addressToBytes), (web3.message as MessageV0).serialize());
    assert.deepEqual(serializeTransaction(tx.signatures, tx.message.bytes), wire);
  });

  test('static keys are writable exactly where web3.js says', () => {
    const m = parseTransaction(wire).message;
    m.accountKeys.forEach((_, i) => assert.equal(isWritableIndex(m, i), web3.message.isAccountWritable(i), `key ${i}`));
  });

  test('a v0 message without lookups round-trips', () => {
    const message = MessageV0.compile({ payerKey: payer.publicKey, recentBlockhash: blockhash, instructions: [memo('plain v0')] });
    const tx = new VersionedTransaction(message);
    tx.sign([payer]);
    const parsed = parseTransaction(tx.serialize());
    assert.equal(parsed.message.version, 0);
    assert.deepEqual(parsed.message.addressTableLookups, []);
    assert.deepEqual(serializeTransaction(parsed.signatures, parsed.message.bytes), tx.serialize());
  });

  test('versions other than 0 are refused', () => {
    const bytes = (web3.message as MessageV0).serialize().slice();
    for (const v of [1, 2, 127]) {
      bytes[0] = 0x80 | v;
      decodeError(() => parseMessage(bytes), `unsupported transaction version: ${v}`);
    }
  });
});

describe('malformed wire bytes', () => {
  const legacy = new Uint8Array(legacyWeb3().serialize());
  const v0 = v0Web3().serialize();

  test('every truncation of a valid transaction is a DecodeError', () => {
    for (const wire of [legacy, v0]) {
      for (let n = 0; n < wire.length; n++) decodeError(() => parseTransaction(wire.subarray(0, n)));
    }
  });

  test('trailing bytes after the message are refused', () => {
    for (const wire of [legacy, v0]) {
      const longer = new Uint8Array(wire.length + 1);
      longer.set(wire);
      decodeError(() => parseTransaction(longer), 'trailing bytes after message');
    }
  });

  test('no signatures', () => {
    decodeError(() => parseTransaction(Uint8Array.of(0)), 'transaction has no signatures');
    const noSigs = new Uint8Array(legacy.length - 128);
    noSigs.set(legacy.subarray(129), 1);
    decodeError(() => parseTransaction(noSigs), 'transaction has no signatures');
  });

  test('empty input names the problem', () => {
    decodeError(() => parseTransaction(new Uint8Array(0)), /unexpected end of data/);
  });

  test('1232 bytes is the limit', () => {
    const sized = (memoLength: number) => {
      const tx = new Web3Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(memo('m'.repeat(memoLength)));
      tx.sign(payer);
      return new Uint8Array(tx.serialize({ verifySignatures: false }));
    };
    const base = sized(0).length;
    const exact = sized(PACKET_DATA_SIZE - base - 1); // the data's short-vec length grows by a byte past 127
    assert.equal(exact.length, PACKET_DATA_SIZE);
    assert.equal(parseTransaction(exact).message.instructions[0]!.data.length, PACKET_DATA_SIZE - base - 1);
    const over = new Uint8Array(PACKET_DATA_SIZE + 1);
    over.set(exact);
    decodeError(() => parseTransaction(over), `transaction too large: ${PACKET_DATA_SIZE + 1} bytes (max: ${PACKET_DATA_SIZE} bytes)`);
  });

  test('huge counts do not allocate their way past the input', () => {
    // 65535 signatures claimed, none present.
    decodeError(() => parseTransaction(Uint8Array.of(0xff, 0xff, 0x03)), /unexpected end of data/);
    // A message claiming 65535 keys.
    decodeError(() => parseMessage(Uint8Array.of(1, 0, 0, 0xff, 0xff, 0x03)), /unexpected end of data/);
  });

  test('random corruption gives a Transaction or a DecodeError, never anything else', () => {
    const random = rng(12345);
    for (const wire of [legacy, v0]) {
      for (let round = 0; round < 3000; round++) {
        const bytes = wire.slice();
        const flips = 1 + Math.floor(random() * 4);
        for (let f = 0; f < flips; f++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
        try {
          const tx = parseTransaction(bytes);
          assert.equal(tx.wire.length, bytes.length);
          try {
            sanitizeTransaction(tx);
          } catch (e) {
            assert.ok(e instanceof TransactionError, `sanitize threw ${String(e)}`);
          }
        } catch (e) {
          assert.ok(e instanceof DecodeError, `round ${round}: ${String(e)}`);
        }
      }
    }
  });
});

describe('sanitizeTransaction', () => {
  const keys = [payer, cosigner].map((k) => k.publicKey.toBase58());
  const k = (n: number) => seeded(20 + n).publicKey.toBase58();
  const base = () => ({
    version: 'legacy' as const,
    header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
    accountKeys: [keys[0]!, k(1), SYSTEM_PROGRAM_ID],
    recentBlockhash: blockhash,
    instructions: [{ programIdIndex: 2, accounts: [0, 1], data: new Uint8Array(12) }],
    addressTableLookups: [] as Array<{ accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }>,
  });
  type Msg = ReturnType<typeof base>;
  const build = (edit: (m: Msg) => void, signatures?: number): Transaction => {
    const m = base();
    edit(m);
    const bytes = serializeMessage(m as never, addressToBytes);
    const sigs = Array.from({ length: signatures ?? m.header.numRequiredSignatures }, (_, i) => new Uint8Array(64).fill(i + 1));
    return parseTransaction(serializeTransaction(sigs, bytes));
  };

  test('a well-formed message passes', () => {
    sanitizeTransaction(build(() => {}));
  });

  test('signature count must equal the required signatures', () => {
    sanitizeFails(build(() => {}, 2));
    sanitizeFails(build((m) => (m.header.numRequiredSignatures = 2), 1));
  });

  test('header must leave a writable fee payer and fit the keys', () => {
    sanitizeFails(build((m) => (m.header.numReadonlySignedAccounts = 1)));
    sanitizeFails(build((m) => (m.header.numRequiredSignatures = 4), 4));
    sanitizeFails(build((m) => (m.header.numReadonlyUnsignedAccounts = 3)));
    sanitizeTransaction(build((m) => (m.header.numReadonlyUnsignedAccounts = 2)));
  });

  test('instruction indexes must be in range and the program may not be the payer', () => {
    sanitizeFails(build((m) => (m.instructions[0]!.programIdIndex = 0)));
    sanitizeFails(build((m) => (m.instructions[0]!.programIdIndex = 3)));
    sanitizeFails(build((m) => (m.instructions[0]!.accounts = [0, 3])));
    sanitizeTransaction(build((m) => (m.instructions[0]!.accounts = [2, 2, 1, 0])));
  });

  test('a key listed twice is AccountLoadedTwice', () => {
    sanitizeFails(build((m) => (m.accountKeys[1] = keys[0]!)), 'AccountLoadedTwice');
  });

  test('v0: accounts may index the lookup range, programs may not', () => {
    const lookup = { accountKey: k(9), writableIndexes: [0], readonlyIndexes: [1, 2] };
    const v0 = (edit: (m: Msg) => void) =>
      build((m) => {
        (m as { version: unknown }).version = 0;
        m.addressTableLookups = [lookup];
        edit(m);
      });
    sanitizeTransaction(v0((m) => (m.instructions[0]!.accounts = [0, 5])));
    sanitizeFails(v0((m) => (m.instructions[0]!.accounts = [0, 6])));
    sanitizeFails(v0((m) => (m.instructions[0]!.programIdIndex = 3)));
  });

  test('v0: a lookup that loads nothing is refused', () => {
    sanitizeFails(
      build((m) => {
        (m as { version: unknown }).version = 0;
        m.addressTableLookups = [{ accountKey: k(9), writableIndexes: [], readonlyIndexes: [] }];
      }),
    );
  });

  test('v0: at most 256 keys in all', () => {
    const many = Array.from({ length: 254 }, (_, i) => i);
    const v0 = (n: number) =>
      build((m) => {
        (m as { version: unknown }).version = 0;
        m.addressTableLookups = [{ accountKey: k(9), writableIndexes: many.slice(0, n), readonlyIndexes: [] }];
      });
    sanitizeTransaction(v0(253));
    sanitizeFails(v0(254));
  });
});
