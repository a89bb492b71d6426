/**
 * Every page against a node started with --reset and against one with a long history (100,000 slots,
 * made by test/helpers/long-ledger.ts), and the visible, self-healing state when the node goes away:
 * an RPC error or a dropped WebSocket shows on the page (never a blank one) and it recovers by itself
 * once the node is back.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { freePorts, killLeftovers, ROOT } from '../helpers/cli-process.ts';
import { newPage, screenshot, startExplorerNode, statusNumber, waitForPage, type ExplorerNode } from '../helpers/explorer-e2e.ts';
import { rpc, tempLedger, waitFor } from '../helpers/node.ts';

let browser: Browser;
const LONG_LEDGER_HELPER = path.join(ROOT, 'test/helpers/long-ledger.ts');

interface Keys {
  slot: number;
  signature: string;
  address: string;
  evmHash: string;
  evmBlock: number;
  evmAddress: string;
}

/**
 * The long-ledger template is made once per machine; when another test file (the long-ledger
 * integration test) is making it right now, wait for that instead of making a second one beside it.
 */
async function templateBuiltElsewhere(slots: number): Promise<void> {
  // A maker that is alive keeps writing its store; a folder left by a killed run goes quiet.
  const newestWrite = (dir: string): number => {
    let m = 0;
    for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (e.isFile()) m = Math.max(m, fs.statSync(path.join(e.parentPath, e.name)).mtimeMs);
    }
    return m;
  };
  const building = () =>
    fs.readdirSync(os.tmpdir()).some((n) => n.startsWith(`isthmus-long-ledger-${slots}-`) && n.includes('.building-') && Date.now() - newestWrite(path.join(os.tmpdir(), n)) < 20_000);
  const end = Date.now() + 240_000;
  while (building() && Date.now() < end) await new Promise((r) => setTimeout(r, 1_000));
}

/** Makes one key of each kind on the node: an airdrop and an EVM transfer. */
async function makeKeys(node: ExplorerNode): Promise<Keys> {
  const dev = (await rpc(node.rpcUrl, 'isthmus_getDevAccounts')).result;
  const address = dev.native[0].address;
  const signature = (await rpc(node.rpcUrl, 'requestAirdrop', [address, 1_000_000_000])).result;
  const evmHash = (await rpc(node.rpcUrl, 'eth_sendTransaction', [{ from: dev.evm[0].address, to: dev.evm[1].address, value: '0x3b9aca00' }])).result;
  const receipt = await waitFor(async () => (await rpc(node.rpcUrl, 'eth_getTransactionReceipt', [evmHash])).result, { what: 'receipt' });
  const tx = await waitFor(async () => (await rpc(node.rpcUrl, 'getTransaction', [signature, { commitment: 'confirmed' }])).result, { what: 'airdrop' });
  return { slot: tx.slot, signature, address, evmHash, evmBlock: Number(BigInt(receipt.blockNumber)), evmAddress: dev.evm[1].address };
}

const PAGES = (k: Keys): [string, string][] => [
  ['', 'dashboard'],
  [`block/${k.slot}`, 'block'],
  [`tx/${k.signature}`, 'transaction'],
  [`address/${k.address}`, 'account'],
  ['evm/blocks', 'evm-blocks'],
  [`evm/block/${k.evmBlock}`, 'evm-block'],
  [`evm/tx/${k.evmHash}`, 'evm-transaction'],
  [`evm/address/${k.evmAddress}`, 'evm-address'],
  ['dev', 'dev-accounts'],
  ['validators', 'validators'],
  ['supply', 'supply'],
  ['bridge', 'bridge'],
];

/** Opens every page, each must render its data with no error shown; returns ms to each first render. */
async function visitAll(page: Page & { errors: string[] }, node: ExplorerNode, keys: Keys, prefix: string): Promise<Record<string, number>> {
  const times: Record<string, number> = {};
  for (const [route, name] of PAGES(keys)) {
    const t = Date.now();
    await page.goto(node.explorerUrl + route);
    await waitForPage(page, name);
    times[name] = Date.now() - t;
    const errors = await page.locator('[data-error]').allTextContents();
    assert.deepEqual(errors, [], `${name} shows an error`);
    await screenshot(page, `${prefix}-${name}`);
  }
  assert.deepEqual(page.errors, []);
  return times;
}

