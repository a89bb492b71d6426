import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AddressLookupTableAccount,
  Connection,
  Keypair,
  MessageV0,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  VersionedTransaction,
} from '@solana/web3.js';
import { decompress } from 'fzstd';
import bs58 from 'bs58';
import { MEMO_PROGRAM_ID, SYSTEM_PROGRAM_ID, SYSVAR_OWNER_ID } from '../../node-core/common/pubkey.ts';
import { encodeAccount, initEncodings, MAX_BASE58_BYTES } from '../../node-core/rpc/encoding/account.ts';
import { INVALID_REQUEST, RpcError, UNSUPPORTED_TRANSACTION_VERSION, isRpcError, refusedTransactionVersion } from '../../node-core/rpc/errors.ts';
import { encodeBlock, encodeConfirmedTransaction, encodeTransactionWithMeta } from '../../node-core/rpc/encoding/transaction.ts';
import type { Account } from '../../node-core/runtime/account.ts';
import * as sysvars from '../../node-core/runtime/sysvars.ts';
import { parseTransaction } from '../../node-core/runtime/wire.ts';
import type { StoredBlock, StoredTransaction, TransactionStatusMeta } from '../../node-core/store/store.ts';

/** A web3.js Connection whose every request gets `result`: its own response schemas then judge our shapes. */
function connectionAnswering(result: unknown): Connection {
  const fetch = async (_url: unknown, init: { body: string }) => {
    const req = JSON.parse(init.body) as { id: string };
    return new Response(JSON.stringify({ jsonrpc: '2.0', id: req.id, result }), { headers: { 'content-type': 'application/json' } });
  };
  return new Connection('http://127.0.0.1:1', { fetch: fetch as never, httpAgent: false, disableRetryOnRateLimit: true });
}
/** Our output after a JSON round trip, as a client receives it. */
const wireJson = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const payer = Keypair.generate();
const recipient = Keypair.generate().publicKey;
const tableRecipient = Keypair.generate().publicKey;
const blockhash = bs58.encode(new Uint8Array(32).fill(7));
const memoIx = new TransactionInstruction({
  programId: new PublicKey(MEMO_PROGRAM_ID),
  keys: [{ pubkey: payer.publicKey, isSigner: true, isWritable: false }],
  data: Buffer.from('hello isthmus'),
});

const legacyTx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash })
  .add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 1234 }))
  .add(memoIx);
legacyTx.sign(payer);
const legacyWire = new Uint8Array(legacyTx.serialize());

const lookupTable = new AddressLookupTableAccount({
  key: Keypair.generate().publicKey,
  state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, authority: undefined, addresses: [tableRecipient] },
});
const v0Message = MessageV0.compile({
  payerKey: payer.publicKey,
  recentBlockhash: blockhash,
  instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: tableRecipient, lamports: 99 }), memoIx],
  addressLookupTableAccounts: [lookupTable],
});
const v0Tx = new VersionedTransaction(v0Message);
v0Tx.sign([payer]);
const v0Wire = v0Tx.serialize();

function stored(wire: Uint8Array, loaded: TransactionStatusMeta['loadedAddresses'] = { writable: [], readonly: [] }): StoredTransaction {
  const tx = parseTransaction(wire);
  const n = tx.message.accountKeys.length + loaded.writable.length + loaded.readonly.length;
  return {
    signature: tx.id,
    wire,
    meta: {
      err: null,
      fee: 5000,
      preBalances: new Array(n).fill(1_000_000),
      postBalances: new Array(n).fill(990_000),
      logMessages: ['Program 11111111111111111111111111111111 invoke [1]', 'Program 11111111111111111111111111111111 success'],
      computeUnitsConsumed: 150,
      preTokenBalances: [],
      postTokenBalances: [],
      innerInstructions: [],
      loadedAddresses: loaded,
    },
    accountKeys: [...tx.message.accountKeys, ...loaded.writable, ...loaded.readonly],
    memo: '[13] hello isthmus',
  };
}
const legacyStored = stored(legacyWire);
const v0Stored = stored(v0Wire, { writable: [tableRecipient.toBase58()], readonly: [] });
const failedStored: StoredTransaction = {
  ...stored(legacyWire),
  meta: { ...stored(legacyWire).meta, err: { InstructionError: [0, { Custom: 1 }] } },
};

