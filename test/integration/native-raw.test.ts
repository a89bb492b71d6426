/**
 * The raw JSON-RPC surface over plain fetch: the 1.5-era method names and their shapes, id echoing,
 * batches, every error class with its code and a message that names the bad parameter, preflight and
 * simulation, and the HTTP side (health, CORS, body limit, 404).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';
import { getConfirmedBlocks } from '../../node-core/rpc/methods/blocks.ts';
import type { RpcContext } from '../../node-core/rpc/context.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

let node: TestNode;
let url: string;
let payer: Keypair;
let recipient: Keypair;
/** A rooted transfer from `payer` to `recipient`. */
let rooted: { signature: string; slot: number; wire: Buffer };

// ---- helpers ----

async function post(body: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string; json: Json }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  let json: Json = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, text, json };
}

async function result(method: string, params?: unknown): Promise<Json> {
  const r = await rpc(url, method, params);
  assert.equal(r.error, undefined, `${method} ${JSON.stringify(params)} failed: ${JSON.stringify(r.error)}`);
  return r.result;
}

/** Asserts a JSON-RPC error response with the code and every pattern found in the message. */
function assertError(r: Json, code: number, ...patterns: (string | RegExp)[]): Json {
  assert.equal(r.jsonrpc, '2.0');
  assert.ok(r.error, `expected error ${code}, got ${JSON.stringify(r).slice(0, 300)}`);
  assert.equal(r.result, undefined);
  assert.equal(r.error.code, code, JSON.stringify(r.error));
  assert.equal(typeof r.error.message, 'string');
  for (const p of patterns) {
    if (typeof p === 'string') assert.ok(r.error.message.includes(p), `${JSON.stringify(r.error.message)} lacks ${JSON.stringify(p)}`);
    else assert.match(r.error.message, p);
  }
  return r.error;
}

async function callError(method: string, params: unknown, code: number, ...patterns: (string | RegExp)[]): Promise<Json> {
  return assertError(await rpc(url, method, params), code, ...patterns);
}

async function blockhash(commitment = 'finalized'): Promise<string> {
  return (await result('getLatestBlockhash', [{ commitment }])).value.blockhash;
}

function transfer(from: Keypair, to: PublicKey, lamports: number, recentBlockhash: string): Transaction {
  const tx = new Transaction({ recentBlockhash, feePayer: from.publicKey }).add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports }));
  tx.sign(from);
  return tx;
}

const b64 = (tx: Transaction) => tx.serialize().toString('base64');
const b58 = (tx: Transaction) => bs58.encode(tx.serialize());
const randomHash = () => Keypair.generate().publicKey.toBase58();

/** The wire bytes with one byte of the first signature flipped. */
function badSignature(tx: Transaction): Buffer {
  const wire = Buffer.from(tx.serialize());
  wire[10] = wire[10]! ^ 0xff;
  return wire;
}

async function waitFinalized(signature: string): Promise<{ slot: number }> {
  return waitFor(
    async () => {
      const s = (await result('getSignatureStatuses', [[signature]])).value[0];
      return s && s.confirmationStatus === 'finalized' ? s : null;
    },
    { what: `finalization of ${signature}` },
  );
}

async function slotAdvancedBy(n: number): Promise<void> {
  const start = await result('getSlot', [{ commitment: 'processed' }]);
  await waitFor(async () => (await result('getSlot', [{ commitment: 'processed' }])) >= start + n, { what: `${n} more slots` });
}

function rawHttp(opts: http.RequestOptions, body?: string | Buffer[]): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: '/', ...opts }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (Array.isArray(body)) for (const c of body) req.write(c);
    else if (body !== undefined) req.write(body);
    req.end();
  });
}

before(async () => {
  node = await startTestNode();
  url = node.rpcUrl;
  payer = Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey);
  recipient = Keypair.generate();
  const tx = transfer(payer, recipient.publicKey, 1_000_000, await blockhash());
  const signature = await result('sendTransaction', [b58(tx)]);
  assert.equal(signature, bs58.encode(tx.signature!));
  const { slot } = await waitFinalized(signature);
  rooted = { signature, slot, wire: tx.serialize() };
  // Tests read the slots around it at the default (finalized) commitment.
  await waitFor(async () => (await result('getSlot', [])) >= slot + 2, { what: 'two rooted slots above the transfer' });
});

after(async () => {
  await node?.stop();
});

// ---- 1.5-era names in their 1.5 shapes ----

