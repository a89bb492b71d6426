import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runDesktop, type ElectronLike } from '../../electron/desktop.ts';
import type { RunningNode } from '../../node-core/server/start.ts';
import { DEFAULT_OPTIONS, type NodeOptions } from '../../node-core/server/options.ts';

function fakeElectron() {
  const listeners = new Map<string, (e: { preventDefault(): void }) => void>();
  const calls = { quit: 0, exit: [] as Array<number | undefined>, loaded: [] as string[], windows: 0, errors: [] as string[] };
  const electron: ElectronLike = {
    app: {
      whenReady: () => Promise.resolve(),
      on: (event, listener) => listeners.set(event, listener),
      quit: () => void calls.quit++,
      exit: (code) => void calls.exit.push(code),
    },
    BrowserWindow: class {
      constructor(options: { webPreferences: { contextIsolation: boolean; nodeIntegration: boolean } }) {
        assert.equal(options.webPreferences.contextIsolation, true);
        assert.equal(options.webPreferences.nodeIntegration, false);
        calls.windows++;
      }
      loadURL(url: string) {
        calls.loaded.push(url);
        return Promise.resolve();
      }
      static getAllWindows() {
        return new Array(calls.windows);
      }
    },
    dialog: { showErrorBox: (title, content) => void calls.errors.push(`${title}: ${content}`) },
  };
  const fire = (event: string) => {
    let prevented = false;
    listeners.get(event)?.({ preventDefault: () => (prevented = true) });
    return prevented;
  };
  return { electron, calls, fire };
}

const options: NodeOptions = { ...DEFAULT_OPTIONS, ledger: '/tmp/isthmus-desktop-test' };

function fakeNode() {
  let closed = 0;
  const node = { rpcUrl: 'http://127.0.0.1:8899', close: async () => void closed++ } as unknown as RunningNode;
  return { node, closed: () => closed };
}

test('starts the node core with the given options and opens the explorer window', async () => {
  const { electron, calls } = fakeElectron();
  const { node } = fakeNode();
  let started: NodeOptions | undefined;
  const desktop = runDesktop({ electron, options, platform: 'linux', startNode: async (o) => ((started = o), node) });
  assert.equal(await desktop.ready, node);
  assert.deepEqual(started, options);
  assert.deepEqual(calls.loaded, ['http://127.0.0.1:8899']);
});

test('quitting waits for the node to stop and flush, then quits once', async () => {
  const { electron, calls, fire } = fakeElectron();
  const fake = fakeNode();
  await runDesktop({ electron, options, platform: 'linux', startNode: async () => fake.node }).ready;
  assert.equal(fire('before-quit'), true, 'the first quit is held');
  await new Promise((r) => setImmediate(r));
  assert.equal(fake.closed(), 1);
  assert.equal(calls.quit, 1);
  assert.equal(fire('before-quit'), false, 'the second quit goes through');
  assert.equal(fake.closed(), 1);
});

test('closing the last window quits except on macOS', async () => {
  for (const [platform, quits] of [['linux', 1], ['win32', 1], ['darwin', 0]] as const) {
    const { electron, calls, fire } = fakeElectron();
    await runDesktop({ electron, options, platform, startNode: async () => fakeNode().node }).ready;
    fire('window-all-closed');
    assert.equal(calls.quit, quits, platform);
  }
});

test('a node that cannot start is reported in a dialog and the app exits with 1', async () => {
  const { electron, calls } = fakeElectron();
  const desktop = runDesktop({ electron, options, platform: 'linux', startNode: async () => Promise.reject(new Error('port 8899 is already in use')) });
  await assert.rejects(desktop.ready, /already in use/);
  assert.deepEqual(calls.exit, [1]);
  assert.match(calls.errors[0]!, /port 8899 is already in use/);
  assert.equal(calls.windows, 0);
});
