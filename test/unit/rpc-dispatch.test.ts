import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import bs58 from 'bs58';
import { Keypair as Web3Keypair, SystemProgram, Transaction as Web3Transaction } from '@solana/web3.js';
import { addressToBytes, SYSTEM_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { keypairFromSeed } from '../../node-core/keys/keypair.ts';
import { Chain } from '../../node-core/ledger/chain.ts';
import { blockhashOf } from '../../node-core/ledger/slot-commit.ts';
import { createGenesis, genesisHashOf, LAMPORTS_PER_SOL } from '../../node-core/ledger/genesis.ts';
import { builtinPrograms } from '../../node-core/runtime/programs/index.ts';
import { PACKET_DATA_SIZE, serializeMessage, serializeTransaction } from '../../node-core/runtime/wire.ts';
import type { RpcContext } from '../../node-core/rpc/context.ts';
import { ChainControlGate } from '../../node-core/rpc/chain-control-gate.ts';
import { Dispatcher, MAX_BATCH_LENGTH, type MethodTable } from '../../node-core/rpc/dispatcher.ts';
import { INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RpcError } from '../../node-core/rpc/errors.ts';
import { accountFilters, matchesFilters, MAX_FILTERS } from '../../node-core/rpc/filters.ts';
import { nativeMethods } from '../../node-core/rpc/methods/index.ts';
import { decodeSubmittedTransaction } from '../../node-core/rpc/submitted-transaction.ts';
import {
  address,
  arrayOf,
  blockhash,
  bool,
  commitment,
  config,
  dataSlice,
  oneOf,
  optional,
  parseParams,
  required,
  signature,
  u64,
} from '../../node-core/rpc/params.ts';
import { MemoryStore } from '../../node-core/store/memory-store.ts';
import type { Account } from '../../node-core/runtime/account.ts';
import { buildTransaction, compileMessage, signMessage, transferIx } from '../helpers/tx-builder.ts';

/** Asserts `fn` throws an RpcError with this code and message. */
function rpcError(fn: () => unknown, code: number, message: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof RpcError, `expected RpcError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}
const invalidParams = (fn: () => unknown, message: string | RegExp) => rpcError(fn, INVALID_PARAMS, message);

// ---- the dispatcher, with a table of test methods ----

const calls: string[] = [];
const testMethods: MethodTable<{ tag: string }> = {
  echo: (params) => params,
  add: (params) => {
    const [a, b] = parseParams(params, [required('a', u64), required('b', u64)]);
    return a + b;
  },
  ctx: (_p, ctx) => ctx.tag,
  later: async (params) => {
    await new Promise((r) => setTimeout(r, 5));
    return { later: params };
  },
  record: (params) => {
    calls.push(JSON.stringify(params));
    return 'recorded';
  },
  custom: () => {
    throw new RpcError(-32002, 'Transaction simulation failed: boom', { err: 'x', logs: [] });
  },
  plain: () => {
    throw new RpcError(-32004, 'Block not available for slot 9');
  },
  crash: () => {
    throw new Error('secret internals');
  },
  crashAsync: async () => {
    throw new TypeError('async secret');
  },
  // A library's error that carries a numeric code of its own: not the node's RpcError, so not the client's business.
  libraryError: () => {
    throw Object.assign(new Error('ENOSPC: no space left on device, write /secret/ledger/data.mdb'), { code: -32002, data: { path: '/secret' } });
  },
  thrownString: () => {
    throw 'secret string';
  },
  thrownObject: async () => {
    throw { code: -32004, message: 'looks like an RpcError but is not one' };
  },
  nothing: () => undefined,
  nothingAsync: async () => {},
  nil: () => null,
};
const dispatcher = new Dispatcher(testMethods, { tag: 'the context' });
const body = async (b: unknown) => {
  const text = await dispatcher.handleBody(typeof b === 'string' ? b : JSON.stringify(b));
  return text === null ? null : JSON.parse(text);
};
const request = (method: string, params?: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

describe('Dispatcher', () => {
  test('results, with the context and async methods', async () => {
    assert.deepEqual(await body(request('add', [2, 3])), { jsonrpc: '2.0', result: 5, id: 1 });
    assert.deepEqual(await body(request('ctx')), { jsonrpc: '2.0', result: 'the context', id: 1 });
    assert.deepEqual(await body(request('later', ['x'])), { jsonrpc: '2.0', result: { later: ['x'] }, id: 1 });
    assert.deepEqual(await body(request('nil')), { jsonrpc: '2.0', result: null, id: 1 });
  });

  test('a method that returns nothing answers null, never a response without result', async () => {
    assert.deepEqual(await body(request('nothing')), { jsonrpc: '2.0', result: null, id: 1 });
    assert.deepEqual(await body(request('nothingAsync')), { jsonrpc: '2.0', result: null, id: 1 });
  });

  test('ids are echoed exactly', async () => {
    for (const id of ['abc', '1', '', 'ünï©ødé', 0, 1, -5, 1.5, 2 ** 53, 1e300, null]) {
      const answer = await body(request('echo', [1], id));
      assert.ok(Object.is(answer.id, id), `id ${JSON.stringify(id)} came back as ${JSON.stringify(answer.id)}`);
      assert.deepEqual(answer.result, [1]);
    }
    // Exactly as sent: the text of the id is not reformatted.
    const raw = await dispatcher.handleBody('{"jsonrpc":"2.0","id":"007","method":"echo"}');
    assert.equal(raw, '{"jsonrpc":"2.0","result":null,"id":"007"}');
  });

  test('notifications get no answer, whatever happens', async () => {
    calls.length = 0;
    assert.equal(await body({ jsonrpc: '2.0', method: 'record', params: [1] }), null);
    assert.deepEqual(calls, ['[1]'], 'the notification still ran');
    assert.equal(await body({ jsonrpc: '2.0', method: 'noSuchMethod' }), null);
    assert.equal(await body({ jsonrpc: '2.0', method: 'add', params: ['x'] }), null);
    assert.equal(await body({ jsonrpc: '2.0', method: 'custom' }), null);
  });

  test('"id": null is a request, not a notification', async () => {
    assert.deepEqual(await body(request('echo', [], null)), { jsonrpc: '2.0', result: [], id: null });
  });

  test('parse error', async () => {
    assert.deepEqual(await body('{"jsonrpc":'), { jsonrpc: '2.0', error: { code: PARSE_ERROR, message: 'Parse error' }, id: null });
    assert.deepEqual(await body(''), { jsonrpc: '2.0', error: { code: PARSE_ERROR, message: 'Parse error' }, id: null });
  });

  test('invalid requests', async () => {
    const invalid = (answer: { error: { code: number; message: string }; id: unknown }, id: unknown = null) => {
      assert.equal(answer.error.code, INVALID_REQUEST);
      assert.match(answer.error.message, /^Invalid request/);
      assert.equal(answer.id, id);
    };
    invalid(await body('1'));
    invalid(await body('"getSlot"'));
    invalid(await body({}));
    invalid(await body({ jsonrpc: '2.0', id: { x: 1 }, method: 'echo' }));
    invalid(await body({ jsonrpc: '2.0', id: true, method: 'echo' }));
    invalid(await body({ jsonrpc: '1.0', id: 7, method: 'echo' }), 7);
    invalid(await body({ id: 'a', method: 'echo' }), 'a');
    invalid(await body({ jsonrpc: '2.0', id: 8, method: 5 }), 8);
    invalid(await body({ jsonrpc: '2.0', id: 9 }), 9);
    const noVersion = await body({ id: 'q', method: 'echo' });
    assert.equal(noVersion.error.message, 'Invalid request: unsupported JSON-RPC protocol version (jsonrpc must be "2.0")');
  });

  test('unknown methods, including Object.prototype names', async () => {
    for (const method of ['noSuchMethod', 'toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      assert.deepEqual(await body(request(method)), { jsonrpc: '2.0', error: { code: METHOD_NOT_FOUND, message: 'Method not found' }, id: 1 }, method);
    }
    assert.equal(dispatcher.has('echo'), true);
    assert.equal(dispatcher.has('toString'), false);
  });

  test('RpcErrors keep their code, message and data', async () => {
    assert.deepEqual(await body(request('custom')), {
      jsonrpc: '2.0',
      error: { code: -32002, message: 'Transaction simulation failed: boom', data: { err: 'x', logs: [] } },
      id: 1,
    });
    const plain = await body(request('plain'));
    assert.deepEqual(plain.error, { code: -32004, message: 'Block not available for slot 9' });
    assert.ok(!('data' in plain.error));
  });

  test('unexpected exceptions are a bare Internal error', async (t) => {
    const logged = t.mock.method(console, 'error', () => {});
    assert.deepEqual(await body(request('crash')), { jsonrpc: '2.0', error: { code: INTERNAL_ERROR, message: 'Internal error' }, id: 1 });
    assert.deepEqual(await body(request('crashAsync', [], 'z')), { jsonrpc: '2.0', error: { code: INTERNAL_ERROR, message: 'Internal error' }, id: 'z' });
    assert.equal(logged.mock.callCount(), 2, 'the cause goes to the node’s log');
  });

  test('only the node’s own RpcErrors pass their code: anything else with a code is an Internal error too', async (t) => {
    const logged = t.mock.method(console, 'error', () => {});
    for (const method of ['libraryError', 'thrownString', 'thrownObject']) {
      const text = (await dispatcher.handleBody(JSON.stringify(request(method))))!;
      assert.deepEqual(JSON.parse(text), { jsonrpc: '2.0', error: { code: INTERNAL_ERROR, message: 'Internal error' }, id: 1 }, method);
      assert.doesNotMatch(text, /secret|ENOSPC|looks like/, `${method}: nothing of the cause reaches the client`);
    }
    assert.equal(logged.mock.callCount(), 3, 'each cause goes to the node’s log');
    assert.match(String(logged.mock.calls[0]!.arguments[1]), /ENOSPC/);
  });

  test('parameter errors are -32602 and name the parameter', async () => {
    const err = async (params: unknown) => (await body(request('add', params))).error;
    assert.deepEqual(await err(['x', 1]), { code: INVALID_PARAMS, message: 'Invalid params: a: expected a non-negative integer, got string "x"' });
    assert.deepEqual(await err([1]), { code: INVALID_PARAMS, message: 'Invalid params: missing required parameter `b`' });
    assert.deepEqual(await err([1, 2, 3]), { code: INVALID_PARAMS, message: 'Invalid params: expected at most 2 parameters, got 3' });
    assert.deepEqual(await err({ a: 1, b: 2 }), { code: INVALID_PARAMS, message: 'Invalid params: params must be an array' });
    assert.deepEqual(await err([1, -1]), { code: INVALID_PARAMS, message: 'Invalid params: b: expected a non-negative integer, got number -1' });
  });

  test('batches: answers in order, notifications left out', async () => {
    const answers = await body([request('add', [1, 1], 'first'), { jsonrpc: '2.0', method: 'record', params: ['n'] }, request('later', [], 2), request('noSuchMethod', [], 3), 42]);
    assert.deepEqual(answers, [
      { jsonrpc: '2.0', result: 2, id: 'first' },
      { jsonrpc: '2.0', result: { later: [] }, id: 2 },
      { jsonrpc: '2.0', error: { code: METHOD_NOT_FOUND, message: 'Method not found' }, id: 3 },
      { jsonrpc: '2.0', error: { code: INVALID_REQUEST, message: 'Invalid request' }, id: null },
    ]);
  });

  test('a batch of only notifications gets no answer; an empty batch is invalid', async () => {
    assert.equal(await body([{ jsonrpc: '2.0', method: 'record' }, { jsonrpc: '2.0', method: 'echo' }]), null);
    assert.deepEqual(await body([]), { jsonrpc: '2.0', error: { code: INVALID_REQUEST, message: 'Invalid request' }, id: null });
  });

  test('batches are limited in length', async () => {
    const ok = await body(Array.from({ length: MAX_BATCH_LENGTH }, (_, i) => request('echo', [], i)));
    assert.equal(ok.length, MAX_BATCH_LENGTH);
    const tooLong = await body(Array.from({ length: MAX_BATCH_LENGTH + 1 }, (_, i) => request('echo', [], i)));
    assert.equal(tooLong.error.code, INVALID_REQUEST);
    assert.match(tooLong.error.message, /batch of 1001 requests is too long; max 1000/);
  });
});

// ---- parameter parsers ----

const key = keypairFromSeed(new Uint8Array(32).fill(4)).address;
const sig = bs58.encode(new Uint8Array(64).fill(9));
const hash32 = bs58.encode(new Uint8Array(32).fill(8));

describe('params', () => {
  const one = <T>(parse: (v: unknown, name: string) => T, v: unknown) => parse(v, 'p');

  test('addresses, signatures and hashes', () => {
    assert.equal(one(address, key), key);
    invalidParams(() => one(address, 'abc'), 'Invalid params: p: expected a base-58 public key (32 bytes), got string "abc"');
    invalidParams(() => one(address, sig), /^Invalid params: p: expected a base-58 public key/);
    invalidParams(() => one(address, key.replace(/.$/, '0')), /^Invalid params: p: expected a base-58 public key/);
    invalidParams(() => one(address, 12), 'Invalid params: p: expected a base-58 public key (32 bytes), got number 12');
    invalidParams(() => one(address, 'x'.repeat(100)), /got string "x{60}…"$/);
    assert.equal(one(signature, sig), sig);
    invalidParams(() => one(signature, key), /^Invalid params: p: expected a base-58 signature \(64 bytes\)/);
    assert.equal(one(blockhash, hash32), hash32);
    invalidParams(() => one(blockhash, sig), /^Invalid params: p: expected a base-58 hash \(32 bytes\)/);
  });

  test('numbers, booleans, enumerations', () => {
    assert.equal(one(u64, 0), 0);
    assert.equal(one(u64, Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
    for (const bad of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1, '5', NaN, null]) invalidParams(() => one(u64, bad), /^Invalid params: p: expected a non-negative integer/);
    assert.equal(one(bool, false), false);
    invalidParams(() => one(bool, 'true'), 'Invalid params: p: expected a boolean, got string "true"');
    assert.equal(one(oneOf(['base58', 'base64'] as const), 'base64'), 'base64');
    invalidParams(() => one(oneOf(['base58', 'base64'] as const), 'hex'), 'Invalid params: p: expected one of base58, base64, got string "hex"');
  });

  test('arrays name each item and have a maximum', () => {
    assert.deepEqual(one(arrayOf(address, 2), [key, key]), [key, key]);
    invalidParams(() => one(arrayOf(address, 2), [key, key, key]), 'Too many inputs provided; max 2');
    invalidParams(() => one(arrayOf(address), [key, 'nope']), 'Invalid params: p[1]: expected a base-58 public key (32 bytes), got string "nope"');
    invalidParams(() => one(arrayOf(address), {}), 'Invalid params: p: expected an array, got an object');
  });

  test('commitments, old names included', () => {
    assert.equal(one(commitment, 'recent'), 'processed');
    assert.equal(one(commitment, 'singleGossip'), 'confirmed');
    assert.equal(one(commitment, 'max'), 'finalized');
    invalidParams(() => one(commitment, 'fast'), /^Invalid params: p: expected a commitment \(processed, confirmed, finalized/);
  });

  test('config objects: known fields checked with dotted names, unknown ignored, null skipped', () => {
    const parse = config({ commitment, minContextSlot: u64, dataSlice });
    assert.deepEqual(one(parse, { commitment: 'confirmed', unknownField: 1, minContextSlot: null }), { commitment: 'confirmed' });
    invalidParams(() => one(parse, { minContextSlot: 'x' }), 'Invalid params: p.minContextSlot: expected a non-negative integer, got string "x"');
    invalidParams(() => one(parse, { dataSlice: { offset: 1 } }), /^Invalid params: p.dataSlice: expected \{offset, length\}/);
    invalidParams(() => one(parse, { dataSlice: { offset: 1, length: -2 } }), /^Invalid params: p.dataSlice.length: expected a non-negative integer/);
    invalidParams(() => one(parse, [1]), 'Invalid params: p: expected a configuration object, got an array');
    invalidParams(() => one(parse, 'finalized'), 'Invalid params: p: expected a configuration object, got string "finalized"');
  });

  test('parseParams: positional, optional may be null, required may not', () => {
    const schema = [required('pubkey', address), optional('config', config({ commitment }))] as const;
    assert.deepEqual(parseParams([key], schema), [key, undefined]);
    assert.deepEqual(parseParams([key, null], schema), [key, undefined]);
    assert.deepEqual(parseParams([key, { commitment: 'root' }], schema), [key, { commitment: 'finalized' }]);
    invalidParams(() => parseParams([], schema), 'Invalid params: missing required parameter `pubkey`');
    invalidParams(() => parseParams(undefined, schema), 'Invalid params: missing required parameter `pubkey`');
    invalidParams(() => parseParams([null], schema), 'Invalid params: pubkey: expected a base-58 public key (32 bytes), got null');
    invalidParams(() => parseParams([key, {}, 3], schema), 'Invalid params: expected at most 2 parameters, got 3');
    assert.deepEqual(parseParams(null, [optional('config', config({ commitment }))]), [undefined]);
    invalidParams(() => parseParams([1, 2], [optional('a', u64)]), 'Invalid params: expected at most 1 parameter, got 2');
  });
});

// ---- getProgramAccounts filters ----

describe('filters', () => {
  const parse = (v: unknown) => accountFilters(v, 'filters');
  const data = Uint8Array.from({ length: 40 }, (_, i) => i);
  const account = (d: Uint8Array = data): Account => ({ lamports: 1, data: d, owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: 0 });

  test('dataSize and memcmp in base58 (the default) and base64', () => {
    const filters = parse([{ dataSize: 40 }, { memcmp: { offset: 2, bytes: bs58.encode(Uint8Array.of(2, 3, 4)) } }, { memcmp: { offset: 10, bytes: Buffer.from([10, 11]).toString('base64'), encoding: 'base64' } }, { memcmp: { offset: 0, bytes: bs58.encode(Uint8Array.of(0)), encoding: 'base58' } }]);
    assert.deepEqual(filters, [
      { dataSize: 40 },
      { memcmp: { offset: 2, bytes: Uint8Array.of(2, 3, 4) } },
      { memcmp: { offset: 10, bytes: Uint8Array.of(10, 11) } },
      { memcmp: { offset: 0, bytes: Uint8Array.of(0) } },
    ]);
    assert.equal(matchesFilters(account(), filters), true);
    assert.equal(matchesFilters(account(data.slice(0, 39)), filters), false, 'dataSize');
    const other = data.slice();
    other[11] = 0;
    assert.equal(matchesFilters(account(other), filters), false, 'memcmp');
  });

  test('memcmp at the end of the data, and past it', () => {
    const at = (offset: number, bytes: number[]) => matchesFilters(account(), [{ memcmp: { offset, bytes: Uint8Array.from(bytes) } }]);
    assert.equal(at(38, [38, 39]), true);
    assert.equal(at(39, [39, 40]), false);
    assert.equal(at(40, []), true);
    assert.equal(at(41, []), false);
    assert.equal(matchesFilters(account(), []), true);
  });

  test('at most four filters', () => {
    parse(Array(MAX_FILTERS).fill({ dataSize: 1 }));
    invalidParams(() => parse(Array(MAX_FILTERS + 1).fill({ dataSize: 1 })), 'Too many filters provided; max 4');
  });

  test('malformed filters name what is wrong', () => {
    invalidParams(() => parse({ dataSize: 1 }), 'Invalid params: filters: expected an array of filters, got an object');
    invalidParams(() => parse([5]), 'Invalid params: filters[0]: expected a filter object ({memcmp} or {dataSize}), got number 5');
    invalidParams(() => parse([{ dataSize: 1 }, { size: 1 }]), 'Invalid params: filters[1]: expected a filter object ({memcmp} or {dataSize}), got an object');
    invalidParams(() => parse([{ dataSize: -1 }]), 'Invalid params: filters[0].dataSize: expected a non-negative integer, got number -1');
    invalidParams(() => parse([{ memcmp: { bytes: '1' } }]), 'Invalid params: filters[0].memcmp.offset: expected a non-negative integer, got nothing');
    invalidParams(() => parse([{ memcmp: { offset: 0, bytes: 5 } }]), 'Invalid params: filters[0].memcmp.bytes: expected a string, got number 5');
    invalidParams(() => parse([{ memcmp: { offset: 0, bytes: '0OIl' } }]), 'Invalid params: filters[0].memcmp.bytes: expected base58 data, got string "0OIl"');
    invalidParams(() => parse([{ memcmp: { offset: 0, bytes: '@@', encoding: 'base64' } }]), 'Invalid params: filters[0].memcmp.bytes: expected base64 data, got string "@@"');
    invalidParams(() => parse([{ memcmp: { offset: 0, bytes: 'AAA', encoding: 'base64' } }]), /^Invalid params: filters\[0\].memcmp.bytes: expected base64 data/);
    invalidParams(() => parse([{ memcmp: { offset: 0, bytes: '00', encoding: 'hex' } }]), 'Invalid params: filters[0].memcmp.encoding: expected base58 or base64, got string "hex"');
  });

  test('memcmp data up to 128 bytes, as Agave allows', () => {
    const max = new Uint8Array(128).fill(0xff);
    assert.equal(bs58.encode(max).length, 175);
    assert.deepEqual(parse([{ memcmp: { offset: 0, bytes: bs58.encode(max) } }]), [{ memcmp: { offset: 0, bytes: max } }]);
    assert.deepEqual(parse([{ memcmp: { offset: 0, bytes: Buffer.from(max).toString('base64'), encoding: 'base64' } }]), [{ memcmp: { offset: 0, bytes: max } }]);
    const over = new Uint8Array(129).fill(1);
    invalidParams(() => parse([{ memcmp: { offset: 0, bytes: bs58.encode(over) } }]), /^Invalid params: filters\[0\].memcmp.bytes: data too large/);
    invalidParams(() => parse([{ memcmp: { offset: 0, bytes: '2'.repeat(176) } }]), /^Invalid params: filters\[0\].memcmp.bytes: data too large/);
    invalidParams(() => parse([{ memcmp: { offset: 0, bytes: Buffer.from(over).toString('base64'), encoding: 'base64' } }]), /^Invalid params: filters\[0\].memcmp.bytes: data too large/);
  });
});

// ---- submitted transactions ----

describe('decodeSubmittedTransaction', () => {
  const payer = keypairFromSeed(new Uint8Array(32).fill(5));
  const good = buildTransaction(payer, [transferIx(payer.address, key, 10)], hash32);
  const b58 = (b: Uint8Array) => bs58.encode(b);
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

  test('base58 and base64 both decode to the same transaction', () => {
    assert.equal(decodeSubmittedTransaction(b58(good.wire), 'base58').id, good.id);
    assert.deepEqual(decodeSubmittedTransaction(b64(good.wire), 'base64').wire, good.wire);
  });

  test('a web3.js transaction decodes', () => {
    const w = Web3Keypair.fromSeed(new Uint8Array(32).fill(6));
    const t = new Web3Transaction({ feePayer: w.publicKey, recentBlockhash: hash32 }).add(SystemProgram.transfer({ fromPubkey: w.publicKey, toPubkey: w.publicKey, lamports: 1 }));
    t.sign(w);
    assert.equal(decodeSubmittedTransaction(t.serialize().toString('base64'), 'base64').id, bs58.encode(t.signature!));
  });

  test('encoded text too long', () => {
    invalidParams(() => decodeSubmittedTransaction('1'.repeat(1684), 'base58'), `encoded transaction too large: 1684 bytes (max: encoded/raw 1683/${PACKET_DATA_SIZE})`);
    invalidParams(() => decodeSubmittedTransaction('A'.repeat(1648), 'base64'), `encoded transaction too large: 1648 bytes (max: encoded/raw 1644/${PACKET_DATA_SIZE})`);
  });

  test('not the encoding it claims', () => {
    invalidParams(() => decodeSubmittedTransaction('0OIl', 'base58'), /^invalid base58 encoding/);
    invalidParams(() => decodeSubmittedTransaction(b64(good.wire), 'base58'), /^invalid base58 encoding/);
    invalidParams(() => decodeSubmittedTransaction('@@@@', 'base64'), /^invalid base64 encoding/);
    invalidParams(() => decodeSubmittedTransaction(b64(good.wire).slice(0, -1), 'base64'), /^invalid base64 encoding/);
  });

  test('decoded bytes too large', () => {
    invalidParams(() => decodeSubmittedTransaction(b64(new Uint8Array(PACKET_DATA_SIZE + 1)), 'base64'), `transaction too large: ${PACKET_DATA_SIZE + 1} bytes (max: ${PACKET_DATA_SIZE} bytes)`);
  });

  test('bytes that are not a transaction', () => {
    invalidParams(() => decodeSubmittedTransaction('', 'base58'), /^invalid transaction: unexpected end of data/);
    invalidParams(() => decodeSubmittedTransaction(b58(good.wire.subarray(0, 100)), 'base58'), /^invalid transaction: unexpected end of data/);
    invalidParams(() => decodeSubmittedTransaction(b58(Uint8Array.of(0)), 'base58'), 'invalid transaction: transaction has no signatures');
    const longer = new Uint8Array(good.wire.length + 2);
    longer.set(good.wire);
    invalidParams(() => decodeSubmittedTransaction(b58(longer), 'base58'), 'invalid transaction: trailing bytes after message');
    const v1 = good.wire.slice();
    v1[65] = 0x81;
    invalidParams(() => decodeSubmittedTransaction(b64(v1), 'base64'), 'invalid transaction: unsupported transaction version: 1');
  });

  test('messages that fail sanitizing', () => {
    const m = compileMessage(payer.address, [transferIx(payer.address, key, 10)], hash32);
    m.instructions[0]!.programIdIndex = 0;
    invalidParams(() => decodeSubmittedTransaction(b58(signMessage(m, [payer]).wire), 'base58'), 'invalid transaction: Transaction failed to sanitize accounts offsets correctly');
    const dup = compileMessage(payer.address, [transferIx(payer.address, key, 10)], hash32);
    dup.accountKeys[1] = payer.address;
    invalidParams(() => decodeSubmittedTransaction(b58(signMessage(dup, [payer]).wire), 'base58'), 'invalid transaction: Account loaded twice');
    const sigs = serializeTransaction([good.signatures[0]!, good.signatures[0]!], good.message.bytes);
    invalidParams(() => decodeSubmittedTransaction(b58(sigs), 'base58'), 'invalid transaction: Transaction failed to sanitize accounts offsets correctly');
  });

  test('address table lookups decode (the tables are resolved against a bank later)', () => {
    const m = compileMessage(payer.address, [transferIx(payer.address, key, 10)], hash32);
    const bytes = serializeMessage({ ...m, version: 0, addressTableLookups: [{ accountKey: hash32, writableIndexes: [1], readonlyIndexes: [] }] }, addressToBytes);
    const tx = decodeSubmittedTransaction(b58(serializeTransaction([new Uint8Array(64)], bytes)), 'base58');
    assert.deepEqual(tx.message.addressTableLookups, [{ accountKey: hash32, writableIndexes: [1], readonlyIndexes: [] }]);
  });
});

// ---- the native method table on a real chain ----

describe('native methods: parameter errors', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-rpc-test-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const { config: genesis, keys } = createGenesis({
    ledger: dir,
    mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    slotMs: 400,
    slotsPerEpoch: 432_000,
    devAccountLamports: 10 * LAMPORTS_PER_SOL,
  });
  const hash = genesisHashOf(genesis);
  const accounts = new Map<string, Account>(genesis.accounts.map((a) => [a.address, { lamports: a.lamports, data: new Uint8Array(Buffer.from(a.data, 'base64')), owner: a.owner, executable: a.executable, rentEpoch: 0 }]));
  const chain = new Chain({
    store: new MemoryStore(),
    genesis,
    genesisHash: hash,
    programs: builtinPrograms,
    accounts,
    meta: { slot: 0, blockhash: blockhashOf(hash, 0, []), blockTime: genesis.creationTime, transactionCount: 0, lamportsPerSignature: 5000, totalSupply: 0, burned: 0, extensions: {} },
    recentHeaders: [{ slot: 0, parentSlot: 0, blockhash: blockhashOf(hash, 0, []), previousBlockhash: hash, blockTime: genesis.creationTime, blockHeight: 0, transactionCount: 0, rewards: [] }],
    recentStatuses: [],
    slotMs: 400,
    rootDepth: 2,
  });
  // A loopback gate: chain-control methods check their params like the rest.
  const ctx: RpcContext = { chain, identity: keys.identity.address, faucet: keys.faucet, version: 'test', featureSet: 1, rpcAddress: '', pubsubAddress: '', chainControl: new ChainControlGate('127.0.0.1') };
  const native = new Dispatcher(nativeMethods, ctx);
  const call = async (method: string, params?: unknown) => JSON.parse((await native.handleBody(JSON.stringify(request(method, params, 'id-1'))))!);

  test('a good call', async () => {
    const dev0 = keys.devAccounts[0]!.address;
    const answer = await call('getBalance', [dev0, { commitment: 'processed' }]);
    assert.equal(answer.id, 'id-1');
    assert.equal(answer.result.value, 10 * LAMPORTS_PER_SOL);
  });

  test('bad parameters name the parameter', async () => {
    assert.deepEqual((await call('getBalance', ['nope'])).error, { code: INVALID_PARAMS, message: 'Invalid params: pubkey: expected a base-58 public key (32 bytes), got string "nope"' });
    assert.deepEqual((await call('getBalance', [])).error, { code: INVALID_PARAMS, message: 'Invalid params: missing required parameter `pubkey`' });
    assert.deepEqual((await call('getAccountInfo', [key, { encoding: 'hex' }])).error.message, 'Invalid params: config.encoding: expected one of base58, base64, base64+zstd, jsonParsed, binary, json, got string "hex"');
    assert.deepEqual((await call('getBalance', [key, { commitment: 'fast' }])).error.code, INVALID_PARAMS);
    assert.deepEqual((await call('getMultipleAccounts', [Array(101).fill(key)])).error, { code: INVALID_PARAMS, message: 'Too many inputs provided; max 100' });
    assert.deepEqual((await call('getProgramAccounts', [SYSTEM_PROGRAM_ID, { filters: Array(5).fill({ dataSize: 0 }) }])).error, { code: INVALID_PARAMS, message: 'Too many filters provided; max 4' });
    assert.deepEqual((await call('sendTransaction', ['0OIl'])).error.code, INVALID_PARAMS);
  });

  test('each method enforces the params schema the compiler checks (methods/api.ts): one parameter more is refused', async () => {
    for (const [name, m] of Object.entries(nativeMethods)) {
      const n = m.params.length;
      const answer = await call(name, new Array(n + 1).fill(null));
      assert.deepEqual(answer.error, { code: INVALID_PARAMS, message: `Invalid params: expected at most ${n} parameter${n === 1 ? '' : 's'}, got ${n + 1}` }, name);
    }
  });

  test('simulateTransaction refuses base-58 account data, as Agave does', async () => {
    const payer = keys.devAccounts[0]!;
    const tx = buildTransaction(payer, [transferIx(payer.address, key, LAMPORTS_PER_SOL)], chain.latestBlockhash('finalized').blockhash);
    const encoded = Buffer.from(tx.wire).toString('base64');
    for (const encoding of ['base58', 'binary']) {
      const answer = await call('simulateTransaction', [encoded, { encoding: 'base64', accounts: { addresses: [key], encoding } }]);
      assert.deepEqual(answer.error, { code: INVALID_PARAMS, message: 'base58 encoding not supported' }, encoding);
    }
    const ok = await call('simulateTransaction', [encoded, { encoding: 'base64', accounts: { addresses: [key], encoding: 'base64' } }]);
    assert.equal(ok.result.value.err, null);
    assert.equal(ok.result.value.accounts.length, 1);
  });

  test('getProgramAccounts applies filters', async () => {
    const vote = await call('getProgramAccounts', ['Vote111111111111111111111111111111111111111', { filters: [{ dataSize: 3762 }], encoding: 'base64' }]);
    assert.equal(vote.result.length, 1);
    assert.equal(vote.result[0].pubkey, genesis.voteAccount);
    const none = await call('getProgramAccounts', ['Vote111111111111111111111111111111111111111', { filters: [{ dataSize: 3731 }] }]);
    assert.deepEqual(none.result, []);
  });
});
