/**
 * Compute Budget program. Its instructions are read before execution (they set the transaction's
 * compute-unit limit and price, and so its fee); when executed, they do nothing.
 */
import { ByteReader, ByteWriter } from '../../common/bytes.ts';
import { COMPUTE_BUDGET_PROGRAM_ID } from '../../common/pubkey.ts';
import { TransactionError, InstructionError } from '../errors.ts';
import type { Program } from '../program.ts';
import type { Message } from '../wire.ts';

export const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000;
export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;
/** What Agave reserves per builtin instruction (reserve_minimal_cus_for_builtin_instructions), when the caller names the builtins. */
export const MAX_BUILTIN_ALLOCATION_COMPUTE_UNIT_LIMIT = 3_000;
export const MAX_HEAP_FRAME_BYTES = 256 * 1024;
export const MIN_HEAP_FRAME_BYTES = 32 * 1024;
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;

export interface ComputeBudget {
  unitLimit: number;
  /** Micro-lamports per compute unit. */
  unitPrice: bigint;
  heapFrameBytes: number;
  loadedAccountsDataSizeLimit: number | null;
}

export type ComputeBudgetInstruction =
  | { type: 'requestUnitsDeprecated'; units: number; additionalFee: number }
  | { type: 'requestHeapFrame'; bytes: number }
  | { type: 'setComputeUnitLimit'; units: number }
  | { type: 'setComputeUnitPrice'; microLamports: bigint }
  | { type: 'setLoadedAccountsDataSizeLimit'; bytes: number };

/**
 * Decodes one Compute Budget instruction (borsh: u8 tag then fields); null when malformed. Bytes after
 * a complete instruction are ignored, as Agave's `try_from_slice_unchecked` ignores them.
 */
export function decodeComputeBudgetInstruction(data: Uint8Array): ComputeBudgetInstruction | null {
  try {
    const r = new ByteReader(data);
    let ix: ComputeBudgetInstruction;
    switch (r.u8()) {
      case 0:
        ix = { type: 'requestUnitsDeprecated', units: r.u32(), additionalFee: r.u32() };
        break;
      case 1:
        ix = { type: 'requestHeapFrame', bytes: r.u32() };
        break;
      case 2:
        ix = { type: 'setComputeUnitLimit', units: r.u32() };
        break;
      case 3:
        ix = { type: 'setComputeUnitPrice', microLamports: r.u64() };
        break;
      case 4:
        ix = { type: 'setLoadedAccountsDataSizeLimit', bytes: r.u32() };
        break;
      default:
        return null;
    }
    return ix;
  } catch {
    return null;
  }
}

/** Encodes one Compute Budget instruction (what decodeComputeBudgetInstruction reads back). */
export function encodeComputeBudgetInstruction(ix: ComputeBudgetInstruction): Uint8Array {
  switch (ix.type) {
    case 'requestUnitsDeprecated':
      return new ByteWriter(9).u8(0).u32(ix.units).u32(ix.additionalFee).finish();
    case 'requestHeapFrame':
      return new ByteWriter(5).u8(1).u32(ix.bytes).finish();
    case 'setComputeUnitLimit':
      return new ByteWriter(5).u8(2).u32(ix.units).finish();
    case 'setComputeUnitPrice':
      return new ByteWriter(9).u8(3).u64(ix.microLamports).finish();
    case 'setLoadedAccountsDataSizeLimit':
      return new ByteWriter(5).u8(4).u32(ix.bytes).finish();
  }
}

/**
 * The transaction's budget from its Compute Budget instructions (process_compute_budget_instructions).
 * Throws TransactionError for malformed or repeated instructions.
 */
export function computeBudgetOf(message: Message, builtins?: ReadonlySet<string>): ComputeBudget {
  let unitLimit: number | null = null;
  let unitPrice: bigint | null = null;
  let heapFrameBytes: number | null = null;
  let loaded: number | null = null;
  let otherInstructions = 0;
  let builtinInstructions = 0;
  message.instructions.forEach((ix, i) => {
    const programId = message.accountKeys[ix.programIdIndex]!;
    if (builtins?.has(programId)) builtinInstructions++;
    if (programId !== COMPUTE_BUDGET_PROGRAM_ID) {
      if (!builtins?.has(programId)) otherInstructions++;
      return;
    }
    const decoded = decodeComputeBudgetInstruction(ix.data);
    const invalid = () => new TransactionError({ InstructionError: [i, 'InvalidInstructionData'] });
    if (!decoded || decoded.type === 'requestUnitsDeprecated') throw invalid();
    const dup = () => new TransactionError({ DuplicateInstruction: i });
    switch (decoded.type) {
      case 'requestHeapFrame':
        if (heapFrameBytes !== null) throw dup();
        if (decoded.bytes < MIN_HEAP_FRAME_BYTES || decoded.bytes > MAX_HEAP_FRAME_BYTES || decoded.bytes % 1024 !== 0) {
          throw new TransactionError({ InstructionError: [i, 'InvalidInstructionData'] });
        }
        heapFrameBytes = decoded.bytes;
        break;
      case 'setComputeUnitLimit':
        if (unitLimit !== null) throw dup();
        unitLimit = decoded.units;
        break;
      case 'setComputeUnitPrice':
        if (unitPrice !== null) throw dup();
        unitPrice = decoded.microLamports;
        break;
      case 'setLoadedAccountsDataSizeLimit':
        if (loaded !== null) throw dup();
        loaded = decoded.bytes;
        break;
    }
  });
  const defaultLimit = Math.min(otherInstructions * DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT + builtinInstructions * MAX_BUILTIN_ALLOCATION_COMPUTE_UNIT_LIMIT, MAX_COMPUTE_UNIT_LIMIT);
  return {
    unitLimit: Math.min(unitLimit ?? defaultLimit, MAX_COMPUTE_UNIT_LIMIT),
    unitPrice: unitPrice ?? 0n,
    heapFrameBytes: heapFrameBytes ?? MIN_HEAP_FRAME_BYTES,
    loadedAccountsDataSizeLimit: loaded,
  };
}

/** ceil(price × limit / 10^6) lamports. */
export function prioritizationFee(budget: ComputeBudget): number {
  const micro = budget.unitPrice * BigInt(budget.unitLimit);
  const fee = (micro + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT;
  return fee > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(fee);
}

export const computeBudgetProgram: Program = {
  id: COMPUTE_BUDGET_PROGRAM_ID,
  name: 'compute-budget',
  computeUnits: 150,
  process(ctx) {
    // Already applied before execution; a malformed one never gets this far.
    if (!decodeComputeBudgetInstruction(ctx.data)) throw new InstructionError('InvalidInstructionData');
  },
};