describe('1.5-era methods', () => {
  test('getConfirmedBlock: 1.5 shape (no blockHeight), json and the bare-string encoding form', async () => {
    const block = await result('getConfirmedBlock', [rooted.slot]);
    assert.deepEqual(Object.keys(block).sort(), ['blockTime', 'blockhash', 'parentSlot', 'previousBlockhash', 'rewards', 'transactions']);
    assert.equal(block.parentSlot, rooted.slot - 1);
    assert.equal(typeof block.blockTime, 'number');
    const parent = await result('getConfirmedBlock', [rooted.slot - 1]);
    assert.equal(block.previousBlockhash, parent.blockhash);
    // The validator's vote on the parent slot comes first, then the transfer.
    assert.equal(block.transactions.length, 2);
    assert.ok(block.transactions[0].transaction.message.accountKeys.includes('Vote111111111111111111111111111111111111111'));
    const { transaction, meta } = block.transactions[1];
    assert.deepEqual(transaction.signatures, [rooted.signature]);
    assert.deepEqual(transaction.message.accountKeys, [payer.publicKey.toBase58(), recipient.publicKey.toBase58(), SystemProgram.programId.toBase58()]);
    assert.deepEqual(transaction.message.header, { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 });
    assert.equal(meta.err, null);
    assert.deepEqual(meta.status, { Ok: null });
    assert.equal(meta.fee, 5000);
    assert.deepEqual(meta.postBalances.slice(1), [1_000_000, 1]);
    assert.equal(meta.preBalances[0] - meta.postBalances[0], 1_000_000 + 5000);
    for (const k of ['innerInstructions', 'logMessages', 'preTokenBalances', 'postTokenBalances']) assert.ok(Array.isArray(meta[k]), k);
    assert.deepEqual(meta.logMessages, ['Program 11111111111111111111111111111111 invoke [1]', 'Program 11111111111111111111111111111111 success']);

    for (const form of ['base64', { encoding: 'base64' }]) {
      const b = await result('getConfirmedBlock', [rooted.slot, form]);
      const [data, enc] = b.transactions[1].transaction;
      assert.equal(enc, 'base64');
      assert.deepEqual(Buffer.from(data, 'base64'), rooted.wire, JSON.stringify(form));
      assert.equal(b.blockHeight, undefined);
    }
    const b58Block = await result('getConfirmedBlock', [rooted.slot, 'base58']);
    assert.deepEqual(Buffer.from(bs58.decode(b58Block.transactions[1].transaction[0])), rooted.wire);
    assert.equal(b58Block.transactions[1].transaction[1], 'base58');
    // The modern name adds blockHeight.
    assert.equal((await result('getBlock', [rooted.slot])).blockHeight, rooted.slot);
  });

  test('getConfirmedBlocks and getConfirmedBlocksWithLimit', async () => {
    const root = await result('getSlot', [{ commitment: 'max' }]);
    const all = await result('getConfirmedBlocks', [0]);
    assert.ok(all.length >= root);
    assert.equal(all[0], 0);
    assert.ok(all.includes(rooted.slot));
    assert.ok(all.every((s: number, i: number) => i === 0 || s === all[i - 1] + 1), 'every slot has a block');
    assert.deepEqual(await result('getConfirmedBlocks', [rooted.slot - 1, rooted.slot + 1]), [rooted.slot - 1, rooted.slot, rooted.slot + 1]);
    assert.deepEqual(await result('getConfirmedBlocks', [5, 4]), []);
    // A far end within the limit is clamped to the root; a range over 500,000 slots is refused even on a young chain (the spec's limit).
    const far = await result('getConfirmedBlocks', [0, 400_000]);
    assert.ok(far.length >= root && far.length < 400_000);
    await callError('getConfirmedBlocks', [0, 600_000], -32602, 'Slot range too large; max 500000');
    assert.deepEqual(await result('getConfirmedBlocksWithLimit', [rooted.slot, 2]), [rooted.slot, rooted.slot + 1]);
    assert.deepEqual(await result('getConfirmedBlocksWithLimit', [rooted.slot, 0]), []);
    await callError('getConfirmedBlocksWithLimit', [0, 500_001], -32602, 'Limit too large; max 500000');
    for (const c of ['processed', 'recent']) {
      await callError('getConfirmedBlocksWithLimit', [0, 5, { commitment: c }], -32602, 'commitment');
    }
    assert.deepEqual(await result('getConfirmedBlocksWithLimit', [rooted.slot, 1, { commitment: 'singleGossip' }]), [rooted.slot]);
  });

  test('getConfirmedBlocks over more than 500,000 slots is refused', async () => {
    // A chain 600,000 slots long is out of reach of a test, so the method runs on a stand-in chain.
    const ctx = {
      chain: { slotAt: () => 700_000, store: { getBlockSlots: async () => [] } },
    } as unknown as RpcContext;
    await assert.rejects(Promise.resolve().then(() => getConfirmedBlocks([0, 600_000], ctx)), (e: Json) => e.code === -32602 && e.message === 'Slot range too large; max 500000');
    assert.deepEqual(await getConfirmedBlocks([100_000, 600_000], ctx), []);
  });

  test('getConfirmedSignaturesForAddress (start/end slots) and the 10,000-slot limit', async () => {
    const addr = recipient.publicKey.toBase58();
    assert.deepEqual(await result('getConfirmedSignaturesForAddress', [addr, rooted.slot, rooted.slot]), [rooted.signature]);
    assert.deepEqual(await result('getConfirmedSignaturesForAddress', [addr, 0, rooted.slot + 10]), [rooted.signature]);
    assert.deepEqual(await result('getConfirmedSignaturesForAddress', [addr, rooted.slot + 1, rooted.slot + 10]), []);
    assert.deepEqual(await result('getConfirmedSignaturesForAddress', [addr, 0, rooted.slot - 1]), []);
    await callError('getConfirmedSignaturesForAddress', [addr, 0, 10_001], -32602, 'Slot range too large; max 10000');
    await callError('getConfirmedSignaturesForAddress', [addr, 0], -32602, 'endSlot');
  });

  test('getConfirmedSignaturesForAddress2 and getConfirmedTransaction', async () => {
    const list = await result('getConfirmedSignaturesForAddress2', [recipient.publicKey.toBase58()]);
    assert.equal(list.length, 1);
    assert.equal(list[0].signature, rooted.signature);
    assert.equal(list[0].slot, rooted.slot);
    assert.equal(list[0].err, null);
    assert.equal(list[0].memo, null);
    assert.deepEqual(await result('getConfirmedSignaturesForAddress2', [recipient.publicKey.toBase58(), { limit: 1, before: rooted.signature }]), []);

    const tx = await result('getConfirmedTransaction', [rooted.signature]);
    assert.equal(tx.slot, rooted.slot);
    assert.equal(tx.meta.err, null);
    assert.deepEqual(tx.transaction.signatures, [rooted.signature]);
    assert.equal(typeof tx.blockTime, 'number');
    assert.equal(tx.version, undefined);
    const enc = await result('getConfirmedTransaction', [rooted.signature, 'base64']);
    assert.deepEqual(Buffer.from(enc.transaction[0], 'base64'), rooted.wire);
    assert.equal(await result('getConfirmedTransaction', [bs58.encode(Buffer.alloc(64, 7))]), null);
  });

  test('getRecentBlockhash, getFees, getFeeCalculatorForBlockhash, getFeeRateGovernor', async () => {
    const recent = await result('getRecentBlockhash', []);
    assert.equal(typeof recent.context.slot, 'number');
    assert.deepEqual(Object.keys(recent.value).sort(), ['blockhash', 'feeCalculator']);
    assert.equal(bs58.decode(recent.value.blockhash).length, 32);
    assert.deepEqual(recent.value.feeCalculator, { lamportsPerSignature: 5000 });

    const fees = await result('getFees', []);
    assert.equal(typeof fees.value.blockhash, 'string');
    assert.deepEqual(fees.value.feeCalculator, { lamportsPerSignature: 5000 });
    assert.ok(Number.isInteger(fees.value.lastValidSlot) && fees.value.lastValidSlot > fees.context.slot);

    const calc = await result('getFeeCalculatorForBlockhash', [recent.value.blockhash]);
    assert.deepEqual(calc.value, { feeCalculator: { lamportsPerSignature: 5000 } });
    assert.equal((await result('getFeeCalculatorForBlockhash', [randomHash()])).value, null);
    await callError('getFeeCalculatorForBlockhash', ['nope'], -32602, 'blockhash');

    const gov = await result('getFeeRateGovernor', []);
    assert.deepEqual(gov.value, {
      feeRateGovernor: { burnPercent: 50, maxLamportsPerSignature: 100000, minLamportsPerSignature: 5000, targetLamportsPerSignature: 10000, targetSignaturesPerSlot: 20000 },
    });
  });

  test('getSnapshotSlot → -32008 "No snapshot"', async () => {
    const e = await callError('getSnapshotSlot', [], -32008);
    assert.equal(e.message, 'No snapshot');
  });

  test('every commitment name, old and new, is accepted and maps to its level', async () => {
    const names = ['max', 'root', 'single', 'singleGossip', 'recent', 'processed', 'confirmed', 'finalized'];
    const addr = payer.publicKey.toBase58();
    for (const commitment of names) {
      assert.equal(typeof (await result('getBalance', [addr, { commitment }])).value, 'number', commitment);
      assert.equal(typeof (await result('getRecentBlockhash', [{ commitment }])).value.blockhash, 'string', commitment);
      assert.equal(typeof (await result('getAccountInfo', [addr, { commitment, encoding: 'base64' }])).value.lamports, 'number', commitment);
    }
    // In one batch the slots are read at one instant.
    const { json } = await post(JSON.stringify(names.map((commitment, id) => ({ jsonrpc: '2.0', id, method: 'getSlot', params: [{ commitment }] }))));
    const slot = Object.fromEntries(json.map((r: Json) => [names[r.id]!, r.result]));
    assert.equal(slot.max, slot.finalized);
    assert.equal(slot.root, slot.finalized);
    assert.equal(slot.single, slot.confirmed);
    assert.equal(slot.singleGossip, slot.confirmed);
    assert.equal(slot.recent, slot.processed);
    assert.ok(slot.processed > slot.confirmed && slot.confirmed > slot.finalized, JSON.stringify(slot));
    // The default is finalized (read in one batch: the same instant).
    const both = (await post(JSON.stringify([{ jsonrpc: '2.0', id: 0, method: 'getSlot', params: [] }, { jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'finalized' }] }]))).json as Json[];
    const byId = Object.fromEntries(both.map((r: Json) => [r.id, r.result]));
    assert.equal(byId[0], byId[1]);
  });
});

