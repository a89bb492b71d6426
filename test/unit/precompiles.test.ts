/**
 * The signature-verification precompiles against instructions built by @solana/web3.js (and by hand
 * for Secp256r1, which web3.js v1 has no helper for): Agave's layouts, offsets into other
 * instructions and u16::MAX for the instruction itself, PrecompileError numbering, and the executor's
 * treatment (no logs, no compute units, precompile signatures in the fee).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Ed25519Program, Keypair as Web3Keypair, Secp256k1Program } from '@solana/web3.js';
import { Point } from '@noble/ed25519';
import { keypairFromSeed } from '../../node-core/keys/keypair.ts';
import { DEFAULT_RENT } from '../../node-core/ledger/genesis-config.ts';
import { minimumBalanceForRentExemption, newAccount, type Account } from '../../node-core/runtime/account.ts';
import { builtinProgramAccount, executeTransaction } from '../../node-core/runtime/executor.ts';
import { builtinPrograms } from '../../node-core/runtime/programs/index.ts';
import { verifyEd25519 } from '../../node-core/runtime/programs/precompiles/ed25519.ts';
import { verifySecp256k1 } from '../../node-core/runtime/programs/precompiles/secp256k1.ts';
import { verifySecp256r1 } from '../../node-core/runtime/programs/precompiles/secp256r1.ts';
import { PrecompileFailure } from '../../node-core/runtime/programs/precompiles/errors.ts';
import {
  ED25519_PROGRAM_ID,
  PrecompileError,
  SECP256K1_PROGRAM_ID,
  SECP256R1_PROGRAM_ID,
  precompileSignatureCount,
} from '../../node-core/runtime/programs/precompiles/index.ts';
import { renderSysvar, SYSVAR_IDS, type Sysvars } from '../../node-core/runtime/sysvars.ts';
import { SYSTEM_PROGRAM_ID, type Address } from '../../node-core/common/pubkey.ts';
import { buildTransaction, transferIx, setComputeUnitLimitIx, type InstructionSpec } from '../helpers/tx-builder.ts';
import bs58 from 'bs58';

/** The PrecompileError a verification throws, or null when it passes. */
function outcome(run: () => void): number | null {
  try {
    run();
    return null;
  } catch (e) {
    if (e instanceof PrecompileFailure) return e.code;
    throw e;
  }
}

const ed = (data: Uint8Array, others: Uint8Array[] = []) => outcome(() => verifyEd25519(data, [data, ...others]));
const k1 = (data: Uint8Array, others: Uint8Array[] = []) => outcome(() => verifySecp256k1(data, [data, ...others]));
const r1 = (data: Uint8Array, others: Uint8Array[] = []) => outcome(() => verifySecp256r1(data, [data, ...others]));

const u16 = (v: DataView, at: number, n: number) => v.setUint16(at, n, true);

