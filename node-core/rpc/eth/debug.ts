/**
 * geth's debug namespace, the tracing half: debug_traceTransaction, debug_traceCall,
 * debug_traceBlockByNumber and debug_traceBlockByHash, with the default struct logger and the
 * built-in callTracer and prestateTracer, in geth's shapes and error texts. Stored transactions are
 * replayed from stored state (evm/trace/replay.ts); nothing is recorded while the chain runs.
 */
import type { RunTxResult } from '@ethereumjs/vm';
import { bytesToHex } from '@ethereumjs/util';
import { MAX_TX_GAS } from '../../evm/constants.ts';
import type { EvmListeners } from '../../evm/machine.ts';
import type { EvmBlockRecord } from '../../evm/records.ts';
import { decodeRevertReason } from '../../evm/revert.ts';
import { recipientOf } from '../../evm/space.ts';
import { CallFrameCollector, depositFrame, type CallFrame } from '../../evm/trace/call-frames.ts';
import { PrestateCollector, type PrestateConfig } from '../../evm/trace/prestate.ts';
import { depositOf, type LayeredSource, LayeredSource as Layered, type ReplayedEntry } from '../../evm/trace/replay.ts';
import { MAX_STRUCT_LOG_BYTES, StructLogger, TraceTooLarge, type StructLoggerConfig } from '../../evm/trace/struct-logger.ts';
import { EvmChanges } from '../../evm/state.ts';
import { BRIDGE_ADDRESS } from '../../evm/constants.ts';
import { JsonText, type JsonPiece } from '../../common/json-text.ts';
import { ReaderGone, type PieceSink } from '../../common/piece-channel.ts';
import { StreamedResult } from '../json.ts';
import { RpcError, INVALID_PARAMS } from '../errors.ts';
import { optional, parseParams, required, type Parse } from '../params.ts';
import { callBridgeRecipient, callEnv, callTransaction, checkValue, SERVER_ERROR, ZERO_ADDRESS } from './call.ts';
import { stateTarget, type EvmRpcContext } from './context.ts';
import { blockSelector, callObject, hash32, hex, type BlockSelector } from './params.ts';
import { firstLogIndex } from './format.ts';
import { findTransaction, gethError, guardReplay, replayerOf, replayTransaction } from './tracing.ts';

type Method = (params: unknown, ctx: EvmRpcContext) => unknown;

// ---- options ----

export type TracerSpec =
  | { kind: 'struct'; config: StructLoggerConfig }
  | { kind: 'call'; onlyTopCall: boolean; withLog: boolean }
  | { kind: 'prestate'; config: PrestateConfig };

const goType = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v);

/** geth's encoding/json error for a field of the wrong JSON type. */
const wrongType = (value: unknown, struct: string, field: string, want: string, code = SERVER_ERROR, prefix = '') =>
  new RpcError(code, `${prefix}json: cannot unmarshal ${goType(value)} into Go struct field ${struct}.${field} of type ${want}`);

function boolField(o: Record<string, unknown>, field: string, struct: string, code?: number, prefix?: string): boolean {
  const v = o[field];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw wrongType(v, struct, field, 'bool', code, prefix);
  return v;
}

/** A tracerConfig object, or geth's error for a value of another JSON type. */
function tracerConfigObject(v: unknown, goName: string): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new RpcError(SERVER_ERROR, `json: cannot unmarshal ${goType(v)} into Go value of type ${goName}`);
  return v as Record<string, unknown>;
}

const BUILT_IN = 'callTracer, prestateTracer, or none for the struct logger';