// ---- ids and batches ----

describe('JSON-RPC envelope', () => {
  test('ids are echoed exactly: strings stay strings, numbers, null', async () => {
    for (const id of ['1', 'a7a3a5f6-8b4e-4a0e-9d4c-1f2e3d4c5b6a', '', 0, 1, 42, -7, 1.5, 2 ** 40, null]) {
      const r = await rpc(url, 'getSlot', [], id);
      assert.deepEqual(Object.keys(r).sort(), ['id', 'jsonrpc', 'result']);
      assert.equal(r.jsonrpc, '2.0');
      assert.strictEqual(r.id, id, `id ${JSON.stringify(id)}`);
      // Errors echo the id too.
      const e = await rpc(url, 'noSuchMethod', [], id);
      assert.strictEqual(e.id, id);
      assert.equal(e.error.code, -32601);
    }
    // An id that is neither string, number nor null is an invalid request answered with id null.
    const { json } = await post('{"jsonrpc":"2.0","id":{"a":1},"method":"getSlot"}');
    assert.equal(json.error.code, -32600);
    assert.equal(json.id, null);
  });

  test('batches: order kept, good and bad items mixed, notifications left out', async () => {
    const { status, json } = await post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'getSlot' },
        { jsonrpc: '2.0', id: 2, method: 'noSuchMethod' },
        { jsonrpc: '2.0', method: 'getSlot' }, // notification
        { jsonrpc: '2.0', id: 'c', method: 'getBalance', params: ['bad'] },
        5,
        { jsonrpc: '1.0', id: 'd', method: 'getSlot' },
        { jsonrpc: '2.0', id: null, method: 'getGenesisHash' },
      ]),
    );
    assert.equal(status, 200);
    assert.ok(Array.isArray(json));
    assert.equal(json.length, 6);
    assert.deepEqual(
      json.map((r: Json) => r.id),
      ['a', 2, 'c', null, 'd', null],
    );
    assert.equal(typeof json[0].result, 'number');
    assert.equal(json[1].error.code, -32601);
    assert.equal(json[2].error.code, -32602);
    assert.equal(json[3].error.code, -32600);
    assert.equal(json[4].error.code, -32600);
    assert.equal(json[5].result, node.genesisHash);
  });

  test('a batch of notifications only, and a single notification, get no JSON body', async () => {
    const one = await post('{"jsonrpc":"2.0","method":"getSlot"}');
    assert.ok(one.status === 200 || one.status === 204);
    assert.equal(one.text, '');
    const many = await post('[{"jsonrpc":"2.0","method":"getSlot"},{"jsonrpc":"2.0","method":"ping"}]');
    assert.equal(many.text, '');
  });

  test('an empty batch → -32600; an over-long batch → a clear -32600', async () => {
    const empty = await post('[]');
    assert.equal(empty.status, 200);
    assertError(empty.json, -32600);
    assert.equal(empty.json.id, null);

    const item = '{"jsonrpc":"2.0","id":1,"method":"getSlot"}';
    const long = await post(`[${new Array(1001).fill(item).join(',')}]`);
    assertError(long.json, -32600, /batch/i, '1001', /max 1000/);
    const ok = await post(`[${new Array(1000).fill(item).join(',')}]`);
    assert.equal(ok.json.length, 1000);
  });
});