describe('Ed25519 precompile', () => {
  const signer = Web3Keypair.generate();
  const message = Buffer.from('isthmus ed25519');
  const valid = () => new Uint8Array(Ed25519Program.createInstructionWithPrivateKey({ privateKey: signer.secretKey, message }).data);

  test("web3.js's instruction verifies; any changed signed byte fails with InvalidSignature", () => {
    const data = valid();
    assert.equal(ed(data), null);
    // The layout: count 1, padding, then seven u16 offsets, each instruction index u16::MAX.
    const v = new DataView(data.buffer);
    assert.deepEqual([data[0], v.getUint16(4, true), v.getUint16(8, true), v.getUint16(14, true)], [1, 0xffff, 0xffff, 0xffff]);
    const messageAt = v.getUint16(10, true);
    const tampered = data.slice();
    tampered[messageAt] ^= 1;
    assert.equal(ed(tampered), PrecompileError.InvalidSignature);
    const badSig = data.slice();
    badSig[v.getUint16(2, true) + 40] ^= 1;
    assert.equal(ed(badSig), PrecompileError.InvalidSignature);
    // Byte 1 is padding: not checked.
    const padded = data.slice();
    padded[1] = 7;
    assert.equal(ed(padded), null);
  });

  test('sizes and offsets', () => {
    assert.equal(ed(Uint8Array.of(0)), PrecompileError.InvalidInstructionDataSize);
    assert.equal(ed(Uint8Array.of(0, 0)), null, 'no signatures, nothing else: passes');
    assert.equal(ed(Uint8Array.of(0, 0, 0)), PrecompileError.InvalidInstructionDataSize);
    assert.equal(ed(valid().subarray(0, 15)), PrecompileError.InvalidInstructionDataSize);
    const data = valid();
    const v = new DataView(data.buffer);
    const at = (field: number, value: number) => {
      const copy = data.slice();
      u16(new DataView(copy.buffer), 2 + field * 2, value);
      return copy;
    };
    assert.equal(ed(at(0, data.length - 63)), PrecompileError.InvalidDataOffsets, 'signature past the end');
    assert.equal(ed(at(1, 1)), PrecompileError.InvalidDataOffsets, 'signature in a missing instruction');
    assert.equal(ed(at(2, 0xffff)), PrecompileError.InvalidDataOffsets, 'public key past the end');
    assert.equal(ed(at(5, data.length)), PrecompileError.InvalidDataOffsets, 'message past the end');
    assert.equal(ed(at(6, 5)), PrecompileError.InvalidDataOffsets, 'message in a missing instruction');
    assert.ok(v.getUint16(12, true) === message.length);
  });

  test('signature, key and message may sit in other instructions of the transaction', () => {
    const data = valid();
    const v = new DataView(data.buffer);
    // Move everything after the offsets into instruction 2 and point there.
    const payload = data.slice(16);
    const other = new Uint8Array(10 + payload.length);
    other.set(payload, 10);
    const refs = new Uint8Array(16);
    refs.set(data.subarray(0, 16));
    const r = new DataView(refs.buffer);
    for (const [offsetField, indexField] of [[2, 4], [6, 8], [10, 14]] as const) {
      u16(r, offsetField, v.getUint16(offsetField, true) - 16 + 10);
      u16(r, indexField, 2);
    }
    assert.equal(outcome(() => verifyEd25519(refs, [new Uint8Array(3), refs, other])), null);
    assert.equal(outcome(() => verifyEd25519(refs, [new Uint8Array(3), refs])), PrecompileError.InvalidDataOffsets);
  });

  test('a key that is no curve point: InvalidPublicKey; a small-order key: InvalidSignature', () => {
    const data = valid();
    const keyAt = new DataView(data.buffer).getUint16(6, true);
    let notAPoint: Uint8Array | null = null;
    for (let y = 2; y < 300 && !notAPoint; y++) {
      const candidate = new Uint8Array(32);
      candidate[0] = y;
      try {
        Point.fromBytes(candidate, true);
      } catch {
        notAPoint = candidate;
      }
    }
    const bad = data.slice();
    bad.set(notAPoint!, keyAt);
    assert.equal(ed(bad), PrecompileError.InvalidPublicKey);
    // The identity as key, R = identity, S = 0: OpenSSL's cofactorless check accepts it for any
    // message; ed25519-dalek's verify_strict (Agave) refuses small-order points.
    const identity = new Uint8Array(32);
    identity[0] = 1;
    const weak = Ed25519Program.createInstructionWithPublicKey({ publicKey: identity, message, signature: Buffer.concat([identity, Buffer.alloc(32)]) });
    assert.equal(ed(new Uint8Array(weak.data)), PrecompileError.InvalidSignature);
  });
});

