/**
 * The explorer's EVM transaction page shows what the node's tracer answers: the call tree (kind,
 * value, gas per frame, the revert reason of each failed frame, each frame's events) and the internal
 * transfers, for a call that creates a contract, calls it with value, has inner calls revert and
 * sends value back; read over RPC (callTracer withLog, ots_getInternalOperations), in Chromium.
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

const traceMe = compileFixture('TraceMe.sol', 'TraceMe');
const iface = new Interface(traceMe.abi as never);
const token = compileFixture('MiniToken.sol', 'MiniToken');
const tokenIface = new Interface(token.abi as never);

let node: ExplorerNode;
let browser: Browser;
let page: Page & { errors: string[] };

async function send(tx: Record<string, string>): Promise<any> {
  const r = await rpc(node.evmUrl, 'eth_sendTransaction', [tx]);
  if (r.error) throw new Error(r.error.message);
  return waitFor(async () => (await rpc(node.evmUrl, 'eth_getTransactionReceipt', [r.result])).result, { what: 'the receipt', timeoutMs: 30_000 });
}

describe('explorer: an EVM transaction\'s call tree', { timeout: 120_000 }, () => {
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

  test('calls, values, gas, revert reasons per frame, events and internal transfers, as the node traced them', async () => {
    const from = (await rpc(node.rpcUrl, 'isthmus_getDevAccounts')).result.evm[0].address as string;
    const deployed = await send({ from, data: traceMe.bytecode, gas: '0x1e8480' });
    const receipt = await send({ from, to: deployed.contractAddress, data: iface.encodeFunctionData('run', [5]), value: '0xee6b2800', gas: '0xf4240' });
    assert.equal(receipt.status, '0x1');
    const tree = (await rpc(node.evmUrl, 'debug_traceTransaction', [receipt.transactionHash, { tracer: 'callTracer', tracerConfig: { withLog: true } }])).result;
    const operations = (await rpc(node.evmUrl, 'ots_getInternalOperations', [receipt.transactionHash])).result;

    await page.goto(`${node.explorerUrl}evm/tx/${receipt.transactionHash}`);
    await waitForPage(page, 'evm-transaction');
    await page.waitForSelector('[data-call-tree]', { timeout: 30_000 });
    const frames = page.locator('[data-call-tree] [data-frame]');
    // Depth-first, as the node gave them.
    const flat: any[] = [];
    const walk = (f: any, depth: number) => {
      flat.push({ ...f, depth });
      for (const c of f.calls ?? []) walk(c, depth + 1);
    };
    walk(tree, 0);
    assert.equal(await frames.count(), flat.length);
    assert.deepEqual(await frames.evaluateAll((els) => els.map((e) => [e.getAttribute('data-frame-type'), Number(e.getAttribute('data-depth'))])), flat.map((f) => [f.type, f.depth]));
    assert.deepEqual([...new Set(flat.map((f) => f.type))].sort(), ['CALL', 'CREATE', 'STATICCALL']);
    for (let i = 0; i < flat.length; i++) {
      const head = frames.nth(i).locator('> .frame-head');
      const gasText = (await head.locator('[data-frame-gas]').textContent())!;
      assert.equal(gasText, `gas ${Number(BigInt(flat[i].gasUsed)).toLocaleString('en-US')} of ${Number(BigInt(flat[i].gas)).toLocaleString('en-US')}`);
      const error = head.locator('[data-frame-error]');
      if (flat[i].error) assert.equal(await error.textContent(), flat[i].revertReason ? `reverted: ${flat[i].revertReason}` : flat[i].error);
      else assert.equal(await error.count(), 0);
      assert.equal(await head.locator('[data-frame-value]').count(), flat[i].value && BigInt(flat[i].value) > 0n ? 1 : 0);
    }
    // The two inner calls to fail(): both reverted with the child's reason.
    assert.equal(await page.locator('[data-frame-error]:has-text("reverted: Child: v must be zero")').count(), 2);
    // Events in their frames: Made and Done at the top, Stored in the child's store() frame.
    assert.equal(await page.locator('[data-call-tree] [data-frame-log]').count(), receipt.logs.length);
    assert.equal(await page.locator('[data-depth="0"] > .frame-logs > [data-frame-log]').count(), 2);
    // Internal transfers: the call's value in, value into the new child and into store(), the refund out.
    assert.equal(await page.locator('[data-internal-transfer]').count(), operations.length);
    assert.deepEqual(
      operations.map((o: any) => o.type),
      [0, 2, 0, 0],
    );
    await screenshot(page, 'evm-call-tree');
    assert.deepEqual(page.errors, []);
  });

  test('events the node knows are shown decoded, in the logs and in their frame; others stay raw', async () => {
    const from = (await rpc(node.rpcUrl, 'isthmus_getDevAccounts')).result.evm[0].address as string;
    const to = '0x00000000000000000000000000000000000000aa';
    const deployed = await send({ from, data: token.bytecode, gas: '0x1e8480' });
    const receipt = await send({ from, to: deployed.contractAddress, data: tokenIface.encodeFunctionData('mint', [to, 1234567n]), gas: '0x30d40' });
    assert.equal(receipt.logs.length, 3);

    await page.goto(`${node.explorerUrl}evm/tx/${receipt.transactionHash}`);
    await waitForPage(page, 'evm-transaction');
    await page.waitForSelector('.log [data-decoded-event="Transfer"]', { timeout: 30_000 });
    // The receipt's logs: Transfer and Approval named, the contract's own Noted left raw.
    assert.equal(await page.locator('.log [data-decoded-event]').count(), 2);
    const transfer = page.locator('.log [data-decoded-event="Transfer"]');
    assert.equal(await transfer.getAttribute('title'), 'Transfer(address,address,uint256)');
    assert.equal(await transfer.locator('[data-event-arg="to"] a').getAttribute('title'), to);
    assert.equal(await transfer.locator('[data-event-arg="from"] a').getAttribute('title'), `0x${'0'.repeat(40)}`);
    assert.equal((await transfer.locator('[data-event-arg="value"] .mono').textContent())!.trim(), '1234567');
    assert.equal((await page.locator('.log [data-decoded-event="Approval"] [data-event-arg="value"] .mono').textContent())!.trim(), '1234567');
    // The same events in the call tree's one frame.
    await page.waitForSelector('[data-call-tree] [data-frame-log] [data-decoded-event="Transfer"]', { timeout: 30_000 });
    assert.equal(await page.locator('[data-call-tree] [data-frame-log] [data-decoded-event]').count(), 2);
    assert.equal(await page.locator('[data-call-tree] [data-frame-log]').count(), 3);
    await screenshot(page, 'evm-decoded-events');
    assert.deepEqual(page.errors, []);
  });
});
