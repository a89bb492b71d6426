/**
 * isthmus_decodeEvmLogs: the node names the logs it can (evm/known-events.ts) so that the explorer
 * shows decoded events without decoding anything itself. Params: an array of logs as eth_getLogs and
 * callTracer give them ({topics, data}, other fields ignored), at most 1,000; the answer has one entry
 * per log, null where the event is not one the node knows.
 */
import { decodeKnownEvent } from '../../evm/known-events.ts';
import { arrayOf, config, fail, parseParams, required, type Parse } from '../params.ts';
import { data, hash32 } from './params.ts';

const MAX_LOGS = 1_000;

const topicsOf: Parse<Uint8Array[]> = (v, name) => arrayOf((x, n) => data(hash32(x, n), n), 4)(v, name);

const log: Parse<{ topics: Uint8Array[]; data: Uint8Array }> = (v, name) => {
  const l = config({ topics: topicsOf, data })(v, name);
  if (l.topics === undefined || l.data === undefined) return fail(name, 'a log {topics, data}', v);
  return { topics: l.topics, data: l.data };
};

const isthmus_decodeEvmLogs = (p: unknown) => {
  const [logs] = parseParams(p, [required('logs', arrayOf(log, MAX_LOGS))]);
  return logs.map((l) => decodeKnownEvent(l.topics, l.data));
};

export const decodeLogsMethods = { isthmus_decodeEvmLogs };
