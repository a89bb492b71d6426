/** The EVM transaction record in the store: the creations and inner-call addresses it carries, and records written before it had them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeTxRecord, encodeTxRecord, type EvmTxRecord } from '../../node-core/evm/records.ts';

const record: EvmTxRecord = {
  hash: `0x${'ab'.repeat(32)}`, raw: new Uint8Array([1, 2, 3]), from: `0x${'11'.repeat(20)}`, deposit: false, status: 1, gasUsed: 21_000,
  cumulativeGasUsed: 21_000, effectiveGasPrice: 1_000_000_000n, contractAddress: null, logs: [], revertData: new Uint8Array(0),
  nativeSignature: 'sig', blockNumber: 3, index: 0,
  created: [{ address: `0x${'22'.repeat(20)}`, creator: `0x${'33'.repeat(20)}` }],
  internal: [`0x${'44'.repeat(20)}`],
};

test('creations and inner-call addresses survive the store', () => {
  assert.deepEqual(decodeTxRecord(encodeTxRecord(record)), record);
});

test('a record written before them decodes with none', () => {
  const old = encodeTxRecord(record).slice(0, 14) as Parameters<typeof decodeTxRecord>[0];
  assert.deepEqual(decodeTxRecord(old), { ...record, created: [], internal: [] });
});
