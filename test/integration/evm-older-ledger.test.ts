/**
 * A ledger written before the EVM space kept its transactions and trie nodes in write order with a
 * hash index (evm/hash-index.ts): each record under its hash, the address and nonce indexes holding
 * hashes (hex strings) where they now hold nothing and positions. A node of this version answers from it as before (receipts, blocks with
 * their transactions, address history, sender and nonce, past state through the trie) and goes on
 * writing beside it in the new layout.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { bytesToHex, bytesToUnprefixedHex } from '@ethereumjs/util';
import { ContractFactory, JsonRpcProvider, Wallet, parseEther, type Contract } from 'ethers';
import { open } from 'lmdb';
import { keccak256 } from '../../node-core/common/hash.ts';
import { ADDRESS_TX_TABLE, LEGACY_TX_TABLE, NONCE_TABLE, TX_INDEX_TABLE, TX_TABLE } from '../../node-core/evm/records.ts';
import { LEGACY_TRIE_TABLE, TRIE_INDEX_TABLE, TRIE_NODE_TABLE } from '../../node-core/evm/state-trie.ts';
import { deriveEvmKeys } from '../../node-core/keys/evm-keys.ts';
import { compileFixture } from '../helpers/evm.ts';
import { rpc, startTestNode, tempLedger, waitFor, type TestNode } from '../helpers/node.ts';

const WORDS = 'test test test test test test test test test test test junk';
const counter = compileFixture('Counter.sol', 'Counter');

/**
 * Rewrites the EVM records of a stopped node's store as older versions wrote them. It knows the LMDB
 * store's layout: extension records live in the `extras` database under [table, ...key].
 */
function rewriteAsOlderLedger(storeDir: string): { transactions: number; nodes: number } {
  const root = open({ path: storeDir, maxDbs: 16 });
  const extras = root.openDB<unknown, Array<string | number>>('extras', {});
  const table = (name: string) => [...extras.getRange({ start: [name], end: [name + '\0'] })];
  let transactions = 0;
  let nodes = 0;
  root.transactionSync(() => {
    const hashAt = (block: number, index: number) => bytesToHex((extras.get([TX_TABLE, block, index]) as Uint8Array[])[0]!);
    for (const { key } of table(ADDRESS_TX_TABLE)) extras.putSync(key, hashAt(key[2] as number, key[3] as number));
    for (const { key, value } of table(NONCE_TABLE)) extras.putSync(key, hashAt(...(value as [number, number])));
    for (const { key, value } of table(TX_TABLE)) {
      extras.putSync([LEGACY_TX_TABLE, bytesToHex((value as Uint8Array[])[0]!)], value);
      extras.removeSync(key);
      transactions++;
    }
    for (const { key, value } of table(TRIE_NODE_TABLE)) {
      extras.putSync([LEGACY_TRIE_TABLE, bytesToUnprefixedHex(keccak256(value as Uint8Array))], value);
      extras.removeSync(key);
      nodes++;
    }
    for (const name of [TX_INDEX_TABLE, TRIE_INDEX_TABLE]) for (const { key } of table(name)) extras.removeSync(key);
  });
  root.close();
  return { transactions, nodes };
}

test('a ledger in the older EVM layout answers as before, and new transactions are written beside it', async () => {
  const ledger = tempLedger();
  let node: TestNode | null = await startTestNode({ ledger, mnemonic: WORDS });
  try {
    const [aliceKey, bobKey] = deriveEvmKeys(WORDS, 2).map((k) => Buffer.from(k.privateKey).toString('hex'));
    const connect = (n: TestNode) => new JsonRpcProvider(n.evmRpcUrl, 5705, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 });
    let provider = connect(node);
    const alice = new Wallet(aliceKey!, provider);
    const bob = new Wallet(bobKey!, provider).address;
    const c = (await new ContractFactory(counter.abi as never, counter.bytecode, alice).deploy('older')) as Contract;
    await c.deploymentTransaction()!.wait();
    const hashes = [c.deploymentTransaction()!.hash];
    for (const data of ['0x', '0x', '0xd09de08a']) {
      const to = data === '0x' ? bob : await c.getAddress();
      hashes.push((await alice.sendTransaction({ to, data, value: data === '0x' ? parseEther('0.5') : 0n })).hash);
    }
    const receipts = await Promise.all(hashes.map((h) => waitFor(() => provider.getTransactionReceipt(h), { what: 'a receipt' })));
    const blocks = [...new Set(receipts.map((r) => r!.blockNumber))];
    const last = Math.max(...blocks);
    await waitFor(async () => (await provider.send('eth_getBlockByNumber', [`0x${last.toString(16)}`, false])).isFinalized, { what: 'finality' });

    const url = () => node!.evmRpcUrl;
    const answers = async () => ({
      receipts: await Promise.all(hashes.map(async (h) => (await rpc(url(), 'eth_getTransactionReceipt', [h])).result)),
      transactions: await Promise.all(hashes.map(async (h) => (await rpc(url(), 'eth_getTransactionByHash', [h])).result)),
      blocks: await Promise.all(blocks.map(async (n) => (await rpc(url(), 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true])).result)),
      history: (await rpc(url(), 'ots_searchTransactionsBefore', [alice.address, 0, 25])).result,
      bySenderAndNonce: await Promise.all([0, 1, 2, 3].map(async (n) => (await rpc(url(), 'ots_getTransactionBySenderAndNonce', [alice.address, n])).result)),
      // Past state, read through the stored trie.
      pastBalances: await Promise.all(blocks.map(async (n) => (await rpc(url(), 'eth_getBalance', [bob, `0x${n.toString(16)}`])).result)),
    });
    const before = await answers();
    assert.equal(before.history.txs.length, 4);
    assert.deepEqual(before.bySenderAndNonce, hashes);
    await node.stop();
    node = null;

    const moved = rewriteAsOlderLedger(path.join(ledger, 'store'));
    assert.ok(moved.transactions >= 4 && moved.nodes > 10, `rewrote ${JSON.stringify(moved)}`);
    node = await startTestNode({ ledger });
    assert.deepEqual(await answers(), before);

    provider = connect(node);
    const sent = await new Wallet(aliceKey!, provider).sendTransaction({ to: bob, value: parseEther('0.25') });
    const receipt = (await waitFor(() => provider.getTransactionReceipt(sent.hash), { what: 'a receipt' }))!;
    assert.equal((await rpc(url(), 'ots_getTransactionBySenderAndNonce', [alice.address, 4])).result, sent.hash);
    const history = (await rpc(url(), 'ots_searchTransactionsBefore', [alice.address, 0, 25])).result;
    assert.deepEqual(history.txs.map((t: { hash: string }) => t.hash), [sent.hash, ...before.history.txs.map((t: { hash: string }) => t.hash)]);
    assert.equal(BigInt((await rpc(url(), 'eth_getBalance', [bob, `0x${receipt.blockNumber.toString(16)}`])).result), BigInt(before.pastBalances.at(-1)) + parseEther('0.25'));
  } finally {
    await node?.stop();
    fs.rmSync(ledger, { recursive: true, force: true });
  }
});