// ---- errors ----

describe('standard errors', () => {
  test('-32700 parse error for bad JSON', async () => {
    for (const body of ['{"jsonrpc":"2.0","id":1,"method":"getSlot"', 'not json', '', '[{]']) {
      const { status, json } = await post(body);
      assert.equal(status, 200);
      const e = assertError(json, -32700);
      assert.equal(e.message, 'Parse error');
      assert.equal(json.id, null);
    }
  });

  test('-32600 invalid request', async () => {
    const cases: Array<[string, string | RegExp]> = [
      ['{"id":1,"method":"getSlot"}', /jsonrpc|version/i],
      ['{"jsonrpc":"1.0","id":1,"method":"getSlot"}', /version/i],
      ['{"jsonrpc":2,"id":1,"method":"getSlot"}', /version/i],
      ['{"jsonrpc":"2.0","id":1,"method":7}', 'method'],
      ['{"jsonrpc":"2.0","id":1}', 'method'],
      ['"getSlot"', 'Invalid request'],
      ['42', 'Invalid request'],
    ];
    for (const [body, p] of cases) {
      const { json } = await post(body);
      assertError(json, -32600, p);
    }
    // The id is kept when it is readable.
    assert.equal((await post('{"jsonrpc":"1.0","id":"x","method":"getSlot"}')).json.id, 'x');
  });

  test('-32601 unknown method', async () => {
    const e = await callError('getEverything', [], -32601);
    assert.equal(e.message, 'Method not found');
    await callError('eth_noSuchThing', [], -32601);
    await callError('__proto__', [], -32601);
    await callError('constructor', [], -32601);
  });

  test('-32602 names the bad parameter', async () => {
    const addr = payer.publicKey.toBase58();
    await callError('getBalance', ['notakey'], -32602, 'pubkey');
    await callError('getBalance', [bs58.encode(Buffer.alloc(31, 1))], -32602, 'pubkey');
    await callError('getBalance', [123], -32602, 'pubkey');
    await callError('getBalance', [], -32602, 'pubkey');
    await callError('getAccountInfo', [addr, { encoding: 'hex' }], -32602, 'encoding');
    await callError('getTransaction', ['abc'], -32602, 'signature');
    await callError('getSignatureStatuses', [[rooted.signature, 'abc']], -32602, 'signatures[1]');
    await callError('getBlock', ['12'], -32602, 'slot');
    await callError('getBlock', [-1], -32602, 'slot');
    await callError('getBlock', [1.5], -32602, 'slot');
    await callError('getConfirmedBlock', [rooted.slot, 'hex'], -32602, 'encoding');
    await callError('getConfirmedTransaction', [rooted.signature, 'hex'], -32602, 'encoding');
    await callError('getSlot', [{}, 5], -32602, 'at most 1');
    await callError('getGenesisHash', [1], -32602, 'at most 0');
    await callError('getBalance', [addr, { commitment: 'bogus' }], -32602, 'commitment');
    await callError('getSlot', [{ commitment: 'Finalized' }], -32602, 'commitment');
    await callError('getBalance', [addr, { minContextSlot: 'x' }], -32602, 'minContextSlot');
    await callError('sendTransaction', [123], -32602, 'transaction');
    await callError('sendTransaction', ['abc', { encoding: 'hex' }], -32602, 'encoding');
    await callError('getMinimumBalanceForRentExemption', ['10'], -32602, 'dataLength');
    await callError('getBalance', { pubkey: addr }, -32602, 'params');
  });

  test('base58 account data over 128 bytes: -32600 from the encoder, with a hint to use base64', async () => {
    const vote = node.genesis.voteAccount; // 3762 bytes of vote state
    for (const cfg of [{ encoding: 'base58' }, {}, { encoding: 'binary' }, { encoding: 'base58', dataSlice: { offset: 0, length: 129 } }]) {
      await callError('getAccountInfo', [vote, cfg], -32600, 'base 58', '128 bytes', 'Base64');
    }
    await callError('getMultipleAccounts', [[vote], { encoding: 'base58' }], -32600, 'base 58');
    // Exactly 128 bytes still encode.
    const ok = await result('getAccountInfo', [vote, { encoding: 'base58', dataSlice: { offset: 0, length: 128 } }]);
    assert.equal(bs58.decode(ok.value.data[0]).length, 128);
    assert.equal(ok.value.data[1], 'base58');
    const full = await result('getAccountInfo', [vote, { encoding: 'base64' }]);
    assert.equal(Buffer.from(full.value.data[0], 'base64').length, 3762);
  });

  test('limits: signatures limit, multiple accounts, performance samples, filters, status batch', async () => {
    const addr = recipient.publicKey.toBase58();
    for (const method of ['getSignaturesForAddress', 'getConfirmedSignaturesForAddress2']) {
      await callError(method, [addr, { limit: 0 }], -32602, 'Invalid limit; max 1000');
      await callError(method, [addr, { limit: 1001 }], -32602, 'Invalid limit; max 1000');
      assert.equal((await result(method, [addr, { limit: 1000 }])).length, 1);
    }
    const keys = Array.from({ length: 101 }, () => randomHash());
    await callError('getMultipleAccounts', [keys], -32602, 'Too many inputs provided; max 100');
    assert.equal((await result('getMultipleAccounts', [keys.slice(0, 100)])).value.length, 100);
    await callError('getRecentPerformanceSamples', [721], -32602, /max 720/);
    assert.ok(Array.isArray(await result('getRecentPerformanceSamples', [720])));
    const filter = { dataSize: 0 };
    await callError('getProgramAccounts', [SystemProgram.programId.toBase58(), { filters: [filter, filter, filter, filter, filter] }], -32602, 'Too many filters provided; max 4');
    assert.ok(Array.isArray(await result('getProgramAccounts', [SystemProgram.programId.toBase58(), { filters: [filter, filter, filter, filter] }])));
    await callError('getSignatureStatuses', [Array.from({ length: 257 }, () => rooted.signature)], -32602, 'Too many inputs provided; max 256');
  });
});