/** geth's TraceConfig (argument `index` of the method, counted from 0 as geth counts). */
export function traceConfig(v: unknown, index: number, extra: readonly string[] = []): TracerSpec {
  if (v === undefined || v === null) return { kind: 'struct', config: {} };
  const prefix = `invalid argument ${index}: `;
  if (typeof v !== 'object' || Array.isArray(v)) throw new RpcError(INVALID_PARAMS, `${prefix}json: cannot unmarshal ${goType(v)} into Go value of type tracers.TraceConfig`);
  const o = v as Record<string, unknown>;
  for (const key of extra) if (o[key] !== undefined && o[key] !== null) throw new RpcError(SERVER_ERROR, `${key} is not supported by this node's debug_traceCall`);
  if (o.timeout !== undefined && o.timeout !== null && (typeof o.timeout !== 'string' || !/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(o.timeout))) {
    throw new RpcError(SERVER_ERROR, typeof o.timeout === 'string' ? `time: invalid duration "${o.timeout}"` : `${prefix}json: cannot unmarshal ${goType(o.timeout)} into Go struct field TraceConfig.timeout of type string`);
  }
  const tracer = o.tracer;
  if (tracer !== undefined && tracer !== null && typeof tracer !== 'string') throw wrongType(tracer, 'TraceConfig', 'tracer', 'string', INVALID_PARAMS, prefix);
  if (tracer === undefined || tracer === null || tracer === '') {
    const limit = o.limit;
    if (limit !== undefined && limit !== null && !(typeof limit === 'number' && Number.isSafeInteger(limit) && limit >= 0)) throw wrongType(limit, 'TraceConfig', 'limit', 'int', INVALID_PARAMS, prefix);
    const flag = (f: string) => boolField(o, f, 'TraceConfig', INVALID_PARAMS, prefix);
    return { kind: 'struct', config: { enableMemory: flag('enableMemory'), disableStack: flag('disableStack'), disableStorage: flag('disableStorage'), enableReturnData: flag('enableReturnData'), limit: (limit as number | undefined) ?? 0 } };
  }
  if (tracer === 'callTracer') {
    const c = tracerConfigObject(o.tracerConfig, 'native.callTracerConfig');
    return { kind: 'call', onlyTopCall: boolField(c, 'onlyTopCall', 'callTracerConfig'), withLog: boolField(c, 'withLog', 'callTracerConfig') };
  }
  if (tracer === 'prestateTracer') {
    const c = tracerConfigObject(o.tracerConfig, 'native.prestateTracerConfig');
    return { kind: 'prestate', config: { diffMode: boolField(c, 'diffMode', 'prestateTracerConfig'), disableCode: boolField(c, 'disableCode', 'prestateTracerConfig'), disableStorage: boolField(c, 'disableStorage', 'prestateTracerConfig') } };
  }
  throw new RpcError(SERVER_ERROR, `tracer not found: ${tracer} (built-in tracers here: ${BUILT_IN}; JavaScript tracers are not supported)`);
}

// ---- shapes ----

/** A frame in geth's callTracer shape. */
export function callFrameJson(f: CallFrame, opts: { onlyTopCall?: boolean; withLog?: boolean; logIndexBase?: number } = {}): Record<string, unknown> {
  const o: Record<string, unknown> = { from: f.from, gas: hex(f.gas), gasUsed: hex(f.gasUsed), to: f.to, input: bytesToHex(f.input) };
  if (f.output.length > 0 && (!f.error || f.error === 'revert')) o.output = bytesToHex(f.output);
  if (f.error) {
    o.error = gethError(f.error);
    const reason = f.error === 'revert' ? decodeRevertReason(f.output) : null;
    if (reason !== null) o.revertReason = reason;
  }
  if (opts.withLog && f.logs.length) o.logs = f.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, position: hex(l.position), index: hex((opts.logIndexBase ?? 0) + l.index) }));
  if (!opts.onlyTopCall && f.calls.length) o.calls = f.calls.map((c) => callFrameJson(c, opts));
  if (f.value !== null) o.value = hex(f.value);
  o.type = f.type;
  return o;
}

/** What one traced run needs after it ran: its result, or a deposit's record, and the state before and after. */
interface TracedRun {
  result?: RunTxResult;
  depositRaw?: Uint8Array;
  pre: LayeredSource;
  post: LayeredSource;
}

interface ActiveTracer {
  listeners: EvmListeners;
  result(run: TracedRun): Promise<unknown>;
}

