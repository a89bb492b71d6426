/**
 * The submission decoder's worker thread (rpc/submission-decoder.ts): decodes sent transactions and
 * checks their signatures, off the event loop. Answers each request with the parsed transaction and
 * whether its signatures hold, or the client-facing error of a transaction that does not decode.
 * Ethereum transactions: the checks and the recovered sender, or why the transaction is invalid.
 */
import { parentPort } from 'node:worker_threads';
import type { Common } from '@ethereumjs/common';
import { createEvmCommon } from '../evm/evm-common.ts';
import { checkAndRecover, InvalidTransaction } from '../evm/transaction.ts';
import { verifyTransactionSignatures } from '../runtime/signatures.ts';
import { RpcError } from './errors.ts';
import { decodeSubmittedTransaction } from './submitted-transaction.ts';
import { WORKER_READY, type EvmSubmissionRequest, type SubmissionAnswer, type SubmissionRequest } from './submission-decoder.ts';

/** Requests come in batches (those one event-loop turn received) and are answered in one message. */
parentPort!.on('message', (batch: SubmissionRequest[]) => {
  parentPort!.postMessage(batch.map(answer));
});
parentPort!.postMessage(WORKER_READY);

const commons = new Map<number, Common>();

function answer(request: SubmissionRequest): SubmissionAnswer {
  if ('evm' in request) return answerEvm(request);
  const { id, encoded, encoding } = request;
  try {
    const tx = decodeSubmittedTransaction(encoded, encoding);
    return { id, tx, verified: verifyTransactionSignatures(tx) };
  } catch (e) {
    return e instanceof RpcError ? { id, rpcError: { code: e.code, message: e.message } } : { id, failure: e instanceof Error ? e.message : String(e) };
  }
}

function answerEvm({ id, evm, chainId }: EvmSubmissionRequest): SubmissionAnswer {
  let common = commons.get(chainId);
  if (!common) commons.set(chainId, (common = createEvmCommon(chainId)));
  try {
    const { hash, from, publicKey } = checkAndRecover(evm, common);
    return { id, recovered: { hash, from, publicKey } };
  } catch (e) {
    return e instanceof InvalidTransaction ? { id, invalid: e.message } : { id, failure: e instanceof Error ? e.message : String(e) };
  }
}
