/** Pre-signed System transfers, built with the node's own wire encoder and Ed25519 signer. */
import crypto from 'node:crypto';
import { ByteWriter } from '../../node-core/common/bytes.ts';
import { SYSTEM_PROGRAM_ID, addressToBytes, bytesToAddress } from '../../node-core/common/pubkey.ts';
import { sign, type Keypair } from '../../node-core/keys/keypair.ts';
import { serializeMessage, serializeTransaction } from '../../node-core/runtime/wire.ts';

export const randomAddress = () => bytesToAddress(crypto.randomBytes(32));

/** Wire bytes of `count` transfers from `payer` to fresh addresses, each distinct. */
export function presignTransfers(payer: Keypair, blockhash: string, count: number, lamports = 1_000_000): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const to = randomAddress();
    const message = serializeMessage(
      {
        version: 'legacy',
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
        accountKeys: [payer.address, to, SYSTEM_PROGRAM_ID],
        recentBlockhash: blockhash,
        instructions: [{ programIdIndex: 2, accounts: [0, 1], data: new ByteWriter(12).u32(2).u64(lamports).finish() }],
        addressTableLookups: [],
      },
      addressToBytes,
    );
    out.push(serializeTransaction([sign(payer, message)], message));
  }
  return out;
}