const block: StoredBlock = {
  slot: 42,
  parentSlot: 41,
  blockhash: bs58.encode(new Uint8Array(32).fill(9)),
  previousBlockhash: blockhash,
  blockTime: 1_700_000_000,
  blockHeight: 40,
  transactionCount: 2,
  rewards: [{ pubkey: payer.publicKey.toBase58(), lamports: 2500, postBalance: 10_002_500, rewardType: 'Fee', commission: null }],
  transactions: [legacyStored, v0Stored],
};

const account = (data: Uint8Array, owner = SYSTEM_PROGRAM_ID): Account => ({ lamports: 42, data, owner, executable: false, rentEpoch: 0 });
const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i & 0xff);

test('base64+zstd falls back to base64 before initEncodings, compresses after', async () => {
  const a = account(bytes(300));
  assert.deepEqual(encodeAccount('x', a, { encoding: 'base64+zstd' }).data, [Buffer.from(a.data).toString('base64'), 'base64']);
  await initEncodings();
  await initEncodings();
  const [text, enc] = encodeAccount('x', a, { encoding: 'base64+zstd' }).data as [string, string];
  assert.equal(enc, 'base64+zstd');
  assert.deepEqual(decompress(Buffer.from(text, 'base64')), a.data);
  const [sliced] = encodeAccount('x', a, { encoding: 'base64+zstd', dataSlice: { offset: 10, length: 5 } }).data as [string, string];
  assert.deepEqual(decompress(Buffer.from(sliced, 'base64')), a.data.subarray(10, 15));
  const [empty] = encodeAccount('x', account(new Uint8Array(0)), { encoding: 'base64+zstd' }).data as [string, string];
  assert.equal(decompress(Buffer.from(empty, 'base64')).length, 0);
});

test('account binary encodings, dataSlice and the base-58 limit', async () => {
  const a = account(bytes(200));
  const ui = encodeAccount('x', a, { encoding: 'base64' });
  assert.deepEqual(Object.keys(ui), ['lamports', 'data', 'owner', 'executable', 'rentEpoch', 'space']);
  assert.equal(ui.space, 200);
  assert.deepEqual(Buffer.from((ui.data as [string, string])[0], 'base64'), Buffer.from(a.data));

  // web3.js decodes the base64 form into the same bytes.
  const info = await connectionAnswering({ context: { slot: 1 }, value: wireJson(ui) }).getAccountInfo(PublicKey.default);
  assert.deepEqual(new Uint8Array(info!.data), a.data);

  const slice = (offset: number, length: number) =>
    Buffer.from((encodeAccount('x', a, { encoding: 'base64', dataSlice: { offset, length } }).data as [string, string])[0], 'base64');
  assert.deepEqual(slice(5, 3), Buffer.from([5, 6, 7]));
  assert.deepEqual(slice(190, 50), Buffer.from(a.data.subarray(190)));
  assert.equal(slice(500, 5).length, 0);

  const tooBig = (e: unknown) =>
    isRpcError(e, INVALID_REQUEST) &&
    e.message === 'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.';
  assert.throws(() => encodeAccount('x', a, { encoding: 'base58' }), tooBig);
  assert.throws(() => encodeAccount('x', a), tooBig); // default: legacy binary
  assert.throws(() => encodeAccount('x', account(bytes(MAX_BASE58_BYTES + 1)), { encoding: 'base58' }), tooBig);
  const exact = encodeAccount('x', account(bytes(MAX_BASE58_BYTES)), { encoding: 'base58' }).data as [string, string];
  assert.equal(exact[1], 'base58');
  assert.deepEqual(bs58.decode(exact[0]), bytes(MAX_BASE58_BYTES));
  // The limit applies to what is encoded, after the slice.
  const sliced = encodeAccount('x', a, { encoding: 'base58', dataSlice: { offset: 100, length: 28 } }).data as [string, string];
  assert.deepEqual(bs58.decode(sliced[0]), a.data.subarray(100, 128));
  assert.equal(encodeAccount('x', account(bytes(10))).data, bs58.encode(bytes(10)));
  assert.equal(encodeAccount('x', account(new Uint8Array(0)), { encoding: 'base58' }).space, 0);
});

