import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@solana/web3.js';
import { MEMO_PROGRAM_ID, MEMO_V1_PROGRAM_ID, SYSTEM_PROGRAM_ID, type Address } from '../../node-core/common/pubkey.ts';
import { newAccount } from '../../node-core/runtime/account.ts';
import { InstructionError, type InstructionErrorValue } from '../../node-core/runtime/errors.ts';
import type { InstructionContext, Program } from '../../node-core/runtime/program.ts';
import {
  decodeMemo,
  extractMemo,
  extractMemos,
  memoProgram,
  memoV1Program,
  rustDebugString,
  utf8ValidUpTo,
} from '../../node-core/runtime/programs/memo.ts';
import { parseMemoInstruction } from '../../node-core/rpc/encoding/parsed/memo.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const key = () => Keypair.generate().publicKey.toBase58();

interface Result {
  error: InstructionErrorValue | null;
  logs: string[];
  units: number;
}

function run(program: Program, data: Uint8Array, signers: Array<[Address, boolean]> = [], limit = 1_400_000): Result {
  const logs: string[] = [];
  let units = 0;
  const ctx: InstructionContext = {
    programId: program.id,
    data,
    accounts: signers.map(([key, isSigner], index) => ({ index, key, isSigner, isWritable: false, account: newAccount(1, 0, SYSTEM_PROGRAM_ID) })),
    instructionIndex: 0,
    sysvars: undefined as never,
    scope: { extension: () => { throw new Error('unused'); } },
    simulation: false,
    log: (m) => logs.push(`Program log: ${m}`),
    logRaw: (l) => logs.push(l),
    consumeUnits: (n) => {
      units += n;
      if (units > limit) throw new InstructionError('ComputationalBudgetExceeded');
    },
    minimumBalance: () => 0,
    bankExtension: () => undefined,
    feePayer: SYSTEM_PROGRAM_ID,
    signature: '1111111111111111111111111111111111111111111111111111111111111111',
  };
  try {
    program.process(ctx);
    return { error: null, logs, units };
  } catch (e) {
    if (!(e instanceof InstructionError)) throw e;
    return { error: e.value, logs, units };
  }
}

describe('memo v3', () => {
  test('program shape', () => {
    assert.equal(memoProgram.id, MEMO_PROGRAM_ID);
    assert.equal(memoV1Program.id, MEMO_V1_PROGRAM_ID);
    assert.equal(memoProgram.logsConsumption, true);
    assert.equal(memoV1Program.logsConsumption, true);
  });

  test('logs the memo with its byte length', () => {
    const r = run(memoProgram, enc('🐆'));
    assert.equal(r.error, null);
    assert.deepEqual(r.logs, ['Program log: Memo (len 4): "🐆"']);
    assert.ok(r.units > 0);
  });

  test('logs each signer first', () => {
    const a = key();
    const b = key();
    const r = run(memoProgram, enc('hello'), [
      [a, true],
      [b, true],
    ]);
    assert.equal(r.error, null);
    assert.deepEqual(r.logs, [`Program log: Signed by ${a}`, `Program log: Signed by ${b}`, 'Program log: Memo (len 5): "hello"']);
  });

  test('every account must sign', () => {
    const a = key();
    const b = key();
    const r = run(memoProgram, enc('hello'), [
      [a, true],
      [b, false],
    ]);
    assert.equal(r.error, 'MissingRequiredSignature');
    assert.deepEqual(r.logs, [`Program log: Signed by ${a}`]);
  });

  test('invalid UTF-8 reports where it stops', () => {
    const r = run(memoProgram, Uint8Array.from([0xf0, 0x9f, 0x90, 0x86, 0xf0, 0x9f, 0x90, 0xff]));
    assert.equal(r.error, 'InvalidInstructionData');
    assert.deepEqual(r.logs, ['Program log: Invalid UTF-8, from byte 4']);
  });

  test('escapes the memo as Rust {:?} does', () => {
    const r = run(memoProgram, enc('say "hi"\n'));
    assert.deepEqual(r.logs, ['Program log: Memo (len 9): "say \\"hi\\"\\n"']);
  });

  test('an empty memo', () => {
    assert.deepEqual(run(memoProgram, new Uint8Array(0)).logs, ['Program log: Memo (len 0): ""']);
  });

  test('compute units grow with length and signers', () => {
    const short = run(memoProgram, enc('x'.repeat(10))).units;
    const long = run(memoProgram, enc('x'.repeat(500))).units;
    const signed = run(memoProgram, enc('x'.repeat(10)), [[key(), true]]).units;
    assert.ok(long > short);
    assert.ok(signed > short + 10_000);
    const sixty = run(memoProgram, enc('x'.repeat(60))).units;
    assert.ok(sixty > 1_500 && sixty < 2_500, `60-byte memo costs ${sixty}`);
  });

  test('runs out of budget like any program', () => {
    const r = run(memoProgram, enc('hello'), [[key(), true]], 5_000);
    assert.equal(r.error, 'ComputationalBudgetExceeded');
  });
});

