/**
 * Agave's signature-verification precompiles as programs: Ed25519, Secp256k1 (Ethereum addresses)
 * and Secp256r1. As in Agave they log nothing, cost no compute units, take no accounts, fail with
 * `{Custom: PrecompileError}`, and cannot be reached by cross-program invocation. Their signatures
 * are charged in the transaction fee like the transaction's own (precompileSignatureCount).
 */
import { InstructionError } from '../../errors.ts';
import type { InstructionContext, Program } from '../../program.ts';
import type { Message } from '../../wire.ts';
import { PrecompileFailure } from './errors.ts';
import { ED25519_PROGRAM_ID, verifyEd25519 } from './ed25519.ts';
import { SECP256K1_PROGRAM_ID, verifySecp256k1 } from './secp256k1.ts';
import { SECP256R1_PROGRAM_ID, verifySecp256r1 } from './secp256r1.ts';

export { ED25519_PROGRAM_ID, SECP256K1_PROGRAM_ID, SECP256R1_PROGRAM_ID };
export { PrecompileError } from './errors.ts';

type Verify = (data: Uint8Array, instructionDatas: readonly Uint8Array[]) => void;

function precompile(id: string, name: string, verify: Verify): Program {
  return {
    id,
    name,
    computeUnits: 0,
    precompile: true,
    process(ctx: InstructionContext) {
      // Only a transaction's own instruction carries the instruction list; an invocation does not.
      if (!ctx.instructionDatas || (ctx.stackHeight ?? 1) > 1) throw new InstructionError('UnsupportedProgramId');
      try {
        verify(ctx.data, ctx.instructionDatas);
      } catch (e) {
        if (e instanceof PrecompileFailure) throw e.toInstructionError();
        throw e;
      }
    },
  };
}

export const ed25519Program = precompile(ED25519_PROGRAM_ID, 'ed25519', verifyEd25519);
export const secp256k1Program = precompile(SECP256K1_PROGRAM_ID, 'secp256k1', verifySecp256k1);
export const secp256r1Program = precompile(SECP256R1_PROGRAM_ID, 'secp256r1', verifySecp256r1);

export const precompilePrograms: readonly Program[] = [ed25519Program, secp256k1Program, secp256r1Program];

export const PRECOMPILE_IDS: ReadonlySet<string> = new Set(precompilePrograms.map((p) => p.id));

/** Signatures the transaction's precompile instructions verify (each instruction's first byte), as Agave's fee counts them. */
export function precompileSignatureCount(message: Pick<Message, 'accountKeys' | 'instructions'>): number {
  let n = 0;
  for (const ix of message.instructions) {
    if (PRECOMPILE_IDS.has(message.accountKeys[ix.programIdIndex]!)) n += ix.data[0] ?? 0;
  }
  return n;
}
