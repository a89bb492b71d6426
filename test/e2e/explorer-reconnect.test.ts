/**
 * The explorer survives a node restart without a reload: with the dashboard open, the node is stopped
 * (the page shows it disconnected: the offline banner, both sockets' badges, the live lists no longer
 * "live"), then started again on the same ledger and ports; the page's PubSub and EVM WebSocket
 * clients reconnect by themselves, subscribe again, and the pushed updates (slots, blocks, EVM heads)
 * resume on the sockets opened after the restart.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Browser, WebSocket } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { freePorts, killLeftovers } from '../helpers/cli-process.ts';
import { newPage, screenshot, startExplorerNode, statusNumber, waitForPage, type ExplorerNode } from '../helpers/explorer-e2e.ts';
import { rpc, tempLedger, waitFor } from '../helpers/node.ts';

let browser: Browser;

before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  killLeftovers();
});

/** A WebSocket the page opened, with the JSON-RPC methods of the frames it sent and received. */
interface SocketLog {
  url: string;
  sent: string[];
  received: string[];
  closed: boolean;
}

const methodOf = (payload: string | Buffer): string => {
  try {
    const msg = JSON.parse(String(payload)) as { method?: string; result?: unknown };
    return msg.method ?? (msg.result !== undefined ? 'result' : 'other');
  } catch {
    return 'not-json';
  }
};

function logSocket(ws: WebSocket): SocketLog {
  const log: SocketLog = { url: ws.url(), sent: [], received: [], closed: false };
  ws.on('framesent', ({ payload }) => log.sent.push(methodOf(payload)));
  ws.on('framereceived', ({ payload }) => log.received.push(methodOf(payload)));
  ws.on('close', () => (log.closed = true));
  return log;
}

/** Sends one EVM transfer between dev accounts and waits for its receipt; returns its block number. */
async function evmTransfer(node: ExplorerNode): Promise<number> {
  const dev = (await rpc(node.rpcUrl, 'isthmus_getDevAccounts')).result;
  const hash = (await rpc(node.rpcUrl, 'eth_sendTransaction', [{ from: dev.evm[0].address, to: dev.evm[1].address, value: '0x3b9aca00' }])).result;
  assert.ok(hash, 'the transfer was accepted');
  const receipt = await waitFor(async () => (await rpc(node.rpcUrl, 'eth_getTransactionReceipt', [hash])).result, { what: 'the receipt', timeoutMs: 30_000 });
  return Number(BigInt(receipt.blockNumber));
}