describe('block availability errors', () => {
  test('-32004 for a future slot', async () => {
    const processed = await result('getSlot', [{ commitment: 'processed' }]);
    const slot = processed + 10_000;
    for (const method of ['getBlock', 'getConfirmedBlock']) {
      const e = await callError(method, [slot], -32004);
      assert.equal(e.message, `Block not available for slot ${slot}`);
    }
  });

  test('-32004 for a slot that is only processed (on a node whose slots are stepped by hand)', async () => {
    const still = await startTestNode({ slotMs: 60_000 });
    try {
      for (let i = 0; i < 6; i++) still.chain.sealWorkingBank();
      await still.chain.flushed();
      const processed = still.chain.processedSlot;
      const confirmed = still.chain.confirmedSlot;
      const root = still.chain.rootSlot;
      assert.ok(processed > confirmed && confirmed > root);
      for (const commitment of ['confirmed', 'finalized', undefined]) {
        const r = await rpc(still.rpcUrl, 'getBlock', commitment ? [processed, { commitment }] : [processed]);
        assertError(r, -32004, `Block not available for slot ${processed}`);
      }
      // A confirmed but unrooted slot: available at confirmed, not at finalized.
      assert.equal((await rpc(still.rpcUrl, 'getBlock', [confirmed, { commitment: 'confirmed' }])).result.parentSlot, confirmed - 1);
      assertError(await rpc(still.rpcUrl, 'getBlock', [confirmed]), -32004);
      assert.equal((await rpc(still.rpcUrl, 'getBlock', [root])).result.parentSlot, root - 1);
    } finally {
      await still.stop();
    }
  });
});

