/**
 * Otterscan's ots_* methods against Anvil, the oracle: both chains start from the same mnemonic,
 * chain id, hardfork and base fee, get the same signed transactions one by one (a transfer, a factory
 * deployed, children made with CREATE and CREATE2, value paid from inside a call, a make that
 * reverts, a transfer back), and every method's answer is compared field by field, except fields
 * that must differ (hashes over our block fields, times, fees over Anvil's moving base fee, fields of
 * our block format) and where Otterscan's spec and Anvil part (listed in SPEC_NOT_ANVIL).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { HDNodeWallet, Interface, Mnemonic, getCreate2Address, getCreateAddress, keccak256, parseEther, type TransactionRequest } from 'ethers';
import { freePorts } from '../helpers/cli-process.ts';
import { compileFixture, foundryBinary } from '../helpers/evm.ts';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';

const WORDS = 'test test test test test test test test test test test junk';
const CHAIN_ID = 106;
const anvilBin = foundryBinary('anvil');
const factory = compileFixture('Factory.sol', 'Factory');
const childArtifact = compileFixture('Factory.sol', 'Child');
const iface = new Interface(factory.abi as never);
const wallet = (i: number) => HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(WORDS), `m/44'/60'/0'/0/${i}`);
const alice = wallet(0);
const bob = wallet(1);
const SALT = `0x${'11'.repeat(32)}`;

/** Fields whose values must differ between the chains: hashes over block fields, times, fees over Anvil's moving base fee, block sizes. */
const MUST_DIFFER = new Set([
  'hash', 'blockHash', 'parentHash', 'stateRoot', 'transactionsRoot', 'receiptsRoot', 'timestamp', 'blockTimestamp', 'mixHash',
  'nonce@block', 'extraData', 'size', 'baseFeePerGas', 'gasPrice', 'effectiveGasPrice', 'totalFees', 'gasLimit@block',
]);
/** Our block format's own fields (native slot and signature, finality, Besu's revert reason). */
const OURS_ONLY = new Set(['isFinalized', 'nativeSlot', 'nativeBlockhash', 'nativeSignature', 'revertReason', 'revertReasonText', 'transferToNative']);
/** Anvil's fields that the spec does not have (blockTimestamp: geth 1.16's newer transaction field; timestamp: the spec has it in search receipts only). */
const ANVIL_ONLY = new Set(['blobGasPrice', 'blockTimestamp@tx', 'timestamp@otsReceipt']);
/** Where Otterscan's spec says null (to save bandwidth) and Anvil sends the value anyway. */
const SPEC_NOT_ANVIL = new Set(['logsBloom@otsBlock', 'logs@otsReceipt', 'logsBloom@otsReceipt']);

/** The shapes that are blocks (their nonce is our native slot, their gas limit ours). */
const BLOCKS = new Set(['block', 'otsBlock', 'header']);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * The differences between our answer and Anvil's, as paths; `kind` names the shape being compared
 * (block, otsBlock, otsReceipt, …) for the fields whose rule depends on it.
 */
function differences(ours: Json, theirs: Json, path = '$', kind = ''): string[] {
  if (Array.isArray(ours) && Array.isArray(theirs)) {
    if (ours.length !== theirs.length) return [`${path}: ${ours.length} items, Anvil ${theirs.length}`];
    return ours.flatMap((o, i) => differences(o, theirs[i]!, `${path}[${i}]`, kind));
  }
  if (ours && theirs && typeof ours === 'object' && typeof theirs === 'object' && !Array.isArray(ours) && !Array.isArray(theirs)) {
    const out: string[] = [];
    for (const key of new Set([...Object.keys(ours), ...Object.keys(theirs)])) {
      const where = `${path}.${key}`;
      if (SPEC_NOT_ANVIL.has(`${key}@${kind}`)) {
        if (ours[key] !== null) out.push(`${where}: the spec's null, got ${JSON.stringify(ours[key])}`);
        continue;
      }
      if (!(key in theirs)) {
        if (!OURS_ONLY.has(key)) out.push(`${where}: ours only`);
        continue;
      }
      if (!(key in ours)) {
        if (!ANVIL_ONLY.has(key) && !ANVIL_ONLY.has(`${key}@${kind}`)) out.push(`${where}: Anvil only`);
        continue;
      }
      if (MUST_DIFFER.has(key) || (BLOCKS.has(kind) && MUST_DIFFER.has(`${key}@block`))) continue;
      const childKind = key === 'transactions' ? 'tx' : key === 'receipts' ? 'otsReceipt' : key === 'block' ? 'otsBlock' : key === 'fullblock' ? 'block' : kind;
      out.push(...differences(ours[key]!, theirs[key]!, where, childKind));
    }
    return out;
  }
  return ours === theirs ? [] : [`${path}: ${JSON.stringify(ours)}, Anvil ${JSON.stringify(theirs)}`];
}

