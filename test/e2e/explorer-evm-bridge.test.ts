/**
 * The explorer's EVM pages and bridge wizard end to end: an EVM block page whose isFinalized badge
 * turns true while it is open, the wizard moving value both ways (RPC confirms the exact balances),
 * bad amounts caught before signing with nothing sent, what the node parsed (EVM instructions, the
 * transferToNative recipient, the revert reason) shown as the node gives it, and a node that does not
 * name its bridge getting no transfer built.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { killLeftovers } from '../helpers/cli-process.ts';
import { newPage, screenshot, startExplorerNode, waitForPage, type ExplorerNode } from '../helpers/explorer-e2e.ts';
import { rpc, waitFor } from '../helpers/node.ts';

let node: ExplorerNode;
let browser: Browser;
let page: Page & { errors: string[] };
let dev: { native: { address: string; secretKey: string }[]; evm: { address: string; privateKey: string }[] };
let info: { bridgeAddress: string; transferToNativeSelector: string; evmProgramId: string; evmStateAccount: string };

const lamportsOf = async (a: string) => BigInt((await rpc(node.rpcUrl, 'getBalance', [a, { commitment: 'finalized' }])).result.value);
const weiOf = async (a: string) => BigInt((await rpc(node.rpcUrl, 'eth_getBalance', [a, 'finalized'])).result);

async function fillWizard(p: Page, direction: 'to-evm' | 'to-native', sourceIndex: number, destIndex: number, amount: string, unit: string): Promise<void> {
  await p.goto(node.explorerUrl + 'bridge');
  await waitForPage(p, 'bridge');
  await p.check(`[data-direction="${direction}"]`);
  await p.selectOption('[data-source]', String(sourceIndex));
  await p.selectOption('[data-dest]', String(destIndex));
  await p.selectOption('[data-unit]', unit);
  await p.fill('[data-amount]', amount);
}

describe('explorer: EVM pages and the bridge wizard', { timeout: 150_000 }, () => {
  before(async () => {
    // A deep root, so an EVM block is seen before it is final (32 slots of 100 ms).
    // One after the other, so that a node that fails to start leaves a browser `after` can close.
    browser = await launchBrowser();
    node = await startExplorerNode(['--root-depth', '32']);
    page = await newPage(browser);
    dev = (await rpc(node.rpcUrl, 'isthmus_getDevAccounts')).result;
    info = (await rpc(node.rpcUrl, 'isthmus_getNodeInfo')).result;
  });
  after(async () => {
    await browser?.close();
    await node?.stop();
    killLeftovers();
  });

  test('an EVM block page shows isFinalized turning true by itself', async () => {
    // The page is opened on the next block before it exists: it waits for it, shows it not final, then final.
    const next = Number(BigInt((await rpc(node.rpcUrl, 'eth_blockNumber')).result)) + 1;
    await page.goto(`${node.explorerUrl}evm/block/${next}`);
    await page.waitForSelector('[data-page="evm-block"] [data-error]:has-text("does not exist yet")');
    // The dashboard, open beside it, gets the new EVM block pushed (eth_subscribe newHeads).
    const dashboard = await page.context().newPage();
    dashboard.on('pageerror', (e) => page.errors.push(`dashboard: ${e.message}`));
    await dashboard.goto(node.explorerUrl);
    await waitForPage(dashboard, 'dashboard');
    const hash = (await rpc(node.rpcUrl, 'eth_sendTransaction', [{ from: dev.evm[5]!.address, to: dev.evm[6]!.address, value: '0x2540be400' }])).result as string;
    const receipt = await waitFor(async () => (await rpc(node.rpcUrl, 'eth_getTransactionReceipt', [hash])).result, { what: 'the receipt', everyMs: 10 });
    assert.equal(Number(BigInt(receipt.blockNumber)), next);
    await page.waitForSelector('[data-finalized-badge="false"]');
    assert.equal(await page.textContent('[data-is-finalized]'), 'false');
    await screenshot(page, 'evm-block-not-final');
    await page.waitForSelector('[data-finalized-badge="true"]', { timeout: 15_000 });
    assert.equal(await page.textContent('[data-is-finalized]'), 'true');
    assert.equal((await rpc(node.rpcUrl, 'eth_getBlockByNumber', [receipt.blockNumber, false])).result.isFinalized, true);
    await screenshot(page, 'evm-block-final');
    const row = dashboard.locator('[data-latest-evm-blocks] tr', { has: dashboard.locator(`a[href="/explorer/evm/block/${next}"]`) });
    await row.waitFor();
    await dashboard.waitForSelector('[data-evm-live]');
    await row.locator('.badge:has-text("final")').waitFor();
    await screenshot(dashboard, 'dashboard-evm');
    await dashboard.close();

    await page.goto(`${node.explorerUrl}evm/blocks`);
    await waitForPage(page, 'evm-blocks');
    await page.waitForSelector(`[data-evm-blocks] a[href="/explorer/evm/block/${receipt.blockHash}"]`);
    await screenshot(page, 'evm-blocks');
  });

  test('bad amounts and insufficient balance are caught before signing, with nothing sent', async () => {
    const source = dev.native[7]!.address;
    const before = await lamportsOf(source);
    await fillWizard(page, 'to-evm', 7, 7, 'abc', 'token');
    assert.match((await page.textContent('[data-conversion]'))!, /"abc" is not a number/);
    await page.fill('[data-amount]', '1.0000000001');
    assert.match((await page.textContent('[data-conversion]'))!, /not a whole number of lamports/);
    await page.click('[data-continue]');
    await page.waitForSelector('[data-bridge-error]:has-text("whole number of lamports")');
    await page.fill('[data-amount]', '1000000');
    await page.click('[data-continue]');
    await page.waitForSelector('[data-bridge-error]:has-text("Insufficient balance")');
    assert.equal(await page.locator('[data-step="form"]').count(), 1);
    await screenshot(page, 'bridge-insufficient');

    await fillWizard(page, 'to-native', 7, 7, '5', 'wei');
    await page.click('[data-continue]');
    await page.waitForSelector('[data-bridge-error]:has-text("whole lamports")');
    await page.fill('[data-amount]', '0');
    await page.click('[data-continue]');
    await page.waitForSelector('[data-bridge-error]:has-text("more than zero")');
    assert.equal(await lamportsOf(source), before);
  });

  test('native → EVM: the wizard deposits from a dev account; balances move by exactly the amount and the fee', async () => {
    const from = dev.native[2]!.address;
    const to = dev.evm[3]!.address;
    const [nativeBefore, weiBefore] = await Promise.all([lamportsOf(from), weiOf(to)]);
    await fillWizard(page, 'to-evm', 2, 3, '2.5', 'token');
    assert.match((await page.textContent('[data-conversion]'))!, /2,500,000,000 lamports = 2,500,000,000,000,000,000 wei/);
    await page.click('[data-continue]');
    await page.waitForSelector('[data-step="review"]');
    assert.match((await page.textContent('[data-review] [data-fee]'))!, /5,000 lamports/);
    await screenshot(page, 'bridge-review');
    await page.click('[data-sign]');
    await page.waitForSelector('[data-step="progress"]');
    await page.waitForSelector('[data-bridge-done]', { timeout: 20_000 });
    await screenshot(page, 'bridge-to-evm-done');
    const [nativeAfter, weiAfter] = await Promise.all([lamportsOf(from), weiOf(to)]);
    assert.equal(nativeBefore - nativeAfter, 2_500_000_000n + 5_000n);
    assert.equal(weiAfter - weiBefore, 2_500_000_000n * 1_000_000_000n);
    // Both transactions are linked and open.
    const evmHref = await page.getAttribute('[data-evm-link]', 'href');
    await page.click('[data-native-link]');
    await waitForPage(page, 'transaction');
    assert.match((await page.textContent('[data-tx]'))!, new RegExp(evmHref!.split('/').pop()!));
    // Velas's three instructions, as the node parsed them (jsonParsed; the explorer parses nothing itself).
    assert.deepEqual(await page.locator('[data-instructions] > [data-instruction]').evaluateAll((els) => els.map((e) => e.getAttribute('data-instruction'))), ['assign', 'swapNativeToEvm', 'freeOwnership']);
    const signature = new URL(page.url()).pathname.split('/').pop()!;
    const parsed = (await rpc(node.rpcUrl, 'getTransaction', [signature, { encoding: 'jsonParsed', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }])).result;
    const swapInfo = parsed.transaction.message.instructions[1].parsed.info;
    assert.deepEqual(swapInfo, { evmStateAccount: info.evmStateAccount, fromNativeAccount: from, toEvmAccount: to.toLowerCase(), lamports: 2_500_000_000 });
    const shown = async (ix: string, key: string) => (await page.textContent(`[data-instruction="${ix}"] > table > tbody > [data-info-key="${key}"] > td`))!.trim();
    assert.equal(await shown('swapNativeToEvm', 'lamports'), '2500000000');
    assert.match(await shown('swapNativeToEvm', 'toEvmAccount'), new RegExp(to, 'i'));
    assert.match(await shown('swapNativeToEvm', 'fromNativeAccount'), new RegExp(from));
    assert.match(await shown('swapNativeToEvm', 'evmStateAccount'), /EVM State/);
    assert.match(await shown('freeOwnership', 'nativeAccount'), new RegExp(from));
    await page.goto(node.rpcUrl + evmHref!);
    await waitForPage(page, 'evm-transaction');
    assert.match((await page.textContent('[data-evm-status]'))!, /Success/);
  });

  test('EVM → native: the wizard calls transferToNative from an unlocked dev account; balances move exactly', async () => {
    const from = dev.evm[4]!.address;
    const to = dev.native[5]!.address;
    const [weiBefore, nativeBefore] = await Promise.all([weiOf(from), lamportsOf(to)]);
    await fillWizard(page, 'to-native', 4, 5, '1250000000', 'lamports');
    assert.match((await page.textContent('[data-conversion]'))!, /= 1\.25 VLX/);
    await page.click('[data-continue]');
    await page.waitForSelector('[data-step="review"]');
    assert.match((await page.textContent('[data-review] [data-fee]'))!, /gas/);
    await page.click('[data-sign]');
    await page.waitForSelector('[data-bridge-done]', { timeout: 20_000 });
    await screenshot(page, 'bridge-to-native-done');
    const hash = (await page.getAttribute('[data-evm-link]', 'href'))!.split('/').pop()!;
    const receipt = (await rpc(node.rpcUrl, 'eth_getTransactionReceipt', [hash])).result;
    const gasCost = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
    const [weiAfter, nativeAfter] = await Promise.all([weiOf(from), lamportsOf(to)]);
    assert.equal(nativeAfter - nativeBefore, 1_250_000_000n);
    assert.equal(weiBefore - weiAfter, 1_250_000_000n * 1_000_000_000n + gasCost);
    assert.ok(await page.locator('[data-bridge-history] tr').count() >= 2);

    // The native transaction that carried it: the EVM program's instruction as the node parsed it.
    await page.click('[data-native-link]');
    await waitForPage(page, 'transaction');
    const ix = page.locator('[data-instruction="evmTransaction"]');
    assert.equal(await ix.locator('[data-evm-tx-link]').textContent(), hash);
    const field = async (key: string) => (await ix.locator(`[data-info-key="transaction"] [data-info-key="${key}"] > td`).first().textContent())!.trim();
    assert.match(await field('from'), new RegExp(from, 'i'));
    assert.equal(await field('to'), 'Bridge (transferToNative)');
    assert.equal(await field('value'), `0x${(1_250_000_000n * 1_000_000_000n).toString(16)}`);
    assert.match(await field('nativeRecipient'), new RegExp(to));
    assert.equal(await field('lamports'), `0x${(1_250_000_000n).toString(16)}`);
    await screenshot(page, 'transaction-evm-parsed');
    // The EVM transaction's page shows the node's decoded recipient.
    await page.locator('[data-evm-tx-link]').click();
    await waitForPage(page, 'evm-transaction');
    assert.match((await page.textContent('[data-transfer-to-native]'))!, new RegExp(`transferToNative → ${to}[\\s\\S]*1,250,000,000 lamports`));
    assert.deepEqual(page.errors, []);
  });
  test('imported keys: a pasted native keypair deposits, a pasted EVM private key calls transferToNative (signed in the page)', async () => {
    const nativeFrom = dev.native[8]!.address;
    const evmTo = dev.evm[8]!.address;
    const [nBefore, wBefore] = await Promise.all([lamportsOf(nativeFrom), weiOf(evmTo)]);
    await fillWizard(page, 'to-evm', 0, 8, '0.75', 'token');
    await page.check('input[value="key"]');
    const bytes = JSON.stringify(Array.from((await import('bs58')).default.decode(dev.native[8]!.secretKey)));
    await page.fill('[data-key]', bytes);
    await page.click('[data-continue]');
    await page.waitForSelector('[data-step="review"]');
    assert.match((await page.textContent('[data-review]'))!, new RegExp(nativeFrom));
    await page.click('[data-sign]');
    await page.waitForSelector('[data-bridge-done]', { timeout: 20_000 });
    const [nAfter, wAfter] = await Promise.all([lamportsOf(nativeFrom), weiOf(evmTo)]);
    assert.equal(nBefore - nAfter, 750_000_000n + 5_000n);
    assert.equal(wAfter - wBefore, 750_000_000n * 1_000_000_000n);

    const evmFrom = dev.evm[9]!.address;
    const nativeTo = dev.native[9]!.address;
    const [w2Before, n2Before] = await Promise.all([weiOf(evmFrom), lamportsOf(nativeTo)]);
    await fillWizard(page, 'to-native', 0, 9, '0.5', 'token');
    await page.check('input[value="key"]');
    await page.fill('[data-key]', dev.evm[9]!.privateKey);
    await page.click('[data-continue]');
    await page.waitForSelector('[data-step="review"]');
    assert.match((await page.textContent('[data-review]'))!, new RegExp(evmFrom));
    await page.click('[data-sign]');
    await page.waitForSelector('[data-bridge-done]', { timeout: 20_000 });
    const hash = (await page.getAttribute('[data-evm-link]', 'href'))!.split('/').pop()!;
    const receipt = (await rpc(node.rpcUrl, 'eth_getTransactionReceipt', [hash])).result;
    assert.equal(receipt.from, evmFrom);
    const [w2After, n2After] = await Promise.all([weiOf(evmFrom), lamportsOf(nativeTo)]);
    assert.equal(n2After - n2Before, 500_000_000n);
    assert.equal(w2Before - w2After, 500_000_000n * 1_000_000_000n + BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice));
    await screenshot(page, 'bridge-imported-key-done');
    assert.deepEqual(page.errors, []);
  });
  test('EVM → native from an injected browser wallet (a stand-in EIP-1193 provider that relays to the node)', async () => {
    const from = dev.evm[7]!.address;
    const to = dev.native[6]!.address;
    const walletPage = await newPage(browser);
    // The stand-in answers eth_requestAccounts with one account and relays the rest to the node, where that account is unlocked.
    await walletPage.addInitScript(`window.__walletCalls = []; window.ethereum = { request: async ({ method, params }) => {
      window.__walletCalls.push(method);
      if (method === 'eth_requestAccounts' || method === 'eth_accounts') return ['${from}'];
      const r = await fetch('${node.rpcUrl}', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: params || [] }) });
      const j = await r.json();
      if (j.error) throw Object.assign(new Error(j.error.message), { code: j.error.code });
      return j.result;
    } };`);
    const [wBefore, nBefore] = await Promise.all([weiOf(from), lamportsOf(to)]);
    await fillWizard(walletPage, 'to-native', 0, 6, '300000000', 'lamports');
    await walletPage.check('input[value="wallet"]');
    await walletPage.click('text=Connect wallet');
    await walletPage.waitForSelector('text=Connected');
    await walletPage.click('[data-continue]');
    await walletPage.waitForSelector('[data-step="review"]');
    assert.match((await walletPage.textContent('[data-review]'))!, new RegExp(from));
    await walletPage.click('[data-sign]');
    await walletPage.waitForSelector('[data-bridge-done]', { timeout: 20_000 });
    const calls = (await walletPage.evaluate('window.__walletCalls')) as string[];
    assert.ok(calls.includes('eth_sendTransaction') && calls.includes('eth_chainId'), calls.join());
    const hash = (await walletPage.getAttribute('[data-evm-link]', 'href'))!.split('/').pop()!;
    const receipt = (await rpc(node.rpcUrl, 'eth_getTransactionReceipt', [hash])).result;
    const [wAfter, nAfter] = await Promise.all([weiOf(from), lamportsOf(to)]);
    assert.equal(nAfter - nBefore, 300_000_000n);
    assert.equal(wBefore - wAfter, 300_000_000n * 1_000_000_000n + BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice));
    await screenshot(walletPage, 'bridge-wallet-done');
    assert.deepEqual(walletPage.errors, []);
    await walletPage.context().close();
  });
  test('a reverted EVM transaction shows its status and the revert reason the node decoded', async () => {
    const recipient = (await import('bs58')).default.decode(dev.native[0]!.address);
    const data = info.transferToNativeSelector + Buffer.from(recipient).toString('hex');
    // 5 wei is not a whole number of lamports: the bridge precompile reverts with a reason.
    const hash = (await rpc(node.rpcUrl, 'eth_sendTransaction', [{ from: dev.evm[2]!.address, to: info.bridgeAddress, value: '0x5', data, gas: '0x30d40' }])).result as string;
    assert.ok(hash, 'sent');
    const receipt = await waitFor(async () => (await rpc(node.rpcUrl, 'eth_getTransactionReceipt', [hash])).result, { what: 'the receipt' });
    assert.equal(receipt.status, '0x0');
    assert.equal(receipt.revertReasonText, 'transferToNative: value 5 wei is not a whole number of lamports (1 lamport = 10^9 wei)');
    await page.goto(`${node.explorerUrl}evm/tx/${hash}`);
    await waitForPage(page, 'evm-transaction');
    assert.match((await page.textContent('[data-evm-status]'))!, /Reverted/);
    assert.equal(await page.textContent('[data-revert-reason]'), receipt.revertReasonText);
    assert.equal(await page.textContent('[data-revert-data]'), receipt.revertReason);
    assert.match((await page.textContent('[data-transfer-to-native]'))!, new RegExp(`transferToNative → ${dev.native[0]!.address}[\\s\\S]*not a whole number of lamports`));
    await screenshot(page, 'evm-transaction-reverted');
  });

  test('a node that does not name its bridge: the wizard says so and builds nothing', async () => {
    // This node behind a proxy that answers isthmus_* as a plain Solana/Velas node does: method not found.
    const proxy = http.createServer(async (req, res) => {
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('access-control-allow-headers', 'content-type');
      if (req.method !== 'POST') return res.end();
      let body = '';
      for await (const chunk of req) body += chunk;
      const one = async (r: { id: unknown; method: string }) =>
        r.method.startsWith('isthmus_')
          ? { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: 'Method not found' } }
          : (await fetch(node.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(r) })).json();
      const parsed = JSON.parse(body);
      const answer = Array.isArray(parsed) ? await Promise.all(parsed.map(one)) : await one(parsed);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer));
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const proxied = await newPage(browser);
    try {
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
      const source = dev.native[3]!;
      const before = await lamportsOf(source.address);
      await proxied.goto(`${node.explorerUrl}bridge?rpc=${encodeURIComponent(proxyUrl)}`);
      await waitForPage(proxied, 'bridge');
      assert.match((await proxied.textContent('[data-no-bridge]'))!, /This node does not tell its bridge: it answers no isthmus_getNodeInfo/);
      // Even with a key and an amount, nothing is built or sent.
      await proxied.check('input[value="key"]');
      await proxied.fill('[data-key]', JSON.stringify(Array.from((await import('bs58')).default.decode(source.secretKey))));
      await proxied.fill('[data-dest-custom]', dev.evm[3]!.address);
      await proxied.fill('[data-amount]', '1');
      await proxied.click('[data-continue]');
      await proxied.waitForSelector('[data-bridge-error]:has-text("does not tell its bridge")');
      assert.equal(await proxied.locator('[data-step="review"]').count(), 0);
      await screenshot(proxied, 'bridge-no-node-info');
      assert.equal(await lamportsOf(source.address), before);
      assert.deepEqual(proxied.errors, []);
    } finally {
      await proxied.context().close();
      await new Promise((r) => proxy.close(r));
    }
  });
});
