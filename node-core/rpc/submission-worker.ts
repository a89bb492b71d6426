/**
 * The submission decoder's worker thread (rpc/submission-decoder.ts): decodes sent transactions and
 * checks their signatures, off the event loop. Answers each request with the parsed transaction and
 * whether its signatures hold, or the client-facing error of a transaction that does not decode.
 * Ethereum transactions: the checks and the recovered sender, or why the transaction is invalid.
 */
import { parentPort } from 'node:worker_threads';
import type { Common } from '@ethereumjs/common';
import { createEvmCommon } from '../evm/evm-common.ts';
import { wrapInOne } from '../evm/relay-wrap.ts';
import { checkAndRecover, InvalidTransaction } from '../evm/transaction.ts';
import type { Keypair } from '../keys/keypair.ts';
import { verifyTransactionSignatures } from '../runtime/signatures.ts';
import { encodeBase58 } from '../common/base58.ts';
import { RpcError } from './errors.ts';
import { decodeSubmittedTransaction } from './submitted-transaction.ts';
import { WORKER_READY, type EvmSubmissionRequest, type SubmissionAnswer, type SubmissionRequest } from './submission-decoder.ts';

/**
 * Requests come in batches (those one event-loop turn received) and are answered a few at a time:
 * the first senders get their answer (and send again) while the rest of a big batch is still worked on.
 */
const ANSWERS_PER_MESSAGE = 4;
parentPort!.on('message', (batch: SubmissionRequest[]) => {
  for (let i = 0; i < batch.length; i += ANSWERS_PER_MESSAGE) parentPort!.postMessage(batch.slice(i, i + ANSWERS_PER_MESSAGE).map(answer));
});
parentPort!.postMessage(WORKER_READY);

const commons = new Map<number, Common>();

function answer(request: SubmissionRequest): SubmissionAnswer {
  if ('evm' in request) return answerEvm(request);
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

/** The relayer keys, one object each: its signing key is prepared once (keys/keypair.ts caches it per object). */
const relayers = new Map<string, Keypair>();

function answerEvm({ id, evm, chainId, wrap }: EvmSubmissionRequest): SubmissionAnswer {
  let common = commons.get(chainId);
  if (!common) commons.set(chainId, (common = createEvmCommon(chainId)));
  try {
    const { tx, hash, from, publicKey } = checkAndRecover(evm, common);
    if (!wrap) return { id, recovered: { hash, from, publicKey } };
    let relayer = relayers.get(wrap.relayer.address);
    if (!relayer) relayers.set(wrap.relayer.address, (relayer = wrap.relayer));
    return { id, recovered: { hash, from, publicKey }, wrapped: wrapInOne(evm, tx, relayer, wrap.blockhash) ?? undefined };
  } catch (e) {
    return e instanceof InvalidTransaction ? { id, invalid: e.message } : { id, failure: e instanceof Error ? e.message : String(e) };
  }
}
