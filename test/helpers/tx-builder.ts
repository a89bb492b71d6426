/**
 * Builds transactions for unit tests with the node's own wire code: a tiny compiler from
 * instructions (program id, account metas, data) to a legacy message, and signing with node keypairs.
 */
import { COMPUTE_BUDGET_PROGRAM_ID, addressToBytes } from '../../node-core/common/pubkey.ts';
import { sign, type Keypair } from '../../node-core/keys/keypair.ts';
import { parseTransaction, serializeMessage, serializeTransaction, type Transaction } from '../../node-core/runtime/wire.ts';

export { compileMessage, type InstructionSpec, type MetaSpec, type UnsignedMessage } from '../../node-core/runtime/message-builder.ts';
import { compileMessage, type InstructionSpec, type UnsignedMessage } from '../../node-core/runtime/message-builder.ts';
import { encodeComputeBudgetInstruction } from '../../node-core/runtime/programs/compute-budget.ts';

let fakeSignatureCounter = 0;

/** Signs every required signature whose key is among `signers`; the others get a unique fake signature. */
export function signMessage(message: UnsignedMessage, signers: Keypair[]): Transaction {
  const bytes = serializeMessage(message, addressToBytes);
  const byAddress = new Map(signers.map((k) => [k.address, k]));
  const sigs: Uint8Array[] = [];
  for (let i = 0; i < message.header.numRequiredSignatures; i++) {
    const kp = byAddress.get(message.accountKeys[i]!);
    if (kp) sigs.push(sign(kp, bytes));
    else {
      const fake = new Uint8Array(64).fill(0xee);
      new DataView(fake.buffer).setUint32(0, ++fakeSignatureCounter, true);
      sigs.push(fake);
    }
  }
  return parseTransaction(serializeTransaction(sigs, bytes));
}

/** compileMessage + signMessage. */
export function buildTransaction(payer: Keypair, instructions: InstructionSpec[], recentBlockhash: string, extraSigners: Keypair[] = []): Transaction {
  return signMessage(compileMessage(payer.address, instructions, recentBlockhash), [payer, ...extraSigners]);
}

// ---- instruction data ----

export { systemTransferInstruction as transferIx } from '../../node-core/runtime/programs/system-instruction.ts';

export const setComputeUnitLimitIx = (units: number): InstructionSpec => ({
  programId: COMPUTE_BUDGET_PROGRAM_ID,
  data: encodeComputeBudgetInstruction({ type: 'setComputeUnitLimit', units }),
});

export const setComputeUnitPriceIx = (microLamports: number | bigint): InstructionSpec => ({
  programId: COMPUTE_BUDGET_PROGRAM_ID,
  data: encodeComputeBudgetInstruction({ type: 'setComputeUnitPrice', microLamports: BigInt(microLamports) }),
});