describe('Secp256k1 precompile', () => {
  const privateKey = crypto.randomBytes(32);
  privateKey[0] = 1; // well below the curve order
  const message = Buffer.from('isthmus secp256k1');
  const valid = () => new Uint8Array(Secp256k1Program.createInstructionWithPrivateKey({ privateKey, message }).data);

  test("web3.js's instruction (Ethereum address, keccak of the message) verifies", () => {
    const data = valid();
    assert.equal(k1(data), null);
    const tampered = data.slice();
    tampered[tampered.length - 1] ^= 1;
    assert.equal(k1(tampered), PrecompileError.InvalidSignature);
    // The 11-byte offsets: the address follows them at 12, then the signature and recovery id.
    const wrongAddress = data.slice();
    wrongAddress[12] ^= 1;
    assert.equal(k1(wrongAddress), PrecompileError.InvalidSignature);
  });

  test('recovery id, sizes and offsets, with Agave\'s error for each', () => {
    const data = valid();
    const v = new DataView(data.buffer);
    const sigAt = v.getUint16(1, true);
    const badRecovery = data.slice();
    badRecovery[sigAt + 64] = 4;
    assert.equal(k1(badRecovery), PrecompileError.InvalidRecoveryId);
    assert.equal(k1(new Uint8Array(0)), PrecompileError.InvalidInstructionDataSize);
    assert.equal(k1(Uint8Array.of(0)), null);
    assert.equal(k1(Uint8Array.of(0, 1)), PrecompileError.InvalidInstructionDataSize);
    assert.equal(k1(data.subarray(0, 11)), PrecompileError.InvalidInstructionDataSize);
    const set = (mutate: (v: DataView) => void) => {
      const copy = data.slice();
      mutate(new DataView(copy.buffer));
      return copy;
    };
    assert.equal(k1(set((w) => w.setUint8(3, 1))), PrecompileError.InvalidInstructionDataSize, 'signature in a missing instruction');
    assert.equal(k1(set((w) => w.setUint16(1, data.length - 64, true))), PrecompileError.InvalidSignature, 'no room for the recovery id');
    assert.equal(k1(set((w) => w.setUint8(6, 1))), PrecompileError.InvalidDataOffsets, 'address in a missing instruction');
    assert.equal(k1(set((w) => w.setUint16(4, 0xffff, true))), PrecompileError.InvalidSignature, 'address past the end');
    assert.equal(k1(set((w) => w.setUint8(11, 1))), PrecompileError.InvalidDataOffsets, 'message in a missing instruction');
    assert.equal(k1(set((w) => w.setUint16(9, 0xffff, true))), PrecompileError.InvalidSignature, 'message past the end');
  });
});

describe('Secp256r1 precompile', () => {
  const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const compressed = (() => {
    const raw = publicKey.export({ format: 'jwk' });
    const x = Buffer.from(raw.x!, 'base64url');
    const y = Buffer.from(raw.y!, 'base64url');
    return Buffer.concat([Buffer.of(2 + (y[31]! & 1)), x]);
  })();
  const message = Buffer.from('isthmus secp256r1');
  const toHex32 = (n: bigint) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');

  /** r‖s with s forced low or high. */
  function signature(high: boolean): Buffer {
    const sig = crypto.sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    const s = BigInt('0x' + sig.subarray(32).toString('hex'));
    const low = s > N / 2n ? N - s : s;
    return Buffer.concat([sig.subarray(0, 32), toHex32(high ? N - low : low)]);
  }

  /** Agave's layout: count, padding, 14-byte offsets, then key (33), signature (64), message. */
  function instruction(sig: Buffer, key: Buffer = compressed, count = 1): Uint8Array {
    const start = 2 + 14;
    const data = new Uint8Array(start + 33 + 64 + message.length);
    const v = new DataView(data.buffer);
    data[0] = count;
    u16(v, 2, start + 33);
    u16(v, 4, 0xffff);
    u16(v, 6, start);
    u16(v, 8, 0xffff);
    u16(v, 10, start + 33 + 64);
    u16(v, 12, message.length);
    u16(v, 14, 0xffff);
    data.set(key, start);
    data.set(sig, start + 33);
    data.set(message, start + 33 + 64);
    return data;
  }

  test('a low-S P-256 signature verifies; the same signature with high S is refused, as in Agave', () => {
    assert.equal(r1(instruction(signature(false))), null);
    assert.equal(r1(instruction(signature(true))), PrecompileError.InvalidSignature);
    const other = Buffer.from(message);
    const wrong = instruction(signature(false));
    wrong[wrong.length - 1] ^= 1;
    assert.equal(r1(wrong), PrecompileError.InvalidSignature);
    assert.equal(other.length, message.length);
  });

  test('counts, keys and ranges', () => {
    assert.equal(r1(Uint8Array.of(0, 0)), PrecompileError.InvalidInstructionDataSize, 'no signatures is an error here');
    assert.equal(r1(instruction(signature(false), compressed, 9)), PrecompileError.InvalidInstructionDataSize, 'at most 8');
    assert.equal(r1(instruction(signature(false), compressed, 2)), PrecompileError.InvalidDataOffsets, 'a second entry, read from the key bytes, points nowhere');
    const badKey = Buffer.from(compressed);
    badKey[0] = 4;
    assert.equal(r1(instruction(signature(false), badKey)), PrecompileError.InvalidPublicKey);
    assert.equal(r1(instruction(Buffer.concat([Buffer.alloc(32), signature(false).subarray(32)]))), PrecompileError.InvalidSignature, 'r = 0');
  });
});