// ---- sending and simulating ----

describe('sendTransaction and simulateTransaction', () => {
  test('the golden example: an unknown blockhash fails preflight with -32002 BlockhashNotFound', async () => {
    const tx = transfer(payer, recipient.publicKey, 10, randomHash());
    const r = await rpc(url, 'sendTransaction', [b58(tx)]);
    assert.equal(r.id, 1);
    assert.equal(r.error.code, -32002);
    assert.equal(r.error.message, 'Transaction simulation failed: Blockhash not found');
    assert.equal(r.error.data.err, 'BlockhashNotFound');
    assert.deepEqual(r.error.data.logs, []);
  });

  test('-32002 carries err and the logs of the failed instruction', async () => {
    const poor = Keypair.fromSecretKey(node.keys.devAccounts[1]!.secretKey);
    const tx = transfer(poor, recipient.publicKey, 10 ** 15, await blockhash());
    const e = (await rpc(url, 'sendTransaction', [b64(tx), { encoding: 'base64' }])).error;
    assert.equal(e.code, -32002);
    assert.equal(e.message, 'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1');
    assert.deepEqual(e.data.err, { InstructionError: [0, { Custom: 1 }] });
    assert.ok(e.data.logs.includes('Program 11111111111111111111111111111111 invoke [1]'), JSON.stringify(e.data.logs));
    assert.ok(e.data.logs.includes('Program 11111111111111111111111111111111 failed: custom program error: 0x1'), JSON.stringify(e.data.logs));

    // A fee payer that does not exist.
    const nobody = Keypair.generate();
    const e2 = (await rpc(url, 'sendTransaction', [b58(transfer(nobody, recipient.publicKey, 1, await blockhash()))])).error;
    assert.equal(e2.code, -32002);
    assert.equal(e2.data.err, 'AccountNotFound');
    assert.equal(e2.message, 'Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.');
  });

  test('-32003 for a bad signature, before preflight', async () => {
    const tx = transfer(payer, recipient.publicKey, 10, randomHash());
    const wire = badSignature(tx);
    for (const [data, encoding] of [[bs58.encode(wire), 'base58'], [wire.toString('base64'), 'base64']] as const) {
      const e = await callError('sendTransaction', [data, { encoding }], -32003);
      assert.equal(e.message, 'Transaction signature verification failure');
    }
    // skipPreflight does not skip the signature check.
    await callError('sendTransaction', [wire.toString('base64'), { encoding: 'base64', skipPreflight: true }], -32003);
  });

  test('sendTransaction with base64 encoding lands, and sending it again is refused', async () => {
    const to = Keypair.generate();
    const tx = transfer(payer, to.publicKey, 2_000_000, await blockhash());
    const sig = await result('sendTransaction', [b64(tx), { encoding: 'base64', preflightCommitment: 'processed' }]);
    assert.equal(sig, bs58.encode(tx.signature!));
    await waitFor(async () => (await result('getBalance', [to.publicKey.toBase58(), { commitment: 'processed' }])).value === 2_000_000, { what: 'the transfer' });
    const again = await callError('sendTransaction', [b64(tx), { encoding: 'base64', preflightCommitment: 'processed' }], -32002);
    assert.equal(again.data.err, 'AlreadyProcessed');
  });

  test('oversized and garbage transactions are refused with a clear -32602', async () => {
    await callError('sendTransaction', [Buffer.alloc(1233, 1).toString('base64'), { encoding: 'base64' }], -32602, 'transaction too large: 1233 bytes (max: 1232 bytes)');
    await callError('sendTransaction', [Buffer.alloc(2000, 1).toString('base64'), { encoding: 'base64' }], -32602, 'encoded transaction too large', '1644');
    await callError('sendTransaction', [bs58.encode(Buffer.alloc(1300, 1))], -32602, 'encoded transaction too large', '1683');
    await callError('sendTransaction', ['0OIl+/'], -32602, 'base58');
    await callError('sendTransaction', ['!!!not base64!!!', { encoding: 'base64' }], -32602, 'base64');
    await callError('sendTransaction', [bs58.encode(Buffer.from([1, 2, 3]))], -32602, 'invalid transaction');
    await callError('sendTransaction', [''], -32602);
    // A valid transaction with junk appended.
    const tx = transfer(payer, recipient.publicKey, 10, await blockhash());
    await callError('sendTransaction', [Buffer.concat([tx.serialize(), Buffer.from([9, 9, 9])]).toString('base64'), { encoding: 'base64' }], -32602, 'invalid transaction');
    await callError('simulateTransaction', ['0OIl'], -32602, 'base58');
  });

  test('simulateTransaction: err and logs in value', async () => {
    const ok = await result('simulateTransaction', [b58(transfer(payer, recipient.publicKey, 10, await blockhash()))]);
    assert.equal(typeof ok.context.slot, 'number');
    assert.equal(ok.value.err, null);
    assert.deepEqual(ok.value.logs, ['Program 11111111111111111111111111111111 invoke [1]', 'Program 11111111111111111111111111111111 success']);

    const poor = Keypair.fromSecretKey(node.keys.devAccounts[1]!.secretKey);
    const failed = await result('simulateTransaction', [b64(transfer(poor, recipient.publicKey, 10 ** 15, await blockhash())), { encoding: 'base64' }]);
    assert.deepEqual(failed.value.err, { InstructionError: [0, { Custom: 1 }] });
    assert.ok(failed.value.logs.some((l: string) => l.includes('failed: custom program error: 0x1')));

    // Failing before execution: logs are null.
    const stale = await result('simulateTransaction', [b58(transfer(payer, recipient.publicKey, 10, randomHash()))]);
    assert.equal(stale.value.err, 'BlockhashNotFound');
    assert.equal(stale.value.logs, null);
    // Every field is there, as Agave answers it: null when there is nothing for it.
    for (const answer of [ok, failed, stale]) {
      assert.deepEqual(Object.keys(answer.value).sort(), ['accounts', 'err', 'innerInstructions', 'logs', 'replacementBlockhash', 'returnData', 'unitsConsumed']);
      assert.equal(answer.value.replacementBlockhash, null);
    }
  });

  test('simulateTransaction: sigVerify, replaceRecentBlockhash, minContextSlot', async () => {
    const tx = transfer(payer, recipient.publicKey, 10, await blockhash());
    const wire = badSignature(tx);
    // Signatures are not checked by default.
    assert.equal((await result('simulateTransaction', [bs58.encode(wire)])).value.err, null);
    await callError('simulateTransaction', [bs58.encode(wire), { sigVerify: true }], -32003, 'Transaction signature verification failure');
    assert.equal((await result('simulateTransaction', [b58(tx), { sigVerify: true }])).value.err, null);

    const stale = transfer(payer, recipient.publicKey, 10, randomHash());
    const replaced = await result('simulateTransaction', [b64(stale), { encoding: 'base64', replaceRecentBlockhash: true }]);
    assert.equal(replaced.value.err, null);
    assert.equal(replaced.value.logs.length, 2);
    assert.notEqual(replaced.value.replacementBlockhash.blockhash, stale.recentBlockhash);
    assert.equal((await result('isBlockhashValid', [replaced.value.replacementBlockhash.blockhash, { commitment: 'processed' }])).value, true);
    await callError('simulateTransaction', [b64(stale), { encoding: 'base64', replaceRecentBlockhash: true, sigVerify: true }], -32602);

    const far = 10 ** 9;
    const e = await callError('simulateTransaction', [b58(tx), { minContextSlot: far }], -32016, 'Minimum context slot has not been reached');
    assert.equal(typeof e.data.contextSlot, 'number');
    await callError('sendTransaction', [b58(tx), { minContextSlot: far }], -32016);
    await callError('getBalance', [payer.publicKey.toBase58(), { minContextSlot: far }], -32016);
    await callError('getLatestBlockhash', [{ minContextSlot: far, commitment: 'processed' }], -32016);
  });

  test('bad input changes nothing', async () => {
    const watched = [payer, recipient, Keypair.fromSecretKey(node.keys.devAccounts[1]!.secretKey)].map((k) => k.publicKey.toBase58());
    const snapshot = async () => {
      const { json } = await post(
        JSON.stringify([
          { jsonrpc: '2.0', id: 0, method: 'getTransactionCount', params: [{ commitment: 'processed' }] },
          { jsonrpc: '2.0', id: 1, method: 'getMultipleAccounts', params: [watched, { commitment: 'processed', encoding: 'base64' }] },
          { jsonrpc: '2.0', id: 2, method: 'getGenesisHash' },
          { jsonrpc: '2.0', id: 3, method: 'getSlot', params: [{ commitment: 'processed' }] },
        ]),
      );
      // The count includes the validator's votes, one in each bank after genesis (a batch is answered in one tick).
      return { count: json[0].result - json[3].result, accounts: json[1].result.value, genesis: json[2].result };
    };
    const beforeState = await snapshot();
    const poor = Keypair.fromSecretKey(node.keys.devAccounts[1]!.secretKey);
    const bh = await blockhash();
    const badSig = badSignature(transfer(payer, recipient.publicKey, 77, bh));
    const stale = transfer(payer, recipient.publicKey, 78, randomHash());
    const tooMuch = transfer(poor, recipient.publicKey, 10 ** 15, bh);
    const simulated = transfer(payer, recipient.publicKey, 79, bh);
    const bad = [
      { method: 'sendTransaction', params: [bs58.encode(badSig)] },
      { method: 'sendTransaction', params: [badSig.toString('base64'), { encoding: 'base64', skipPreflight: true }] },
      { method: 'sendTransaction', params: [b58(stale)] },
      // Skipping preflight lets it through to the bank, which drops it: its blockhash is unknown.
      { method: 'sendTransaction', params: [b58(stale), { skipPreflight: true }] },
      { method: 'sendTransaction', params: [b58(tooMuch)] },
      { method: 'sendTransaction', params: ['garbage'] },
      { method: 'simulateTransaction', params: [b58(simulated)] },
      { method: 'simulateTransaction', params: [b58(simulated), { replaceRecentBlockhash: true }] },
      { method: 'requestAirdrop', params: ['notakey', 5] },
      { method: 'requestAirdrop', params: [recipient.publicKey.toBase58(), 0] },
      { method: 'getBalance', params: ['x'] },
      { method: 'noSuchMethod', params: [] },
    ].map((r, id) => ({ jsonrpc: '2.0', id, ...r }));
    const { json } = await post(JSON.stringify(bad));
    assert.equal(json.length, bad.length);
    const okIds = json.filter((r: Json) => r.error === undefined).map((r: Json) => r.id);
    // Only the skipPreflight send of the stale transaction (accepted, then dropped) and the simulations answer without error.
    assert.deepEqual(okIds, [3, 6, 7]);
    await post('{not json');
    await post('{"jsonrpc":"2.0","id":1}');
    await slotAdvancedBy(3);
    const afterState = await snapshot();
    assert.deepEqual(afterState, beforeState);
    const statuses = await result('getSignatureStatuses', [[bs58.encode(stale.signature!), bs58.encode(simulated.signature!), bs58.encode(tooMuch.signature!)], { searchTransactionHistory: true }]);
    assert.deepEqual(statuses.value, [null, null, null]);
  });
});

