/**
 * The desktop shell's logic, apart from Electron itself so it can be tested with Electron mocked:
 * when the app is ready it starts the node core (the same startNode the CLI and the tests use) on
 * the default ports and the per-user ledger, opens a window on the explorer, and stops the node,
 * flushing its store, before the app quits.
 */
import type { RunningNode } from '../node-core/server/start.ts';
import type { NodeOptions } from '../node-core/server/options.ts';

/** The parts of Electron the shell uses. */
export interface ElectronLike {
  app: {
    whenReady(): Promise<unknown>;
    on(event: 'window-all-closed' | 'before-quit' | 'activate', listener: (e: { preventDefault(): void }) => void): unknown;
    quit(): void;
    exit(code?: number): void;
  };
  BrowserWindow: {
    new (options: { width: number; height: number; title: string; webPreferences: { contextIsolation: boolean; nodeIntegration: boolean; sandbox: boolean } }): {
      loadURL(url: string): Promise<void>;
    };
    getAllWindows(): unknown[];
  };
  dialog: { showErrorBox(title: string, content: string): void };
}

export interface DesktopDeps {
  electron: ElectronLike;
  startNode(options: NodeOptions): Promise<RunningNode>;
  options: NodeOptions;
  platform: NodeJS.Platform;
}

export interface Desktop {
  /** Resolves once the node runs and the first window is open. */
  ready: Promise<RunningNode>;
}

export function runDesktop({ electron, startNode, options, platform }: DesktopDeps): Desktop {
  const { app, BrowserWindow, dialog } = electron;
  let node: RunningNode | null = null;
  let stopped = false;

  const openWindow = (url: string) => {
    const win = new BrowserWindow({
      width: 1280,
      height: 860,
      title: 'Isthmus',
      webPreferences: { contextIsolation: true, nodeIntegration: false, sandbox: true },
    });
    return win.loadURL(url);
  };

  app.on('window-all-closed', () => {
    if (platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (node && BrowserWindow.getAllWindows().length === 0) void openWindow(node.rpcUrl);
  });
  app.on('before-quit', (e) => {
    if (!node || stopped) return;
    // Hold the quit until the store is flushed, then quit for real.
    e.preventDefault();
    stopped = true;
    node.close().finally(() => app.quit());
  });

  const ready = (async () => {
    await app.whenReady();
    try {
      node = await startNode(options);
    } catch (e) {
      dialog.showErrorBox('Isthmus could not start its node', (e as Error).message);
      app.exit(1);
      throw e;
    }
    await openWindow(node.rpcUrl);
    return node;
  })();
  return { ready };
}
