/**
 * The explorer still works under the desktop window's content security policy: Chromium loads the
 * node's explorer with the desktop's policy (electron/hardening.ts) added beside the route's own, as
 * the Electron session does, and the dashboard and a block page render their data, the PubSub and EVM
 * WebSockets connect, and no policy violation is reported.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { withDesktopCsp } from '../../electron/hardening.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { ROOT } from '../helpers/cli-process.ts';
import { startTestNode, type TestNode } from '../helpers/node.ts';

let node: TestNode;
let browser: Browser;

before(async () => {
  const built = spawnSync(process.execPath, [path.join(ROOT, 'renderer/build-if-stale.mjs')], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  node = await startTestNode({ slotMs: 100 });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await node?.stop();
});

/** A context whose responses from the node carry the desktop policy too (one header, policies comma-separated). */
async function desktopContext(): Promise<{ context: BrowserContext; violations: string[] }> {
  const context = await browser.newContext();
  const violations: string[] = [];
  await context.exposeBinding('__cspViolation', (_source, text: string) => void violations.push(text));
  await context.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) => window.__cspViolation(e.violatedDirective + ' ' + e.blockedURI));`,
  });
  await context.route(`${node.rpcUrl}/**`, async (route) => {
    const response = await route.fetch();
    const headers = Object.fromEntries(Object.entries(response.headers()).map(([k, v]) => [k, [v]]));
    const withCsp = withDesktopCsp(route.request().url(), headers, node);
    const flattened = Object.fromEntries(Object.entries(withCsp).map(([k, v]) => [k, v.join(', ')]));
    await route.fulfill({ response, headers: flattened });
  });
  return { context, violations };
}

test('the dashboard and a block page render under the desktop policy, with live WebSockets and no violation', { timeout: 120_000 }, async () => {
  const { context, violations } = await desktopContext();
  const page = await context.newPage();
  const sockets: string[] = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  const response = await page.goto(`${node.rpcUrl}/explorer/`);
  const policies = (await response!.allHeaders())['content-security-policy']!;
  assert.equal(policies.split(', ').length, 2, "the route's policy and the desktop's");
  await page.waitForSelector('[data-page="dashboard"][data-loaded="true"]', { timeout: 30_000 });
  // The dashboard follows slots over PubSub.
  const deadline = Date.now() + 20_000;
  while (!sockets.some((u) => u.startsWith(node.pubsubUrl)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.ok(sockets.some((u) => u.startsWith(node.pubsubUrl)), `a PubSub WebSocket (${sockets.join(', ') || 'none'})`);

  await page.goto(`${node.rpcUrl}/explorer/block/1`);
  await page.waitForSelector('[data-page="block"][data-loaded="true"]', { timeout: 30_000 });
  assert.equal(violations.length, 0, violations.join('; '));

  // Control: the policies are in force and a violation would have been seen.
  await page.evaluate(() => {
    const img = (globalThis as any).document.createElement('img'); // eslint-disable-line @typescript-eslint/no-explicit-any
    img.src = 'https://example.invalid/x.png';
    (globalThis as any).document.body.append(img); // eslint-disable-line @typescript-eslint/no-explicit-any
  });
  const until = Date.now() + 5_000;
  while (violations.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  assert.ok(violations.some((v) => v.startsWith('img-src https://example.invalid')), violations.join('; '));
  await context.close();
});
