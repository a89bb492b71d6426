/**
 * Known events decoded by signature: each fits its standard's encoding exactly (encoded here by
 * ethers' ABI coder), ERC-20 and ERC-721 Transfer told apart by their indexed inputs, and anything
 * that does not fit stays undecoded.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hexToBytes } from '@ethereumjs/util';
import { Interface } from 'ethers';
import { decodeKnownEvent } from '../../node-core/evm/known-events.ts';
import { ethMethods } from '../../node-core/rpc/eth/methods.ts';

const abi = new Interface([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
  'event Custom(uint256 what)',
]);
const nft = new Interface(['event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)']);
const A = '0x1111111111111111111111111111111111111111';
const B = '0x2222222222222222222222222222222222222222';

const decode = (log: { topics: readonly string[]; data: string }) => decodeKnownEvent(log.topics.map((t) => hexToBytes(t as `0x${string}`)), hexToBytes(log.data as `0x${string}`));

test('ERC-20 Transfer and Approval: names, signature and arguments', () => {
  assert.deepEqual(decode(abi.encodeEventLog('Transfer', [A, B, 10n ** 18n])), {
    standard: 'ERC-20',
    name: 'Transfer',
    signature: 'Transfer(address,address,uint256)',
    args: [
      { name: 'from', type: 'address', value: A },
      { name: 'to', type: 'address', value: B },
      { name: 'value', type: 'uint256', value: '1000000000000000000' },
    ],
  });
  assert.equal(decode(abi.encodeEventLog('Approval', [A, B, 5n]))?.args[2]?.value, '5');
});

test('ERC-721 Transfer: the same signature, the token id indexed', () => {
  const d = decode(nft.encodeEventLog('Transfer', [A, B, 42n]));
  assert.equal(d?.standard, 'ERC-721');
  assert.deepEqual(d?.args[2], { name: 'tokenId', type: 'uint256', value: '42' });
});

test('ERC-1155 TransferBatch (dynamic arrays) and ApprovalForAll (bool)', () => {
  const d = decode(abi.encodeEventLog('TransferBatch', [A, A, B, [1n, 2n, 3n], [10n, 20n, 30n]]));
  assert.deepEqual(d?.args.slice(3), [
    { name: 'ids', type: 'uint256[]', value: ['1', '2', '3'] },
    { name: 'values', type: 'uint256[]', value: ['10', '20', '30'] },
  ]);
  assert.equal(decode(abi.encodeEventLog('ApprovalForAll', [A, B, true]))?.args[2]?.value, true);
});

test('what does not fit stays undecoded', () => {
  assert.equal(decode(abi.encodeEventLog('Custom', [1n])), null, 'an event the node does not know');
  const transfer = abi.encodeEventLog('Transfer', [A, B, 1n]);
  assert.equal(decode({ topics: transfer.topics, data: '0x' }), null, 'no value word');
  assert.equal(decode({ topics: transfer.topics, data: `${transfer.data}00` }), null, 'a stray byte');
  assert.equal(decode({ topics: [transfer.topics[0]!, `0x${'ff'.repeat(32)}`, transfer.topics[2]!], data: transfer.data }), null, 'an address wider than 20 bytes');
  const approval = abi.encodeEventLog('ApprovalForAll', [A, B, true]);
  assert.equal(decode({ topics: approval.topics, data: `0x${'00'.repeat(31)}02` }), null, 'a bool of 2');
  const batch = abi.encodeEventLog('TransferBatch', [A, A, B, [1n], [2n]]);
  assert.equal(decode({ topics: batch.topics, data: batch.data.slice(0, -64) }), null, 'an array cut short');
  assert.equal(decode({ topics: [], data: '0x' }), null, 'an anonymous log');
});

test('isthmus_decodeEvmLogs: one entry per log, null for the unknown; bad params refused', async () => {
  const call = ethMethods.isthmus_decodeEvmLogs as (p: unknown, ctx: never) => unknown;
  const logs = [abi.encodeEventLog('Transfer', [A, B, 7n]), abi.encodeEventLog('Custom', [1n])];
  const out = (await call([logs.map((l) => ({ address: A, ...l }))], undefined as never)) as unknown[];
  assert.equal((out[0] as { name: string }).name, 'Transfer');
  assert.equal(out[1], null);
  for (const bad of [[], [[{ topics: ['0x12'], data: '0x' }]], [[{ topics: [] }]], [Array(1001).fill({ topics: [], data: '0x' })], [[{ topics: Array(5).fill(`0x${'00'.repeat(32)}`), data: '0x' }]]]) {
    assert.throws(() => call(bad, undefined as never), (e: { code?: number }) => e.code === -32602, JSON.stringify(bad).slice(0, 80));
  }
});
