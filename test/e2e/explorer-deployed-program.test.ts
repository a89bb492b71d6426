/**
 * A deployed program's transactions in the explorer, in Debian's Chromium: `isthmus start
 * --bpf-program` with simple_transfer_program (a CPI into System) and clock_sysvar_program (return
 * data); a transaction invoking the first shows its log tree (the program at depth 1, System's transfer
 * nested at depth 2), the compute units the program consumed, and the inner-instruction tree
 * (#1.1 System transfer); a failing invocation (the program panics) is shown failed with its message;
 * the clock program's return data is shown with the program that set it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { killLeftovers, ROOT } from '../helpers/cli-process.ts';
import { waitFor } from '../helpers/node.ts';
import { newPage, screenshot, startExplorerNode, waitForPage, type ExplorerNode } from '../helpers/explorer-e2e.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';

const SYSTEM = SystemProgram.programId.toBase58();
const TRANSFER = Keypair.generate().publicKey;
const CLOCK = Keypair.generate().publicKey;
const so = (name: string) => path.join(ROOT, 'test/fixtures/sbf', name);

let node: ExplorerNode;
let browser: Browser;
let page: Page & { errors: string[] };
let conn: Connection;
let payer: Keypair;

/** Sends without preflight (a failing transaction must land too) and returns the stored transaction. */
async function send(instructions: TransactionInstruction[]) {
  const { blockhash } = await conn.getLatestBlockhash('confirmed');
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...instructions);
  tx.sign(payer);
  const signature = await conn.sendRawTransaction(tx.serialize(), { skipPreflight: true });
  const stored = (await waitFor(() => conn.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }), { what: signature, timeoutMs: 60_000 }))!;
  return { signature, stored };
}

const transferIx = (recipient: PublicKey, data: Buffer) =>
  new TransactionInstruction({
    programId: TRANSFER,
    keys: [
      { pubkey: payer.publicKey, isSigner: true, isWritable: true },
      { pubkey: recipient, isSigner: false, isWritable: true },
      { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
    ],
    data,
  });

describe('explorer: a deployed program\'s CPI, failure and return data', { timeout: 120_000 }, () => {
  before(async () => {
    browser = await launchBrowser();
    node = await startExplorerNode(['--bpf-program', TRANSFER.toBase58(), so('simple_transfer_program.so'), '--bpf-program', CLOCK.toBase58(), so('clock_sysvar_program.so')]);
    page = await newPage(browser);
    conn = new Connection(node.rpcUrl, { commitment: 'confirmed', wsEndpoint: node.pubsubUrl });
    payer = Keypair.generate();
    const airdrop = await conn.requestAirdrop(payer.publicKey, 10 * LAMPORTS_PER_SOL);
    await waitFor(async () => (await conn.getSignatureStatus(airdrop)).value?.confirmationStatus, { what: 'the airdrop', timeoutMs: 60_000 });
  });
  after(async () => {
    await browser?.close();
    if (conn) await closeConnectionSocket(conn);
    await node?.stop();
    killLeftovers();
  });

  test('simple_transfer_program: the log tree with System nested, its compute units, the inner-instruction tree', async () => {
    const recipient = Keypair.generate().publicKey;
    const amount = Buffer.alloc(8);
    amount.writeBigUInt64BE(1_000_000n);
    const { signature, stored } = await send([transferIx(recipient, amount)]);
    assert.equal(stored.meta!.err, null, stored.meta!.logMessages!.join('\n'));
    await page.goto(`${node.explorerUrl}tx/${signature}`);
    await waitForPage(page, 'transaction');

    const top = page.locator(`[data-log-tree] > [data-invocation="${TRANSFER.toBase58()}"][data-depth="1"]`);
    assert.equal(await top.count(), 1);
    assert.equal(await top.getAttribute('data-result'), 'success');
    const nested = top.locator(`:scope > [data-invocation="${SYSTEM}"][data-depth="2"]`);
    assert.equal(await nested.count(), 1);
    assert.equal(await nested.getAttribute('data-result'), 'success');

    const line = stored.meta!.logMessages!.find((l) => l.startsWith(`Program ${TRANSFER.toBase58()} consumed`))!;
    const consumed = Number(/consumed (\d+) of/.exec(line)![1]);
    assert.equal(Number(await top.locator(':scope > .head [data-consumed]').getAttribute('data-consumed')), consumed);
    assert.equal(Number(await page.getAttribute(`[data-compute-units] [data-cu-program="${TRANSFER.toBase58()}"] [data-cu]`, 'data-cu')), consumed);
    assert.equal(consumed, stored.meta!.computeUnitsConsumed);

    const ix = page.locator('[data-instructions] > [data-index="1"]');
    assert.equal(await ix.getAttribute('data-program-id'), TRANSFER.toBase58());
    const inner = ix.locator('[data-depth="2"]');
    assert.deepEqual(await inner.evaluateAll((els) => els.map((e) => [e.getAttribute('data-index'), e.getAttribute('data-program-id'), e.getAttribute('data-instruction')])), [['1.1', SYSTEM, 'transfer']]);
    await screenshot(page, 'deployed-program-cpi');
    assert.deepEqual(page.errors, []);
  });

  test('a failing invocation: the program shown failed with the runtime\'s message; its panic line in the tree', async () => {
    const { signature, stored } = await send([transferIx(Keypair.generate().publicKey, Buffer.alloc(0))]);
    assert.deepEqual(stored.meta!.err, { InstructionError: [0, 'ProgramFailedToComplete'] });
    await page.goto(`${node.explorerUrl}tx/${signature}`);
    await waitForPage(page, 'transaction');
    const top = page.locator(`[data-log-tree] > [data-invocation="${TRANSFER.toBase58()}"][data-depth="1"]`);
    assert.equal(await top.getAttribute('data-result'), 'failed');
    assert.match((await top.locator(':scope > .head [data-failed]').textContent())!, /SBF program panicked/);
    assert.match((await top.locator(':scope > [data-log-line]').allTextContents()).join('\n'), /Program log: panicked at/);
    assert.equal(await page.locator('[data-instructions] > [data-index="1"] [data-depth="2"]').count(), 0, 'no inner instructions');
    assert.deepEqual(page.errors, []);
  });

  test("clock_sysvar_program's return data: the Clock's unix_timestamp and the program that set it", async () => {
    const { signature, stored } = await send([new TransactionInstruction({ programId: CLOCK, keys: [], data: Buffer.alloc(0) })]);
    assert.equal(stored.meta!.err, null);
    const returned = (stored.meta as any).returnData.data[0] as string;
    await page.goto(`${node.explorerUrl}tx/${signature}`);
    await waitForPage(page, 'transaction');
    const rd = (await page.textContent('[data-return-data]'))!;
    assert.ok(rd.includes(returned), `${rd} shows ${returned}`);
    assert.match(rd, new RegExp(`hex ${Buffer.from(returned, 'base64').toString('hex')}`));
    assert.equal(await page.getAttribute('[data-return-data] a[title]', 'title'), CLOCK.toBase58());
    assert.deepEqual(page.errors, []);
  });
});