/** `logIndexBase`: the block's count of logs before the transaction's (geth's callTracer log index). */
export function makeTracer(spec: TracerSpec, from: string, to: string | undefined, logIndexBase = 0): ActiveTracer {
  switch (spec.kind) {
    case 'struct': {
      const logger = new StructLogger(spec.config);
      const result = (run: RunTxResult) => {
        try {
          return logger.result(run);
        } catch (e) {
          throw e instanceof TraceTooLarge ? new RpcError(SERVER_ERROR, e.message) : e;
        }
      };
      return { listeners: logger.listeners, result: async (r) => (r.result ? result(r.result) : { gas: 0, failed: false, returnValue: '0x', structLogs: [] }) };
    }
    case 'call': {
      const frames = new CallFrameCollector({ logs: spec.withLog });
      return { listeners: frames.listeners, result: async (r) => callFrameJson(r.result ? frames.finish(r.result) : depositFrame(r.depositRaw!), { ...spec, logIndexBase }) };
    }
    case 'prestate': {
      const collector = new PrestateCollector(spec.config, from, to);
      return { listeners: collector.listeners, result: (r) => (spec.config.diffMode ? collector.diff(r.pre, r.post) : collector.prestate(r.pre)) };
    }
  }
}

/** A stored entry's from/to, for the tracers that start from them. */
function endpoints(e: { record: { raw: Uint8Array; from: string; deposit: boolean } }): { from: string; to: string | undefined } {
  if (e.record.deposit) return { from: BRIDGE_ADDRESS, to: depositOf(e.record.raw).to };
  return { from: e.record.from, to: recipientOf(e.record.raw) ?? undefined };
}

const traced = (e: ReplayedEntry): TracedRun => ({ result: e.result, depositRaw: e.record.deposit ? e.record.raw : undefined, pre: e.pre, post: e.post });

// ---- methods ----

/** The config is checked by traceConfig, in geth's words. */
const anyValue: Parse<unknown> = (v) => v;
/** A block number (JSON numbers too, as Otterscan sends), a tag or a hash. */
const blockArg: Parse<BlockSelector> = (v, name) => blockSelector(typeof v === 'number' ? hex(v) : v, name);

/**
 * The struct logger's answer written into `sink` while `run` steps (`run`: the traced run, with these
 * listeners; its result, none for a deposit). The entries come first, the members known at the end after.
 */
async function streamStructLogs(config: StructLoggerConfig, sink: PieceSink, run: (listeners: EvmListeners) => Promise<RunTxResult | undefined>): Promise<void> {
  const logger = new StructLogger(config, MAX_STRUCT_LOG_BYTES, sink);
  try {
    await logger.end(await run(logger.listeners));
  } catch (e) {
    throw e instanceof TraceTooLarge ? new RpcError(SERVER_ERROR, e.message) : e;
  }
}

const debug_traceTransaction: Method = async (p, ctx) => {
  const [hash, raw] = parseParams(p, [required('hash', hash32), optional('config', anyValue)]);
  const spec = traceConfig(raw, 1);
  const found = await findTransaction(ctx, hash);
  const whole = async () => {
    const { from, to } = endpoints(found);
    const tracer = makeTracer(spec, from, to, firstLogIndex(found.records, found.record.index));
    const entry = await replayTransaction(ctx, found, tracer.listeners);
    return tracer.result(traced(entry));
  };
  if (spec.kind !== 'struct') return whole();
  // The struct logger's answer (~70 MB for a million gas) goes to an HTTP client while the run steps.
  return new StreamedResult((sink) => streamStructLogs(spec.config, sink, async (listeners) => (await replayTransaction(ctx, found, listeners)).result), whole);
};

/** debug_traceBlock*'s list; a result written ahead as JSON text (the struct logger's) goes in as its pieces. */
export function blockTraces(out: Array<{ txHash: string; result: unknown }>): unknown {
  if (!out.some((o) => o.result instanceof JsonText)) return out;
  const pieces: JsonPiece[] = ['['];
  out.forEach((o, i) => {
    pieces.push(`${i > 0 ? ',' : ''}{"txHash":${JSON.stringify(o.txHash)},"result":`);
    if (o.result instanceof JsonText) for (const p of o.result.pieces) pieces.push(p);
    else pieces.push(JSON.stringify(o.result));
    pieces.push('}');
  });
  pieces.push(']');
  return new JsonText(pieces);
}

