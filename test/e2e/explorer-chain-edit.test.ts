/**
 * The explorer's "Edit account" (native) and "Set balance" (EVM) on account pages, in Debian's
 * Chromium against `isthmus start`: shown when the node allows chain control (a loopback bind), the
 * edit landing through surfnet_setAccount / anvil_setBalance and the page showing it, malformed data
 * refused with the node's message and nothing changed; hidden on a node bound to 0.0.0.0 without
 * --allow-chain-control.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@solana/web3.js';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { killLeftovers } from '../helpers/cli-process.ts';
import { newPage, screenshot, startExplorerNode, waitForPage, type ExplorerNode } from '../helpers/explorer-e2e.ts';
import { rpc, waitFor } from '../helpers/node.ts';

describe('explorer: chain-control edits on account pages', { timeout: 180_000 }, () => {
  let node: ExplorerNode;
  let browser: Browser;
  let page: Page & { errors: string[] };

  before(async () => {
    browser = await launchBrowser();
    node = await startExplorerNode();
    page = await newPage(browser);
  });
  after(async () => {
    await browser?.close();
    await node?.stop();
    killLeftovers();
  });

  test('native: Edit account sets balance and data; malformed data gets the node\'s error and changes nothing', async () => {
    const address = Keypair.generate().publicKey.toBase58();
    await page.goto(`${node.explorerUrl}address/${address}`);
    await waitForPage(page, 'account');
    await page.click('[data-chain-edit="native"] summary');
    await page.fill('[data-edit-balance]', '2.5');
    await page.fill('[data-edit-data]', 'cafe');
    await page.click('[data-edit-submit]');
    await page.waitForSelector('[data-edit-done]');
    await waitFor(async () => /2\.5 VLX/.test((await page.textContent('[data-balance]')) ?? ''), { what: 'the new balance on the page' });
    const info = (await rpc(node.rpcUrl, 'getAccountInfo', [address, { encoding: 'base64', commitment: 'confirmed' }])).result.value;
    assert.equal(info.lamports, 2_500_000_000);
    assert.equal(Buffer.from(info.data[0], 'base64').toString('hex'), 'cafe');
    await screenshot(page, 'chain-edit-native');

    await page.fill('[data-edit-balance]', '9');
    await page.fill('[data-edit-data]', 'zz');
    await page.click('[data-edit-submit]');
    const error = await page.waitForSelector('[data-edit-error]');
    assert.match((await error.textContent())!, /Invalid hex data/);
    const after = (await rpc(node.rpcUrl, 'getAccountInfo', [address, { encoding: 'base64', commitment: 'processed' }])).result.value;
    assert.equal(after.lamports, 2_500_000_000);
    assert.deepEqual(page.errors, []);
  });

  test('EVM: Set balance sets the balance the page shows', async () => {
    const address = '0x00000000000000000000000000000000000ed171';
    await page.goto(`${node.explorerUrl}evm/address/${address}`);
    await waitForPage(page, 'evm-address');
    await page.click('[data-chain-edit="evm"] summary');
    await page.fill('[data-edit-balance]', '3');
    await page.click('[data-edit-submit]');
    await page.waitForSelector('[data-edit-done]');
    await waitFor(async () => /^3 VLX/.test(((await page.textContent('[data-evm-balance]')) ?? '').trim()), { what: 'the new EVM balance on the page' });
    assert.equal((await rpc(node.evmUrl, 'eth_getBalance', [address, 'latest'])).result, `0x${(3n * 10n ** 18n).toString(16)}`);
    await screenshot(page, 'chain-edit-evm');
    assert.deepEqual(page.errors, []);
  });

  test('hidden on a node that does not allow chain control', async () => {
    const open = await startExplorerNode(['--bind-address', '0.0.0.0']);
    try {
      const address = Keypair.generate().publicKey.toBase58();
      const other = await newPage(browser);
      await other.goto(`${open.explorerUrl.replace('0.0.0.0', '127.0.0.1')}address/${address}`);
      await waitForPage(other, 'account');
      await waitFor(async () => (await rpc(open.rpcUrl, 'isthmus_getNodeInfo')).result.chainControlAllowed === false, { what: 'the node info' });
      assert.equal(await other.$('[data-chain-edit]'), null);
      await other.close();
    } finally {
      await open.stop();
    }
  });
});