test('jsonParsed falls back to base64 (sliced) when no parser applies', () => {
  const other = account(bytes(20), Keypair.generate().publicKey.toBase58());
  assert.deepEqual(encodeAccount('x', other, { encoding: 'jsonParsed' }).data, [Buffer.from(other.data).toString('base64'), 'base64']);
  assert.deepEqual(encodeAccount('x', other, { encoding: 'jsonParsed', dataSlice: { offset: 0, length: 2 } }).data, ['AAE=', 'base64']);
  assert.deepEqual(encodeAccount('x', account(new Uint8Array(0)), { encoding: 'jsonParsed' }).data, ['', 'base64']);
  // A sysvar id that is not a sysvar this node parses.
  assert.deepEqual(encodeAccount(sysvars.SYSVAR_INSTRUCTIONS_ID, account(bytes(4), SYSVAR_OWNER_ID), { encoding: 'jsonParsed' }).data, [
    'AAECAw==',
    'base64',
  ]);
});

test('jsonParsed sysvars in parse_sysvar shapes', async () => {
  const s = {
    clock: { slot: 1000, epochStartTimestamp: 1_699_999_000, epoch: 2, leaderScheduleEpoch: 3, unixTimestamp: 1_700_000_000 },
    rent: { lamportsPerByteYear: 3480, exemptionThreshold: 2, burnPercent: 50 },
    epochSchedule: { slotsPerEpoch: 432000, leaderScheduleSlotOffset: 432000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
    recentBlockhashes: [
      { blockhash: blockhash, lamportsPerSignature: 5000 },
      { blockhash: block.blockhash, lamportsPerSignature: 10000 },
    ],
    slotHashes: [[1000, blockhash] as [number, string], [999, block.blockhash] as [number, string]],
    lamportsPerSignature: 5000,
  };
  const parsed = (id: string) => {
    const acc = sysvars.renderSysvar(id, s)!;
    const ui = encodeAccount(id, acc, { encoding: 'jsonParsed', dataSlice: { offset: 0, length: 1 } });
    const data = ui.data as { program: string; parsed: { type: string; info: unknown }; space: number };
    assert.equal(data.program, 'sysvar');
    assert.equal(data.space, acc.data.length);
    return data.parsed;
  };
  assert.deepEqual(parsed(sysvars.SYSVAR_CLOCK_ID), {
    type: 'clock',
    info: { slot: 1000, epoch: 2, epochStartTimestamp: 1_699_999_000, leaderScheduleEpoch: 3, unixTimestamp: 1_700_000_000 },
  });
  assert.deepEqual(parsed(sysvars.SYSVAR_RENT_ID), { type: 'rent', info: { lamportsPerByteYear: '3480', exemptionThreshold: 2, burnPercent: 50 } });
  assert.deepEqual(parsed(sysvars.SYSVAR_EPOCH_SCHEDULE_ID), { type: 'epochSchedule', info: s.epochSchedule });
  assert.deepEqual(parsed(sysvars.SYSVAR_FEES_ID), { type: 'fees', info: { feeCalculator: { lamportsPerSignature: '5000' } } });
  assert.deepEqual(parsed(sysvars.SYSVAR_RECENT_BLOCKHASHES_ID), {
    type: 'recentBlockhashes',
    info: [
      { blockhash, feeCalculator: { lamportsPerSignature: '5000' } },
      { blockhash: block.blockhash, feeCalculator: { lamportsPerSignature: '10000' } },
    ],
  });
  assert.deepEqual(parsed(sysvars.SYSVAR_SLOT_HASHES_ID), {
    type: 'slotHashes',
    info: [
      { slot: 1000, hash: blockhash },
      { slot: 999, hash: block.blockhash },
    ],
  });
  const stakeHistory = new Uint8Array(8 + 32);
  const dv = new DataView(stakeHistory.buffer);
  dv.setBigUint64(0, 1n, true);
  [4n, 100n, 5n, 6n].forEach((v, i) => dv.setBigUint64(8 + 8 * i, v, true));
  assert.deepEqual(encodeAccount(sysvars.SYSVAR_STAKE_HISTORY_ID, account(stakeHistory, SYSVAR_OWNER_ID), { encoding: 'jsonParsed' }).data, {
    program: 'sysvar',
    parsed: { type: 'stakeHistory', info: [{ epoch: 4, stakeHistory: { effective: 100, activating: 5, deactivating: 6 } }] },
    space: 40,
  });
  // Truncated data is not parsable: base64 instead.
  const truncated = encodeAccount(sysvars.SYSVAR_CLOCK_ID, account(bytes(10), SYSVAR_OWNER_ID), { encoding: 'jsonParsed' });
  assert.equal((truncated.data as string[])[1], 'base64');

  // web3.js accepts the parsed form.
  const clock = sysvars.renderSysvar(sysvars.SYSVAR_CLOCK_ID, s)!;
  const res = await connectionAnswering({
    context: { slot: 1 },
    value: wireJson(encodeAccount(sysvars.SYSVAR_CLOCK_ID, clock, { encoding: 'jsonParsed' })),
  }).getParsedAccountInfo(new PublicKey(sysvars.SYSVAR_CLOCK_ID));
  assert.equal((res.value!.data as { program: string }).program, 'sysvar');
});

test('jsonParsed nonce account', () => {
  const authority = Keypair.generate().publicKey;
  const data = new Uint8Array(80);
  const dv = new DataView(data.buffer);
  dv.setUint32(0, 1, true); // Versions::Current
  dv.setUint32(4, 1, true); // State::Initialized
  data.set(authority.toBytes(), 8);
  data.set(bs58.decode(blockhash), 40);
  dv.setBigUint64(72, 5000n, true);
  const ui = encodeAccount('x', account(data), { encoding: 'jsonParsed' });
  assert.deepEqual(ui.data, {
    program: 'nonce',
    parsed: { type: 'initialized', info: { authority: authority.toBase58(), blockhash, feeCalculator: { lamportsPerSignature: '5000' } } },
    space: 80,
  });
});

test('json transaction: raw message and meta that web3.js accepts', async () => {
  const enc = encodeTransactionWithMeta(legacyStored, 'json');
  assert.equal(enc.version, undefined);
  assert.ok(!('version' in enc));
  const tx = enc.transaction as unknown as { signatures: string[]; message: Record<string, unknown> };
  assert.deepEqual(tx.signatures, [bs58.encode(legacyTx.signature!)]);
  assert.deepEqual(Object.keys(tx.message), ['header', 'accountKeys', 'recentBlockhash', 'instructions']);
  assert.deepEqual(tx.message.header, { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 2 });
  const compiled = legacyTx.compileMessage();
  assert.deepEqual(tx.message.accountKeys, compiled.accountKeys.map((k) => k.toBase58()));
  assert.deepEqual(
    tx.message.instructions,
    compiled.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: ix.data, stackHeight: null })),
  );
  assert.deepEqual(enc.meta, {
    err: null,
    status: { Ok: null },
    fee: 5000,
    preBalances: legacyStored.meta.preBalances,
    postBalances: legacyStored.meta.postBalances,
    innerInstructions: [],
    logMessages: legacyStored.meta.logMessages,
    preTokenBalances: [],
    postTokenBalances: [],
    rewards: [],
    loadedAddresses: { writable: [], readonly: [] },
    computeUnitsConsumed: 150,
  });

  const conn = connectionAnswering(wireJson(encodeConfirmedTransaction({ slot: 42, blockTime: 7, transaction: legacyStored }, 'json')));
  const res = await conn.getTransaction(legacyStored.signature);
  assert.equal(res!.slot, 42);
  assert.equal(res!.blockTime, 7);
  assert.equal(res!.meta!.fee, 5000);
  assert.equal(res!.transaction.message.recentBlockhash, blockhash);
  assert.deepEqual(Buffer.from(res!.transaction.message.serialize()), Buffer.from(parseTransaction(legacyWire).message.bytes));
  const confirmed = await conn.getConfirmedTransaction(legacyStored.signature);
  assert.equal(confirmed!.slot, 42);

  const failed = encodeTransactionWithMeta(failedStored, 'json').meta;
  assert.deepEqual(failed.err, { InstructionError: [0, { Custom: 1 }] });
  assert.deepEqual(failed.status, { Err: { InstructionError: [0, { Custom: 1 }] } });
  assert.equal(encodeTransactionWithMeta(legacyStored, 'json', { showRewards: false }).meta.rewards, null);
});