async function traceBlock(ctx: EvmRpcContext, block: EvmBlockRecord, spec: TracerSpec): Promise<unknown> {
  if (block.number === 0) throw new RpcError(SERVER_ERROR, 'genesis is not traceable');
  const records = await ctx.space.blockTransactions(block);
  const tracers = records.map((r) => makeTracer(spec, endpoints({ record: r }).from, endpoints({ record: r }).to, firstLogIndex(records, r.index)));
  const out: Array<{ txHash: string; result: unknown }> = [];
  await guardReplay(() =>
    replayerOf(ctx.space).replayBlock(block, records, {
      listenersFor: (i) => tracers[i]!.listeners,
      onEntry: async (e) => void out.push({ txHash: e.record.hash, result: await tracers[e.record.index]!.result(traced(e)) }),
    }),
  );
  return blockTraces(out);
}

/** geth's argument: a number or a tag (debug_traceBlockByNumber takes no hash). */
const blockNumberArg: Parse<BlockSelector> = (v, name) => {
  const sel = blockArg(v, name);
  if ('hash' in sel) throw new RpcError(INVALID_PARAMS, `invalid argument 0: hex number > 64 bits`);
  return sel;
};

const debug_traceBlockByNumber: Method = async (p, ctx) => {
  const [sel, raw] = parseParams(p, [required('number', blockNumberArg), optional('config', anyValue)]);
  const spec = traceConfig(raw, 1);
  const block = 'number' in sel ? await ctx.space.block(sel.number) : 'tag' in sel && sel.tag === 'earliest' ? await ctx.space.block(0) : 'tag' in sel && (sel.tag === 'safe' || sel.tag === 'finalized') ? ctx.space.headAt('finalized') : ctx.space.head;
  if (!block) throw new RpcError(SERVER_ERROR, `block #${'number' in sel ? sel.number : ''} not found`);
  return traceBlock(ctx, block, spec);
};

const debug_traceBlockByHash: Method = async (p, ctx) => {
  const [hash, raw] = parseParams(p, [required('hash', hash32), optional('config', anyValue)]);
  const spec = traceConfig(raw, 1);
  const block = await ctx.space.blockByHash(hash);
  if (!block) throw new RpcError(SERVER_ERROR, `block ${hash} not found`);
  return traceBlock(ctx, block, spec);
};

const debug_traceCall: Method = async (p, ctx) => {
  const [call, sel, raw] = parseParams(p, [required('transaction', callObject), optional('block', blockArg), optional('config', anyValue)]);
  const spec = traceConfig(raw, 2, ['stateOverrides', 'blockOverrides']);
  const selector: BlockSelector = sel ?? { tag: 'latest' };
  if ('number' in selector && selector.number > ctx.space.head.number) throw new RpcError(SERVER_ERROR, `block #${selector.number} not found`);
  if ('hash' in selector && !(await ctx.space.blockByHash(selector.hash))) throw new RpcError(SERVER_ERROR, `block ${selector.hash} not found`);
  const target = await stateTarget(ctx, selector);
  const from = call.from ?? ZERO_ADDRESS;
  if ((call.value ?? 0n) > 0n) await checkValue(target, from, call.value!);
  const machine = await replayerOf(ctx.space).machine();
  const gas = call.gas !== undefined && call.gas < MAX_TX_GAS ? call.gas : MAX_TX_GAS;
  const tx = await callTransaction(call, target, gas, machine.common);
  const pre = new Layered([], target.state);
  const changes = new EvmChanges();
  const run = async (listeners: EvmListeners, streaming: boolean): Promise<RunTxResult> => {
    try {
      return await machine.runListened({ tx, env: callEnv(target.env, call), below: pre, changes, canCredit: callBridgeRecipient(call), call: true }, listeners);
    } catch (e) {
      // A streamed run stopped by its reader or its cap fails as it is.
      if (streaming && (e instanceof ReaderGone || e instanceof TraceTooLarge)) throw e;
      throw new RpcError(SERVER_ERROR, (e as Error).message.split(' (')[0]!.split(' -> ')[0]!);
    }
  };
  const whole = async () => {
    const tracer = makeTracer(spec, from, call.to);
    return tracer.result({ result: await run(tracer.listeners, false), pre, post: pre.with(changes) });
  };
  if (spec.kind !== 'struct') return whole();
  return new StreamedResult((sink) => streamStructLogs(spec.config, sink, (listeners) => run(listeners, true)), whole);
};

export const debugMethods = { debug_traceTransaction, debug_traceCall, debug_traceBlockByNumber, debug_traceBlockByHash };
