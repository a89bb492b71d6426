/**
 * The limits of shared/spec/node-interface.md on a real node: each request just past a limit is an
 * invalid-params error naming the limit, and the request at the limit is answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';

let node: TestNode;
let key: string;

before(async () => {
  node = await startTestNode();
  key = node.keys.identity.address;
  await waitFor(async () => (await rpc(node.rpcUrl, 'getSlot')).result > 2, { what: 'a few rooted slots' });
});
after(async () => node?.stop());

async function refused(method: string, params: unknown[], message: string) {
  const res = await rpc(node.rpcUrl, method, params);
  assert.deepEqual(res.error, { code: -32602, message }, `${method} ${JSON.stringify(params).slice(0, 80)}`);
}
async function answered(method: string, params: unknown[]) {
  const res = await rpc(node.rpcUrl, method, params);
  assert.equal(res.error, undefined, `${method}: ${JSON.stringify(res.error)}`);
  return res.result;
}

describe('spec limits', () => {
  it('getBlocks / getConfirmedBlocks: at most 500,000 slots between start and end, whatever the chain\'s length', async () => {
    for (const method of ['getBlocks', 'getConfirmedBlocks']) {
      await refused(method, [0, 1e12], 'Slot range too large; max 500000');
      await refused(method, [10, 500_011], 'Slot range too large; max 500000');
      const blocks = await answered(method, [0, 500_000]);
      assert.ok(blocks.length > 0 && blocks.every((s: number) => s <= 500_000));
      assert.deepEqual(await answered(method, [1e12]), [], 'no end: start past the chain is an empty list');
      assert.deepEqual(await answered(method, [5, 4]), []);
    }
  });

  it('getBlocksWithLimit / getConfirmedBlocksWithLimit: limit at most 500,000; no processed commitment', async () => {
    for (const method of ['getBlocksWithLimit', 'getConfirmedBlocksWithLimit']) {
      await refused(method, [0, 500_001], 'Limit too large; max 500000');
      assert.ok((await answered(method, [0, 500_000])).length > 0);
      await refused(method, [0, 5, { commitment: 'processed' }], 'Method does not support commitment below `confirmed`');
    }
  });

  it('signatures for an address: limit 1 to 1,000; the 1.5 form over at most 10,000 slots', async () => {
    for (const method of ['getSignaturesForAddress', 'getConfirmedSignaturesForAddress2']) {
      await refused(method, [key, { limit: 0 }], 'Invalid limit; max 1000');
      await refused(method, [key, { limit: 1001 }], 'Invalid limit; max 1000');
      await answered(method, [key, { limit: 1000 }]);
    }
    await refused('getConfirmedSignaturesForAddress', [key, 0, 10_001], 'Slot range too large; max 10000');
    await answered('getConfirmedSignaturesForAddress', [key, 0, 10_000]);
  });

  it('getRecentPerformanceSamples: at most 720; largest accounts: 20 entries; keys per request', async () => {
    await refused('getRecentPerformanceSamples', [721], 'Invalid limit; max 720');
    await answered('getRecentPerformanceSamples', [720]);
    const largest = await answered('getLargestAccounts', []);
    assert.equal(largest.value.length, 20);
    await refused('getMultipleAccounts', [Array(101).fill(key)], 'Too many inputs provided; max 100');
    assert.equal((await answered('getMultipleAccounts', [Array(100).fill(key)])).value.length, 100);
    await refused('getSignatureStatuses', [Array(257).fill('1'.repeat(64))], 'Too many inputs provided; max 256');
  });

  it('base58 account data only under 128 bytes', async () => {
    // The slot hashes sysvar holds far more than 128 bytes.
    const res = await rpc(node.rpcUrl, 'getAccountInfo', ['SysvarS1otHashes111111111111111111111111111', { encoding: 'base58' }]);
    assert.equal(res.error?.code, -32600);
    assert.match(res.error.message, /less than 128 bytes/);
  });
});
