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
import { speccheckCases } from '../helpers/ed25519-speccheck.ts';
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

  test("the speccheck edge cases: exactly those ed25519-dalek verify_strict accepts pass, the rest are InvalidSignature", () => {
    for (const [i, c] of speccheckCases().entries()) {
      const data = new Uint8Array(Ed25519Program.createInstructionWithPublicKey({ publicKey: c.publicKey, message: c.message, signature: c.signature }).data);
      assert.equal(ed(data), c.dalekStrict ? null : PrecompileError.InvalidSignature, `case ${i}`);
    }
  });

  test('a key that is no curve point: InvalidPublicKey (before the message is read); a small-order key: InvalidSignature', () => {
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
    const badKeyAndMessage = bad.slice();
    new DataView(badKeyAndMessage.buffer).setUint16(14, 3, true); // message in a missing instruction
    assert.equal(ed(badKeyAndMessage), PrecompileError.InvalidPublicKey);
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

describe('against LiteSVM (Agave\'s precompiles)', () => {
  /** Runs each instruction list here and in LiteSVM; errors, fees, logs and compute units must agree. */
  async function agree(cases: Array<[string, Uint8Array[], Address[]]>): Promise<void> {
    const { LiteSVM } = await import('litesvm');
    const { getTransactionDecoder } = await import('@solana/kit');
    const svm = new LiteSVM().withSigverify(false);
    const payer = keypairFromSeed(crypto.randomBytes(32));
    svm.airdrop(payer.address as never, 1_000_000_000_000n as never);
    const blockhash = svm.latestBlockhash();
    const sysvars: Sysvars = {
      clock: { slot: 1, epochStartTimestamp: 0, epoch: 0, leaderScheduleEpoch: 1, unixTimestamp: 1_700_000_000 },
      rent: DEFAULT_RENT,
      epochSchedule: { slotsPerEpoch: 432_000, leaderScheduleSlotOffset: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
      recentBlockhashes: [{ blockhash, lamportsPerSignature: 5000 }],
      slotHashes: [],
      lamportsPerSignature: 5000,
    };
    const balance = () => Number(svm.getBalance(payer.address as never));
    for (const [name, datas, programs] of cases) {
      const tx = buildTransaction(payer, datas.map((data, i) => ({ programId: programs[i]!, data })), svm.latestBlockhash());
      const ours = executeTransaction(tx, {
        readAccount: (a) => (a === payer.address ? newAccount(1_000_000_000_000, 0, SYSTEM_PROGRAM_ID) : SYSVAR_IDS.has(a) ? renderSysvar(a, sysvars) : null),
        sysvars,
        programs: builtinPrograms,
        simulation: false,
        durableNonce: false,
      });
      const before = balance();
      const raw = svm.sendTransaction(getTransactionDecoder().decode(tx.wire) as never) as unknown as { err?: () => unknown; meta?: () => unknown; logs?: () => string[]; computeUnitsConsumed?: () => bigint };
      const failed = typeof raw.err === 'function';
      const meta = (failed ? raw.meta!() : raw) as { logs(): string[]; computeUnitsConsumed(): bigint };
      let theirs: unknown = null;
      if (failed) {
        const e = raw.err!() as { index?: number; err?: () => { code: number } };
        theirs = typeof e.err === 'function' ? { InstructionError: [e.index, { Custom: e.err().code }] } : `LiteSVM: ${String(raw)}`;
      }
      assert.deepEqual(ours.err, theirs, name);
      assert.equal(ours.fee, before - balance(), `${name}: fee`);
      assert.deepEqual(ours.logs, meta.logs(), `${name}: logs`);
      assert.equal(BigInt(ours.computeUnitsConsumed), meta.computeUnitsConsumed(), `${name}: compute units`);
      svm.expireBlockhash();
    }
  }

  test('Ed25519, Secp256k1 and Secp256r1: valid and broken instructions alike', async () => {
    const signer = Web3Keypair.generate();
    const edValid = new Uint8Array(Ed25519Program.createInstructionWithPrivateKey({ privateKey: signer.secretKey, message: Buffer.from('hello') }).data);
    const edMut = (f: (d: Uint8Array, v: DataView) => void) => {
      const d = edValid.slice();
      f(d, new DataView(d.buffer));
      return d;
    };
    const edV = new DataView(edValid.buffer);
    const sigAt = edV.getUint16(2, true);
    const keyAt = edV.getUint16(6, true);
    const identity = new Uint8Array(32);
    identity[0] = 1;
    // The second instruction takes signature, key and message from the first (index 0).
    const edCross = edMut((_, v) => [4, 8, 14].forEach((at) => v.setUint16(at, 0, true)));

    const k1Key = crypto.randomBytes(32);
    k1Key[0] = 1;
    const k1Valid = new Uint8Array(Secp256k1Program.createInstructionWithPrivateKey({ privateKey: k1Key, message: Buffer.from('hello k1') }).data);
    const k1Mut = (f: (d: Uint8Array, v: DataView) => void) => {
      const d = k1Valid.slice();
      f(d, new DataView(d.buffer));
      return d;
    };
    const k1SigAt = new DataView(k1Valid.buffer).getUint16(1, true);

    const E = ED25519_PROGRAM_ID;
    const K = SECP256K1_PROGRAM_ID;
    const R = SECP256R1_PROGRAM_ID;
    const r1 = p256Instructions(Buffer.from('hello r1'));
    await agree([
      ['ed25519 valid', [edValid], [E]],
      ['ed25519 no signatures', [Uint8Array.of(0, 0)], [E]],
      ['ed25519 no signatures, extra data', [Uint8Array.of(0, 0, 0)], [E]],
      ['ed25519 one byte', [Uint8Array.of(1)], [E]],
      ['ed25519 truncated offsets', [edValid.slice(0, 10)], [E]],
      ['ed25519 wrong message', [edMut((d) => (d[d.length - 1] ^= 1))], [E]],
      ['ed25519 wrong signature', [edMut((d) => (d[sigAt + 5] ^= 1))], [E]],
      ['ed25519 S not canonical', [edMut((d) => d.fill(0xff, sigAt + 32, sigAt + 64))], [E]],
      ['ed25519 signature past the end', [edMut((_, v) => v.setUint16(2, 0xfff0, true))], [E]],
      ['ed25519 signature in a missing instruction', [edMut((_, v) => v.setUint16(4, 3, true))], [E]],
      ['ed25519 key in a missing instruction', [edMut((_, v) => v.setUint16(8, 3, true))], [E]],
      ['ed25519 message size too big', [edMut((_, v) => v.setUint16(12, 0xffff, true))], [E]],
      ['ed25519 small-order key and R', [edMut((d) => (d.set(identity, keyAt), d.set(identity, sigAt), d.fill(0, sigAt + 32, sigAt + 64)))], [E]],
      ['ed25519 from another instruction', [edValid, edCross], [E, E]],
      ['ed25519 from another instruction, broken', [edMut((d) => (d[d.length - 1] ^= 1)), edCross], [E, E]],
      ['secp256k1 valid', [k1Valid], [K]],
      ['secp256k1 no signatures', [Uint8Array.of(0)], [K]],
      ['secp256k1 empty', [new Uint8Array(0)], [K]],
      ['secp256k1 wrong message', [k1Mut((d) => (d[d.length - 1] ^= 1))], [K]],
      ['secp256k1 wrong address', [k1Mut((d) => (d[12] ^= 1))], [K]],
      ['secp256k1 recovery id 4', [k1Mut((d) => (d[k1SigAt + 64] = 4))], [K]],
      ['secp256k1 r above the order', [k1Mut((d) => d.fill(0xff, k1SigAt, k1SigAt + 32))], [K]],
      ['secp256k1 signature in a missing instruction', [k1Mut((_, v) => v.setUint8(3, 2))], [K]],
      ['secp256k1 no room for the recovery id', [k1Mut((d, v) => v.setUint16(1, d.length - 64, true))], [K]],
      ['secp256k1 address in a missing instruction', [k1Mut((_, v) => v.setUint8(6, 2))], [K]],
      ['secp256k1 message past the end', [k1Mut((_, v) => v.setUint16(9, 0xffff, true))], [K]],
      ['secp256k1 ed25519 then secp256k1', [edValid, k1Mut((_, v) => [3, 6, 11].forEach((at) => v.setUint8(at, 1)))], [E, K]],
      ['secp256r1 valid', [r1.valid], [R]],
      ['secp256r1 high S', [r1.highS], [R]],
      ['secp256r1 wrong message', [r1.wrongMessage], [R]],
      ['secp256r1 bad key', [r1.badKey], [R]],
      ['secp256r1 no signatures', [Uint8Array.of(0, 0)], [R]],
      ['secp256r1 nine signatures', [r1.nine], [R]],
      ['secp256r1 r = 0', [r1.zeroR], [R]],
    ]);
  });
});

/** Secp256r1 instructions in Agave's layout (key, signature, message inline), valid and broken. */
function p256Instructions(message: Buffer) {
  const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const y = Buffer.from(jwk.y!, 'base64url');
  const key = Buffer.concat([Buffer.of(2 + (y[31]! & 1)), Buffer.from(jwk.x!, 'base64url')]);
  const raw = crypto.sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const s0 = BigInt('0x' + raw.subarray(32).toString('hex'));
  const low = s0 > N / 2n ? N - s0 : s0;
  const hex32 = (n: bigint) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
  const build = (sig: Buffer, k: Buffer = key, count = 1) => {
    const data = Buffer.alloc(16 + 33 + 64 + message.length);
    data[0] = count;
    [16 + 33, 0xffff, 16, 0xffff, 16 + 33 + 64, message.length, 0xffff].forEach((v, i) => data.writeUInt16LE(v, 2 + 2 * i));
    k.copy(data, 16);
    sig.copy(data, 16 + 33);
    message.copy(data, 16 + 33 + 64);
    return new Uint8Array(data);
  };
  const good = Buffer.concat([raw.subarray(0, 32), hex32(low)]);
  const wrongMessage = build(good);
  wrongMessage[wrongMessage.length - 1] ^= 1;
  const badKey = Buffer.from(key);
  badKey[0] = 5;
  return {
    valid: build(good),
    highS: build(Buffer.concat([raw.subarray(0, 32), hex32(N - low)])),
    wrongMessage,
    badKey: build(good, badKey),
    nine: build(good, key, 9),
    zeroR: build(Buffer.concat([Buffer.alloc(32), hex32(low)])),
  };
}
