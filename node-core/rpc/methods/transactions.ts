/** sendTransaction and simulateTransaction. */
import { decodeBase58 } from '../../common/base58.ts';
import { TransactionError, transactionErrorMessage, type TransactionErrorValue } from '../../runtime/errors.ts';
import type { ExecutedTransaction } from '../../runtime/executor.ts';
import { verifyTransactionSignatures } from '../../runtime/signatures.ts';
import { parseTransaction, type Transaction } from '../../runtime/wire.ts';
import { encodeAccount, type AccountEncoding } from '../encoding/account.ts';
import { parsedInnerInstructions, uiReturnData } from '../encoding/transaction.ts';
import { contextSlot, withContext, type RpcContext } from '../context.ts';
import type { Commitment } from '../../ledger/commitment.ts';
import { RpcError, SEND_TRANSACTION_PREFLIGHT_FAILURE, TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, invalidParams } from '../errors.ts';
import { ACCOUNT_ENCODINGS, address, arrayOf, bool, commitment, config, oneOf, optional, required, string, u64 } from '../params.ts';
import { decodeSubmissionHere } from '../submission-decoder.ts';
import { decodeSubmittedTransaction } from '../submitted-transaction.ts';
import { method } from './method.ts';

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
  // Decoded and its signatures checked on the submission worker where the node has one.
  const encoding = cfg.encoding ?? 'base58';
  const { tx, verified } = await (ctx.submissions ? ctx.submissions.decode(encoded, encoding) : decodeSubmissionHere(encoded, encoding));
  // Agave sanitizes against the processed bank when preflight is skipped.
  checkAddressLookups(tx, ctx, cfg.skipPreflight ? 'processed' : (cfg.preflightCommitment ?? 'finalized'));
  if (!verified) {
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
