/**
 * The built main process (dist/electron/main.mjs, `npm run build:desktop`), run under plain Node with
 * Electron replaced by test/helpers/fake-electron (its binary cannot be downloaded here): it starts the
 * real node on the per-user ledger (XDG_DATA_HOME pointed at a temp folder), reports the default port
 * in use in the window, starts on free ports when asked with the saved settings applied, and on SIGTERM quits only after the node
 * has stopped (the ledger's lock released). The explorer it shows is the app's renderer/dist.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { DEFAULT_OPTIONS } from '../../node-core/node/options.ts';
import { NODE_VERSION } from '../../node-core/node/start.ts';
import { ROOT } from '../helpers/cli-process.ts';
import { rpc } from '../helpers/node.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const cleanups: Array<() => void> = [];
after(() => cleanups.forEach((c) => c()));

/** Holds the node's default RPC port for the test, so the port-in-use path runs whatever else this machine runs. */
async function occupyDefaultPort(): Promise<() => void> {
  const server = net.createServer();
  const held = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false)); // already taken by someone else: just as good
    server.listen(DEFAULT_OPTIONS.rpcPort, '127.0.0.1', () => resolve(true));
  });
  return () => {
    if (held) server.close();
  };
}

test('the built main process runs the node, shows the port in use, starts on free ports and quits after stopping it', { timeout: 120_000 }, async () => {
  const build = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'electron/vite.config.ts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
  const explorerBuild = spawnSync(process.execPath, [path.join(ROOT, 'renderer/build-if-stale.mjs')], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(explorerBuild.status, 0, explorerBuild.stderr);
  const bundle = path.join(ROOT, 'dist/electron/main.mjs');
  assert.ok(fs.existsSync(bundle));

  const dataHome = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-desktop-'));
  cleanups.push(() => fs.rmSync(dataHome, { recursive: true, force: true }));
  // The app's settings, as its settings page saves them in userData ($XDG_CONFIG_HOME/isthmus on Linux).
  const configHome = path.join(dataHome, 'config');
  fs.mkdirSync(path.join(configHome, 'isthmus'), { recursive: true });
  fs.writeFileSync(path.join(configHome, 'isthmus', 'settings.json'), JSON.stringify({ limitLedgerSize: 5000 }));
  const release = await occupyDefaultPort();
  cleanups.push(release);

  const child = spawn(process.execPath, ['--import', './test/helpers/fake-electron/register.mjs', bundle], {
    cwd: ROOT,
    env: { ...process.env, XDG_DATA_HOME: dataHome, XDG_CONFIG_HOME: configHome, FAKE_ELECTRON_APP_PATH: ROOT },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
  const events: Json[] = [];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buffered += d;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.startsWith('{')) events.push(JSON.parse(line));
    }
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const waitForEvent = async (match: (e: Json) => boolean, what: string) => {
    const end = Date.now() + 60_000;
    for (;;) {
      const found = events.find(match);
      if (found) return found;
      if (child.exitCode !== null || Date.now() > end) throw new Error(`no ${what}; events: ${JSON.stringify(events).slice(0, 2000)}; stderr: ${stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  const win = await waitForEvent((e) => e.event === 'window', 'window');
  assert.equal(win.webPreferences.contextIsolation, true);
  assert.equal(win.webPreferences.sandbox, true);
  assert.equal(win.webPreferences.nodeIntegration, false);
  assert.equal(win.webPreferences.preload, path.join(ROOT, 'electron', 'preload.cjs'));
  assert.ok(fs.existsSync(win.webPreferences.preload));

  const portPage = await waitForEvent((e) => e.event === 'load' && e.url === 'shell:port-in-use', 'port-in-use page');
  assert.match(portPage.html, new RegExp(`Port ${DEFAULT_OPTIONS.rpcPort} is already in use`));
  const explorer = await waitForEvent((e) => e.event === 'load' && /^http:\/\/127\.0\.0\.1:\d+\/explorer\/$/.test(e.url), 'explorer load');
  const rpcUrl = new URL(explorer.url).origin;
  assert.notEqual(new URL(rpcUrl).port, String(DEFAULT_OPTIONS.rpcPort));
  assert.deepEqual(
    events.filter((e) => e.event === 'load').map((e) => e.url),
    ['shell:starting', 'shell:port-in-use', 'shell:starting', explorer.url],
  );

  // The node answers, with the version read through the bundle's own path to package.json.
  assert.equal((await rpc(rpcUrl, 'getHealth')).result, 'ok');
  assert.equal((await rpc(rpcUrl, 'getVersion')).result['node-core'], NODE_VERSION);
  // The saved ledger size limit is applied; the ledger's size on disk is told.
  const ledgerInfo = (await rpc(rpcUrl, 'isthmus_getNodeInfo')).result.ledger;
  assert.equal(ledgerInfo.limitLedgerSize, 5000);
  assert.ok(ledgerInfo.diskBytes > 0);
  // The explorer is served from the app's renderer/dist (the explorerDir main.ts passes).
  const page = await fetch(explorer.url);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  assert.match(await page.text(), /<script type="module"[^>]+src="\/explorer\/assets\//);
  const ledger = path.join(dataHome, 'isthmus', 'ledger');
  assert.ok(fs.existsSync(path.join(ledger, 'ledger.lock')), 'the per-user ledger is in use');

  child.kill('SIGTERM');
  assert.equal(await exited, 0, stderr);
  const quits = events.filter((e) => e.event === 'quit');
  assert.deepEqual(
    quits.map((e) => e.prevented),
    [true, false],
    'the first quit waits for the node, the second goes through',
  );
  assert.equal(fs.existsSync(path.join(ledger, 'ledger.lock')), false, 'the node stopped and released the ledger');
});
