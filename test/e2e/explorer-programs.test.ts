/**
 * The explorer's program views end to end: `isthmus start` with --bpf-program and
 * --upgradeable-program (real compiled programs from test/fixtures/sbf), opened in Debian's Chromium.
 * A program's page reached from the search box and the account page; a ProgramData account linking
 * to its program; a transaction page with the ATA builtin's CPIs into Token and System shown as a log
 * tree by invocation depth, compute units by program, and the inner-instruction tree; a Token
 * GetAccountDataSize's return data. The programs are not invoked (the sBPF engine is not part of this).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, Transaction, TransactionInstruction, sendAndConfirmTransaction } from '@solana/web3.js';
import { createAssociatedTokenAccount, createMint, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { killLeftovers, ROOT } from '../helpers/cli-process.ts';
import { newPage, screenshot, startExplorerNode, waitForPage, type ExplorerNode } from '../helpers/explorer-e2e.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';

const LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';
const ATA = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const TOKEN = TOKEN_PROGRAM_ID.toBase58();
const SYSTEM = '11111111111111111111111111111111';
const NOOP = path.join(ROOT, 'test/fixtures/sbf/noop.so');
const HELLO = path.join(ROOT, 'test/fixtures/sbf/hello_solana_program.so');

let node: ExplorerNode;
let browser: Browser;
let page: Page & { errors: string[] };
let conn: Connection;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-e2e-programs-'));
const upgradeable = Keypair.generate().publicKey.toBase58();
const authority = Keypair.generate().publicKey.toBase58();
const finalKeypair = Keypair.generate();
const final = finalKeypair.publicKey.toBase58();
const programDataOf = (p: string) => PublicKey.findProgramAddressSync([new PublicKey(p).toBuffer()], new PublicKey(LOADER))[0].toBase58();

describe('explorer: program pages, log tree, inner instructions', { timeout: 120_000 }, () => {
  before(async () => {
    const keypairFile = path.join(dir, 'final.json');
    fs.writeFileSync(keypairFile, JSON.stringify(Array.from(finalKeypair.secretKey)));
    browser = await launchBrowser();
    node = await startExplorerNode(['--upgradeable-program', upgradeable, HELLO, authority, '--bpf-program', keypairFile, NOOP]);
    page = await newPage(browser);
    conn = new Connection(node.rpcUrl, { commitment: 'confirmed', wsEndpoint: node.pubsubUrl });
  });
  after(async () => {
    await browser?.close();
    if (conn) await closeConnectionSocket(conn);
    await node?.stop();
    killLeftovers();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('an upgradeable program: found by search, its account page links to its program page', async () => {
    await page.goto(node.explorerUrl);
    await waitForPage(page, 'dashboard');
    await page.fill('[data-search]', upgradeable);
    await page.press('[data-search]', 'Enter');
    await waitForPage(page, 'account');
    await page.click('[data-program-link]');
    await waitForPage(page, 'program');
    assert.equal(new URL(page.url()).pathname, `/explorer/program/${upgradeable}`);
    assert.equal(await page.getAttribute('[data-kind]', 'data-kind'), 'upgradeable');
    assert.match((await page.textContent('[data-loader]'))!, /BPF Upgradeable Loader/);
    assert.equal(await page.getAttribute('[data-authority] a', 'title'), authority);
    assert.equal(await page.getAttribute('[data-programdata] a', 'title'), programDataOf(upgradeable));
    assert.equal(await page.textContent('[data-deploy-slot]'), '0');
    assert.equal(Number(await page.getAttribute('[data-elf-size]', 'data-elf-size')), fs.statSync(HELLO).size);
    await screenshot(page, 'program-upgradeable');
    assert.deepEqual(page.errors, []);
  });

  test('a --bpf-program program is final: authority none, with the note why', async () => {
    await page.goto(`${node.explorerUrl}program/${final}`);
    await waitForPage(page, 'program');
    assert.equal(await page.getAttribute('[data-kind]', 'data-kind'), 'final');
    assert.equal((await page.textContent('[data-authority]'))!.trim(), 'none');
    assert.match((await page.textContent('[data-note]'))!, /11111111111111111111111111111111.*no one can sign for/);
    assert.equal(Number(await page.getAttribute('[data-elf-size]', 'data-elf-size')), fs.statSync(NOOP).size);
  });

  test('a ProgramData account links to its program and does not dump the ELF; a non-program says so', async () => {
    await page.goto(`${node.explorerUrl}address/${programDataOf(upgradeable)}`);
    await waitForPage(page, 'account');
    await page.waitForSelector('[data-programdata-of]');
    assert.equal(await page.getAttribute('[data-programdata-of] a[title]', 'title'), upgradeable);
    const parsed = (await page.textContent('[data-parsed]'))!;
    assert.match(parsed, /"type": "programData"/);
    assert.match(parsed, new RegExp(`"data": "\\(${fs.statSync(HELLO).size} bytes\\)"`));
    await page.click('[data-owner-program]');
    await waitForPage(page, 'program');
    assert.equal(new URL(page.url()).pathname, `/explorer/program/${LOADER}`);

    await page.goto(`${node.explorerUrl}program/${programDataOf(upgradeable)}`);
    await waitForPage(page, 'program');
    assert.match((await page.textContent('[data-not-program]'))!, /not executable/);
  });

  test('a transaction with CPIs: the log tree by depth, compute units by program, the inner-instruction tree, return data', async () => {
    const payer = Keypair.generate();
    await conn.confirmTransaction(await conn.requestAirdrop(payer.publicKey, 10 * LAMPORTS_PER_SOL));
    const mint = await createMint(conn, payer, payer.publicKey, null, 6);
    const ata = await createAssociatedTokenAccount(conn, payer, mint, Keypair.generate().publicKey);
    const [{ signature }] = await conn.getSignaturesForAddress(ata);
    await page.goto(`${node.explorerUrl}tx/${signature}`);
    await waitForPage(page, 'transaction');

    // Logs: the ATA instruction at depth 1, its CPIs into Token (3) and System (1) nested at depth 2.
    const top = page.locator(`[data-log-tree] > [data-invocation="${ATA}"][data-depth="1"]`);
    assert.equal(await top.count(), 1);
    assert.equal(await top.getAttribute('data-result'), 'success');
    assert.equal(await top.locator(`:scope > [data-invocation="${TOKEN}"][data-depth="2"]`).count(), 3);
    assert.equal(await top.locator(`:scope > [data-invocation="${SYSTEM}"][data-depth="2"]`).count(), 1);
    assert.match((await top.locator(':scope > [data-log-line]').allTextContents()).join('\n'), /Program log: Create\nProgram log: Initialize the associated token account/);
    const tx = await conn.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
    const consumedLine = tx!.meta!.logMessages!.find((l) => l.startsWith(`Program ${ATA} consumed`))!;
    const consumed = Number(/consumed (\d+) of/.exec(consumedLine)![1]);
    assert.equal(Number(await page.getAttribute(`[data-compute-units] [data-cu-program="${ATA}"] [data-cu]`, 'data-cu')), consumed);
    assert.equal(await page.locator(`[data-compute-units] [data-cu-program="${TOKEN}"]`).count(), 3);

    // Instructions: #1 (ATA create) with its four CPIs under it, #1.1 … #1.4 at stack height 2.
    const ix = page.locator('[data-instructions] > [data-index="1"]');
    assert.equal(await ix.getAttribute('data-program-id'), ATA);
    const inner = ix.locator('[data-depth="2"]');
    assert.deepEqual(await inner.evaluateAll((els) => els.map((e) => [e.getAttribute('data-index'), e.getAttribute('data-program-id'), e.getAttribute('data-instruction')])), [
      ['1.1', TOKEN, 'getAccountDataSize'],
      ['1.2', SYSTEM, 'createAccount'],
      ['1.3', TOKEN, 'initializeImmutableOwner'],
      ['1.4', TOKEN, 'initializeAccount3'],
    ]);
    assert.match((await page.textContent('[data-logs]'))!, new RegExp(`Program ${ATA} invoke \\[1\\]`));
    await screenshot(page, 'transaction-cpi-tree');

    // Return data: a Token GetAccountDataSize at the top level leaves the account size (165) as the transaction's.
    const sizeTx = new Transaction().add(new TransactionInstruction({ programId: TOKEN_PROGRAM_ID, keys: [{ pubkey: mint, isSigner: false, isWritable: false }], data: Buffer.from([21]) }));
    const sizeSig = await sendAndConfirmTransaction(conn, sizeTx, [payer], { commitment: 'confirmed' });
    await page.goto(`${node.explorerUrl}tx/${sizeSig}`);
    await waitForPage(page, 'transaction');
    const rd = (await page.textContent('[data-return-data]'))!;
    assert.match(rd, /pQAAAAAAAAA=/);
    assert.match(rd, /hex a500000000000000/);
    assert.equal(await page.getAttribute('[data-return-data] a[title]', 'title'), TOKEN);
    assert.deepEqual(page.errors, []);
  });
});
