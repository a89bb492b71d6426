/**
 * The desktop shell (electron/desktop.ts, hardening.ts, pages.ts, preload.cjs) with Electron mocked:
 * the single instance, the hardened window, navigation and permission rules, the content security
 * policy, the pages shown when the node cannot start (and their way out), and quitting only once
 * the node has stopped and flushed its store. Two tests run the real startNode on a temp ledger.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import vm from 'node:vm';
import { runDesktop, type ElectronLike, type IpcEventLike, type PreventableEvent, type WindowLike, type WindowOptions } from '../../electron/desktop.ts';
import { desktopCsp, VERSION_ARGUMENT } from '../../electron/hardening.ts';
import { pageHtml, SHELL_ACTIONS } from '../../electron/pages.ts';
import { formatBytes } from '../../renderer/src/lib/format.ts';
import { ledgerDiskBytes } from '../../node-core/ledger/ledger-folder.ts';
import { LedgerLockedError } from '../../node-core/ledger/ledger-lock.ts';
import { PortInUseError } from '../../node-core/transport/listen.ts';
import { DEFAULT_OPTIONS, type NodeOptions } from '../../node-core/node/options.ts';
import { startNode, type RunningNode } from '../../node-core/node/start.ts';
import { freePorts, killLeftovers, ROOT, runIsthmus, waitForRpc } from '../helpers/cli-process.ts';
import { rpc, tempLedger, waitFor } from '../helpers/node.ts';

after(killLeftovers);

const PRELOAD = '/app/electron/preload.cjs';
const EXPLORER = 'http://127.0.0.1:8899/explorer/';

class FakeWindow {
  loaded: string[] = [];
  minimized = false;
  destroyed = false;
  restored = 0;
  focused = 0;
  openHandler?: (d: { url: string }) => { action: string };
  listeners = new Map<string, (e: any, details?: any) => void>(); // eslint-disable-line @typescript-eslint/no-explicit-any
  closedListener?: () => void;
  constructor(readonly options: WindowOptions) {}
  webContents = {
    setWindowOpenHandler: (h: (d: { url: string }) => { action: string }) => void (this.openHandler = h),
    on: (event: string, listener: (e: any, details?: any) => void) => void this.listeners.set(event, listener), // eslint-disable-line @typescript-eslint/no-explicit-any
    getURL: () => this.loaded.at(-1) ?? '',
  };
  loadURL(url: string) {
    this.loaded.push(url);
    return Promise.resolve();
  }
  isDestroyed = () => this.destroyed;
  isMinimized = () => this.minimized;
  restore = () => void this.restored++;
  focus = () => void this.focused++;
  on(_event: 'closed', listener: () => void) {
    this.closedListener = listener;
  }
  close() {
    this.destroyed = true;
    this.closedListener?.();
  }
  /** Fires a cancellable webContents event; true when the listener prevented it. */
  fire(event: string, extra: object = {}): boolean {
    let prevented = false;
    this.listeners.get(event)?.({ preventDefault: () => (prevented = true), ...extra });
    return prevented;
  }
  get page(): string {
    return this.loaded.at(-1) ?? '';
  }
}

function fakeElectron({ primary = true } = {}) {
  const appListeners = new Map<string, (e: PreventableEvent) => void>();
  const windows: FakeWindow[] = [];
  const handlers = new Map<string, (e: IpcEventLike, ...args: unknown[]) => unknown>();
  const calls = { quitRequests: 0, quitted: 0, opened: [] as string[] };
  const session = {
    request: undefined as undefined | ((wc: unknown, p: string, cb: (g: boolean) => void, d: { requestingUrl: string }) => void),
    check: undefined as undefined | ((wc: unknown, p: string, origin: string) => boolean),
    headers: undefined as undefined | ((d: { url: string; responseHeaders?: Record<string, string[]> }, cb: (r: { responseHeaders?: Record<string, string[]> }) => void) => void),
  };
  const fireApp = (event: string): boolean => {
    let prevented = false;
    appListeners.get(event)?.({ preventDefault: () => (prevented = true) });
    return prevented;
  };
  const electron: ElectronLike = {
    app: {
      requestSingleInstanceLock: () => primary,
      whenReady: () => Promise.resolve(),
      on: (event: string, listener: (e: PreventableEvent) => void) => appListeners.set(event, listener),
      // As Electron's: quit() emits before-quit, and quits unless a listener prevented it.
      quit: () => {
        calls.quitRequests++;
        if (!fireApp('before-quit')) calls.quitted++;
      },
      getVersion: () => '9.8.7',
    },
    createWindow: (options) => {
      const w = new FakeWindow(options);
      windows.push(w);
      return w as unknown as WindowLike; // the fake records more than the interface needs
    },
    windowCount: () => windows.filter((w) => !w.destroyed).length,
    defaultSession: () => ({
      setPermissionRequestHandler: (h) => void (session.request = h),
      setPermissionCheckHandler: (h) => void (session.check = h),
      webRequest: { onHeadersReceived: (h) => void (session.headers = h) },
    }),
    shell: { openExternal: async (url) => void calls.opened.push(url) },
    ipcMain: { handle: (channel, listener) => void handlers.set(channel, listener) },
  };
  const invoke = (channel: string, senderUrl: string | null, ...args: unknown[]) => {
    const h = handlers.get(channel);
    assert.ok(h, `a handler for ${channel}`);
    return h({ senderFrame: senderUrl === null ? null : { url: senderUrl } }, ...args);
  };
  return { electron, calls, windows, session, fireApp, invoke, handlers };
}

