/**
 * The native transaction that carries one Ethereum transaction small enough for a packet: an
 * EvmTransaction instruction signed and paid by the relayer key. Pure: the relay builds it on the
 * event loop, the submission worker (rpc/submission-worker.ts) ahead of time off it.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import { addressToBytes as addressBytes } from '../common/pubkey.ts';
import { sign, type Keypair } from '../keys/keypair.ts';
import { compileMessage, type InstructionSpec } from '../runtime/message-builder.ts';
import { PACKET_DATA_SIZE, parseTransaction, serializeMessage, serializeTransaction, SIGNATURE_LENGTH, type Transaction } from '../runtime/wire.ts';
import { transferToNativeRecipient } from './bridge-precompile.ts';
import { BRIDGE_ADDRESS, EVM_PROGRAM_ID, EVM_STATE_ID } from './constants.ts';
import { encodeEvmInstruction, type EvmInstruction } from './instruction.ts';

export const evmInstruction = (ix: EvmInstruction, accounts: InstructionSpec['accounts']): InstructionSpec => ({ programId: EVM_PROGRAM_ID, accounts, data: encodeEvmInstruction(ix) });

/** transferToNative's recipient, which the native transaction must carry for the precompile to credit. */
export function withdrawalRecipients(tx: TypedTransaction, relayer: string): string[] {
  if (tx.to?.toString() !== BRIDGE_ADDRESS) return [];
  const recipient = transferToNativeRecipient(tx.data);
  return recipient && recipient !== EVM_STATE_ID && recipient !== relayer ? [recipient] : [];
}

/**
 * The one native transaction that carries `raw` (parsed: `tx`), or null when it does not fit a
 * packet. Its message is serialized once, for its size and its signature (signTransaction's work for
 * the one signer).
 */
export function wrapInOne(raw: Uint8Array, tx: TypedTransaction, relayer: Keypair, blockhash: string): Transaction | null {
  const extra = withdrawalRecipients(tx, relayer.address).map((key) => ({ key, writable: true }));
  const single = compileMessage(relayer.address, [evmInstruction({ kind: 'transaction', raw }, [{ key: EVM_STATE_ID, writable: true }, { key: relayer.address, signer: true, writable: true }, ...extra])], blockhash);
  const bytes = serializeMessage(single, addressBytes);
  // One signature: its count (a one-byte short-vec) and 64 bytes.
  if (single.header.numRequiredSignatures !== 1 || 1 + SIGNATURE_LENGTH + bytes.length > PACKET_DATA_SIZE) return null;
  return parseTransaction(serializeTransaction([sign(relayer, bytes)], bytes));
}