test('v0 transactions need maxSupportedTransactionVersion', async () => {
  const refused = (e: unknown) =>
    isRpcError(e, UNSUPPORTED_TRANSACTION_VERSION) &&
    e.data === undefined &&
    refusedTransactionVersion(e) === 0 &&
    e.message ===
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0';
  for (const encoding of ['json', 'jsonParsed', 'base64', 'base58'] as const) {
    assert.throws(() => encodeTransactionWithMeta(v0Stored, encoding), refused);
  }
  assert.throws(() => encodeBlock(block), refused);
  assert.throws(() => encodeBlock(block, { transactionDetails: 'accounts' }), refused);
  assert.doesNotThrow(() => encodeBlock(block, { transactionDetails: 'signatures' }));
  assert.doesNotThrow(() => encodeBlock(block, { transactionDetails: 'none' }));

  assert.equal(encodeTransactionWithMeta(legacyStored, 'json', { maxSupportedTransactionVersion: 0 }).version, 'legacy');
  const enc = encodeTransactionWithMeta(v0Stored, 'json', { maxSupportedTransactionVersion: 0 });
  assert.equal(enc.version, 0);
  const msg = (enc.transaction as unknown as { message: Record<string, unknown> }).message;
  assert.deepEqual(msg.addressTableLookups, [{ accountKey: lookupTable.key.toBase58(), writableIndexes: [0], readonlyIndexes: [] }]);
  assert.deepEqual(enc.meta.loadedAddresses, { writable: [tableRecipient.toBase58()], readonly: [] });

  const conn = connectionAnswering(wireJson(encodeConfirmedTransaction({ slot: 5, blockTime: null, transaction: v0Stored }, 'json', { maxSupportedTransactionVersion: 0 })));
  const res = await conn.getTransaction(v0Stored.signature, { maxSupportedTransactionVersion: 0 });
  assert.equal(res!.version, 0);
  assert.deepEqual(Buffer.from(res!.transaction.message.serialize()), Buffer.from(v0Message.serialize()));
  assert.deepEqual(
    res!.meta!.loadedAddresses!.writable.map((k) => k.toBase58()),
    [tableRecipient.toBase58()],
  );
});

