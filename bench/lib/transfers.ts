/** Pre-signed System transfers, built with the node's own wire encoder and Ed25519 signer. */
import crypto from 'node:crypto';
import { SYSTEM_PROGRAM_ID, addressToBytes, bytesToAddress, type Address } from '../../node-core/common/pubkey.ts';
import { sign, type Keypair } from '../../node-core/keys/keypair.ts';
import { encodeSystemInstruction } from '../../node-core/runtime/programs/system-instruction.ts';
import { serializeMessage, serializeTransaction } from '../../node-core/runtime/wire.ts';

export const randomAddress = () => bytesToAddress(crypto.randomBytes(32));

export interface TransferPlan {
  /** Payers, taken in turn. */
  payers: Keypair[];
  /** Recipients, taken in turn; a fresh address for each transfer when absent. */
  recipients?: Address[];
  blockhash: string;
  count: number;
  /** Lamports of the first transfer; each next one sends one more, which keeps every signature distinct. */
  lamports?: number;
}

/** Wire bytes of `count` distinct transfers. */
export function presignTransfers(plan: TransferPlan): Uint8Array[] {
  const base = plan.lamports ?? 1_000_000;
  const out: Uint8Array[] = [];
  for (let i = 0; i < plan.count; i++) {
    const payer = plan.payers[i % plan.payers.length]!;
    const to = plan.recipients ? plan.recipients[i % plan.recipients.length]! : randomAddress();
    const message = serializeMessage(
      {
        version: 'legacy',
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
        accountKeys: [payer.address, to, SYSTEM_PROGRAM_ID],
        recentBlockhash: plan.blockhash,
        instructions: [{ programIdIndex: 2, accounts: [0, 1], data: encodeSystemInstruction({ type: 'transfer', lamports: BigInt(base + i) }) }],
        addressTableLookups: [],
      },
      addressToBytes,
    );
    out.push(serializeTransaction([sign(payer, message)], message));
  }
  return out;
}