describe('memo v1', () => {
  test('checks UTF-8 only, logs nothing, ignores signers', () => {
    const ok = run(memoV1Program, enc('hello'), [[key(), false]]);
    assert.deepEqual([ok.error, ok.logs], [null, []]);
    assert.ok(ok.units > 0);
    const bad = run(memoV1Program, Uint8Array.from([0x80]));
    assert.deepEqual([bad.error, bad.logs], ['InvalidInstructionData', []]);
  });
});

describe('UTF-8 and Rust escaping', () => {
  test('utf8ValidUpTo follows Rust', () => {
    assert.equal(utf8ValidUpTo(enc('aé🐆')), 7);
    assert.equal(utf8ValidUpTo(Uint8Array.from([0x61, 0x80])), 1);
    assert.equal(utf8ValidUpTo(Uint8Array.from([0x61, 0xc0, 0x80])), 1, 'overlong');
    assert.equal(utf8ValidUpTo(Uint8Array.from([0xe0, 0x80, 0x80])), 0, 'overlong 3-byte');
    assert.equal(utf8ValidUpTo(Uint8Array.from([0x61, 0xed, 0xa0, 0x80])), 1, 'surrogate');
    assert.equal(utf8ValidUpTo(Uint8Array.from([0xf4, 0x90, 0x80, 0x80])), 0, 'above U+10FFFF');
    assert.equal(utf8ValidUpTo(Uint8Array.from([0x61, 0x62, 0xe2, 0x82])), 2, 'truncated');
    assert.equal(utf8ValidUpTo(Uint8Array.from([0xf5])), 0);
  });

  test('rustDebugString', () => {
    assert.equal(rustDebugString('a"b\\c\n\t\r\0'), '"a\\"b\\\\c\\n\\t\\r\\0"');
    assert.equal(rustDebugString("it's"), '"it\'s"');
    assert.equal(rustDebugString('❤️'), '"❤\\u{fe0f}"');
    assert.equal(rustDebugString('e\u0301'), '"e\\u{301}"');
    assert.equal(rustDebugString('é'), '"é"');
    assert.equal(rustDebugString('a\u00a0b c'), '"a\\u{a0}b c"');
    assert.equal(rustDebugString('👨\u200d👩'), '"👨\\u{200d}👩"');
    assert.equal(rustDebugString('\u0001\u007f'), '"\\u{1}\\u{7f}"');
    assert.equal(rustDebugString('日本語 🦖'), '"日本語 🦖"');
  });
});

describe('memo extraction and parsing', () => {
  test('extractMemo formats as Agave does', () => {
    assert.equal(extractMemo(enc('Test memo')), '[9] Test memo');
    assert.equal(extractMemo(enc('🦖')), '[4] 🦖');
    assert.equal(extractMemo(Uint8Array.from([0xff, 0x00])), '[2] (unparsable)');
  });

  test('extractMemos joins the memo instructions of a transaction', () => {
    const other = key();
    assert.equal(
      extractMemos([
        { programId: MEMO_V1_PROGRAM_ID, data: enc('one') },
        { programId: other, data: enc('skip') },
        { programId: MEMO_PROGRAM_ID, data: enc('two') },
      ]),
      '[3] one; [3] two',
    );
    assert.equal(extractMemos([{ programId: other, data: enc('x') }]), null);
    assert.equal(extractMemos([]), null);
  });

  test('parseMemoInstruction is the memo text', () => {
    assert.equal(parseMemoInstruction(enc('🦖 memo'), []), '🦖 memo');
    assert.equal(parseMemoInstruction(Uint8Array.from([128]), []), null);
    assert.equal(decodeMemo(new Uint8Array(0)), '');
  });
});