const options: NodeOptions = { ...DEFAULT_OPTIONS, ledger: '/tmp/isthmus-desktop-test' };

function fakeNode(port = 8899) {
  let closed = 0;
  let markStopped!: (failure: Error | null) => void;
  const stopped = new Promise<Error | null>((r) => (markStopped = r));
  const node = {
    rpcUrl: `http://127.0.0.1:${port}`,
    pubsubUrl: `ws://127.0.0.1:${port + 1}`,
    evmRpcUrl: 'http://127.0.0.1:8545',
    close: async () => {
      closed++;
      markStopped(null);
    },
    stopped,
  } as unknown as RunningNode;
  /** The node stops by itself, as startNode's does when a slot cannot be stored. */
  const fail = (message: string) => markStopped(new Error(message));
  return { node, closed: () => closed, fail };
}

const tick = () => new Promise((r) => setImmediate(r));
const deps = (electron: ElectronLike, startNode: (o: NodeOptions) => Promise<RunningNode>, platform: NodeJS.Platform = 'linux') => ({
  electron,
  options,
  platform,
  preload: PRELOAD,
  startNode,
});

test('starts the node core with the given options and shows its explorer in a hardened window', async () => {
  const { electron, windows } = fakeElectron();
  const { node } = fakeNode();
  let started: NodeOptions | undefined;
  const desktop = runDesktop(deps(electron, async (o) => ((started = o), node)));
  assert.equal(desktop.primary, true);
  assert.equal(await desktop.ready, node);
  assert.deepEqual(started, options);
  assert.equal(windows.length, 1);
  const [win] = windows;
  assert.deepEqual(win!.options.webPreferences, {
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    webSecurity: true,
    webviewTag: false,
    spellcheck: false,
    preload: PRELOAD,
    additionalArguments: [`${VERSION_ARGUMENT}9.8.7`],
  });
  assert.match(pageHtml(win!.loaded[0]!), /data-shell-page="starting"/, 'a starting page first');
  assert.equal(win!.page, EXPLORER);
});

test('a second instance quits at once; the first one is focused (and its window restored or reopened)', async () => {
  const second = fakeElectron({ primary: false });
  let startedSecond = false;
  const d2 = runDesktop(deps(second.electron, async () => ((startedSecond = true), fakeNode().node)));
  assert.equal(d2.primary, false);
  assert.equal(await d2.ready, null);
  assert.equal(second.calls.quitRequests, 1);
  assert.equal(second.windows.length, 0);
  assert.equal(startedSecond, false);

  const first = fakeElectron();
  await runDesktop(deps(first.electron, async () => fakeNode().node)).ready;
  const [win] = first.windows;
  win!.minimized = true;
  first.fireApp('second-instance');
  assert.equal(win!.restored, 1);
  assert.equal(win!.focused, 1);
  win!.close();
  first.fireApp('second-instance');
  assert.equal(first.windows.length, 2, 'a closed window is opened again');
  assert.equal(first.windows[1]!.page, EXPLORER);
});

test('activation before the app is ready opens no window (Electron refuses windows before ready)', async () => {
  const { electron, windows, fireApp } = fakeElectron();
  let ready!: () => void;
  electron.app.whenReady = () => new Promise<void>((r) => (ready = r));
  const desktop = runDesktop(deps(electron, async () => fakeNode().node, 'darwin'));
  fireApp('activate');
  fireApp('second-instance');
  assert.equal(windows.length, 0);
  ready();
  await desktop.ready;
  assert.equal(windows.length, 1);
});

test('navigation stays on the explorer; web links open in the system browser; nothing else opens', async () => {
  const { electron, windows, calls } = fakeElectron();
  await runDesktop(deps(electron, async () => fakeNode().node)).ready;
  const win = windows[0]!;
  assert.equal(win.fire('will-navigate', { url: 'http://127.0.0.1:8899/explorer/block/5' }), false);
  assert.equal(win.fire('will-navigate', { url: 'https://docs.velas.com/' }), true);
  assert.equal(win.fire('will-navigate', { url: 'file:///etc/passwd' }), true);
  assert.equal(win.fire('will-navigate', { url: 'http://127.0.0.1:9999/explorer/' }), true, 'another origin is not the explorer');
  assert.deepEqual(win.openHandler!({ url: 'https://github.com/' }), { action: 'deny' });
  assert.deepEqual(win.openHandler!({ url: 'javascript:alert(1)' }), { action: 'deny' });
  assert.deepEqual(win.openHandler!({ url: 'http://127.0.0.1:8899/explorer/tx/x' }), { action: 'deny' }, 'no second window even for the explorer');
  await tick();
  assert.deepEqual(calls.opened, ['https://docs.velas.com/', 'http://127.0.0.1:9999/explorer/', 'https://github.com/', 'http://127.0.0.1:8899/explorer/tx/x']);
  assert.equal(win.fire('will-attach-webview'), true);
});