test('jsonParsed transaction: annotated keys and parsed instructions', async () => {
  const enc = encodeTransactionWithMeta(v0Stored, 'jsonParsed', { maxSupportedTransactionVersion: 0 });
  const tx = enc.transaction as { message: { accountKeys: unknown[]; instructions: Array<Record<string, unknown>> } };
  const staticKeys = v0Message.staticAccountKeys.map((k) => k.toBase58());
  assert.deepEqual(tx.message.accountKeys, [
    ...staticKeys.map((pubkey, i) => ({
      pubkey,
      writable: v0Message.isAccountWritable(i) && pubkey !== SYSTEM_PROGRAM_ID && pubkey !== MEMO_PROGRAM_ID,
      signer: i === 0,
      source: 'transaction',
    })),
    { pubkey: tableRecipient.toBase58(), writable: true, signer: false, source: 'lookupTable' },
  ]);
  const memo = tx.message.instructions[1]!;
  assert.deepEqual(memo, { program: 'spl-memo', programId: MEMO_PROGRAM_ID, parsed: 'hello isthmus', stackHeight: null });
  const transfer = tx.message.instructions[0]!;
  assert.deepEqual(transfer, {
    program: 'system',
    programId: SYSTEM_PROGRAM_ID,
    parsed: { type: 'transfer', info: { source: payer.publicKey.toBase58(), destination: tableRecipient.toBase58(), lamports: 99 } },
    stackHeight: null,
  });
  assert.ok(!('loadedAddresses' in enc.meta));
  assert.equal(enc.meta.computeUnitsConsumed, 150);

  const res = await connectionAnswering(
    wireJson(encodeConfirmedTransaction({ slot: 9, blockTime: 1, transaction: v0Stored }, 'jsonParsed', { maxSupportedTransactionVersion: 0 })),
  ).getParsedTransaction(v0Stored.signature, { maxSupportedTransactionVersion: 0 });
  assert.equal(res!.transaction.message.accountKeys[3]!.pubkey.toBase58(), tableRecipient.toBase58());
  assert.equal(res!.transaction.message.accountKeys[3]!.source, 'lookupTable');
  assert.equal((res!.transaction.message.instructions[1] as { parsed: unknown }).parsed, 'hello isthmus');

  // Legacy: no addressTableLookups, fee payer writable signer.
  const legacy = encodeTransactionWithMeta(legacyStored, 'jsonParsed').transaction as unknown as { message: Record<string, unknown> };
  assert.ok(!('addressTableLookups' in legacy.message));
  assert.deepEqual((legacy.message.accountKeys as unknown[])[0], { pubkey: payer.publicKey.toBase58(), writable: true, signer: true, source: 'transaction' });
});

