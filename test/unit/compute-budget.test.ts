import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ComputeBudgetProgram } from '@solana/web3.js';
import { COMPUTE_BUDGET_PROGRAM_ID, MEMO_PROGRAM_ID, SYSTEM_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { TransactionError, type TransactionErrorValue } from '../../node-core/runtime/errors.ts';
import {
  MAX_COMPUTE_UNIT_LIMIT,
  computeBudgetOf,
  decodeComputeBudgetInstruction,
  encodeComputeBudgetInstruction,
  prioritizationFee,
  type ComputeBudgetInstruction,
  type ComputeBudget,
} from '../../node-core/runtime/programs/compute-budget.ts';
import type { Message } from '../../node-core/runtime/wire.ts';
import { compileMessage, setComputeUnitLimitIx, setComputeUnitPriceIx, type InstructionSpec } from '../helpers/tx-builder.ts';
import { thrownBy } from '../helpers/thrown.ts';

const PAYER = '4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM';
const BLOCKHASH = 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi';

const message = (ixs: InstructionSpec[]) => compileMessage(PAYER, ixs, BLOCKHASH) as Message;
const cb = (data: number[] | Uint8Array): InstructionSpec => ({ programId: COMPUTE_BUDGET_PROGRAM_ID, data });
const memo: InstructionSpec = { programId: MEMO_PROGRAM_ID, data: [104, 105] };
const nop: InstructionSpec = { programId: SYSTEM_PROGRAM_ID, data: [] };
const web3 = (ix: { data: Buffer }) => cb(new Uint8Array(ix.data));

function budgetError(ixs: InstructionSpec[]): TransactionErrorValue {
  return thrownBy(() => computeBudgetOf(message(ixs)), TransactionError).value;
}

const budget = (over: Partial<ComputeBudget>): ComputeBudget => ({ unitLimit: 200_000, unitPrice: 0n, heapFrameBytes: 32 * 1024, loadedAccountsDataSizeLimit: null, ...over });

describe('computeBudgetOf', () => {
  test('defaults: 200k units per non-budget instruction, capped at 1.4M; price 0; 32 KiB heap', () => {
    assert.deepEqual(computeBudgetOf(message([memo])), budget({}));
    assert.deepEqual(computeBudgetOf(message([memo, nop, memo])), budget({ unitLimit: 600_000 }));
    assert.deepEqual(computeBudgetOf(message(Array(8).fill(memo))), budget({ unitLimit: MAX_COMPUTE_UNIT_LIMIT }));
    assert.deepEqual(computeBudgetOf(message([])), budget({ unitLimit: 0 }));
  });

  test('budget instructions do not count toward the default limit', () => {
    assert.deepEqual(computeBudgetOf(message([setComputeUnitPriceIx(5), memo])), budget({ unitPrice: 5n }));
    assert.deepEqual(computeBudgetOf(message([setComputeUnitPriceIx(5)])), budget({ unitLimit: 0, unitPrice: 5n }));
  });

  test('requested limits, clamped to the maximum', () => {
    assert.equal(computeBudgetOf(message([setComputeUnitLimitIx(1234), memo, memo])).unitLimit, 1234);
    assert.equal(computeBudgetOf(message([memo, setComputeUnitLimitIx(0)])).unitLimit, 0);
    assert.equal(computeBudgetOf(message([setComputeUnitLimitIx(2_000_000), memo])).unitLimit, MAX_COMPUTE_UNIT_LIMIT);
    assert.equal(computeBudgetOf(message([setComputeUnitLimitIx(0xffffffff)])).unitLimit, MAX_COMPUTE_UNIT_LIMIT);
  });

  test('web3.js ComputeBudgetProgram instructions decode', () => {
    const b = computeBudgetOf(
      message([
        web3(ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 })),
        web3(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 2n ** 64n - 1n })),
        web3(ComputeBudgetProgram.requestHeapFrame({ bytes: 64 * 1024 })),
        memo,
      ]),
    );
    assert.deepEqual(b, budget({ unitLimit: 300_000, unitPrice: 2n ** 64n - 1n, heapFrameBytes: 64 * 1024 }));
    assert.deepEqual(computeBudgetOf(message([cb([4, 0, 0, 1, 0]), memo])).loadedAccountsDataSizeLimit, 65536);
  });

  test('the encoder writes what web3.js writes, and what it writes decodes back', () => {
    const cases: Array<[ComputeBudgetInstruction, { data: Buffer } | null]> = [
      [{ type: 'requestUnitsDeprecated', units: 300_000, additionalFee: 7 }, ComputeBudgetProgram.requestUnits({ units: 300_000, additionalFee: 7 })],
      [{ type: 'requestHeapFrame', bytes: 64 * 1024 }, ComputeBudgetProgram.requestHeapFrame({ bytes: 64 * 1024 })],
      [{ type: 'setComputeUnitLimit', units: 300_000 }, ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 })],
      [{ type: 'setComputeUnitPrice', microLamports: 2n ** 64n - 1n }, ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 2n ** 64n - 1n })],
      // web3.js v1 has no SetLoadedAccountsDataSizeLimit.
      [{ type: 'setLoadedAccountsDataSizeLimit', bytes: 65536 }, null],
    ];
    for (const [ix, theirs] of cases) {
      const ours = encodeComputeBudgetInstruction(ix);
      if (theirs) assert.deepEqual(Buffer.from(ours), Buffer.from(theirs.data), ix.type);
      assert.deepEqual(decodeComputeBudgetInstruction(ours), ix);
    }
    assert.deepEqual([...encodeComputeBudgetInstruction({ type: 'setLoadedAccountsDataSizeLimit', bytes: 65536 })], [4, 0, 0, 1, 0]);
  });

  test('each kind may appear once; the error names the repeated instruction', () => {
    assert.deepEqual(budgetError([setComputeUnitLimitIx(1), memo, setComputeUnitLimitIx(2)]), { DuplicateInstruction: 2 });
    assert.deepEqual(budgetError([setComputeUnitPriceIx(1), setComputeUnitPriceIx(1)]), { DuplicateInstruction: 1 });
    assert.deepEqual(budgetError([cb([1, 0, 0x80, 0, 0]), memo, memo, cb([1, 0, 0x80, 0, 0])]), { DuplicateInstruction: 3 });
    assert.deepEqual(budgetError([cb([4, 1, 0, 0, 0]), cb([4, 1, 0, 0, 0])]), { DuplicateInstruction: 1 });
    // Different kinds together are fine.
    computeBudgetOf(message([setComputeUnitLimitIx(1), setComputeUnitPriceIx(1), cb([1, 0, 0x80, 0, 0]), cb([4, 1, 0, 0, 0])]));
  });

  test('malformed data is InstructionError(InvalidInstructionData) at its index', () => {
    const invalid = (i: number) => ({ InstructionError: [i, 'InvalidInstructionData'] });
    assert.deepEqual(budgetError([memo, cb([])]), invalid(1));
    assert.deepEqual(budgetError([cb([5])]), invalid(0));
    assert.deepEqual(budgetError([cb([2, 1, 2, 3])]), invalid(0), 'truncated u32');
    assert.deepEqual(budgetError([memo, memo, cb([3, 1, 2, 3, 4, 5, 6, 7])]), invalid(2), 'truncated u64');
    assert.deepEqual(budgetError([cb([0, 1, 0, 0, 0, 0, 0, 0, 0])]), invalid(0), 'RequestUnitsDeprecated is refused');
  });

  test('heap frames must be 32..256 KiB in whole KiB', () => {
    const heap = (bytes: number) => cb([1, bytes & 0xff, (bytes >> 8) & 0xff, (bytes >> 16) & 0xff, bytes >>> 24]);
    const invalid = { InstructionError: [0, 'InvalidInstructionData'] };
    assert.deepEqual(budgetError([heap(31 * 1024)]), invalid);
    assert.deepEqual(budgetError([heap(257 * 1024)]), invalid);
    assert.deepEqual(budgetError([heap(33 * 1024 + 1)]), invalid);
    assert.equal(computeBudgetOf(message([heap(256 * 1024)])).heapFrameBytes, 256 * 1024);
    assert.equal(computeBudgetOf(message([heap(32 * 1024)])).heapFrameBytes, 32 * 1024);
  });

  test('bytes after a complete instruction are ignored, as borsh try_from_slice_unchecked does', () => {
    assert.equal(computeBudgetOf(message([cb([2, 0x10, 0x27, 0, 0, 0xaa, 0xbb]), memo])).unitLimit, 10_000);
    assert.deepEqual(decodeComputeBudgetInstruction(Uint8Array.of(3, 1, 0, 0, 0, 0, 0, 0, 0, 9)), { type: 'setComputeUnitPrice', microLamports: 1n });
  });

  test('a program id that is not the Compute Budget program is not read', () => {
    assert.deepEqual(computeBudgetOf(message([{ programId: MEMO_PROGRAM_ID, data: [2, 1, 0, 0, 0] }])), budget({}));
  });
});

describe('prioritizationFee', () => {
  test('ceil(price × limit / 10^6)', () => {
    assert.equal(prioritizationFee(budget({ unitPrice: 0n })), 0);
    assert.equal(prioritizationFee(budget({ unitPrice: 1n })), 1, '0.2 lamports rounds up');
    assert.equal(prioritizationFee(budget({ unitPrice: 5n, unitLimit: 200_000 })), 1);
    assert.equal(prioritizationFee(budget({ unitPrice: 6n, unitLimit: 200_000 })), 2, '1.2 → 2');
    assert.equal(prioritizationFee(budget({ unitPrice: 1_000_000n, unitLimit: 1000 })), 1000);
    assert.equal(prioritizationFee(budget({ unitPrice: 1_000_001n, unitLimit: 1000 })), 1001);
    assert.equal(prioritizationFee(budget({ unitPrice: 1_000_000n, unitLimit: 0 })), 0);
  });

  test('huge prices saturate instead of losing precision', () => {
    const fee = prioritizationFee(budget({ unitPrice: 2n ** 64n - 1n, unitLimit: MAX_COMPUTE_UNIT_LIMIT }));
    assert.equal(fee, Number.MAX_SAFE_INTEGER);
  });
});
