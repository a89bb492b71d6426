/**
 * The explorer's Control page in Debian's Chromium against `isthmus start`: snapshots taken, labelled,
 * listed, reverted to and deleted through the page, checked through RPC (the slot back at the
 * snapshot's, a transfer after it gone, the status bar following); the clock paused and resumed; time
 * travel to a later epoch; a time in the past and an unknown snapshot id answered with the node's
 * error and nothing changed; and no controls on a node that does not allow chain control.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@solana/web3.js';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { killLeftovers } from '../helpers/cli-process.ts';
import { newPage, screenshot, startExplorerNode, statusNumber, waitForPage, type ExplorerNode } from '../helpers/explorer-e2e.ts';
import { rpc, rpcBatch, waitFor } from '../helpers/node.ts';

interface SnapshotJson {
  id: string;
  label: string | null;
  slot: number;
  evmBlockNumber: number | null;
}

describe('explorer: the Control page', { timeout: 300_000 }, () => {
  let node: ExplorerNode;
  let browser: Browser;
  let page: Page & { errors: string[] };

  const call = async (method: string, params?: unknown[]) => {
    const answer = await rpc(node.rpcUrl, method, params);
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result;
  };
  const processedSlot = (): Promise<number> => call('getSlot', [{ commitment: 'processed' }]);
  const snapshots = (): Promise<SnapshotJson[]> => call('isthmus_getSnapshots');
  const clockPaused = async (): Promise<boolean> => (await call('isthmus_getNodeInfo')).clockPaused;
  const rowCount = () => page.$$eval('[data-snapshots] tbody tr', (rows) => rows.length).catch(() => 0);
  const row = (id: string) => `[data-snapshot="${id}"]`;

  async function takeSnapshot(label: string): Promise<SnapshotJson> {
    const before = (await snapshots()).length;
    await page.fill('[data-snapshot-label]', label);
    await page.click('[data-snapshot-take]');
    await page.waitForSelector('[data-snapshot-taken]');
    const list = await waitFor(async (): Promise<SnapshotJson[] | null> => {
      const l = await snapshots();
      return l.length === before + 1 ? l : null;
    }, { timeoutMs: 30_000, what: `snapshot "${label}"` });
    const taken = list!.at(-1)!;
    assert.equal(taken.label, label);
    await waitFor(async () => ((await page.textContent(`${row(taken.id)} [data-snapshot-label-text]`).catch(() => null)) ?? '') === label, { timeoutMs: 30_000, what: `the row of "${label}"` });
    return taken;
  }

  async function setClock(state: 'paused' | 'running'): Promise<void> {
    await page.click('[data-clock-toggle]');
    await page.waitForSelector(`[data-clock="${state}"]`);
    assert.equal(await clockPaused(), state === 'paused');
  }

  before(async () => {
    browser = await launchBrowser();
    node = await startExplorerNode();
    page = await newPage(browser);
    // Both cores may be busy: the waits end on their condition, so a long limit costs nothing.
    page.setDefaultTimeout(30_000);
    await page.goto(`${node.explorerUrl}control`);
    await waitForPage(page, 'control');
  });
  after(async () => {
    await browser?.close();
    await node?.stop();
    killLeftovers();
  });

  test('snapshots: take two with labels, relabel, revert to the first (its slot back, a transfer after it gone), delete one; pause and resume', async () => {
    assert.ok(await page.$('[data-nav-control]'), 'the nav links the Control page');
    assert.ok(await page.$('[data-no-snapshots]'));

    const first = await takeSnapshot('first');
    const recipient = Keypair.generate().publicKey.toBase58();
    const signature: string = await call('requestAirdrop', [recipient, 1_000_000_000]);
    await waitFor(async () => (await call('getSignatureStatuses', [[signature]])).value[0]?.confirmationStatus === 'confirmed', { timeoutMs: 30_000, what: 'the airdrop confirmed' });
    const second = await takeSnapshot('second');
    assert.ok(second.slot > first.slot);
    assert.equal(await rowCount(), 2);

    // The list shows each snapshot's slot and EVM block.
    assert.equal((await page.textContent(`${row(first.id)} [data-snapshot-slot]`))!.replace(/,/g, ''), String(first.slot));
    assert.equal((await page.textContent(`${row(first.id)} [data-snapshot-evm-block]`))!.replace(/,/g, '').trim(), first.evmBlockNumber === null ? '–' : String(first.evmBlockNumber));

    await page.click(`${row(second.id)} [data-relabel]`);
    await page.fill(`${row(second.id)} [data-relabel-input]`, 'second, relabelled');
    await page.click(`${row(second.id)} [data-relabel-save]`);
    await waitFor(async () => (await page.textContent(`${row(second.id)} [data-snapshot-label-text]`).catch(() => null)) === 'second, relabelled', { timeoutMs: 30_000, what: 'the new label on the page' });
    assert.equal((await snapshots()).find((s) => s.id === second.id)?.label, 'second, relabelled');

    // Paused: the slot stays where it is while the page's views refresh (each a round trip after the pause).
    await setClock('paused');
    const pausedAt = await processedSlot();
    assert.ok(pausedAt > second.slot);
    await waitFor(async () => (await statusNumber(page, 'data-slot')) === pausedAt, { timeoutMs: 30_000, what: 'the status bar at the paused slot' });
    await waitFor(async () => Number(await page.getAttribute('[data-control-slot]', 'data-control-slot')) === pausedAt, { timeoutMs: 30_000, what: 'the page at the paused slot' });
    assert.equal(await processedSlot(), pausedAt);
    await screenshot(page, 'control-paused');

    // Revert to the first, through the page (a confirmation first), with the clock paused so the slot read after is the one reverted to.
    await page.click(`${row(first.id)} [data-revert]`);
    assert.equal(await processedSlot(), pausedAt, 'asking for the confirmation reverts nothing');
    await page.click(`${row(first.id)} [data-revert-confirm]`);
    await page.waitForSelector('[data-revert-done]');
    assert.match((await page.textContent('[data-revert-done]'))!, new RegExp(`Reverted to snapshot ${first.id} “first” at slot ${first.slot.toLocaleString('en-US')}`));
    const [slot, balance, statuses, list] = await rpcBatch(node.rpcUrl, [
      ['getSlot', [{ commitment: 'processed' }]],
      ['getBalance', [recipient, { commitment: 'processed' }]],
      ['getSignatureStatuses', [[signature], { searchTransactionHistory: true }]],
      ['isthmus_getSnapshots', []],
    ]);
    assert.ok(slot.result < pausedAt && slot.result <= first.slot + 1, `slot ${slot.result} is back at the snapshot's ${first.slot} (it was ${pausedAt})`);
    assert.equal(balance.result.value, 0, 'the airdrop after the snapshot is gone');
    assert.deepEqual(statuses.result.value, [null]);
    assert.deepEqual(list.result, [], 'a revert deletes the snapshot it returns to and every later one');
    // The explorer follows: the status bar's slot goes back, the page lists no snapshots.
    await waitFor(async () => (await statusNumber(page, 'data-slot')) === slot.result, { timeoutMs: 30_000, what: 'the status bar back at the reverted slot' });
    await page.waitForSelector('[data-no-snapshots]');
    await waitForPage(page, 'control');
    await screenshot(page, 'control-reverted');

    const reverted = slot.result as number;
    assert.equal(await clockPaused(), true);
    await setClock('running');
    await waitFor(async () => (await processedSlot()) > reverted + 2, { timeoutMs: 30_000, what: 'slots after the resume' });
    await waitFor(async () => (await statusNumber(page, 'data-slot')) > reverted + 2, { timeoutMs: 30_000, what: 'the status bar moving on' });

    const doomed = await takeSnapshot('to delete');
    await page.click(`${row(doomed.id)} [data-delete]`);
    await page.waitForSelector(row(doomed.id), { state: 'detached' });
    assert.deepEqual(await snapshots(), []);
    assert.deepEqual(page.errors, []);
  });

  test('an unknown snapshot id gets the node\'s error and reverts nothing', async () => {
    const kept = await takeSnapshot('kept');
    const before = await processedSlot();
    await page.fill('[data-revert-id]', 'abc');
    await page.click('[data-revert-id-submit]');
    await waitFor(async () => /"abc" is not a snapshot id/.test((await page.textContent('[data-revert-id-error]').catch(() => null)) ?? ''), { timeoutMs: 30_000, what: 'the input error' });
    await page.fill('[data-revert-id]', '0x63');
    await page.click('[data-revert-id-submit]');
    await page.click('[data-revert-id-confirm]');
    await waitFor(async () => /snapshot 0x63 does not exist.*-32602/.test((await page.textContent('[data-revert-id-error]').catch(() => null)) ?? ''), { timeoutMs: 30_000, what: "the node's error" });
    assert.deepEqual((await snapshots()).map((s) => s.id), [kept.id]);
    assert.ok((await processedSlot()) >= before, 'the chain did not go back');
    await screenshot(page, 'control-unknown-id');
    assert.deepEqual(page.errors, []);
  });

  test("time travel: to a later epoch; a time in the past gets the node's error and changes nothing", async () => {
    const { epoch } = await call('getEpochInfo', [{ commitment: 'processed' }]);
    await page.selectOption('[data-travel-kind]', 'epoch');
    await page.fill('[data-travel-value]', String(epoch + 1));
    await page.click('[data-travel-submit]');
    await page.waitForSelector('[data-travel-done]');
    const after = await call('getEpochInfo', [{ commitment: 'processed' }]);
    assert.ok(after.epoch >= epoch + 1, `epoch ${after.epoch} after travelling to ${epoch + 1}`);
    assert.match((await page.textContent('[data-travel-done]'))!, new RegExp(`epoch ${epoch + 1}\\b`));

    // With the clock paused, "nothing changed" is exact: the same slot and Clock before and after.
    await setClock('paused');
    const clockBefore = await call('getAccountInfo', ['SysvarC1ock11111111111111111111111111111111', { encoding: 'base64', commitment: 'processed' }]);
    const slotBefore = await processedSlot();
    await page.selectOption('[data-travel-kind]', 'timestamp');
    await page.fill('[data-travel-value]', '1000000000');
    await page.click('[data-travel-submit]');
    await waitFor(async () => /forward only/.test((await page.textContent('[data-travel-error]').catch(() => null)) ?? ''), { timeoutMs: 30_000, what: "the node's error for a past time" });
    const pastDate = '2002-01-02T03:04:05';
    const pastMs = await page.evaluate((d) => new Date(d).getTime(), pastDate);
    await page.selectOption('[data-travel-kind]', 'date');
    await page.fill('[data-travel-value]', pastDate);
    await page.click('[data-travel-submit]');
    await waitFor(async () => new RegExp(`timestamp ${pastMs} ms is not after the current time`).test((await page.textContent('[data-travel-error]').catch(() => null)) ?? ''), { timeoutMs: 30_000, what: "the node's error for a past date" });
    assert.equal(await processedSlot(), slotBefore);
    assert.deepEqual(await call('getAccountInfo', ['SysvarC1ock11111111111111111111111111111111', { encoding: 'base64', commitment: 'processed' }]), clockBefore);
    await screenshot(page, 'control-time-travel');
    await setClock('running');
    await waitFor(async () => (await processedSlot()) > slotBefore, { timeoutMs: 30_000, what: 'slots after the resume' });
    assert.deepEqual(page.errors, []);
  });

  test('no controls on a node that does not allow chain control', async () => {
    const open = await startExplorerNode(['--bind-address', '0.0.0.0']);
    try {
      const other = await newPage(browser);
      other.setDefaultTimeout(30_000);
      await other.goto(`${open.explorerUrl.replace('0.0.0.0', '127.0.0.1')}control`);
      await waitForPage(other, 'control');
      assert.equal((await rpc(open.rpcUrl, 'isthmus_getNodeInfo')).result.chainControlAllowed, false);
      assert.match((await other.textContent('[data-control-disabled]'))!, /Chain control is disabled on this node.*--allow-chain-control/s);
      for (const control of ['[data-take-snapshot]', '[data-snapshots]', '[data-revert-by-id]', '[data-clock-toggle]', '[data-time-travel]', '[data-nav-control]']) {
        assert.equal(await other.$(control), null, `${control} is not shown`);
      }
      await screenshot(other, 'control-disabled');
      assert.deepEqual(other.errors, []);
      await other.close();
    } finally {
      await open.stop();
    }
  });
});