test('binary transaction encodings decode back to the wire bytes', () => {
  const b64 = encodeTransactionWithMeta(v0Stored, 'base64', { maxSupportedTransactionVersion: 0 });
  assert.equal((b64.transaction as string[])[1], 'base64');
  assert.deepEqual(new Uint8Array(Buffer.from((b64.transaction as string[])[0]!, 'base64')), v0Wire);
  assert.deepEqual(b64.meta.loadedAddresses, v0Stored.meta.loadedAddresses);
  const b58 = encodeTransactionWithMeta(legacyStored, 'base58');
  assert.deepEqual(bs58.decode((b58.transaction as string[])[0]!), legacyWire);
  assert.equal((b58.transaction as string[])[1], 'base58');
  assert.equal(encodeTransactionWithMeta(legacyStored, 'binary').transaction, bs58.encode(legacyWire));
  assert.deepEqual(VersionedTransaction.deserialize(Buffer.from((b64.transaction as string[])[0]!, 'base64')).signatures, v0Tx.signatures);
});

test('inner instructions are encoded and parsed', () => {
  const memoIndex = legacyTx.compileMessage().accountKeys.findIndex((k) => k.toBase58() === MEMO_PROGRAM_ID);
  const withInner: StoredTransaction = {
    ...legacyStored,
    meta: {
      ...legacyStored.meta,
      innerInstructions: [{ index: 1, instructions: [{ programIdIndex: memoIndex, accounts: [0], data: Buffer.from('inner'), stackHeight: 2 }] }],
    },
  };
  assert.deepEqual(encodeTransactionWithMeta(withInner, 'json').meta.innerInstructions, [
    { index: 1, instructions: [{ programIdIndex: memoIndex, accounts: [0], data: bs58.encode(Buffer.from('inner')), stackHeight: 2 }] },
  ]);
  assert.deepEqual(encodeTransactionWithMeta(withInner, 'jsonParsed').meta.innerInstructions, [
    { index: 1, instructions: [{ program: 'spl-memo', programId: MEMO_PROGRAM_ID, parsed: 'inner', stackHeight: 2 }] },
  ]);
});