test('a page that crashed is loaded again', async () => {
  const { electron, windows } = fakeElectron();
  await runDesktop(deps(electron, async () => fakeNode().node)).ready;
  const win = windows[0]!;
  const loads = win.loaded.length;
  win.listeners.get('render-process-gone')!({}, { reason: 'crashed' });
  await tick();
  assert.equal(win.loaded.length, loads + 1);
  assert.equal(win.page, EXPLORER);
  win.listeners.get('render-process-gone')!({}, { reason: 'clean-exit' });
  await tick();
  assert.equal(win.loaded.length, loads + 1, 'a clean exit (the window closing) is not a crash');
});

test('permissions are denied except clipboard writes from the explorer', async () => {
  const { electron, session } = fakeElectron();
  await runDesktop(deps(electron, async () => fakeNode().node)).ready;
  const ask = (permission: string, requestingUrl: string) => {
    let granted: boolean | undefined;
    session.request!(null, permission, (g) => (granted = g), { requestingUrl });
    return granted;
  };
  for (const p of ['geolocation', 'media', 'notifications', 'openExternal', 'clipboard-read', 'hid']) assert.equal(ask(p, EXPLORER), false, p);
  assert.equal(ask('clipboard-sanitized-write', `${EXPLORER}address/x`), true);
  assert.equal(ask('clipboard-sanitized-write', 'https://evil.example/explorer/'), false);
  assert.equal(session.check!(null, 'clipboard-sanitized-write', 'http://127.0.0.1:8899'), true);
  assert.equal(session.check!(null, 'geolocation', 'http://127.0.0.1:8899'), false);
  assert.equal(session.check!(null, 'clipboard-sanitized-write', 'null'), false);
});

test("the node's responses get the desktop's content security policy beside the explorer's", async () => {
  const { electron, session } = fakeElectron();
  await runDesktop(deps(electron, async () => fakeNode().node)).ready;
  const headersFor = (url: string, responseHeaders?: Record<string, string[]>) => {
    let out: Record<string, string[]> | undefined;
    session.headers!({ url, responseHeaders }, (r) => (out = r.responseHeaders));
    return out!;
  };
  const served = headersFor(EXPLORER, { 'content-security-policy': ["default-src 'self'"], 'content-type': ['text/html'] });
  assert.equal(served['content-security-policy']!.length, 2, "the node's policy is kept");
  const policy = served['content-security-policy']![1]!;
  assert.match(policy, /script-src 'self'(;|$)/);
  assert.match(policy, /object-src 'none'/);
  const connect = policy.split('; ').find((d) => d.startsWith('connect-src'))!;
  for (const url of ['http://127.0.0.1:8899', 'ws://127.0.0.1:8900', 'http://127.0.0.1:8545', 'ws://127.0.0.1:8545']) assert.ok(connect.includes(url), url);
  assert.deepEqual(headersFor(`${EXPLORER}assets/x.js`)['Content-Security-Policy'], [policy]);
  assert.deepEqual(headersFor('https://api.velas.com/', { a: ['b'] }), { a: ['b'] }, 'other origins untouched');
});

