/** sendTransaction and simulateTransaction. */
import { tryDecodeBase58 } from '../../common/base58.ts';
import { decodeBase58 } from '../../common/base58.ts';
import { DecodeError } from '../../common/bytes.ts';
import { TransactionError, transactionErrorMessage, type TransactionErrorValue } from '../../runtime/errors.ts';
import type { ExecutedTransaction } from '../../runtime/executor.ts';
import { verifyTransactionSignatures, verifyTransactionSignaturesAsync } from '../../runtime/signatures.ts';
import { PACKET_DATA_SIZE, parseTransaction, sanitizeTransaction, type Transaction } from '../../runtime/wire.ts';
import { encodeAccount, type AccountEncoding } from '../encoding/account.ts';
import { parsedInnerInstructions, uiReturnData } from '../encoding/transaction.ts';
import { contextSlot, withContext, type RpcContext } from '../context.ts';
import type { Commitment } from '../../ledger/commitment.ts';
import { RpcError, SEND_TRANSACTION_PREFLIGHT_FAILURE, TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, invalidParams } from '../errors.ts';
import { ACCOUNT_ENCODINGS, address, arrayOf, bool, commitment, config, decodeBase64, oneOf, optional, required, string, u64 } from '../params.ts';
import { method } from './method.ts';

const WORST_CASE_BASE58_TX = 1683;
const WORST_CASE_BASE64_TX = 1644;

/** Decodes and parses a submitted transaction, with Agave's messages for each way it can be bad. */
export function decodeSubmittedTransaction(encoded: string, encoding: 'base58' | 'base64'): Transaction {
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
    tx = parseTransaction(wire);
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

/**
 * Resolves a v0 message's lookups at the bank at `commitment`, as Agave's RPC sanitizes a submitted
 * transaction against its preflight bank: a missing or bad table or index is an invalid-params error.
 */
export function checkAddressLookups(tx: Transaction, ctx: RpcContext, commitment: Commitment, prefix = 'invalid transaction'): void {
  if (tx.message.addressTableLookups.length === 0) return;
  try {
    ctx.chain.loadAddresses(tx.message, commitment);
  } catch (e) {
    if (e instanceof TransactionError) throw invalidParams(`${prefix}: ${e.message}`);
    throw e;
  }
}

const sendConfig = config({
  skipPreflight: bool,
  preflightCommitment: commitment,
  encoding: oneOf(['base58', 'base64'] as const),
  maxRetries: u64,
  minContextSlot: u64,
});

function preflightFailure(err: TransactionErrorValue, result: ExecutedTransaction | null): RpcError {
  return new RpcError(SEND_TRANSACTION_PREFLIGHT_FAILURE, `Transaction simulation failed: ${transactionErrorMessage(err)}`, {
    err,
    logs: result ? result.logs : [],
    accounts: null,
    unitsConsumed: result ? result.computeUnitsConsumed : 0,
    returnData: result?.returnData ? uiReturnData(result.returnData) : null,
  });
}

export const sendTransaction = method([required('transaction', string), optional('config', sendConfig)], async ([encoded, cfg = {}], ctx) => {
  const tx = decodeSubmittedTransaction(encoded, cfg.encoding ?? 'base58');
  // Agave sanitizes against the processed bank when preflight is skipped.
  checkAddressLookups(tx, ctx, cfg.skipPreflight ? 'processed' : (cfg.preflightCommitment ?? 'finalized'));
  if (!(await verifyTransactionSignaturesAsync(tx))) {
    throw new RpcError(TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure');
  }
  // Checked against, and queued for, the chain after a snapshot, revert or reset in progress
  // (Chain.whenOpen): one that began during the preflight is waited for and the preflight run again.
  do {
    await ctx.chain.whenOpen();
    if (!cfg.skipPreflight) {
      const c = cfg.preflightCommitment ?? 'finalized';
      contextSlot(ctx, c, cfg.minContextSlot);
      let result: ExecutedTransaction;
      try {
        result = await ctx.chain.simulateAsync(tx, c);
      } catch (e) {
        if (e instanceof TransactionError) throw preflightFailure(e.value, null);
        throw e;
      }
      if (result.err) throw preflightFailure(result.err, result);
    }
  } while (ctx.chain.isHeld);
  ctx.chain.submit(tx);
  return tx.id;
});

const simulateConfig = config({
  sigVerify: bool,
  replaceRecentBlockhash: bool,
  commitment,
  encoding: oneOf(['base58', 'base64'] as const),
  minContextSlot: u64,
  innerInstructions: bool,
  accounts: config({ addresses: arrayOf(address, 100), encoding: oneOf(ACCOUNT_ENCODINGS) }),
});

/** The message with another recent blockhash written in place (simulateTransaction's replaceRecentBlockhash). */
function withBlockhash(tx: Transaction, blockhash: string): Transaction {
  const m = tx.message;
  const keysLenBytes = m.accountKeys.length < 0x80 ? 1 : 2;
  const offset = (m.version === 0 ? 1 : 0) + 3 + keysLenBytes + 32 * m.accountKeys.length;
  const wire = tx.wire.slice();
  const messageStart = tx.wire.length - m.bytes.length;
  wire.set(decodeBase58(blockhash), messageStart + offset);
  return parseTransaction(wire);
}

export const simulateTransaction = method([required('transaction', string), optional('config', simulateConfig)], async ([encoded, cfg = {}], ctx) => {
  let tx = decodeSubmittedTransaction(encoded, cfg.encoding ?? 'base58');
  if (cfg.sigVerify && cfg.replaceRecentBlockhash) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
  if (cfg.sigVerify && !verifyTransactionSignatures(tx)) {
    throw new RpcError(TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure');
  }
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  checkAddressLookups(tx, ctx, c);
  const accountsEncoding = cfg.accounts?.encoding;
  if (accountsEncoding === 'base58' || accountsEncoding === 'binary') throw invalidParams('base58 encoding not supported');
  // Agave answers every field, null when it has nothing for it (replacementBlockhash too).
  let replacementBlockhash: { blockhash: string; lastValidBlockHeight: number } | null = null;
  if (cfg.replaceRecentBlockhash) {
    const latest = ctx.chain.latestBlockhash(c);
    tx = withBlockhash(tx, latest.blockhash);
    replacementBlockhash = { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight };
  }
  let result: ExecutedTransaction;
  try {
    result = await ctx.chain.simulateAsync(tx, c);
  } catch (e) {
    if (!(e instanceof TransactionError)) throw e;
    return withContext(slot, { err: e.value, logs: null, accounts: null, unitsConsumed: 0, returnData: null, innerInstructions: null, replacementBlockhash });
  }
  let accounts = null;
  if (cfg.accounts?.addresses) {
    const written = new Map(result.writes);
    const encoding: AccountEncoding = cfg.accounts.encoding ?? 'base64';
    accounts = cfg.accounts.addresses.map((k) => {
      const a = written.get(k) ?? ctx.chain.getAccount(k, c);
      return a && a.lamports > 0 ? encodeAccount(k, a, { encoding, readAccount: (m) => written.get(m) ?? ctx.chain.getAccount(m, c) }) : null;
    });
  }
  return withContext(slot, {
    err: result.err,
    logs: result.logs,
    accounts,
    unitsConsumed: result.computeUnitsConsumed,
    returnData: result.returnData ? uiReturnData(result.returnData) : null,
    innerInstructions: cfg.innerInstructions ? parsedInnerInstructions(result.innerInstructions, result.accountKeys) : null,
    replacementBlockhash,
  });
});
