/** Signed wire transactions from instruction specs, for benchmarks (the node's message compiler and signer). */
import { addressToBytes } from '../../node-core/common/pubkey.ts';
import { sign, type Keypair } from '../../node-core/keys/keypair.ts';
import { compileMessage, type UnsignedMessage } from '../../node-core/runtime/message-builder.ts';
import { serializeMessage, serializeTransaction } from '../../node-core/runtime/wire.ts';

export { compileMessage };

/** The message signed by its one signer, the payer. */
export function signMessageWith(payer: Keypair, message: UnsignedMessage): Uint8Array {
  const bytes = serializeMessage(message, addressToBytes);
  return serializeTransaction([sign(payer, bytes)], bytes);
}
