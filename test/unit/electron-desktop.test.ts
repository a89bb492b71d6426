/**
 * The desktop shell (electron/desktop.ts, hardening.ts, pages.ts, preload.cjs) with Electron mocked:
 * the single instance, the hardened window, navigation and permission rules, the content security
 * policy, the pages shown when the node cannot start (and their way out), and quitting only once
 * the node has stopped and flushed its store. Two tests run the real startNode on a temp ledger.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, test } from 'node:test';
import vm from 'node:vm';
import { runDesktop, type ElectronLike, type IpcEventLike, type PreventableEvent, type WindowLike, type WindowOptions } from '../../electron/desktop.ts';
import { desktopCsp, VERSION_ARGUMENT } from '../../electron/hardening.ts';
import { pageHtml } from '../../electron/pages.ts';
import { LedgerLockedError } from '../../node-core/ledger/ledger-lock.ts';
import { PortInUseError } from '../../node-core/transport/listen.ts';
import { DEFAULT_OPTIONS, type NodeOptions } from '../../node-core/node/options.ts';
import { startNode, type RunningNode } from '../../node-core/node/start.ts';
import { freePorts, killLeftovers, ROOT, runIsthmus, waitForRpc } from '../helpers/cli-process.ts';
import { tempLedger } from '../helpers/node.ts';

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
  const node = {
    rpcUrl: `http://127.0.0.1:${port}`,
    pubsubUrl: `ws://127.0.0.1:${port + 1}`,
    evmRpcUrl: 'http://127.0.0.1:8545',
    close: async () => void closed++,
  } as unknown as RunningNode;
  return { node, closed: () => closed };
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
  const buttons = [button('use-free-ports'), button('quit'), button('rm-rf')];
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
    document: { querySelectorAll: () => buttons },
  });
  assert.deepEqual([...exposed.keys()], ['isthmusDesktop']);
  const api = exposed.get('isthmusDesktop');
  assert.ok(Object.isFrozen(api));
  assert.deepEqual(Object.keys(api).sort(), ['info', 'openExternal', 'version']);
  assert.equal(api.version, '1.2.3');
  void api.openExternal('https://velas.com/');
  void api.info();
  assert.deepEqual(invoked, [['isthmus:open-external', 'https://velas.com/'], ['isthmus:info']]);
  for (const l of domListeners) l();
  buttons[0]!.b.click!();
  buttons[1]!.b.click!();
  assert.equal(buttons[2]!.b.click, undefined, 'an unknown action is not wired');
  assert.deepEqual(invoked.slice(2), [['isthmus:use-free-ports'], ['isthmus:quit']]);
  assert.equal(buttons[0]!.b.attrs.get('disabled'), '');
});

test('desktopCsp lists the node endpoints in connect-src', () => {
  const csp = desktopCsp({ rpcUrl: 'http://127.0.0.1:1', pubsubUrl: 'ws://127.0.0.1:2', evmRpcUrl: 'http://127.0.0.1:3' });
  assert.match(csp, /connect-src 'self' http:\/\/127\.0\.0\.1:1 ws:\/\/127\.0\.0\.1:2 http:\/\/127\.0\.0\.1:3 ws:\/\/127\.0\.0\.1:3 /);
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
