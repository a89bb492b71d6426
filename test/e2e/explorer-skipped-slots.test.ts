/**
 * A validator staked at genesis (its vote and stake accounts loaded with --account, as
 * solana-test-validator takes them) leads slots from epoch 0 on; this node is not that validator, so
 * those slots are skipped. The RPC says so, and the explorer's block page shows a skipped slot with its
 * leader instead of an error, and a made block with this node as leader.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { newPage, screenshot, startExplorerNode, waitForPage, type ExplorerNode } from '../helpers/explorer-e2e.ts';
import { rpc, waitFor } from '../helpers/node.ts';
import { generateKeypair } from '../../node-core/keys/keypair.ts';
import { stakeStateData, voteStateData, STAKE_STATE_SIZE, VOTE_STATE_SIZE } from '../../node-core/ledger/genesis-accounts.ts';
import { STAKE_PROGRAM_ID, VOTE_PROGRAM_ID } from '../../node-core/common/pubkey.ts';

const SLOTS_PER_EPOCH = 32;
const SOL = 1_000_000_000;
const other = generateKeypair().address;
const vote = generateKeypair().address;
const stake = generateKeypair().address;

let dir: string;
let node: ExplorerNode;
let browser: Browser;
let self: string;

function accountFile(name: string, pubkey: string, lamports: number, owner: string, data: Uint8Array): string {
  const file = path.join(dir, `${name}.json`);
  const account = { lamports, data: [Buffer.from(data).toString('base64'), 'base64'], owner, executable: false, rentEpoch: 0, space: data.length };
  fs.writeFileSync(file, JSON.stringify({ pubkey, account }));
  return file;
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-skipped-'));
  // Three times the bootstrap validator's 500,000 SOL: it leads about three slots in four.
  const voteFile = accountFile('vote', vote, 30 * SOL, VOTE_PROGRAM_ID, voteStateData(other, other, 0));
  const stakeFile = accountFile('stake', stake, 1_500_003 * SOL, STAKE_PROGRAM_ID, stakeStateData({ rentExemptReserve: 3 * SOL, authority: other, voter: vote, stake: 1_500_000 * SOL }));
  assert.equal(voteStateData(other, other, 0).length, VOTE_STATE_SIZE);
  assert.equal(stakeStateData({ rentExemptReserve: 0, authority: other, voter: vote, stake: 1 }).length, STAKE_STATE_SIZE);
  [node, browser] = await Promise.all([
    startExplorerNode(['--slots-per-epoch', String(SLOTS_PER_EPOCH), '--account', vote, voteFile, '--account', stake, stakeFile]),
    launchBrowser(),
  ]);
  self = (await rpc(node.rpcUrl, 'getIdentity')).result.identity;
});

after(async () => {
  await browser?.close();
  await node?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a validator staked at genesis that this node is not', () => {
  let skipped: number;
  let made: number;

  test('leads slots from epoch 0, in about its share of the stake, and those slots have no block', async () => {
    const schedule = (await rpc(node.rpcUrl, 'getLeaderSchedule', [0])).result as Record<string, number[]>;
    assert.deepEqual(Object.keys(schedule).sort(), [self, other].sort());
    assert.ok(schedule[other]!.length > schedule[self]!.length, JSON.stringify(schedule));
    await waitFor(async () => (await rpc(node.rpcUrl, 'getSlot', [{ commitment: 'finalized' }])).result >= SLOTS_PER_EPOCH, { what: 'epoch 0 finalized', timeoutMs: 30_000 });
    const blocks = (await rpc(node.rpcUrl, 'getBlocks', [1, SLOTS_PER_EPOCH - 1])).result as number[];
    assert.deepEqual(blocks, schedule[self]!.filter((i) => i >= 1));
    // Slot 0 is the genesis block whoever the schedule names.
    skipped = schedule[other]!.find((i) => i >= 1)!;
    made = blocks[0]!;
  });

  test('the block page shows a skipped slot with its leader, and a made block with this node as leader', async () => {
    const page = await newPage(browser);
    await page.goto(`${node.explorerUrl}block/${skipped}`);
    await waitForPage(page, 'block');
    const note = (await page.textContent('[data-skipped]')) ?? '';
    assert.match(note, new RegExp(`Slot ${skipped} was skipped`));
    assert.ok(note.includes(other), note);
    assert.equal(await page.locator('[data-block]').count(), 0);
    await screenshot(page, 'block-skipped');

    await page.goto(`${node.explorerUrl}block/${made}`);
    await waitForPage(page, 'block');
    await page.waitForSelector('[data-block]');
    assert.ok(((await page.textContent('[data-block]')) ?? '').includes(self));
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('the validators page shows both: stake shares, this node voting with every block made, the other delinquent with all its slots skipped', async () => {
    const page = await newPage(browser);
    await page.goto(node.explorerUrl);
    await page.click('nav a:has-text("Validators")');
    await waitForPage(page, 'validators');
    const row = (identity: string) => page.locator(`[data-validators] tr[data-validator="${identity}"]`);
    await row(other).waitFor();
    const voteAccounts = (await rpc(node.rpcUrl, 'getVoteAccounts', [{ commitment: 'confirmed' }])).result;
    assert.deepEqual(voteAccounts.delinquent.map((v: { nodePubkey: string }) => v.nodePubkey), [other]);
    assert.equal(await row(other).getAttribute('data-delinquent'), 'true');
    assert.equal(await row(self).getAttribute('data-delinquent'), 'false');
    assert.match((await row(self).textContent()) ?? '', /this node/);
    // About three quarters of the stake is the other validator's (1,500,000 of ~2,000,000 SOL).
    assert.match((await row(other).locator('[data-stake]').textContent()) ?? '', /\(7\d\.\d%\)/);
    assert.equal(await row(other).locator('[data-blocks]').textContent(), '0');
    // Until the other validator's first leader slot has passed the page has none to rate: wait for the refreshed row.
    await row(other).locator('[data-skip-rate]:text-is("100.0%")').waitFor({ timeout: 30_000 });
    assert.ok(Number((await row(other).locator('[data-leader-slots]').textContent())!.replace(/,/g, '')) > 0);
    assert.equal(await row(self).locator('[data-skip-rate]').textContent(), '0.0%');
    const selfSlots = await row(self).locator('[data-leader-slots]').textContent();
    assert.equal(await row(self).locator('[data-blocks]').textContent(), selfSlots);
    await screenshot(page, 'validators');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('stake and vote account pages read as a stake account and a vote account', async () => {
    const page = await newPage(browser);
    await page.goto(`${node.explorerUrl}address/${stake}`);
    await waitForPage(page, 'account');
    await page.waitForSelector('[data-stake-state]:has-text("active")');
    const activation = (await rpc(node.rpcUrl, 'getStakeActivation', [stake, { commitment: 'confirmed' }])).result;
    assert.equal(activation.state, 'active');
    assert.match((await page.textContent('[data-stake-active]')) ?? '', /^1,500,000 VLX$/);
    assert.match((await page.textContent('[data-stake-delegated]')) ?? '', /^1,500,000 VLX$/);
    assert.equal(await page.getAttribute('[data-stake-voter] a', 'href'), `/explorer/address/${vote}`);
    await screenshot(page, 'stake-account');

    await page.click('[data-stake-voter] a');
    await waitForPage(page, 'account');
    await page.waitForSelector('[data-vote-account]');
    assert.equal(await page.getAttribute('[data-vote-node] a', 'href'), `/explorer/address/${other}`);
    assert.equal(await page.textContent('[data-vote-commission]'), '0%');
    assert.equal(await page.textContent('[data-vote-last]'), 'none', 'no node votes for it');

    const own = (await rpc(node.rpcUrl, 'getVoteAccounts', [{ commitment: 'confirmed' }])).result.current[0].votePubkey as string;
    await page.goto(`${node.explorerUrl}address/${own}`);
    await waitForPage(page, 'account');
    await page.waitForSelector('[data-vote-tower] a');
    assert.equal(await page.getAttribute('[data-vote-node] a', 'href'), `/explorer/address/${self}`);
    assert.match((await page.textContent('[data-vote-last]')) ?? '', /^[\d,]+$/);
    await screenshot(page, 'vote-account');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('the Slot History sysvar\'s page lists the newest slots, skipped ones marked, as getBlocks has them', async () => {
    const page = await newPage(browser);
    await page.goto(`${node.explorerUrl}address/SysvarS1otHistory11111111111111111111111111`);
    await waitForPage(page, 'account');
    assert.match((await page.textContent('h1')) ?? '', /Sysvar: Slot History/);
    const rows = await page.$$eval('[data-slot-history] tbody tr', (trs) =>
      trs.map((tr) => ({ slot: Number(tr.getAttribute('data-slot')), block: !tr.querySelector('[data-skipped]') })),
    );
    assert.equal(rows.length, 64);
    const newest = rows[0]!.slot;
    const blocks = new Set((await rpc(node.rpcUrl, 'getBlocks', [newest - 63, newest, { commitment: 'confirmed' }])).result as number[]);
    assert.deepEqual(rows, Array.from({ length: 64 }, (_, i) => ({ slot: newest - i, block: blocks.has(newest - i) })));
    assert.ok(rows.some((r) => !r.block) && rows.some((r) => r.block), 'both kinds among them');
    assert.equal(await page.locator('[data-parsed]').count(), 0, 'not the million-character bit string');
    await screenshot(page, 'sysvar-slot-history');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
});