test('a port in use shows a page naming it; "Start on free ports" restarts the node on free ports', async () => {
  const { electron, windows, invoke } = fakeElectron();
  const started: NodeOptions[] = [];
  const second = fakeNode(40123);
  const desktop = runDesktop(
    deps(electron, async (o) => {
      started.push(o);
      if (started.length === 1) throw new PortInUseError(8899, '--rpc-port');
      return second.node;
    }),
  );
  assert.equal(await desktop.ready, null);
  const win = windows[0]!;
  const html = pageHtml(win.page);
  assert.match(html, /data-shell-page="port-in-use"/);
  assert.match(html, /Port 8899 is already in use/);
  assert.match(html, /--rpc-port/);
  assert.match(html, /data-desktop-action="use-free-ports"/);
  assert.match(html, /data-desktop-action="quit"/);
  assert.match(html, /Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"/, 'the page runs no script');

  assert.equal(await invoke('isthmus:use-free-ports', 'https://evil.example/'), false, 'only the shell page may ask');
  assert.equal(await invoke('isthmus:use-free-ports', null), false);
  assert.equal(started.length, 1);
  assert.equal(await invoke('isthmus:use-free-ports', win.page), true);
  await tick();
  await tick();
  assert.equal(started.length, 2);
  assert.equal(started[1]!.rpcPort, 0);
  assert.equal(started[1]!.evmRpcPort, 0);
  assert.equal(started[1]!.rpcPubsubPort, undefined);
  assert.equal(started[1]!.ledger, options.ledger);
  assert.equal(desktop.node(), second.node);
  assert.equal(win.page, 'http://127.0.0.1:40123/explorer/');
  assert.equal(await invoke('isthmus:use-free-ports', 'data:text/html,x'), false, 'no second start while a node runs');
});

test('the ledger in use by another node shows a page with "Try again", which retries the same options', async () => {
  const { electron, windows, invoke } = fakeElectron();
  const started: NodeOptions[] = [];
  const desktop = runDesktop(
    deps(electron, async (o) => {
      started.push(o);
      if (started.length === 1) throw new LedgerLockedError('the ledger /x is in use by another node (pid 42); stop it or pass another --ledger');
      return fakeNode().node;
    }),
  );
  await desktop.ready;
  const html = pageHtml(windows[0]!.page);
  assert.match(html, /data-shell-page="ledger-in-use"/);
  assert.match(html, /pid 42/);
  assert.equal(await invoke('isthmus:retry', windows[0]!.page), true);
  await tick();
  await tick();
  assert.deepEqual(started[1], options);
  assert.equal(windows[0]!.page, EXPLORER);
});

test('any other start failure is shown escaped, with Quit', async () => {
  const { electron, windows, invoke, calls } = fakeElectron();
  await runDesktop(deps(electron, async () => Promise.reject(new Error('bad <script>alert(1)</script> genesis')))).ready;
  const html = pageHtml(windows[0]!.page);
  assert.match(html, /data-shell-page="start-failed"/);
  assert.ok(html.includes('bad &lt;script&gt;alert(1)&lt;/script&gt; genesis'));
  assert.ok(!html.includes('<script>'));
  await invoke('isthmus:quit', windows[0]!.page);
  assert.equal(calls.quitted, 1, 'nothing to stop: quits at once');
});

test('quitting waits for the node to stop and flush, then quits once', async () => {
  const { electron, calls, fireApp } = fakeElectron();
  const fake = fakeNode();
  await runDesktop(deps(electron, async () => fake.node)).ready;
  assert.equal(fireApp('before-quit'), true, 'the first quit is held');
  assert.equal(fireApp('before-quit'), true, 'a second quit while stopping is held too');
  await tick();
  await tick();
  assert.equal(fake.closed(), 1);
  assert.equal(calls.quitted, 1);
  assert.equal(fireApp('before-quit'), false, 'after the node stopped, quit goes through');
  assert.equal(fake.closed(), 1);
});

test('quitting while the node is still starting waits for the start, then stops it', async () => {
  const { electron, calls, fireApp } = fakeElectron();
  const fake = fakeNode();
  let finishStart!: (n: RunningNode) => void;
  const desktop = runDesktop(deps(electron, () => new Promise((r) => (finishStart = r))));
  await tick();
  assert.equal(fireApp('before-quit'), true);
  await tick();
  assert.equal(calls.quitted, 0);
  finishStart(fake.node);
  await desktop.ready;
  await tick();
  await tick();
  assert.equal(fake.closed(), 1);
  assert.equal(calls.quitted, 1);
});

test('a node that fails to stop still lets the app quit', async () => {
  const { electron, calls, fireApp } = fakeElectron();
  const node = { ...fakeNode().node, close: async () => Promise.reject(new Error('disk full')) } as RunningNode;
  const logs: string[] = [];
  await runDesktop({ ...deps(electron, async () => node), log: (m) => logs.push(m) }).ready;
  fireApp('before-quit');
  await tick();
  await tick();
  assert.equal(calls.quitted, 1);
  assert.match(logs.join('\n'), /disk full/);
});

test('closing the last window quits except on macOS, where activating reopens the explorer', async () => {
  for (const [platform, quits] of [['linux', 1], ['win32', 1], ['darwin', 0]] as const) {
    const { electron, calls, fireApp, windows } = fakeElectron();
    await runDesktop(deps(electron, async () => fakeNode().node, platform)).ready;
    windows[0]!.close();
    fireApp('window-all-closed');
    assert.equal(calls.quitRequests, quits, platform);
    if (platform === 'darwin') {
      fireApp('activate');
      assert.equal(windows.length, 2);
      assert.equal(windows[1]!.page, EXPLORER);
    }
  }
});

test("the preload's channels answer the explorer only, and open only web links", async () => {
  const { electron, invoke, calls } = fakeElectron();
  await runDesktop(deps(electron, async () => fakeNode().node)).ready;
  assert.deepEqual(await invoke('isthmus:info', `${EXPLORER}block/1`), {
    version: '9.8.7',
    rpcUrl: 'http://127.0.0.1:8899',
    pubsubUrl: 'ws://127.0.0.1:8900',
    evmRpcUrl: 'http://127.0.0.1:8545',
    explorerUrl: EXPLORER,
  });
  assert.equal(await invoke('isthmus:info', 'https://evil.example/explorer/'), null);
  assert.equal(await invoke('isthmus:open-external', EXPLORER, 'https://velas.com/'), true);
  assert.equal(await invoke('isthmus:open-external', EXPLORER, 'file:///etc/passwd'), false);
  assert.equal(await invoke('isthmus:open-external', EXPLORER, { toString: () => 'https://x' }), false);
  assert.equal(await invoke('isthmus:open-external', 'data:text/html,x', 'https://velas.com/'), false);
  assert.equal(await invoke('isthmus:retry', EXPLORER), false, 'the explorer cannot restart the node');
  await tick();
  assert.deepEqual(calls.opened, ['https://velas.com/']);
});

test('the preload exposes a small frozen API and wires only the known shell actions', () => {
  const source = fs.readFileSync(path.join(ROOT, 'electron/preload.cjs'), 'utf8');
  const exposed = new Map<string, any>(); // eslint-disable-line @typescript-eslint/no-explicit-any
  const invoked: unknown[][] = [];
  const domListeners: Array<() => void> = [];
  const button = (action: string) => {
    const b = { action, click: undefined as undefined | (() => void), attrs: new Map<string, string>() };
    return {
      b,
      getAttribute: (n: string) => (n === 'data-desktop-action' ? action : null),
      setAttribute: (n: string, v: string) => void b.attrs.set(n, v),
      addEventListener: (_e: string, l: () => void) => void (b.click = l),
    };
  };
  const buttons = [button('use-free-ports'), button('quit'), button('rm-rf'), button('save-settings')];
  const fields = [{ getAttribute: (n: string) => (n === 'data-desktop-setting' ? 'limit-ledger-size' : null), value: ' 5000 ' }];
  const electronModule = {
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
    ipcRenderer: { invoke: (...args: unknown[]) => (invoked.push(args), Promise.resolve(true)) },
  };
  vm.runInNewContext(source, {
    require: (id: string) => {
      assert.equal(id, 'electron', 'the preload requires nothing but electron');
      return electronModule;
    },
    process: { argv: ['/app/isthmus', '--type=renderer', `${VERSION_ARGUMENT}1.2.3`] },
    window: { addEventListener: (_e: string, l: () => void) => domListeners.push(l) },
    document: { querySelectorAll: (selector: string) => (selector === '[data-desktop-setting]' ? fields : buttons) },
  });
  assert.deepEqual([...exposed.keys()], ['isthmusDesktop']);
  const api = exposed.get('isthmusDesktop');
  assert.ok(Object.isFrozen(api));
  assert.deepEqual(Object.keys(api).sort(), ['info', 'openExternal', 'openSettings', 'version']);
  assert.equal(api.version, '1.2.3');
  void api.openExternal('https://velas.com/');
  void api.info();
  void api.openSettings();
  assert.deepEqual(invoked.splice(0), [['isthmus:open-external', 'https://velas.com/'], ['isthmus:info'], ['isthmus:open-settings']]);
  for (const l of domListeners) l();
  buttons[0]!.b.click!();
  buttons[1]!.b.click!();
  assert.equal(buttons[2]!.b.click, undefined, 'an unknown action is not wired');
  buttons[3]!.b.click!();
  // (JSON: the values object was made in the preload's own realm)
  assert.deepEqual(JSON.parse(JSON.stringify(invoked)), [['isthmus:use-free-ports'], ['isthmus:quit'], ['isthmus:save-settings', { 'limit-ledger-size': ' 5000 ' }]], 'save-settings sends the fields as typed');
  // The preload cannot import pages.ts: its list of actions is a copy, kept equal.
  assert.deepEqual(JSON.parse(/const SHELL_ACTIONS = (\[[^\]]*\]);/.exec(source)![1]!.replace(/'/g, '"')), [...SHELL_ACTIONS]);
  assert.equal(buttons[0]!.b.attrs.get('disabled'), '');
});

test('desktopCsp lists the node endpoints in connect-src', () => {
  const csp = desktopCsp({ rpcUrl: 'http://127.0.0.1:1', pubsubUrl: 'ws://127.0.0.1:2', evmRpcUrl: 'http://127.0.0.1:3' });
  assert.match(csp, /connect-src 'self' http:\/\/127\.0\.0\.1:1 ws:\/\/127\.0\.0\.1:2 http:\/\/127\.0\.0\.1:3 ws:\/\/127\.0\.0\.1:3 /);
});

// ---- the node stopping by itself ----

test('a node that stops by itself is reported in the window, which offers a restart that works', async () => {
  const { electron, windows, invoke } = fakeElectron();
  const nodes = [fakeNode(), fakeNode(8899)];
  const started: NodeOptions[] = [];
  const logs: string[] = [];
  const desktop = runDesktop({ ...deps(electron, async (o) => (started.push(o), nodes[started.length - 1]!.node)), log: (m) => logs.push(m) });
  await desktop.ready;
  const win = windows[0]!;
  assert.equal(win.page, EXPLORER);
  nodes[0]!.fail('slot 41 could not be stored: No space left on device');
  await tick();
  assert.equal(desktop.node(), null);
  const html = pageHtml(win.page);
  assert.match(html, /data-shell-page="node-stopped"/);
  assert.match(html, /The node stopped unexpectedly: slot 41 could not be stored: No space left on device/);
  assert.match(html, /data-desktop-action="retry"[^>]*>Restart the node</);
  assert.match(html, /data-desktop-action="quit"/);
  assert.match(logs.join('\n'), /the node stopped: slot 41/);
  assert.equal(await invoke('isthmus:retry', 'https://evil.example/'), false, 'only the shell page may ask');
  assert.equal(await invoke('isthmus:retry', win.page), true);
  await tick();
  await tick();
  assert.equal(started.length, 2);
  assert.deepEqual(started[1], options, 'the same options as before');
  assert.equal(desktop.node(), nodes[1]!.node);
  assert.equal(win.page, EXPLORER);
  assert.equal(await invoke('isthmus:retry', 'data:text/html,x'), false, 'no second start while the node runs');
});

test('a node stopped by quitting or by a restart is not reported as stopped', async () => {
  const { electron, windows, fireApp, calls, invoke } = fakeElectron();
  const nodes = [fakeNode(), fakeNode()];
  let n = 0;
  const desktop = runDesktop(deps(electron, async () => nodes[n++]!.node));
  await desktop.ready;
  const win = windows[0]!;
  await invoke('isthmus:open-settings', EXPLORER);
  await tick();
  assert.equal(await invoke('isthmus:restart-node', win.page), true);
  for (let i = 0; i < 4; i++) await tick();
  assert.equal(nodes[0]!.closed(), 1, 'the restart stopped the first node');
  assert.equal(desktop.node(), nodes[1]!.node);
  assert.equal(win.page, EXPLORER);
  assert.ok(!win.loaded.some((u) => u.startsWith('data:') && /node-stopped/.test(pageHtml(u))), 'no "stopped" page');
  fireApp('before-quit');
  for (let i = 0; i < 4; i++) await tick();
  assert.equal(calls.quitted, 1);
  assert.equal(win.page, EXPLORER, 'quitting shows no "stopped" page either');
});

// ---- settings: the ledger's size and its size limit ----

function settingsFixture() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-desktop-settings-'));
  const ledger = path.join(dir, 'ledger');
  fs.mkdirSync(path.join(ledger, 'store'), { recursive: true });
  fs.writeFileSync(path.join(ledger, 'store', 'data.mdb'), Buffer.alloc(300_000, 1));
  fs.writeFileSync(path.join(ledger, 'genesis.json'), Buffer.alloc(20_000, 1));
  return { dir, ledger, file: path.join(dir, 'userData', 'settings.json'), cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

test('the settings page shows the ledger size; a saved limit is kept in the settings file and applied when the node restarts', async () => {
  const fx = settingsFixture();
  try {
    const { electron, windows, invoke } = fakeElectron();
    const started: NodeOptions[] = [];
    const nodes = [fakeNode(), fakeNode()];
    const desktop = runDesktop({ ...deps(electron, async (o) => (started.push(o), nodes[started.length - 1]!.node)), options: { ...options, ledger: fx.ledger }, settingsFile: fx.file });
    await desktop.ready;
    assert.equal(started[0]!.limitLedgerSize, undefined, 'no settings yet: every slot is kept');
    const win = windows[0]!;
    assert.equal(await invoke('isthmus:open-settings', 'https://evil.example/explorer/'), false);
    assert.equal(await invoke('isthmus:open-settings', EXPLORER), true);
    await tick();
    await tick();
    let html = pageHtml(win.page);
    assert.match(html, /data-shell-page="settings"/);
    const onDisk = await ledgerDiskBytes(fx.ledger);
    assert.ok(onDisk >= 320_000, `${onDisk}`);
    assert.ok(html.includes(`data-ledger-disk-size>${formatBytes(onDisk)}<`), html);
    assert.match(html, /data-desktop-setting="limit-ledger-size"[^>]*value=""/);
    assert.match(html, /At least 1,000 slots \(at 400 ms a slot, 216,000 slots are a day\)/);

    assert.deepEqual(await invoke('isthmus:save-settings', EXPLORER, { 'limit-ledger-size': '5000' }), false, 'only the shell page may save');
    const saved = await invoke('isthmus:save-settings', win.page, { 'limit-ledger-size': ' 50,000 ' });
    assert.deepEqual(saved, { ok: true, settings: { limitLedgerSize: 50_000 } });
    assert.deepEqual(JSON.parse(fs.readFileSync(fx.file, 'utf8')), { limitLedgerSize: 50_000 });
    html = pageHtml(win.page);
    assert.match(html, /data-settings-message="saved"[^>]*>Saved\. The node applies it when it restarts\./);
    assert.match(html, /value="50000"/);
    assert.match(html, /data-settings-pending>The running node keeps every slot; restart it to keep the last 50,000 slots\./);
    assert.equal(desktop.options().limitLedgerSize, undefined, 'the running node keeps its options');

    assert.equal(await invoke('isthmus:restart-node', win.page), true);
    for (let i = 0; i < 4; i++) await tick();
    assert.equal(started.length, 2);
    assert.equal(started[1]!.limitLedgerSize, 50_000, 'the restart applies it');
    assert.equal(win.page, EXPLORER);

    // A new run of the app reads it back and starts with it.
    const second = fakeElectron();
    const again: NodeOptions[] = [];
    const d2 = runDesktop({ ...deps(second.electron, async (o) => (again.push(o), fakeNode().node)), options: { ...options, ledger: fx.ledger }, settingsFile: fx.file });
    await d2.ready;
    assert.equal(again[0]!.limitLedgerSize, 50_000);
    assert.deepEqual(d2.settings(), { limitLedgerSize: 50_000 });

    // Emptying the field keeps every slot again.
    await invoke('isthmus:open-settings', EXPLORER);
    await tick();
    assert.deepEqual(await invoke('isthmus:save-settings', win.page, { 'limit-ledger-size': '' }), { ok: true, settings: { limitLedgerSize: null } });
    assert.deepEqual(JSON.parse(fs.readFileSync(fx.file, 'utf8')), { limitLedgerSize: null });
  } finally {
    fx.cleanup();
  }
});

test('a bad ledger size limit is refused with a clear message and nothing changes', async () => {
  const fx = settingsFixture();
  try {
    fs.mkdirSync(path.dirname(fx.file), { recursive: true });
    fs.writeFileSync(fx.file, JSON.stringify({ limitLedgerSize: 7000 }));
    const before = fs.readFileSync(fx.file, 'utf8');
    const { electron, windows, invoke } = fakeElectron();
    const started: NodeOptions[] = [];
    const desktop = runDesktop({ ...deps(electron, async (o) => (started.push(o), fakeNode().node)), options: { ...options, ledger: fx.ledger }, settingsFile: fx.file });
    await desktop.ready;
    assert.equal(started[0]!.limitLedgerSize, 7000, 'the saved limit is applied at start');
    await invoke('isthmus:open-settings', EXPLORER);
    await tick();
    const win = windows[0]!;
    const cases: Array<[unknown, RegExp]> = [
      [{ 'limit-ledger-size': 'abc' }, /"abc" is not a whole number of slots: enter one \(at least 1000\), or leave the field empty to keep every slot\./],
      [{ 'limit-ledger-size': '1e4' }, /"1e4" is not a whole number of slots/],
      [{ 'limit-ledger-size': '-5000' }, /"-5000" is not a whole number of slots/],
      [{ 'limit-ledger-size': '2500.5' }, /"2500\.5" is not a whole number of slots/],
      [{ 'limit-ledger-size': '999' }, /999 slots is too few: the ledger keeps at least 1000\./],
      [{ 'limit-ledger-size': '0' }, /0 slots is too few/],
      [{ 'limit-ledger-size': '99999999999999999999' }, /more than this app can count/],
      [{ 'limit-ledger-size': 5000n }, /must be a number of slots/],
      [null, /must be a number of slots/],
      ['5000', /must be a number of slots/],
    ];
    for (const [values, message] of cases) {
      const answer = (await invoke('isthmus:save-settings', win.page, values)) as { ok: boolean; error: string };
      assert.equal(answer.ok, false, String(values));
      assert.match(answer.error, message);
      const html = pageHtml(win.page);
      assert.match(html, /data-settings-message="error"/);
      assert.ok(html.includes(answer.error.replace(/"/g, '&quot;')), html);
      assert.equal(fs.readFileSync(fx.file, 'utf8'), before, 'the file is untouched');
      assert.deepEqual(desktop.settings(), { limitLedgerSize: 7000 });
    }
    // The rejected input stays in the field, escaped.
    await invoke('isthmus:save-settings', win.page, { 'limit-ledger-size': '"><b>x' });
    assert.match(pageHtml(win.page), /value="&quot;&gt;&lt;b&gt;x"/);
    assert.equal(started.length, 1, 'nothing restarted');
  } finally {
    fx.cleanup();
  }
});

test('a damaged settings file gives the defaults and says why; a settings file that cannot be written is reported', async () => {
  const fx = settingsFixture();
  try {
    fs.mkdirSync(path.dirname(fx.file), { recursive: true });
    for (const [content, problem] of [
      ['{not json', /could not be read/],
      [JSON.stringify({ limitLedgerSize: 10 }), /10 slots is too few/],
    ] as const) {
      fs.writeFileSync(fx.file, content);
      const { electron } = fakeElectron();
      const logs: string[] = [];
      const started: NodeOptions[] = [];
      await runDesktop({ ...deps(electron, async (o) => (started.push(o), fakeNode().node)), settingsFile: fx.file, log: (m) => logs.push(m) }).ready;
      assert.equal(started[0]!.limitLedgerSize, undefined);
      assert.match(logs.join('\n'), problem);
    }
    // The settings folder is a file: saving fails, the page says so, nothing changes.
    const blocked = path.join(fx.dir, 'blocked');
    fs.writeFileSync(blocked, 'x');
    const { electron, windows, invoke } = fakeElectron();
    const desktop = runDesktop({ ...deps(electron, async () => fakeNode().node), settingsFile: path.join(blocked, 'settings.json') });
    await desktop.ready;
    await invoke('isthmus:open-settings', EXPLORER);
    await tick();
    const answer = (await invoke('isthmus:save-settings', windows[0]!.page, { 'limit-ledger-size': '5000' })) as { ok: boolean; error: string };
    assert.equal(answer.ok, false);
    assert.match(answer.error, /The settings could not be saved/);
    assert.match(pageHtml(windows[0]!.page), /data-settings-message="error"/);
    assert.deepEqual(desktop.settings(), { limitLedgerSize: null });
  } finally {
    fx.cleanup();
  }
});

test('Back from the settings returns to the explorer, or to the page shown before when no node runs', async () => {
  const { electron, windows, invoke } = fakeElectron();
  const fake = fakeNode();
  await runDesktop(deps(electron, async () => fake.node)).ready;
  const win = windows[0]!;
  await invoke('isthmus:open-settings', EXPLORER);
  await tick();
  assert.equal(await invoke('isthmus:show-explorer', win.page), true);
  assert.equal(win.page, EXPLORER);
  fake.fail('boom');
  await tick();
  const stopped = win.page;
  assert.match(pageHtml(stopped), /node-stopped/);
  await invoke('isthmus:open-settings', stopped);
  await tick();
  assert.doesNotMatch(pageHtml(win.page), /data-desktop-action="restart-node"/, 'no restart of a node that is not running');
  await invoke('isthmus:save-settings', win.page, { 'limit-ledger-size': 'x' });
  await invoke('isthmus:show-explorer', win.page);
  assert.equal(win.page, stopped);
});

// ---- with the real node core ----

async function holdPort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, release: () => new Promise((r) => server.close(() => r())) };
}

test('real node: a taken port is reported in the window, free ports start it, and quitting flushes and unlocks the ledger', async () => {
  const ledger = tempLedger();
  const taken = await holdPort();
  const { electron, windows, invoke, fireApp, calls } = fakeElectron();
  try {
    const desktop = runDesktop({
      electron,
      platform: 'linux',
      preload: PRELOAD,
      startNode,
      options: { ...DEFAULT_OPTIONS, ledger, quiet: true, slotMs: 50, rootDepth: 4, rpcPort: taken.port, evmRpcPort: 0 },
    });
    assert.equal(await desktop.ready, null);
    assert.match(pageHtml(windows[0]!.page), new RegExp(`Port ${taken.port} is already in use`));
    await invoke('isthmus:use-free-ports', windows[0]!.page);
    const deadline = Date.now() + 20_000;
    while (!desktop.node() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const node = desktop.node()!;
    assert.ok(node, 'the node started on free ports');
    assert.notEqual(node.rpcPort, taken.port);
    assert.equal(windows[0]!.page, `${node.rpcUrl}/explorer/`);
    const res = await fetch(node.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"getHealth"}' });
    assert.equal(((await res.json()) as { result: string }).result, 'ok');
    const slot = node.chain.confirmedSlot;
    fireApp('before-quit');
    while (calls.quitted === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(calls.quitted, 1);
    assert.equal(fs.existsSync(path.join(ledger, 'ledger.lock')), false, 'the lock is released');
    // The store was flushed: a new node on the ledger resumes at or after the slot seen before quitting.
    const again = await startNode({ ...DEFAULT_OPTIONS, ledger, quiet: true, rpcPort: 0, evmRpcPort: 0 });
    assert.ok(again.chain.confirmedSlot >= slot);
    await again.close();
  } finally {
    await taken.release();
    fs.rmSync(ledger, { recursive: true, force: true });
  }
});

test('real node: the ledger in use by another node (an `isthmus start`) is reported in the window', async () => {
  const ledger = tempLedger();
  const [rpcPort] = await freePorts(1);
  const other = runIsthmus(['start', '--ledger', ledger, '--rpc-port', String(rpcPort), '--evm-rpc-port', '0', '--quiet']);
  try {
    await waitForRpc(`http://127.0.0.1:${rpcPort}`, other.child);
    const { electron, windows } = fakeElectron();
    const desktop = runDesktop({ electron, platform: 'linux', preload: PRELOAD, startNode, options: { ...DEFAULT_OPTIONS, ledger, quiet: true, rpcPort: 0, evmRpcPort: 0 } });
    assert.equal(await desktop.ready, null);
    const html = pageHtml(windows[0]!.page);
    assert.match(html, /data-shell-page="ledger-in-use"/);
    assert.ok(html.includes(`pid ${other.child.pid}`), html);
  } finally {
    other.child.kill('SIGINT');
    await other.exited;
    fs.rmSync(ledger, { recursive: true, force: true });
  }
});

test('real node: a node that cannot store a slot stops, the window says so, and its restart goes on from the same ledger', async () => {
  const ledger = tempLedger();
  const { electron, windows, invoke, fireApp, calls } = fakeElectron();
  try {
    const desktop = runDesktop({
      electron,
      platform: 'linux',
      preload: PRELOAD,
      startNode,
      options: { ...DEFAULT_OPTIONS, ledger, quiet: true, slotMs: 50, rootDepth: 4, rpcPort: 0, evmRpcPort: 0 },
    });
    const first = (await desktop.ready)!;
    assert.ok(first);
    await waitFor(() => first.chain.confirmedSlot > 3, { what: 'a few slots stored' });
    // The disk fills up: the next slot cannot be stored.
    first.chain.store.commitSlot = () => Promise.reject(new Error('MDB_MAP_FULL: No space left on device'));
    await waitFor(() => desktop.node() === null && /node-stopped/.test(windows[0]!.page && pageHtml(windows[0]!.page)), { timeoutMs: 20_000, what: 'the stopped page' });
    assert.equal(await first.stopped.then((e) => e?.message.replace(/^slot \d+/, 'slot N')), 'slot N could not be stored: MDB_MAP_FULL: No space left on device');
    assert.match(pageHtml(windows[0]!.page), /The node stopped unexpectedly: slot \d+ could not be stored: MDB_MAP_FULL: No space left on device/);
    await assert.rejects(fetch(first.rpcUrl, { method: 'POST', body: '{}' }), 'its endpoints are closed');
    assert.equal(fs.existsSync(path.join(ledger, 'ledger.lock')), false, 'the ledger is released');
    const lastStored = first.chain.confirmedSlot;

    assert.equal(await invoke('isthmus:retry', windows[0]!.page), true);
    const again = (await waitFor(() => desktop.node(), { timeoutMs: 20_000, what: 'the restarted node' }))!;
    assert.notEqual(again, first);
    assert.equal(windows[0]!.page, `${again.rpcUrl}/explorer/`);
    assert.equal((await rpc(again.rpcUrl, 'getHealth')).result, 'ok');
    assert.ok(again.chain.confirmedSlot >= lastStored, 'it goes on from the last slot stored');
    await waitFor(() => again.chain.confirmedSlot > lastStored + 2, { what: 'new slots after the restart' });
    fireApp('before-quit');
    await waitFor(() => calls.quitted === 1, { what: 'the quit' });
    assert.equal(await again.stopped, null, 'stopped by the quit, not by a failure');
  } finally {
    fs.rmSync(ledger, { recursive: true, force: true });
  }
});