// ---- HTTP ----

describe('HTTP surface', () => {
  test('GET /health and GET /heath answer 200 "ok"', async () => {
    for (const path of ['/health', '/heath', '/health?x=1']) {
      const res = await fetch(new URL(path, url));
      assert.equal(res.status, 200, path);
      assert.equal(await res.text(), 'ok');
    }
  });

  test('GET on an unknown path → 404', async () => {
    for (const path of ['/nope', '/health/extra', '/v1/getSlot']) {
      const res = await fetch(new URL(path, url));
      assert.equal(res.status, 404, path);
      await res.arrayBuffer();
    }
  });

  test('CORS on POST and on the preflight web3.js triggers (solana-client header)', async () => {
    const r = await post('{"jsonrpc":"2.0","id":1,"method":"getSlot"}', { origin: 'http://localhost:5173', 'solana-client': 'js/1.98.0' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.match(r.headers.get('content-type') ?? '', /application\/json/);

    const pre = await rawHttp({
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,solana-client',
      },
    });
    assert.ok(pre.status === 200 || pre.status === 204, String(pre.status));
    assert.equal(pre.headers['access-control-allow-origin'], '*');
    assert.match(String(pre.headers['access-control-allow-methods']), /POST/);
    const allowed = String(pre.headers['access-control-allow-headers']).toLowerCase().split(/\s*,\s*/);
    assert.ok(allowed.includes('solana-client') && allowed.includes('content-type'), String(pre.headers['access-control-allow-headers']));
  });

  test('a body over 50 KiB → 413 with a JSON-RPC error (declared length and chunked)', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: ['x'.repeat(51_200)] });
    const r = await post(big);
    assert.equal(r.status, 413);
    assertError(r.json, -32600, /too large/);
    assert.equal(r.json.id, null);

    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const chunked = await rawHttp({ method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, [chunk, chunk, chunk, chunk]);
    assert.equal(chunked.status, 413);
    assert.equal(JSON.parse(chunked.text).error.code, -32600);

    // Just under the limit is served.
    const fits = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: [] }).padEnd(51_200, ' ');
    assert.equal(Buffer.byteLength(fits), 51_200);
    assert.equal(typeof (await post(fits)).json.result, 'number');
    // The node still serves after refusing.
    assert.equal(typeof (await result('getSlot', [])), 'number');
  });

  test('other HTTP methods are refused without a crash', async () => {
    const res = await fetch(url, { method: 'PUT', body: '{}' });
    assert.ok(res.status >= 400 && res.status < 500);
    await res.arrayBuffer();
  });
});
