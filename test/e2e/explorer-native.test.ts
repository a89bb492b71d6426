/**
 * The explorer end to end, as a new user meets it: `isthmus start` (what `npm start` runs) on free
 * ports, the page it prints opened in Debian's Chromium. Status bar, dashboard, dev accounts (airdrop,
 * reveal, Add to MetaMask), a @solana/web3.js transfer appearing live with its parsed instruction and
 * logs, and the search box for every kind of key. Screenshots go to test-artifacts/explorer/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { freePorts, killLeftovers } from '../helpers/cli-process.ts';
import { newPage, screenshot, startExplorerNode, statusNumber, waitForPage, type ExplorerNode } from '../helpers/explorer-e2e.ts';
import { rpc, waitFor } from '../helpers/node.ts';

let node: ExplorerNode;
let browser: Browser;
let page: Page & { errors: string[] };
let dev: { native: { address: string; secretKey: string }[]; evm: { address: string; privateKey: string }[] };

async function confirmed(conn: Connection, signature: string): Promise<void> {
  await waitFor(async () => {
    const s = (await conn.getSignatureStatuses([signature])).value[0];
    if (s?.err) throw new Error(`transaction failed: ${JSON.stringify(s.err)}`);
    return s?.confirmationStatus === 'confirmed' || s?.confirmationStatus === 'finalized';
  }, { what: `confirmation of ${signature}` });
}

async function search(p: Page, text: string, suggestion?: string): Promise<void> {
  await p.fill('[data-search]', text);
  if (suggestion) await p.click(`[data-suggestion="${suggestion}"]`);
  else await p.press('[data-search]', 'Enter');
}

describe('explorer: native pages, status bar, dev accounts, search', { timeout: 120_000 }, () => {
  before(async () => {
    // One after the other, so that a node that fails to start leaves a browser `after` can close.
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

  test('the start banner prints the explorer URL and the node serves it with a CSP', async () => {
    assert.equal(node.explorerUrl, `${node.rpcUrl}/explorer/`);
    assert.doesNotMatch(node.banner, /not built yet/);
    const res = await fetch(node.explorerUrl);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /text\/html/);
    assert.match(res.headers.get('content-security-policy')!, /script-src 'self'/);
    const html = await res.text();
    const asset = /src="(\/explorer\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(node.rpcUrl + asset);
    assert.match(js.headers.get('content-type')!, /text\/javascript/);
    // Client routes answer the app; files outside the folder are never served.
    assert.equal((await fetch(`${node.rpcUrl}/explorer/block/5`)).status, 200);
    assert.equal((await fetch(`${node.rpcUrl}/explorer/assets/missing.js`)).status, 404);
    assert.equal((await fetch(`${node.rpcUrl}/explorer/..%2f..%2fpackage.json`)).status, 404);
    assert.equal((await fetch(`${node.rpcUrl}/explorer`, { redirect: 'manual' })).status, 301);
    const info = (await rpc(node.rpcUrl, 'isthmus_getNodeInfo')).result;
    assert.equal(info.evmRpcUrl, node.evmUrl);
    assert.equal(info.pubsubUrl, node.pubsubUrl);
    assert.equal(info.evmChainId, 5705);
    assert.equal(dev.native.length, 10);
    assert.equal(dev.evm.length, 10);
  });

  test('the dashboard renders and the status bar moves', async () => {
    await page.goto(node.explorerUrl);
    await waitForPage(page, 'dashboard');
    await page.waitForSelector('[data-status-bar] [data-slot]:not(:text("–"))');
    const first = await statusNumber(page, 'data-slot');
    await waitFor(async () => (await statusNumber(page, 'data-slot')) > first + 3, { what: 'the status bar slot to move', timeoutMs: 5_000 });
    assert.equal(await page.textContent('[data-status-bar] [data-chain-id]'), '5705');
    assert.equal(await page.textContent('[data-status-bar] [data-health]'), 'ok');
    const finalized = await statusNumber(page, 'data-finalized');
    const confirmedSlot = await statusNumber(page, 'data-confirmed');
    assert.ok(finalized <= confirmedSlot && confirmedSlot <= (await statusNumber(page, 'data-slot')));
    await page.waitForSelector('[data-live]', { timeout: 5_000 });
    await screenshot(page, 'dashboard');
    assert.deepEqual(page.errors, []);
  });

  test('dev accounts: airdrop from the page, reveal a key, Add to MetaMask', async () => {
    // A stand-in wallet records what the page asks of it.
    await page.addInitScript('window.__walletCalls = []; window.ethereum = { request: async (a) => (window.__walletCalls.push(a), null) };');
    await page.goto(node.explorerUrl + 'dev');
    await waitForPage(page, 'dev-accounts');
    const target = dev.native[3]!.address;
    const before = (await rpc(node.rpcUrl, 'getBalance', [target, { commitment: 'confirmed' }])).result.value;
    const row = page.locator(`[data-dev-native="${target}"]`);
    await row.locator('[data-airdrop]').click();
    await row.locator('[data-airdrop-state]:has-text("confirmed")').waitFor();
    const after = (await rpc(node.rpcUrl, 'getBalance', [target, { commitment: 'confirmed' }])).result.value;
    assert.equal(after - before, LAMPORTS_PER_SOL);
    await waitFor(async () => (await row.locator('[data-dev-balance]').textContent()) === '100,001', { what: 'the new balance on the page' });

    const evmRow = page.locator(`[data-dev-evm="${dev.evm[0]!.address}"]`);
    assert.equal(await evmRow.locator('text=' + dev.evm[0]!.privateKey).count(), 0);
    await evmRow.locator('[data-reveal]').click();
    await evmRow.locator('text=' + dev.evm[0]!.privateKey).waitFor();

    await page.click('[data-add-metamask]');
    await page.waitForSelector('[data-wallet-msg]:has-text("added")');
    const calls = await page.evaluate('window.__walletCalls') as any[];
    assert.equal(calls[0].method, 'wallet_addEthereumChain');
    const p = calls[0].params[0];
    assert.equal(p.chainId, '0x1649');
    assert.equal(p.nativeCurrency.decimals, 18);
    assert.deepEqual(p.rpcUrls, [node.evmUrl]);
    await screenshot(page, 'dev-accounts');
  });

  let transferSig = '';
  let receiver = '';
  test('a transfer made with @solana/web3.js appears live; its page shows the parsed instruction and the logs', async () => {
    await page.goto(node.explorerUrl);
    await waitForPage(page, 'dashboard');
    const conn = new Connection(node.rpcUrl, 'confirmed');
    const payer = Keypair.fromSecretKey(bs58.decode(dev.native[1]!.secretKey));
    receiver = Keypair.generate().publicKey.toBase58();
    const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: new PublicKey(receiver), lamports: 1_234_567 }));
    transferSig = await conn.sendTransaction(tx, [payer]);
    // Pushed by PubSub onto the dashboard without a reload.
    await page.waitForSelector(`[data-latest-txs] a[href="/explorer/tx/${transferSig}"]`, { timeout: 10_000 });
    await screenshot(page, 'dashboard-live-tx');
    await page.click(`[data-latest-txs] a[href="/explorer/tx/${transferSig}"]`);
    await waitForPage(page, 'transaction');
    await confirmed(conn, transferSig);
    assert.equal(await page.getAttribute('[data-instructions] [data-instruction]', 'data-instruction'), 'transfer');
    const ixText = await page.textContent('[data-instructions]');
    assert.match(ixText!, /System Program: transfer/);
    assert.match(ixText!, /1234567/);
    assert.match(ixText!, new RegExp(receiver));
    const logs = await page.textContent('[data-logs]');
    assert.match(logs!, /Program 11111111111111111111111111111111 invoke \[1\]/);
    assert.match(logs!, /Program 11111111111111111111111111111111 success/);
    assert.match((await page.textContent('[data-tx-status]'))!, /Success/);
    assert.match((await page.textContent('[data-fee]'))!, /5,000 lamports/);
    assert.match((await page.textContent('[data-accounts]'))!, /\+0\.001234567/);
    // The confirmation status turns finalized on the page by itself.
    await page.waitForSelector('[data-confirmation]:has-text("finalized")', { timeout: 10_000 });
    await screenshot(page, 'transaction');
  });

  test('search goes straight to the page of each kind of key', async () => {
    // An EVM transaction for the 0x keys: a dev account pays a plain transfer.
    const to = '0x000000000000000000000000000000000000dead';
    const hash = (await rpc(node.rpcUrl, 'eth_sendTransaction', [{ from: dev.evm[0]!.address, to, value: '0x3b9aca00' }])).result as string;
    const receipt = await waitFor(async () => (await rpc(node.rpcUrl, 'eth_getTransactionReceipt', [hash])).result, { what: 'the EVM receipt' });
    const evmBlock = Number(BigInt(receipt.blockNumber));

    const slot = (await rpc(node.rpcUrl, 'getSlot', [{ commitment: 'confirmed' }])).result - 2;
    await search(page, String(slot));
    await waitForPage(page, 'block');
    assert.match(page.url(), new RegExp(`/explorer/block/${slot}$`));
    // An idle block holds the validator's vote; "Hide votes" leaves it out.
    const blockTxs = (await rpc(node.rpcUrl, 'getBlock', [slot, { transactionDetails: 'signatures', rewards: false, commitment: 'confirmed', maxSupportedTransactionVersion: 0 }])).result.signatures as string[];
    await page.waitForSelector('[data-block-txs] tbody tr');
    assert.equal(await page.locator('[data-block-txs] tbody tr').count(), blockTxs.length);
    await page.check('[data-hide-votes]');
    await page.waitForSelector('[data-votes-hidden]');
    assert.equal(await page.locator('[data-block-txs] tbody tr').count(), blockTxs.length - 1);
    await page.uncheck('[data-hide-votes]');
    await screenshot(page, 'block');

    await search(page, transferSig);
    await waitForPage(page, 'transaction');
    assert.ok(page.url().endsWith(`/tx/${transferSig}`));

    await search(page, receiver);
    await waitForPage(page, 'account');
    assert.match((await page.textContent('[data-balance]'))!, /0\.001234567/);
    await page.waitForSelector(`[data-history] a[href="/explorer/tx/${transferSig}"]`);
    await screenshot(page, 'account');
    // A label is kept in IndexedDB and names the account wherever it is linked, after a reload too.
    await page.fill('[data-label]', 'My receiver');
    await page.press('[data-label]', 'Tab');
    await page.waitForSelector('[data-label][data-label-saved="My receiver"] ~ [data-label-kept]');
    await page.goto(`${node.explorerUrl}tx/${transferSig}`);
    await waitForPage(page, 'transaction');
    await page.waitForSelector(`[data-accounts] a[href="/explorer/address/${receiver}"]:has-text("My receiver")`);

    await search(page, to);
    await waitForPage(page, 'evm-address');
    assert.match((await page.textContent('[data-evm-balance]'))!, /1,000,000,000 wei/);
    await page.waitForSelector(`[data-evm-history] a[href="/explorer/evm/tx/${hash}"]`);
    await screenshot(page, 'evm-address');

    await search(page, hash);
    await waitForPage(page, 'evm-transaction');
    assert.ok(page.url().endsWith(`/evm/tx/${hash}`));
    assert.match((await page.textContent('[data-evm-value]'))!, /1,000,000,000 wei = 1 lamports/);
    await screenshot(page, 'evm-transaction');

    await search(page, String(evmBlock), 'evm-block-number');
    await waitForPage(page, 'evm-block');
    assert.ok(page.url().endsWith(`/evm/block/${evmBlock}`));
    await page.waitForSelector(`[data-evm-block-txs] a[href="/explorer/evm/tx/${hash}"]`);
    await page.waitForSelector('[data-evm-block-txs] .badge:has-text("success")');

    await search(page, receipt.blockHash);
    await waitForPage(page, 'evm-block');
    assert.ok(page.url().endsWith(`/evm/block/${receipt.blockHash}`));

    await search(page, 'not a key');
    await page.waitForSelector('[data-search-invalid]');
    assert.deepEqual(page.errors, []);
  });
  test('the supply page: totals as getSupply has them, largest accounts filtered by circulation', async () => {
    await page.goto(node.explorerUrl);
    await waitForPage(page, 'dashboard');
    await page.click('[data-supply-link]');
    await waitForPage(page, 'supply');
    const supply = (await rpc(node.rpcUrl, 'getSupply', [{ commitment: 'confirmed' }])).result.value;
    const whole = (lamports: number) => Math.floor(lamports / 1e9).toLocaleString('en-US');
    assert.equal((await page.textContent('[data-supply-total]'))!.trim(), `${whole(supply.total)} VLX`);
    assert.equal(supply.nonCirculatingAccounts.length, 1, 'the bootstrap stake is set aside');
    const bootstrapStake = supply.nonCirculatingAccounts[0] as string;
    assert.equal((await rpc(node.rpcUrl, 'getAccountInfo', [bootstrapStake, { encoding: 'base64' }])).result.value.owner, 'Stake11111111111111111111111111111111111111');
    const rows = '[data-largest] tbody tr';
    await page.waitForSelector(`[data-largest-account="${bootstrapStake}"] .badge:has-text("non-circulating")`);

    await page.selectOption('[data-largest-filter]', 'nonCirculating');
    await waitFor(async () => (await page.locator(rows).count()) === 1, { what: 'one non-circulating account listed' });
    assert.equal(await page.getAttribute(rows, 'data-largest-account'), bootstrapStake);

    await page.selectOption('[data-largest-filter]', 'circulating');
    await page.waitForSelector(`[data-largest-account="${bootstrapStake}"]`, { state: 'detached' });
    const circulating = (await rpc(node.rpcUrl, 'getLargestAccounts', [{ commitment: 'confirmed', filter: 'circulating' }])).result.value.map((a: { address: string }) => a.address);
    const shown = await page.locator(rows).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-largest-account')));
    assert.equal(shown.length, circulating.length);
    assert.equal(await page.locator(`${rows} .badge`).count(), 0);
    await screenshot(page, 'supply');
    assert.deepEqual(page.errors, []);
  });

  test('the network switcher: a custom URL that does not answer shows so, and this node comes back', async () => {
    const [closedPort] = await freePorts(1);
    await page.goto(node.explorerUrl + 'networks');
    await waitForPage(page, 'networks');
    await page.fill('[data-custom-url]', `http://127.0.0.1:${closedPort}`);
    await page.click('text=Add and use');
    await page.waitForSelector('[data-offline]');
    await page.waitForSelector('[data-socket-state]');
    await page.goto(node.explorerUrl);
    await page.waitForSelector('[data-page="dashboard"] [data-error]');
    assert.match((await page.textContent('[data-status-bar]'))!, new RegExp(`127.0.0.1:${closedPort}`));
    await screenshot(page, 'custom-network-down');
    await page.selectOption('[data-network-select]', 'this');
    await waitForPage(page, 'dashboard');
    await page.waitForSelector('[data-offline]', { state: 'detached' });
    // The health shows once the first check of this node has answered.
    await page.waitForSelector('[data-status-bar] [data-health]:text-is("ok")');
    assert.deepEqual(page.errors, []);
  });
});
