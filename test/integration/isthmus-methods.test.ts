/** isthmus_getNodeInfo and isthmus_getDevAccounts: what the explorer needs that no standard RPC tells. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import bs58 from 'bs58';
import { rpc, startTestNode, type TestNode } from '../helpers/node.ts';
import { isLoopback, isthmus_getDevAccounts } from '../../node-core/rpc/methods/isthmus.ts';
import type { RpcContext } from '../../node-core/rpc/context.ts';

let node: TestNode;

describe('isthmus_* methods', () => {
  before(async () => {
    node = await startTestNode();
  });
  after(async () => {
    await node.stop();
  });

  test('isthmus_getNodeInfo names the URLs, chain id and bridge as the node sees them', async () => {
    const info = (await rpc(node.rpcUrl, 'isthmus_getNodeInfo')).result;
    assert.equal(info.rpcUrl, node.rpcUrl);
    assert.equal(info.pubsubUrl, node.pubsubUrl);
    assert.equal(info.evmRpcUrl, node.evmRpcUrl);
    assert.equal(info.explorerUrl, `${node.rpcUrl}/explorer/`);
    assert.equal(node.explorerUrl, info.explorerUrl);
    assert.equal(info.evmChainId, 5705);
    assert.equal(info.genesisHash, node.genesisHash);
    assert.equal(info.bridgeAddress, '0x56454c41532d434841494e000000000053574150');
    assert.equal(info.transferToNativeSelector, '0xb1d6927a');
    assert.equal(info.devAccountsAvailable, true);
    assert.equal(info.sbfEngine.available, true);
    assert.match(info.sbfEngine.detail, /^litesvm \d+\.\d+\.\d+$/);
    assert.equal((await rpc(node.rpcUrl, 'isthmus_getNodeInfo', ['extra'])).error.code, -32602);
  });

  test("isthmus_getNodeInfo tells the ledger's size on disk (as du counts the ledger folder) and the history it keeps", async () => {
    const info = (await rpc(node.rpcUrl, 'isthmus_getNodeInfo')).result;
    assert.deepEqual(Object.keys(info.ledger).sort(), ['diskBytes', 'firstAvailableSlot', 'limitLedgerSize']);
    assert.equal(info.ledger.limitLedgerSize, null, 'no --limit-ledger-size: every slot kept');
    assert.equal(info.ledger.firstAvailableSlot, 0);
    const du = spawnSync('du', ['-s', '-B1', node.ledger], { encoding: 'utf8' });
    const duBytes = Number(du.stdout.split('\t')[0]);
    // du counts the folders' own blocks too, and the store grows between the two reads.
    assert.ok(info.ledger.diskBytes > 0 && info.ledger.diskBytes <= duBytes, `${info.ledger.diskBytes} vs du ${duBytes}`);
    assert.ok(info.ledger.diskBytes > duBytes / 2, `${info.ledger.diskBytes} vs du ${duBytes}`);

    const limited = await startTestNode({ limitLedgerSize: 1000 });
    try {
      const ledger = (await rpc(limited.rpcUrl, 'isthmus_getNodeInfo')).result.ledger;
      assert.equal(ledger.limitLedgerSize, 1000);
      assert.ok(ledger.diskBytes > 0);
    } finally {
      await limited.stop();
    }
  });

  test('isthmus_getDevAccounts gives the dev keys of both spaces', async () => {
    const dev = (await rpc(node.rpcUrl, 'isthmus_getDevAccounts')).result;
    assert.equal(dev.mnemonic, node.keys.mnemonic);
    assert.deepEqual(dev.native.map((a: { address: string }) => a.address), node.keys.devAccounts.map((k) => k.address));
    assert.deepEqual(bs58.decode(dev.native[4].secretKey), node.keys.devAccounts[4]!.secretKey);
    assert.equal(dev.native[4].path, "m/44'/501'/4'/0'");
    assert.equal(dev.evm[2].address, node.keys.evmDevAccounts[2]!.address);
    assert.equal(dev.evm[2].privateKey, '0x' + Buffer.from(node.keys.evmDevAccounts[2]!.privateKey).toString('hex'));
    assert.equal(dev.evm[2].path, "m/44'/60'/0'/0/2");
  });

  test('a web page of another origin cannot read the keys; the explorer this node serves can', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'isthmus_getDevAccounts' });
    const post = async (origin: string) =>
      (await fetch(node.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body })).json() as Promise<any>;
    const foreign = await post('https://evil.example');
    assert.equal(foreign.error.code, -32090);
    assert.match(foreign.error.message, /only from the explorer this node serves/);
    assert.equal(foreign.result, undefined);
    assert.equal((await post(`http://localhost:${node.rpcPort + 1}`)).error.code, -32090, 'another port of this machine is another origin');
    const own = await post(new URL(node.rpcUrl).origin);
    assert.equal(own.result.mnemonic, node.keys.mnemonic);
    assert.equal((await post(`http://localhost:${node.rpcPort}`)).result.mnemonic, node.keys.mnemonic);
  });

  test('the keys are refused by a node listening beyond loopback, and by a server without node info', () => {
    assert.ok(isLoopback('127.0.0.1') && isLoopback('::1') && isLoopback('localhost') && isLoopback('127.1.2.3'));
    assert.ok(!isLoopback('0.0.0.0') && !isLoopback('192.168.1.5') && !isLoopback('::'));
    const ctx = { isthmus: { bindAddress: '0.0.0.0', devAccounts: [], evmDevAccounts: [], mnemonic: 'x' } } as unknown as RpcContext;
    assert.throws(() => isthmus_getDevAccounts([], ctx), (e: { code: number; message: string }) => e.code === -32601 && /loopback/.test(e.message));
    assert.throws(() => isthmus_getDevAccounts([], {} as RpcContext), (e: { code: number }) => e.code === -32601);
  });
});