describe('precompiles in a transaction', () => {
  const FEE = 5000;
  const payer = keypairFromSeed(new Uint8Array(32).fill(9));
  const to = keypairFromSeed(new Uint8Array(32).fill(10)).address;
  const BLOCKHASH = bs58.encode(new Uint8Array(32).fill(1));
  const RENT_EXEMPT_0 = minimumBalanceForRentExemption(DEFAULT_RENT, 0);
  const sysvars: Sysvars = {
    clock: { slot: 10, epochStartTimestamp: 0, epoch: 0, leaderScheduleEpoch: 1, unixTimestamp: 1_700_000_000 },
    rent: DEFAULT_RENT,
    epochSchedule: { slotsPerEpoch: 432_000, leaderScheduleSlotOffset: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
    recentBlockhashes: [{ blockhash: BLOCKHASH, lamportsPerSignature: FEE }],
    slotHashes: [],
    lamportsPerSignature: FEE,
  };
  const accounts = new Map<Address, Account>([
    [payer.address, newAccount(10 * RENT_EXEMPT_0, 0, SYSTEM_PROGRAM_ID)],
    [SYSTEM_PROGRAM_ID, builtinProgramAccount('system_program')],
  ]);
  const run = (ixs: InstructionSpec[]) =>
    executeTransaction(buildTransaction(payer, ixs, BLOCKHASH), {
      readAccount: (a) => accounts.get(a) ?? (SYSVAR_IDS.has(a) ? renderSysvar(a, sysvars) : null),
      sysvars,
      programs: builtinPrograms,
      simulation: false,
      durableNonce: false,
    });
  const signer = Web3Keypair.generate();
  const edIx = (message: Buffer): InstructionSpec => ({
    programId: ED25519_PROGRAM_ID,
    data: new Uint8Array(Ed25519Program.createInstructionWithPrivateKey({ privateKey: signer.secretKey, message }).data),
  });

  test('no log lines, no compute units, and each verified signature paid like a transaction signature', () => {
    const r = run([edIx(Buffer.from('a')), transferIx(payer.address, to, RENT_EXEMPT_0)]);
    assert.equal(r.err, null);
    assert.deepEqual(r.logs, [`Program ${SYSTEM_PROGRAM_ID} invoke [1]`, `Program ${SYSTEM_PROGRAM_ID} success`]);
    assert.equal(r.computeUnitsConsumed, 150);
    assert.equal(r.fee, 2 * FEE);
  });

  test('a failing precompile fails the transaction with {Custom: PrecompileError} at its index, fee charged', () => {
    const bad = edIx(Buffer.from('b'));
    (bad.data as Uint8Array)[(bad.data as Uint8Array).length - 1] ^= 1;
    const r = run([setComputeUnitLimitIx(10_000), transferIx(payer.address, to, RENT_EXEMPT_0), bad]);
    assert.deepEqual(r.err, { InstructionError: [2, { Custom: PrecompileError.InvalidSignature }] });
    assert.equal(r.fee, 2 * FEE);
    assert.deepEqual(r.writes.map(([k]) => k), [payer.address]);
  });

  test('the fee counts every precompile signature (the first data byte)', () => {
    const keys = [SYSTEM_PROGRAM_ID, ED25519_PROGRAM_ID, SECP256K1_PROGRAM_ID, SECP256R1_PROGRAM_ID];
    const ix = (programIdIndex: number, first?: number) => ({ programIdIndex, accounts: [], data: first === undefined ? new Uint8Array(0) : Uint8Array.of(first, 0) });
    assert.equal(precompileSignatureCount({ accountKeys: keys, instructions: [ix(0, 9), ix(1, 2), ix(2, 3), ix(3, 1), ix(1)] }), 6);
  });
});
