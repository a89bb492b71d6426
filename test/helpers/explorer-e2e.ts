/**
 * The explorer's end-to-end harness: the real `isthmus start` (what `npm start` runs) on free ports
 * with a temp ledger, Debian's Chromium through playwright-core, and screenshots saved as test
 * artifacts under test-artifacts/explorer/ (gitignored).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { freePorts, ROOT, runIsthmus, waitForRpc, type NodeProcess } from './cli-process.ts';

export const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'explorer');

export interface ExplorerNode {
  proc: NodeProcess;
  ledger: string;
  rpcUrl: string;
  pubsubUrl: string;
  evmUrl: string;
  explorerUrl: string;
  rpcPort: number;
  /** The start banner. */
  banner: string;
  /** SIGTERM, wait for exit; deletes the ledger unless keepLedger. */
  stop(opts?: { keepLedger?: boolean }): Promise<void>;
}

export async function startExplorerNode(extra: string[] = [], opts: { ledger?: string; ports?: number[] } = {}): Promise<ExplorerNode> {
  // Free ports may be taken by another test between the check and the node's listen: then try others.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startExplorerNodeOn(extra, opts, opts.ports ?? (await freePorts(3)));
    } catch (e) {
      if (opts.ports || attempt >= 3 || !/already in use/.test((e as Error).message)) throw e;
    }
  }
}

async function startExplorerNodeOn(extra: string[], opts: { ledger?: string }, [rpcPort, pubsubPort, evmPort]: number[]): Promise<ExplorerNode> {
  const ledger = opts.ledger ?? fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-e2e-'));
  const args = ['start', '--ledger', ledger, '--rpc-port', String(rpcPort), '--rpc-pubsub-port', String(pubsubPort), '--evm-rpc-port', String(evmPort), '--slot-ms', '100', '--root-depth', '4', ...extra];
  const proc = runIsthmus(args);
  const m = await proc.waitForOutput(/Explorer:\s+(\S+)/);
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  await waitForRpc(rpcUrl, proc.child);
  await proc.waitForOutput(/Press Ctrl-C to stop/);
  return {
    proc,
    ledger,
    rpcUrl,
    pubsubUrl: `ws://127.0.0.1:${pubsubPort}`,
    evmUrl: `http://127.0.0.1:${evmPort}`,
    explorerUrl: m[1]!,
    rpcPort,
    banner: proc.stdout(),
    async stop({ keepLedger = false } = {}) {
      if (proc.child.exitCode === null && proc.child.signalCode === null) {
        proc.child.kill('SIGTERM');
        const t = setTimeout(() => proc.child.kill('SIGKILL'), 10_000);
        await proc.exited;
        clearTimeout(t);
      }
      if (!keepLedger && !opts.ledger) fs.rmSync(ledger, { recursive: true, force: true });
    },
  };
}

/** A new page whose console errors and failed page loads are collected (a test can assert none). */
export async function newPage(browser: Browser): Promise<Page & { errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => undefined);
  const page = (await context.newPage()) as Page & { errors: string[] };
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(`pageerror: ${e.message}`));
  page.setDefaultTimeout(15_000);
  return page;
}

/** Waits for a page of the explorer to have rendered its data (the data-page/data-loaded contract). */
export async function waitForPage(page: Page, name: string, timeout = 15_000): Promise<void> {
  await page.waitForSelector(`[data-page="${name}"][data-loaded="true"]`, { timeout });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Reads the status bar's number for a data attribute (data-slot, data-evm-block …). */
export async function statusNumber(page: Page, attr: string): Promise<number> {
  const text = (await page.textContent(`[data-status-bar] [${attr}]`)) ?? '';
  return Number(text.replace(/,/g, ''));
}
