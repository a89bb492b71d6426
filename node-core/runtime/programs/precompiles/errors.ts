/**
 * Agave's PrecompileError, numbered as the enum is declared: a failed precompile instruction fails the
 * transaction with `InstructionError [index, {Custom: n}]`.
 */
import { InstructionError } from '../../errors.ts';

export const PrecompileError = {
  InvalidPublicKey: 0,
  InvalidRecoveryId: 1,
  InvalidSignature: 2,
  InvalidDataOffsets: 3,
  InvalidInstructionDataSize: 4,
} as const;

export type PrecompileErrorCode = (typeof PrecompileError)[keyof typeof PrecompileError];

/** Thrown by a verifier; the program turns it into the Custom instruction error. */
export class PrecompileFailure extends Error {
  constructor(readonly code: PrecompileErrorCode) {
    super(`precompile error ${code}`);
  }
  toInstructionError(): InstructionError {
    return InstructionError.custom(this.code);
  }
}

export const fail = (code: PrecompileErrorCode): never => {
  throw new PrecompileFailure(code);
};
