/** A transaction sent to the node, as sendTransaction and simulateTransaction decode it before anything else. */
import { tryDecodeBase58 } from '../common/base58.ts';
import { DecodeError } from '../common/bytes.ts';
import { TransactionError } from '../runtime/errors.ts';
import { PACKET_DATA_SIZE, parseTransaction, sanitizeTransaction, type Namer, type Transaction } from '../runtime/wire.ts';
import { invalidParams } from './errors.ts';
import { decodeBase64 } from './params.ts';

const WORST_CASE_BASE58_TX = 1683;
const WORST_CASE_BASE64_TX = 1644;

/** Decodes and parses a submitted transaction, with Agave's messages for each way it can be bad. */
export function decodeSubmittedTransaction(encoded: string, encoding: 'base58' | 'base64', name?: Namer): Transaction {
  const limit = encoding === 'base58' ? WORST_CASE_BASE58_TX : WORST_CASE_BASE64_TX;
  if (encoded.length > limit) {
    throw invalidParams(`encoded transaction too large: ${encoded.length} bytes (max: encoded/raw ${limit}/${PACKET_DATA_SIZE})`);
  }
  let wire: Uint8Array | null;
  if (encoding === 'base58') {
    wire = tryDecodeBase58(encoded);
    if (!wire) throw invalidParams('invalid base58 encoding: the transaction is not base-58 text');
  } else {
    wire = decodeBase64(encoded);
    if (!wire) throw invalidParams('invalid base64 encoding: the transaction is not padded base-64 text');
  }
  if (wire.length > PACKET_DATA_SIZE) throw invalidParams(`transaction too large: ${wire.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`);
  let tx: Transaction;
  try {
    tx = parseTransaction(wire, name);
  } catch (e) {
    if (e instanceof DecodeError) throw invalidParams(`invalid transaction: ${e.message}`);
    throw e;
  }
  try {
    sanitizeTransaction(tx);
  } catch (e) {
    if (e instanceof TransactionError) throw invalidParams(`invalid transaction: ${e.message}`);
    throw e;
  }
  return tx;
}
