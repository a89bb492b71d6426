/**
 * A native → EVM deposit as Velas's CLI sends it: the signer's account is assigned to the EVM
 * program (which may only debit accounts it owns), SwapNativeToEther moves the lamports into the
 * EVM state account and credits the EVM address, and FreeOwnership hands the account back to the
 * System program, all in one transaction.
 */
import { SYSTEM_PROGRAM_ID, type Address } from '../common/pubkey.ts';
import type { InstructionSpec } from '../runtime/message-builder.ts';
import { encodeSystemInstruction } from '../runtime/programs/system-instruction.ts';
import { EVM_PROGRAM_ID, EVM_STATE_ID } from './constants.ts';
import { encodeEvmInstruction } from './instruction.ts';

export function depositInstructions(owner: Address, evmAddress: string, lamports: bigint): InstructionSpec[] {
  const accounts = [
    { key: EVM_STATE_ID, writable: true },
    { key: owner, signer: true, writable: true },
  ];
  return [
    { programId: SYSTEM_PROGRAM_ID, accounts: [{ key: owner, signer: true, writable: true }], data: encodeSystemInstruction({ type: 'assign', owner: EVM_PROGRAM_ID }) },
    { programId: EVM_PROGRAM_ID, accounts, data: encodeEvmInstruction({ kind: 'swapNativeToEther', lamports, evmAddress }) },
    { programId: EVM_PROGRAM_ID, accounts, data: encodeEvmInstruction({ kind: 'freeOwnership' }) },
  ];
}