function assertSame(ours: Json, theirs: Json, kind: string, what: string): void {
  const diffs = differences(ours, theirs, '$', kind);
  assert.deepEqual(diffs, [], `${what}:\n  ${diffs.join('\n  ')}`);
}

async function waitForEth(url: string): Promise<void> {
  await waitFor(async () => (await rpc(url, 'eth_chainId', []).catch(() => null))?.result, { timeoutMs: 30_000, what: `${url} to answer` });
}

describe('ots_* against Anvil', { skip: anvilBin ? false : 'anvil is shipped by npm for linux-x64 only' }, () => {
  let node: TestNode;
  let anvil: ChildProcess;
  let anvilUrl: string;
  const hashes: string[] = [];
  /** Block of each transaction, on each chain. */
  const blocks: Array<{ ours: number; anvil: number }> = [];
  const nonces = new Map<string, number>();
  let factoryAddress: string;
  let child: string;
  let child2: string;
  let neverChild: string;

  const both = async (method: string, params: unknown[]) => {
    const [ours, theirs] = await Promise.all([rpc(node.evmRpcUrl, method, params), rpc(anvilUrl, method, params)]);
    assert.equal(ours.error, undefined, `ours ${method} ${JSON.stringify(params)}: ${JSON.stringify(ours.error)}`);
    assert.equal(theirs.error, undefined, `Anvil ${method} ${JSON.stringify(params)}: ${JSON.stringify(theirs.error)}`);
    return [ours.result, theirs.result] as [any, any];
  };

  /** Signs once and sends the same bytes to both chains; waits for both receipts. */
  async function send(from: HDNodeWallet, tx: TransactionRequest): Promise<{ hash: string; ours: any; anvil: any }> {
    const nonce = nonces.get(from.address) ?? 0;
    nonces.set(from.address, nonce + 1);
    const raw = await from.signTransaction({ type: 2, chainId: CHAIN_ID, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, gasLimit: 1_000_000, nonce, ...tx });
    const receipts = await Promise.all(
      [node.evmRpcUrl, anvilUrl].map(async (url) => {
        const sent = await rpc(url, 'eth_sendRawTransaction', [raw]);
        assert.equal(sent.error, undefined, JSON.stringify(sent.error));
        return waitFor(async () => (await rpc(url, 'eth_getTransactionReceipt', [sent.result])).result, { timeoutMs: 30_000, what: `the receipt at ${url}` });
      }),
    );
    assert.equal(receipts[0].transactionHash, receipts[1].transactionHash);
    hashes.push(receipts[0].transactionHash);
    blocks.push({ ours: Number(receipts[0].blockNumber), anvil: Number(receipts[1].blockNumber) });
    return { hash: receipts[0].transactionHash, ours: receipts[0], anvil: receipts[1] };
  }

  before(async () => {
    const [port] = await freePorts(1);
    anvilUrl = `http://127.0.0.1:${port}`;
    anvil = spawn(anvilBin!, ['--port', String(port), '--silent', '--mnemonic', WORDS, '--chain-id', String(CHAIN_ID), '--hardfork', 'osaka', '--base-fee', '1000000000'], { stdio: 'ignore' });
    node = await startTestNode({ mnemonic: WORDS, evmChainId: CHAIN_ID });
    await waitForEth(anvilUrl);

    await send(alice, { to: bob.address, value: parseEther('1') });
    const deployed = await send(alice, { data: factory.bytecode });
    factoryAddress = deployed.ours.contractAddress;
    assert.equal(factoryAddress, deployed.anvil.contractAddress);
    child = getCreateAddress({ from: factoryAddress, nonce: 1 }).toLowerCase();
    child2 = getCreate2Address(factoryAddress, SALT, keccak256(childArtifact.bytecode + (8).toString(16).padStart(64, '0'))).toLowerCase();
    neverChild = getCreateAddress({ from: factoryAddress, nonce: 3 }).toLowerCase();
    await send(alice, { to: factoryAddress, data: iface.encodeFunctionData('make', [7]), value: 5 });
    await send(alice, { to: factoryAddress, data: iface.encodeFunctionData('make2', [8, SALT]) });
    await send(alice, { to: factoryAddress, data: iface.encodeFunctionData('pay', [bob.address]), value: 3 });
    const failed = await send(alice, { to: factoryAddress, data: iface.encodeFunctionData('makeAndFail', [1]), gasLimit: 300_000 });
    assert.equal(failed.ours.status, '0x0');
    await send(bob, { to: alice.address, value: parseEther('0.5') });
  });
  after(async () => {
    anvil?.kill('SIGKILL');
    await node?.stop();
  });

  test('the same transactions did the same things on both chains', () => {
    assert.equal(hashes.length, 7);
    // Each in its own block on both chains (sent one at a time), so the answers line up by block.
    for (const b of blocks) assert.equal(b.ours, b.anvil, JSON.stringify(blocks));
  });

  test('ots_getBlockDetails and ots_getBlockDetailsByHash: field by field, by JSON number, hex and tag', async () => {
    for (const { ours: n } of blocks) {
      for (const sel of [n, `0x${n.toString(16)}`]) {
        const [ours, theirs] = await both('ots_getBlockDetails', [sel]);
        assertSame(ours, theirs, '', `ots_getBlockDetails(${JSON.stringify(sel)})`);
        assert.equal(ours.block.transactionCount, 1);
        // Fees: gas used times the price paid, on each chain (Anvil's base fee moves, ours is fixed).
        const [receipt] = (await rpc(node.evmRpcUrl, 'eth_getBlockReceipts', [`0x${n.toString(16)}`])).result;
        assert.equal(BigInt(ours.totalFees), BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice));
        const byHash = (await rpc(node.evmRpcUrl, 'ots_getBlockDetailsByHash', [ours.block.hash])).result;
        // isFinalized may turn true between the two reads (the chain roots as it runs), never back.
        assert.deepEqual({ ...byHash, block: { ...byHash.block, isFinalized: null } }, { ...ours, block: { ...ours.block, isFinalized: null } });
        assert.ok(!ours.block.isFinalized || byHash.block.isFinalized, 'finality never goes back');
        const theirsByHash = (await rpc(anvilUrl, 'ots_getBlockDetailsByHash', [theirs.block.hash])).result;
        assertSame(byHash, theirsByHash, '', `ots_getBlockDetailsByHash of block ${n}`);
      }
    }
    const [latest, anvilLatest] = await both('ots_getBlockDetails', ['latest']);
    assertSame(latest, anvilLatest, '', 'ots_getBlockDetails("latest")');
  });

  test('ots_getBlockTransactions: the page, inputs cut to the selector, receipts without logs', async () => {
    for (const { ours: n } of blocks) {
      const [ours, theirs] = await both('ots_getBlockTransactions', [n, 0, 25]);
      assertSame(ours, theirs, '', `ots_getBlockTransactions(${n}, 0, 25)`);
      assert.equal(ours.fullblock.transactionCount, 1);
      assert.ok(ours.fullblock.transactions[0].input.length <= 10);
    }
    // A page past the end: no transactions; the count is still the block's (Erigon's; Anvil counts the page).
    const [ours, theirs] = await both('ots_getBlockTransactions', [blocks[1]!.ours, 1, 25]);
    assert.equal(ours.fullblock.transactionCount, 1);
    assert.equal(theirs.fullblock.transactionCount, 0);
    assertSame({ ...ours, fullblock: { ...ours.fullblock, transactionCount: 0 } }, theirs, '', 'ots_getBlockTransactions past the last page');
    assert.deepEqual(ours.fullblock.transactions, []);
  });

  test('erigon_getHeaderByNumber: the header Otterscan probes at start', async () => {
    for (const { ours: n } of blocks) {
      const [ours, theirs] = await both('erigon_getHeaderByNumber', [n]);
      assertSame(ours, theirs, 'header', `erigon_getHeaderByNumber(${n})`);
    }
    const [ours, theirs] = await both('erigon_getHeaderByNumber', [10_000]);
    assert.equal(ours, null);
    assert.equal(theirs, null);
  });

  test('ots_hasCode: contracts, children made inside calls, accounts, a child that was never made; mixed case and every block form', async () => {
    const deployedAt = blocks[1]!.ours;
    for (const address of [factoryAddress, child, child2, neverChild, bob.address, bob.address.toLowerCase()]) {
      for (const sel of ['latest', deployedAt, deployedAt - 1, `0x${deployedAt.toString(16)}`]) {
        const [ours, theirs] = await both('ots_hasCode', [address, sel]);
        assert.equal(ours, theirs, `ots_hasCode(${address}, ${JSON.stringify(sel)})`);
      }
    }
    assert.equal((await rpc(node.evmRpcUrl, 'ots_hasCode', [child2, 'latest'])).result, true);
  });

  test('ots_getContractCreator: the sender for a deployment, the factory for CREATE and CREATE2 inside a call, null otherwise', async () => {
    for (const address of [factoryAddress, child, child2, bob.address, alice.address.toLowerCase()]) {
      const [ours, theirs] = await both('ots_getContractCreator', [address]);
      assert.deepEqual(ours, theirs, `ots_getContractCreator(${address})`);
    }
    // A creation its transaction reverted: no contract, no creator (Erigon's answer). Anvil names the
    // reverted transaction from its traces although the address holds no code.
    const [never, anvilNever] = await both('ots_getContractCreator', [neverChild]);
    assert.equal(never, null);
    assert.deepEqual(anvilNever, { hash: hashes[5], creator: factoryAddress.toLowerCase() });
    const [ofChild] = await both('ots_getContractCreator', [child]);
    assert.deepEqual(ofChild, { hash: hashes[2], creator: factoryAddress.toLowerCase() });
    const [ofFactory] = await both('ots_getContractCreator', [factoryAddress.toUpperCase().replace('0X', '0x')]);
    assert.deepEqual(ofFactory, { hash: hashes[1], creator: alice.address.toLowerCase() });
  });

  test('ots_getTransactionBySenderAndNonce: every nonce used, one not yet used, by JSON number and hex', async () => {
    for (const [sender, count] of [[alice, 6], [bob, 1]] as const) {
      for (let n = 0; n <= count; n++) {
        for (const nonce of [n, `0x${n.toString(16)}`]) {
          const [ours, theirs] = await both('ots_getTransactionBySenderAndNonce', [sender.address, nonce]);
          assert.equal(ours, theirs, `${sender.address} nonce ${nonce}`);
          assert.equal(ours === null, n === count);
        }
      }
    }
  });

  test('ots_searchTransactionsBefore/After: both directions of an address, internal transfers and creations included', async () => {
    for (const address of [alice.address, bob.address, bob.address.toLowerCase(), factoryAddress, child, child2]) {
      for (const method of ['ots_searchTransactionsBefore', 'ots_searchTransactionsAfter']) {
        const [ours, theirs] = await both(method, [address, 0, 25]);
        assertSame(ours.txs, theirs.txs, 'tx', `${method}(${address}).txs`);
        assertSame(ours.receipts, theirs.receipts, 'searchReceipt', `${method}(${address}).receipts`);
        assert.equal(ours.firstPage, true);
        assert.equal(ours.lastPage, true);
        assert.equal(theirs.firstPage, true, `${method}: Anvil's firstPage`);
      }
    }
    // Bob: the transfer to him, the value the factory paid him from inside a call, and his own transfer, newest first.
    const bobs = (await rpc(node.evmRpcUrl, 'ots_searchTransactionsBefore', [bob.address, 0, 25])).result;
    assert.deepEqual(bobs.txs.map((t: { hash: string }) => t.hash), [hashes[6], hashes[4], hashes[0]]);
  });

  test('ots_search*: pages of whole blocks that add up to the history, with firstPage and lastPage', async () => {
    const all = (await rpc(node.evmRpcUrl, 'ots_searchTransactionsBefore', [alice.address, 0, 100])).result.txs.map((t: { hash: string }) => t.hash);
    assert.equal(all.length, 7);
    const seen: string[] = [];
    let page = (await rpc(node.evmRpcUrl, 'ots_searchTransactionsBefore', [alice.address, 0, 2])).result;
    assert.equal(page.firstPage, true);
    for (;;) {
      seen.push(...page.txs.map((t: { hash: string }) => t.hash));
      if (page.lastPage) break;
      const oldest = Number(page.txs.at(-1).blockNumber);
      page = (await rpc(node.evmRpcUrl, 'ots_searchTransactionsBefore', [alice.address, oldest, 2])).result;
      assert.equal(page.firstPage, false);
    }
    assert.deepEqual(seen, all);
    // Backwards from the oldest: After pages, each newest first, firstPage on the newest.
    const back: string[] = [];
    page = (await rpc(node.evmRpcUrl, 'ots_searchTransactionsAfter', [alice.address, 0, 3])).result;
    assert.equal(page.lastPage, true);
    for (;;) {
      back.unshift(...page.txs.map((t: { hash: string }) => t.hash));
      if (page.firstPage) break;
      const newest = Number(page.txs[0].blockNumber);
      page = (await rpc(node.evmRpcUrl, 'ots_searchTransactionsAfter', [alice.address, newest, 3])).result;
      assert.equal(page.lastPage, false);
    }
    assert.deepEqual(back, all);
  });

  test('ots_getApiLevel: not 8 until every method of level 8 is served', async () => {
    const { result } = await rpc(node.evmRpcUrl, 'ots_getApiLevel', []);
    const served = await Promise.all(
      ['ots_getInternalOperations', 'ots_traceTransaction', 'ots_getTransactionError'].map(async (m) => (await rpc(node.evmRpcUrl, m, [hashes[0]])).error?.code !== -32601),
    );
    assert.equal(result, served.every(Boolean) ? 8 : 0);
    assert.equal((await rpc(anvilUrl, 'ots_getApiLevel', [])).result, 8);
  });

  test('bad input: a clear error naming the parameter, as Anvil refuses it too', async () => {
    const bad: Array<[string, unknown[], string]> = [
      ['ots_hasCode', ['0x12', 'latest'], 'address'],
      ['ots_getBlockDetails', ['0xzz'], 'blockNumber'],
      ['ots_getBlockDetails', [-1], 'blockNumber'],
      ['ots_getBlockDetailsByHash', ['0x1234'], 'blockHash'],
      ['ots_getBlockTransactions', [1, 0, 0], 'pageSize'],
      ['ots_getBlockTransactions', [1, 'x', 10], 'pageNumber'],
      ['ots_searchTransactionsBefore', [alice.address, 0, 0], 'pageSize'],
      ['ots_searchTransactionsBefore', ['alice', 0, 10], 'address'],
      ['ots_getTransactionBySenderAndNonce', [alice.address, 'one'], 'nonce'],
      ['ots_getContractCreator', [42], 'address'],
      ['erigon_getHeaderByNumber', ['soon'], 'blockNumber'],
    ];
    for (const [method, params, name] of bad) {
      const ours = await rpc(node.evmRpcUrl, method, params);
      assert.equal(ours.error?.code, -32602, `${method} ${JSON.stringify(params)}: ${JSON.stringify(ours)}`);
      assert.match(ours.error.message, new RegExp(name), `${method}: ${ours.error.message}`);
    }
    for (const [method, params] of bad.slice(0, 4)) assert.equal((await rpc(anvilUrl, method, params)).error?.code, -32602, `Anvil ${method}`);
    // Missing params.
    assert.equal((await rpc(node.evmRpcUrl, 'ots_getContractCreator', [])).error?.code, -32602);
    // Blocks that do not exist are not errors: null, as for eth_getBlockByNumber.
    assert.equal((await rpc(node.evmRpcUrl, 'ots_getBlockDetails', [10_000])).result, null);
    assert.equal((await rpc(node.evmRpcUrl, 'ots_getBlockTransactions', [10_000, 0, 10])).result, null);
  });
});
