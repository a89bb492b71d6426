/**
 * The explorer's EVM address page end to end: an address's transactions in both directions (sent,
 * received, and paid from inside a contract's call), paged newest to oldest and back through
 * Otterscan's ots_searchTransactionsBefore/After, and a contract's creator and creation transaction
 * (ots_getContractCreator), for a contract deployed by a transaction and for one a factory made
 * with CREATE inside a call.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { Interface } from 'ethers';
import { launchBrowser } from '../helpers/browser.ts';
import { killLeftovers } from '../helpers/cli-process.ts';
import { compileFixture } from '../helpers/evm.ts';
import { newPage, screenshot, startExplorerNode, waitForPage, type ExplorerNode } from '../helpers/explorer-e2e.ts';
import { rpc, waitFor } from '../helpers/node.ts';

const factory = compileFixture('Factory.sol', 'Factory');
const iface = new Interface(factory.abi as never);

let node: ExplorerNode;
let browser: Browser;
let page: Page & { errors: string[] };
let dev: { evm: { address: string }[] };

/** Sends from an unlocked dev account and waits for the receipt. */
async function send(tx: Record<string, string>): Promise<any> {
  const sent = await rpc(node.evmUrl, 'eth_sendTransaction', [tx]);
  assert.equal(sent.error, undefined, JSON.stringify(sent.error));
  return waitFor(async () => (await rpc(node.evmUrl, 'eth_getTransactionReceipt', [sent.result])).result, { what: 'the receipt', timeoutMs: 30_000 });
}

const rowHashes = async (p: Page) => p.$$eval('[data-evm-history] tr[data-evm-history-tx]', (rows) => rows.map((r) => r.getAttribute('data-evm-history-tx')));

describe('explorer: an EVM address page', { timeout: 180_000 }, () => {
  before(async () => {
    browser = await launchBrowser();
    node = await startExplorerNode();
    page = await newPage(browser);
    dev = (await rpc(node.rpcUrl, 'isthmus_getDevAccounts')).result;
  });
  after(async () => {
    await browser?.close();
    await node?.stop();
    killLeftovers();
  });

  test('a contract made inside a call shows its factory as creator; the history shows both directions and internal transfers', async () => {
    const [deployer, payee] = [dev.evm[0]!.address, dev.evm[1]!.address];
    const deployed = await send({ from: deployer, data: factory.bytecode });
    const factoryAddress = deployed.contractAddress as string;
    const made = await send({ from: deployer, to: factoryAddress, data: iface.encodeFunctionData('make', [7]) });
    const child = `0x${made.logs[0].data.slice(26)}`;
    const paid = await send({ from: deployer, to: factoryAddress, data: iface.encodeFunctionData('pay', [payee]), value: '0x3b9aca00' });
    const back = await send({ from: payee, to: deployer, value: '0x3b9aca00' });

    await page.goto(`${node.explorerUrl}evm/address/${child}`);
    await waitForPage(page, 'evm-address');
    await page.waitForSelector(`[data-evm-creator] a[href="/explorer/evm/address/${factoryAddress.toLowerCase()}"]`);
    assert.equal(await page.getAttribute('[data-evm-creation-tx]', 'href'), `/explorer/evm/tx/${made.transactionHash}`);
    // The child was touched only inside the factory's call.
    await page.waitForSelector(`[data-evm-history-tx="${made.transactionHash}"][data-direction="internal"]`);
    await screenshot(page, 'evm-address-created-by-factory');

    await page.goto(`${node.explorerUrl}evm/address/${factoryAddress}`);
    await waitForPage(page, 'evm-address');
    await page.waitForSelector(`[data-evm-creator] a[href="/explorer/evm/address/${deployer.toLowerCase()}"]`);
    assert.equal(await page.getAttribute('[data-evm-creation-tx]', 'href'), `/explorer/evm/tx/${deployed.transactionHash}`);
    await page.waitForSelector(`[data-evm-history-tx="${deployed.transactionHash}"][data-direction="in"]`);

    await page.goto(`${node.explorerUrl}evm/address/${payee}`);
    await waitForPage(page, 'evm-address');
    await page.waitForSelector(`[data-evm-history-tx="${back.transactionHash}"][data-direction="out"]`);
    await page.waitForSelector(`[data-evm-history-tx="${paid.transactionHash}"][data-direction="internal"]`);
    // An account has no creator row.
    assert.equal(await page.$('[data-evm-creator]'), null);
    const rpcPage = (await rpc(node.evmUrl, 'ots_searchTransactionsBefore', [payee, 0, 25])).result;
    assert.deepEqual(await rowHashes(page), rpcPage.txs.map((t: { hash: string }) => t.hash));
    await screenshot(page, 'evm-address-both-directions');
    assert.deepEqual(page.errors, []);
  });

  test('pages: newest to oldest and back, each as the node pages it', async () => {
    const [sender, receiver] = [dev.evm[2]!.address, dev.evm[3]!.address];
    const hashes: string[] = [];
    // One at a time: each in its own block, so the pages (whole blocks of 25) split the history.
    for (let i = 0; i < 28; i++) hashes.unshift((await send({ from: sender, to: receiver, value: '0x3b9aca00' })).transactionHash);
    const history = (await rpc(node.evmUrl, 'ots_searchTransactionsBefore', [receiver, 0, 100])).result.txs.map((t: { hash: string }) => t.hash);
    assert.deepEqual(history.slice(0, 28), hashes);

    await page.goto(`${node.explorerUrl}evm/address/${receiver}`);
    await waitForPage(page, 'evm-address');
    await page.waitForSelector(`[data-evm-history-tx="${hashes[0]}"]`);
    const first = await rowHashes(page);
    assert.deepEqual(first, history.slice(0, first.length));
    assert.ok(first.length >= 25 && first.length < history.length, `${first.length} of ${history.length}`);
    assert.ok(await page.isDisabled('[data-newer]'));
    assert.ok(await page.isDisabled('[data-newest]'));

    await page.click('[data-older]');
    await page.waitForSelector(`[data-evm-history-tx="${history[first.length]}"]`);
    const second = await rowHashes(page);
    assert.deepEqual(second, history.slice(first.length, first.length + second.length));
    await screenshot(page, 'evm-address-older-page');

    // The oldest page: nothing older.
    assert.ok(await page.isDisabled('[data-older]'));
    assert.ok(await page.isDisabled('[data-oldest]'));

    // Newer: after the newest block shown, back to the first page.
    await page.click('[data-newer]');
    await page.waitForSelector(`[data-evm-history-tx="${hashes[0]}"]`);
    assert.deepEqual(await rowHashes(page), first);
    assert.ok(await page.isDisabled('[data-newer]'));

    // Oldest: after block 0, the oldest 25 (whole blocks), newest first.
    await page.click('[data-oldest]');
    await page.waitForSelector(`[data-evm-history-tx="${history.at(-1)}"]`);
    const oldest = await rowHashes(page);
    assert.deepEqual(oldest, history.slice(history.length - oldest.length));
    assert.ok(await page.isDisabled('[data-oldest]'));
    assert.ok(await page.isEnabled('[data-newer]'));
    await page.click('[data-newest]');
    await page.waitForSelector(`[data-evm-history-tx="${hashes[0]}"]`);
    assert.deepEqual(page.errors, []);
  });
});
