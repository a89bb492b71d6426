/**
 * The submission worker's Ethereum answers (rpc/submission-worker.ts loads this module with the first
 * Ethereum transaction, so a worker that only checks native transactions starts without the
 * @ethereumjs packages): the checks and the recovered sender, or why the transaction is invalid, and
 * when asked the native transaction that carries it, made and signed.
 */
import type { Common } from '@ethereumjs/common';
import { createEvmCommon } from '../evm/evm-common.ts';
import { wrapInOne } from '../evm/relay-wrap.ts';
import { checkAndRecover, InvalidTransaction } from '../evm/transaction.ts';
import type { EvmSubmissionRequest, SubmissionAnswer } from './submission-decoder.ts';

const commons = new Map<number, Common>();

export function answerEvm({ id, evm, chainId, wrap }: EvmSubmissionRequest): SubmissionAnswer {
  let common = commons.get(chainId);
  if (!common) commons.set(chainId, (common = createEvmCommon(chainId)));
  try {
    const { tx, hash, from, publicKey } = checkAndRecover(evm, common);
    if (!wrap) return { id, recovered: { hash, from, publicKey } };
    return { id, recovered: { hash, from, publicKey }, wrapped: wrapInOne(evm, tx, wrap.relayer, wrap.blockhash) ?? undefined };
  } catch (e) {
    return e instanceof InvalidTransaction ? { id, invalid: e.message } : { id, failure: e instanceof Error ? e.message : String(e) };
  }
}
