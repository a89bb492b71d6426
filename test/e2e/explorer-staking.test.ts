/**
 * Staking as the explorer shows it, on a node with short epochs (32 slots of 50 ms): the bootstrap
 * validator's stake account and vote account pages list the inflation rewards getInflationReward
 * reports, and the validators page its credits this epoch.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { killLeftovers } from '../helpers/cli-process.ts';
import { newPage, screenshot, startExplorerNode, waitForPage, type ExplorerNode } from '../helpers/explorer-e2e.ts';
import { rpc, waitFor } from '../helpers/node.ts';

const SLOTS_PER_EPOCH = 32;
let node: ExplorerNode;
let browser: Browser;

before(async () => {
  browser = await launchBrowser();
  node = await startExplorerNode(['--slot-ms', '50', '--slots-per-epoch', String(SLOTS_PER_EPOCH)]);
});

after(async () => {
  await browser?.close();
  await node?.stop();
  killLeftovers();
});

describe('staking in the explorer', () => {
  test('the bootstrap stake account lists its inflation rewards, as getInflationReward has them', async () => {
    // Rewards for epoch E are paid in epoch E+1's first block; votes earn credits from epoch 1 on.
    const stake = (await rpc(node.rpcUrl, 'getSupply', [{ commitment: 'confirmed' }])).result.value.nonCirculatingAccounts[0] as string;
    const paid = await waitFor(
      async () => {
        const epoch = (await rpc(node.rpcUrl, 'getEpochInfo', [{ commitment: 'confirmed' }])).result.epoch as number;
        if (epoch < 3) return null;
        const [reward] = (await rpc(node.rpcUrl, 'getInflationReward', [[stake], { epoch: epoch - 1, commitment: 'confirmed' }])).result;
        return reward ? { epoch: epoch - 1, reward } : null;
      },
      { what: 'a staking reward paid', timeoutMs: 60_000, everyMs: 200 },
    );
    assert.ok(paid!.reward.amount > 0);

    const page = await newPage(browser);
    await page.goto(`${node.explorerUrl}address/${stake}`);
    await waitForPage(page, 'account');
    const row = page.locator(`[data-rewards-by-epoch] tr[data-reward-epoch="${paid!.epoch}"]`);
    await row.waitFor();
    const shown = (await row.locator('[data-reward-amount]').textContent())!;
    assert.equal(BigInt(shown.replace(/[,.]/g, '')), BigInt(paid!.reward.amount), `${shown} VLX is ${paid!.reward.amount} lamports`);
    assert.ok((await row.textContent())!.includes(paid!.reward.effectiveSlot.toLocaleString('en-US')));
    assert.equal(await page.textContent('[data-rent-epoch]'), '18446744073709551615 (rent-exempt)', 'u64::MAX shown exactly, not as 2^64');
    await screenshot(page, 'stake-account-rewards');

    // Its vote account takes no commission (0%), so it is paid nothing.
    const vote = (await rpc(node.rpcUrl, 'getVoteAccounts', [{ commitment: 'confirmed' }])).result.current[0];
    await page.goto(`${node.explorerUrl}address/${vote.votePubkey}`);
    await waitForPage(page, 'account');
    await page.waitForSelector('[data-vote-account]');
    await page.waitForSelector('[data-no-rewards]');
    assert.equal(await page.textContent('[data-vote-commission]'), '0%');

    await page.goto(`${node.explorerUrl}validators`);
    await waitForPage(page, 'validators');
    const credits = await page.locator(`tr[data-validator="${vote.nodePubkey}"] td`).nth(5).textContent();
    assert.ok(Number(credits!.replace(/,/g, '')) > 0, `credits this epoch: ${credits}`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
});
