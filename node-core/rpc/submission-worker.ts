/**
 * The submission decoder's worker thread (rpc/submission-decoder.ts): decodes sent transactions and
 * checks their signatures, off the event loop. Answers each request with the parsed transaction and
 * whether its signatures hold, or the client-facing error of a transaction that does not decode.
 */
import { parentPort } from 'node:worker_threads';
import { verifyTransactionSignatures } from '../runtime/signatures.ts';
import { RpcError } from './errors.ts';
import { decodeSubmittedTransaction } from './submitted-transaction.ts';
import { WORKER_READY, type SubmissionAnswer, type SubmissionRequest } from './submission-decoder.ts';

/** Requests come in batches (those one event-loop turn received) and are answered in one message. */
parentPort!.on('message', (batch: SubmissionRequest[]) => {
  parentPort!.postMessage(batch.map(answer));
});
parentPort!.postMessage(WORKER_READY);

function answer({ id, encoded, encoding }: SubmissionRequest): SubmissionAnswer {
  try {
    const tx = decodeSubmittedTransaction(encoded, encoding);
    return { id, tx, verified: verifyTransactionSignatures(tx) };
  } catch (e) {
    return e instanceof RpcError ? { id, rpcError: { code: e.code, message: e.message } } : { id, failure: e instanceof Error ? e.message : String(e) };
  }
}
