/** debug_trace*'s options as geth reads them (tracer names, tracerConfig types, logger flags), and callTracer's frame shape. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { blockTraces, callFrameJson, traceConfig } from '../../node-core/rpc/eth/debug.ts';
import { JsonText, joinPieces } from '../../node-core/common/json-text.ts';
import type { CallFrame } from '../../node-core/evm/trace/call-frames.ts';
import { encodeRevertReason } from '../../node-core/evm/revert.ts';

const fails = (v: unknown, code: number, message: string | RegExp) =>
  assert.throws(() => traceConfig(v, 1), (e: any) => e.code === code && (typeof message === 'string' ? e.message === message : message.test(e.message)));

describe('debug_trace* options', () => {
  test('no options: the struct logger with its defaults', () => {
    assert.deepEqual(traceConfig(undefined, 1), { kind: 'struct', config: {} });
    assert.deepEqual(traceConfig({ enableMemory: true, disableStack: true, limit: 10 }, 1), {
      kind: 'struct',
      config: { enableMemory: true, disableStack: true, disableStorage: false, enableReturnData: false, limit: 10 },
    });
  });

  test('the built-in tracers and their configs', () => {
    assert.deepEqual(traceConfig({ tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }, 1), { kind: 'call', onlyTopCall: true, withLog: false });
    assert.deepEqual(traceConfig({ tracer: 'callTracer', tracerConfig: null }, 1), { kind: 'call', onlyTopCall: false, withLog: false });
    assert.deepEqual(traceConfig({ tracer: 'prestateTracer', tracerConfig: { diffMode: true } }, 1), { kind: 'prestate', config: { diffMode: true, disableCode: false, disableStorage: false } });
  });

  test("bad options get geth's words", () => {
    fails({ tracer: '4byteTracer' }, -32000, /^tracer not found: 4byteTracer/);
    fails({ tracer: 'callTracer', tracerConfig: { withLog: 1 } }, -32000, 'json: cannot unmarshal number into Go struct field callTracerConfig.withLog of type bool');
    fails({ tracer: 'callTracer', tracerConfig: [] }, -32000, 'json: cannot unmarshal array into Go value of type native.callTracerConfig');
    fails({ tracer: 'prestateTracer', tracerConfig: 'x' }, -32000, 'json: cannot unmarshal string into Go value of type native.prestateTracerConfig');
    fails({ tracer: 7 }, -32602, 'invalid argument 1: json: cannot unmarshal number into Go struct field TraceConfig.tracer of type string');
    fails({ disableStorage: 'no' }, -32602, 'invalid argument 1: json: cannot unmarshal string into Go struct field TraceConfig.disableStorage of type bool');
    fails({ limit: -1 }, -32602, 'invalid argument 1: json: cannot unmarshal number into Go struct field TraceConfig.limit of type int');
    fails('callTracer', -32602, 'invalid argument 1: json: cannot unmarshal string into Go value of type tracers.TraceConfig');
    fails({ timeout: '5 seconds' }, -32000, 'time: invalid duration "5 seconds"');
    assert.equal(traceConfig({ timeout: '1m30s' }, 1).kind, 'struct');
  });
});

describe("callTracer's frame", () => {
  const frame = (over: Partial<CallFrame>): CallFrame => ({
    type: 'CALL', from: '0x01', to: '0x02', value: 5n, gas: 100n, gasUsed: 40n, input: new Uint8Array([1, 2]), output: new Uint8Array(0), depth: 0, calls: [], logs: [], ...over,
  });

  test('a reverted frame: geth\'s error text, its output and decoded reason; its logs and value as geth writes them', () => {
    const reverted = frame({ error: 'revert', output: encodeRevertReason('nope'), value: null, type: 'STATICCALL' });
    const json = callFrameJson(frame({ calls: [reverted], logs: [{ address: '0x02', topics: ['0xaa'], data: '0x', position: 1, index: 0 }] }), { withLog: true, logIndexBase: 3 });
    assert.deepEqual(json, {
      from: '0x01', gas: '0x64', gasUsed: '0x28', to: '0x02', input: '0x0102',
      logs: [{ address: '0x02', topics: ['0xaa'], data: '0x', position: '0x1', index: '0x3' }],
      calls: [{ from: '0x01', gas: '0x64', gasUsed: '0x28', to: '0x02', input: '0x0102', output: `0x${Buffer.from(encodeRevertReason('nope')).toString('hex')}`, error: 'execution reverted', revertReason: 'nope', type: 'STATICCALL' }],
      value: '0x5',
      type: 'CALL',
    });
    assert.equal(callFrameJson(frame({ calls: [reverted] }), { onlyTopCall: true }).calls, undefined);
    assert.deepEqual(callFrameJson(frame({ error: 'out of gas', output: new Uint8Array([9]) })).error, 'out of gas');
    assert.equal(callFrameJson(frame({ error: 'out of gas', output: new Uint8Array([9]) })).output, undefined);
  });
});

describe('a block trace', () => {
  test('entries written as JSON text and plain ones (a deposit\'s) make the list JSON.stringify would write', () => {
    const written = { gas: 21, failed: false, returnValue: '0x', structLogs: [{ pc: 0, op: 'STOP', gas: 5, gasCost: 0, depth: 1, refund: 0, stack: [] }] };
    const deposit = { gas: 0, failed: false, returnValue: '0x', structLogs: [] };
    const text = JSON.stringify(written);
    const out = blockTraces([
      { txHash: '0xaa', result: deposit },
      { txHash: '0xbb', result: new JsonText([text.slice(0, 10), Buffer.from(text.slice(10))]) },
    ]);
    assert.ok(out instanceof JsonText);
    assert.equal(joinPieces(out.pieces), JSON.stringify([{ txHash: '0xaa', result: deposit }, { txHash: '0xbb', result: written }]));
    const plain = [{ txHash: '0xaa', result: deposit }];
    assert.equal(blockTraces(plain), plain);
  });
});