test('getBlock shapes in every transactionDetails mode', async () => {
  const opts = { maxSupportedTransactionVersion: 0 };
  const full = encodeBlock(block, opts);
  assert.deepEqual(Object.keys(full), ['previousBlockhash', 'blockhash', 'parentSlot', 'transactions', 'rewards', 'blockTime', 'blockHeight']);
  assert.deepEqual(full.rewards, block.rewards);
  assert.deepEqual(
    full.transactions!.map((t) => t.version),
    ['legacy', 0],
  );
  const got = await connectionAnswering(wireJson(full)).getBlock(42, opts);
  assert.equal(got!.transactions.length, 2);
  assert.equal((got as unknown as { blockHeight: number }).blockHeight, 40);
  assert.equal(got!.rewards![0]!.rewardType, 'Fee');

  const parsed = await connectionAnswering(wireJson(encodeBlock(block, { ...opts, encoding: 'jsonParsed' }))).getParsedBlock(42, opts);
  assert.equal(parsed.transactions.length, 2);

  const accounts = encodeBlock(block, { ...opts, transactionDetails: 'accounts' });
  assert.deepEqual(Object.keys(accounts.transactions![0]!.meta), [
    'err',
    'status',
    'fee',
    'preBalances',
    'postBalances',
    'preTokenBalances',
    'postTokenBalances',
    'rewards',
  ]);
  const got2 = await connectionAnswering(wireJson(accounts)).getBlock(42, { ...opts, transactionDetails: 'accounts' });
  assert.equal((got2!.transactions[1]!.transaction as unknown as { accountKeys: unknown[] }).accountKeys.length, 4);
  const noRewards = encodeBlock(block, { ...opts, transactionDetails: 'accounts', rewards: false });
  assert.ok(!('rewards' in noRewards));
  assert.ok(!('rewards' in noRewards.transactions![0]!.meta));

  const sigs = encodeBlock(block, { transactionDetails: 'signatures', rewards: false });
  assert.deepEqual(sigs, {
    previousBlockhash: block.previousBlockhash,
    blockhash: block.blockhash,
    parentSlot: 41,
    signatures: [legacyStored.signature, v0Stored.signature],
    blockTime: block.blockTime,
    blockHeight: 40,
  });
  const got3 = await connectionAnswering(wireJson(sigs)).getBlockSignatures(42);
  assert.equal(got3.signatures.length, 2);

  const none = encodeBlock(block, { transactionDetails: 'none' });
  assert.deepEqual(Object.keys(none), ['previousBlockhash', 'blockhash', 'parentSlot', 'rewards', 'blockTime', 'blockHeight']);
  await connectionAnswering(wireJson(none)).getBlock(42, { ...opts, transactionDetails: 'none' });

  const fullNoRewards = encodeBlock(block, { ...opts, rewards: false });
  assert.ok(!('rewards' in fullNoRewards));
  assert.equal(fullNoRewards.transactions![0]!.meta.rewards, null);
});

test('getConfirmedBlock (legacy): no blockHeight, no version', async () => {
  const legacyBlock = { ...block, transactions: [legacyStored, failedStored] };
  const enc = encodeBlock(legacyBlock, { legacy: true });
  assert.ok(!('blockHeight' in enc));
  assert.ok(enc.transactions!.every((t) => !('version' in t)));
  const withMax = encodeBlock(block, { legacy: true, maxSupportedTransactionVersion: 0 });
  assert.ok(withMax.transactions!.every((t) => !('version' in t)));
  assert.throws(() => encodeBlock(block, { legacy: true }), (e) => e instanceof RpcError && e.code === UNSUPPORTED_TRANSACTION_VERSION);
  const got = await connectionAnswering(wireJson(enc)).getConfirmedBlock(42);
  assert.equal(got.transactions.length, 2);
  assert.deepEqual(got.transactions[1]!.meta!.err, { InstructionError: [0, { Custom: 1 }] });
});
