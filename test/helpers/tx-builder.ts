/**
 * Builds transactions for unit tests with the node's own wire code: a tiny compiler from
 * instructions (program id, account metas, data) to a legacy message, and signing with node keypairs.
 */
import { addressToBytes, type Address } from '../../node-core/common/pubkey.ts';
import { ByteWriter } from '../../node-core/common/bytes.ts';
import { sign, type Keypair } from '../../node-core/keys/keypair.ts';
import { parseTransaction, serializeMessage, serializeTransaction, type Transaction } from '../../node-core/runtime/wire.ts';

export { compileMessage, type InstructionSpec, type MetaSpec, type UnsignedMessage } from '../../node-core/runtime/message-builder.ts';
import { compileMessage, type InstructionSpec, type UnsignedMessage } from '../../node-core/runtime/message-builder.ts';

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

const SYSTEM_PROGRAM_ID = '11111111111111111111111111111111';
const COMPUTE_BUDGET_PROGRAM_ID = 'ComputeBudget111111111111111111111111111111';

export const transferIx = (from: Address, to: Address, lamports: number | bigint): InstructionSpec => ({
  programId: SYSTEM_PROGRAM_ID,
  accounts: [
    { key: from, signer: true, writable: true },
    { key: to, writable: true },
  ],
  data: new ByteWriter(12).u32(2).u64(lamports).finish(),
});

export const setComputeUnitLimitIx = (units: number): InstructionSpec => ({
  programId: COMPUTE_BUDGET_PROGRAM_ID,
  data: new ByteWriter(5).u8(2).u32(units).finish(),
});

export const setComputeUnitPriceIx = (microLamports: number | bigint): InstructionSpec => ({
  programId: COMPUTE_BUDGET_PROGRAM_ID,
  data: new ByteWriter(9).u8(3).u64(microLamports).finish(),
});