describe('explorer: --reset, long history, and a node that goes away', { timeout: 420_000 }, () => {
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    killLeftovers();
  });

  test('every page works on a node started with --reset; a stopped node shows a visible state and the page recovers by itself', async () => {
    const ledger = tempLedger();
    const ports = await freePorts(3);
    let node = await startExplorerNode([], { ledger, ports });
    const oldGenesis = (await rpc(node.rpcUrl, 'getGenesisHash')).result;
    await makeKeys(node);
    await node.stop({ keepLedger: true });
    node = await startExplorerNode(['--reset'], { ledger, ports });
    try {
      assert.notEqual((await rpc(node.rpcUrl, 'getGenesisHash')).result, oldGenesis);
      const keys = await makeKeys(node);
      const page = await newPage(browser);
      await visitAll(page, node, keys, 'reset');

      // Errors the node answers are shown on the page, which keeps looking.
      const unknownSig = '5'.repeat(87);
      await page.goto(`${node.explorerUrl}tx/${unknownSig}`);
      await page.waitForSelector('[data-page="transaction"] [data-error]:has-text("not found")');
      await page.goto(`${node.explorerUrl}block/999999999`);
      await page.waitForSelector('[data-page="block"] [data-error]:has-text("not confirmed yet")');
      await page.goto(`${node.explorerUrl}evm/block/0x${'ab'.repeat(32)}`);
      await page.waitForSelector('[data-page="evm-block"] [data-error]:has-text("No EVM block")');
      await screenshot(page, 'error-evm-block');

      // The node goes away under an open block page.
      await page.goto(`${node.explorerUrl}block/${keys.slot}`);
      await waitForPage(page, 'block');
      await node.stop({ keepLedger: true });
      await page.waitForSelector('[data-offline]', { timeout: 10_000 });
      await page.waitForSelector('[data-socket-state]', { timeout: 10_000 });
      assert.equal(await page.locator('[data-page="block"]').count(), 1, 'the page stays');
      await screenshot(page, 'node-down');
      // A page opened while the node is down shows the error, then loads once it is back.
      await page.evaluate("history.pushState(null, '', '/explorer/dev'); dispatchEvent(new PopStateEvent('popstate'));");
      await page.waitForSelector('[data-page="dev-accounts"] [data-error]', { timeout: 10_000 });

      node = await startExplorerNode([], { ledger, ports });
      await waitForPage(page, 'dev-accounts', 20_000);
      await page.waitForSelector('[data-offline]', { state: 'detached', timeout: 10_000 });
      await page.waitForSelector('[data-socket-state]', { state: 'detached', timeout: 15_000 });
      const slot = await statusNumber(page, 'data-slot');
      await waitFor(async () => (await statusNumber(page, 'data-slot')) > slot + 2, { what: 'the status bar to move after the restart' });
      await screenshot(page, 'node-back');
      assert.deepEqual(page.errors, []);
      await page.context().close();
    } finally {
      await node.stop();
      fs.rmSync(ledger, { recursive: true, force: true });
    }
  });

  test('every page works on a ledger with 100,000 slots, as fast as on a new one', async (t) => {
    if (!fs.existsSync(LONG_LEDGER_HELPER)) return t.skip('test/helpers/long-ledger.ts (the desktop helper) is not on this branch yet');
    const { copyOfLongLedger } = (await import(pathToFileURL(LONG_LEDGER_HELPER).href)) as {
      copyOfLongLedger(slots: number, o?: { progress?: (s: number) => void }): Promise<{ dir: string; lastSlot: number; recipients: string[] }>;
    };
    await templateBuiltElsewhere(100_000);
    const long = await copyOfLongLedger(100_000);
    const node = await startExplorerNode([], { ledger: long.dir });
    try {
      const keys = await makeKeys(node);
      const page = await newPage(browser);
      const times = await visitAll(page, node, keys, 'long');
      // An old block and a recipient with thousands of signatures, paged through the RPC.
      await page.goto(`${node.explorerUrl}block/50000`);
      await waitForPage(page, 'block');
      assert.ok(Number(await page.textContent('[data-block] [data-tx-count]')) >= 0);
      await page.goto(`${node.explorerUrl}address/${long.recipients[1]}`);
      await waitForPage(page, 'account');
      assert.equal(await page.locator('[data-history] tbody tr').count(), 25);
      const firstSig = await page.locator('[data-history] tbody tr a').first().getAttribute('href');
      await page.click('[data-older]');
      await waitFor(async () => (await page.locator('[data-history] tbody tr a').first().getAttribute('href')) !== firstSig, { what: 'the next page of history' });
      await screenshot(page, 'long-account-page-2');
      for (const [name, ms] of Object.entries(times)) assert.ok(ms < 5_000, `${name} took ${ms} ms on the long ledger`);
      t.diagnostic(`first render on 100,000 slots (ms): ${JSON.stringify(times)}`);
      await page.context().close();
    } finally {
      await node.stop();
      fs.rmSync(path.dirname(long.dir), { recursive: true, force: true });
    }
  });
});
