/**
 * The submission decoder's worker thread (rpc/submission-decoder.ts): decodes sent transactions and
 * checks their signatures, off the event loop. Answers each request with the parsed transaction and
 * whether its signatures hold, or the client-facing error of a transaction that does not decode.
 * Ethereum transactions: the checks and the recovered sender, or why the transaction is invalid.
 */
import { parentPort } from 'node:worker_threads';
import { verifyTransactionSignatures } from '../runtime/signatures.ts';
import { encodeBase58 } from '../common/base58.ts';
import { RpcError } from './errors.ts';
import { decodeSubmittedTransaction } from './submitted-transaction.ts';
import { WORKER_READY, type SubmissionAnswer, type SubmissionRequest } from './submission-decoder.ts';

type EvmAnswers = typeof import('./submission-worker-evm.ts');
let evmAnswers: EvmAnswers | null = null;

/**
 * Requests come in batches (those one event-loop turn received) and are answered a few at a time:
 * the first senders get their answer (and send again) while the rest of a big batch is still worked on.
 */
const ANSWERS_PER_MESSAGE = 4;
/** Batches are answered in the order they came, a batch waiting while the Ethereum module loads. */
let answered: Promise<void> = Promise.resolve();
parentPort!.on('message', (batch: SubmissionRequest[]) => {
  answered = answered.then(async () => {
    if (!evmAnswers && batch.some((request) => 'evm' in request)) evmAnswers = await loadEvmAnswers();
    answerBatch(batch);
  });
});
parentPort!.postMessage(WORKER_READY);

/** The Ethereum module; if it cannot load, every Ethereum request is answered as a failure (the event loop then decodes it). */
async function loadEvmAnswers(): Promise<EvmAnswers> {
  try {
    return await import('./submission-worker-evm.ts');
  } catch (e) {
    const failure = `the submission worker could not load its Ethereum checks: ${e instanceof Error ? e.message : String(e)}`;
    return { answerEvm: ({ id }) => ({ id, failure }) };
  }
}

function answerBatch(batch: SubmissionRequest[]): void {
  for (let i = 0; i < batch.length; i += ANSWERS_PER_MESSAGE) parentPort!.postMessage(batch.slice(i, i + ANSWERS_PER_MESSAGE).map(answer));
}

function answer(request: SubmissionRequest): SubmissionAnswer {
  if ('evm' in request) return evmAnswers!.answerEvm(request);
  const { id, encoded, encoding } = request;
  try {
    // The answer is the wire bytes and the base-58 names the parse made, in the order it made them:
    // the event loop parses the bytes again with these names (much cheaper than cloning the parsed
    // transaction's objects through postMessage, and than encoding the names again).
    const names: string[] = [];
    const tx = decodeSubmittedTransaction(encoded, encoding, (bytes) => {
      const name = encodeBase58(bytes);
      names.push(name);
      return name;
    });
    return { id, wire: tx.wire, names, verified: verifyTransactionSignatures(tx) };
  } catch (e) {
    return e instanceof RpcError ? { id, rpcError: { code: e.code, message: e.message } } : { id, failure: e instanceof Error ? e.message : String(e) };
  }
}