test('the explorer shows a stopped node as disconnected and, once it is back on the same ledger and ports, reconnects both sockets and resumes live updates without a reload', { timeout: 240_000 }, async () => {
  const ledger = tempLedger();
  const ports = await freePorts(3);
  const [, pubsubPort, evmPort] = ports as [number, number, number];
  let node = await startExplorerNode([], { ledger, ports });
  try {
    const page = await newPage(browser);
    const sockets: SocketLog[] = [];
    page.on('websocket', (ws) => sockets.push(logSocket(ws)));
    const pubsubSockets = () => sockets.filter((s) => s.url.startsWith(`ws://127.0.0.1:${pubsubPort}`));
    const evmSockets = () => sockets.filter((s) => s.url.startsWith(`ws://127.0.0.1:${evmPort}`));

    await page.goto(node.explorerUrl);
    await waitForPage(page, 'dashboard');
    await page.evaluate('window.__sameDocument = true');
    await page.waitForSelector('[data-live]', { timeout: 20_000 });
    const firstEvmBlock = await evmTransfer(node);
    await page.waitForSelector('[data-evm-live]', { timeout: 20_000 });
    await page.waitForSelector(`[data-latest-evm-blocks] a[href$="/evm/block/${firstEvmBlock}"]`, { timeout: 20_000 });
    assert.equal(pubsubSockets().length, 1);
    assert.equal(evmSockets().length, 1);
    assert.ok(pubsubSockets()[0]!.received.includes('slotNotification'));
    assert.ok(pubsubSockets()[0]!.received.includes('blockNotification'));
    assert.ok(evmSockets()[0]!.received.includes('eth_subscription'));
    assert.deepEqual(await page.locator('[data-socket-state], [data-evm-socket-state], [data-offline]').count(), 0, 'connected: no badge, no banner');

    // The node stops: the page says it is disconnected, and keeps its content.
    await node.stop({ keepLedger: true });
    await page.waitForSelector('[data-offline]', { timeout: 20_000 });
    await page.waitForSelector('[data-socket-state]', { timeout: 20_000 });
    await page.waitForSelector('[data-evm-socket-state]', { timeout: 20_000 });
    await page.waitForSelector('[data-live]', { state: 'detached', timeout: 20_000 });
    await page.waitForSelector('[data-evm-live]', { state: 'detached', timeout: 20_000 });
    assert.equal(await page.locator('[data-page="dashboard"]').count(), 1, 'the dashboard stays');
    await waitFor(() => pubsubSockets()[0]!.closed && evmSockets()[0]!.closed, { what: 'both sockets closed' });
    await screenshot(page, 'reconnect-node-down');
    const slotBefore = await statusNumber(page, 'data-slot');

    // The node comes back on the same ledger and ports: the page reconnects by itself.
    node = await startExplorerNode([], { ledger, ports });
    await page.waitForSelector('[data-offline]', { state: 'detached', timeout: 30_000 });
    await page.waitForSelector('[data-socket-state]', { state: 'detached', timeout: 30_000 });
    await page.waitForSelector('[data-evm-socket-state]', { state: 'detached', timeout: 30_000 });
    // Pushed updates resume on new sockets, which subscribed again.
    const pubsubAgain = await waitFor<SocketLog | undefined>(() => pubsubSockets().find((s) => !s.closed && s.received.includes('slotNotification') && s.received.includes('blockNotification')), {
      timeoutMs: 30_000,
      what: 'slot and block notifications on a reconnected PubSub socket',
    }).then((s) => s!);
    assert.ok(pubsubAgain.sent.includes('slotSubscribe') && pubsubAgain.sent.includes('blockSubscribe'), `subscribed again: ${pubsubAgain.sent.join(', ')}`);
    await page.waitForSelector('[data-live]', { timeout: 30_000 });
    await waitFor(async () => (await statusNumber(page, 'data-slot')) > slotBefore + 2, { what: 'the status bar to move after the restart', timeoutMs: 30_000 });
    const dashSlot = async () => Number(((await page.textContent('[data-dash-slot]')) ?? '').replace(/,/g, ''));
    await waitFor(async () => (await dashSlot()) > slotBefore, { what: "the dashboard's newest block to be one made after the restart", timeoutMs: 30_000 });

    const evmAgain = (await waitFor(() => evmSockets().find((s) => !s.closed && s.sent.includes('eth_subscribe')), { timeoutMs: 30_000, what: 'the EVM socket subscribed again' }))!;
    const secondEvmBlock = await evmTransfer(node);
    assert.ok(secondEvmBlock > firstEvmBlock);
    await waitFor(() => evmAgain.received.includes('eth_subscription'), { timeoutMs: 30_000, what: 'a newHeads notification on the reconnected EVM socket' });
    await page.waitForSelector('[data-evm-live]', { timeout: 30_000 });
    await page.waitForSelector(`[data-latest-evm-blocks] a[href$="/evm/block/${secondEvmBlock}"]`, { timeout: 30_000 });

    assert.equal(await page.evaluate('window.__sameDocument'), true, 'the page was not reloaded');
    await screenshot(page, 'reconnect-node-back');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  } finally {
    await node.stop();
    fs.rmSync(ledger, { recursive: true, force: true });
  }
});

test("the status bar shows the ledger's size on disk and the history it keeps; in the desktop app it opens the app's settings", { timeout: 120_000 }, async () => {
  const node = await startExplorerNode(['--limit-ledger-size', '1000']);
  try {
    const page = await newPage(browser);
    await page.goto(node.explorerUrl);
    await waitForPage(page, 'dashboard');
    const size = await page.waitForSelector('[data-status-bar] [data-ledger-size]');
    assert.match((await size.textContent()) ?? '', /^\d+(\.\d)? (kB|MB|GB)$/);
    const diskBytes = (await rpc(node.rpcUrl, 'isthmus_getNodeInfo')).result.ledger.diskBytes as number;
    assert.ok(diskBytes > 100_000, `${diskBytes}`);
    assert.equal(await page.textContent('[data-status-bar] [data-ledger-limit]'), 'last 1,000 slots');
    assert.equal(await page.locator('[data-desktop-settings]').count(), 0, 'no desktop settings in a browser');
    await page.context().close();

    // In the desktop app, the preload's API is there: the status bar offers its settings.
    const desktopPage = await newPage(browser);
    // (a string: a function passed from this file would carry what tsx adds to it)
    await desktopPage.addInitScript(`
      window.desktopCalls = [];
      window.isthmusDesktop = Object.freeze({ version: '0.0.0', openExternal: async () => false, openSettings: async () => (window.desktopCalls.push('openSettings'), true) });`);
    await desktopPage.goto(node.explorerUrl);
    await waitForPage(desktopPage, 'dashboard');
    await desktopPage.click('[data-desktop-settings]');
    await desktopPage.waitForFunction('window.desktopCalls.length === 1');
    assert.deepEqual(await desktopPage.evaluate('window.desktopCalls'), ['openSettings']);
    assert.deepEqual(desktopPage.errors, []);
    await desktopPage.context().close();
  } finally {
    await node.stop();
  }
});
