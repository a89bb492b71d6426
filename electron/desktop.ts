/**
 * The desktop shell's logic, apart from Electron itself so it can be tested with Electron mocked.
 * One instance per user (a second launch focuses the first window). When the app is ready it opens
 * a hardened window, starts the node core (the same startNode the CLI and the tests use, in this
 * process) on the per-user ledger with the saved settings applied, and loads the explorer the node
 * serves; a start that fails (a port in use, the ledger in use) shows a page in the window with the
 * way out, and so does a node that stops by itself later (with a restart). The settings page shows
 * the ledger's size on disk and sets the ledger size limit. Quitting waits until the node has
 * stopped and flushed its store.
 */
import type { RunningNode } from '../node-core/node/start.ts';
import type { NodeOptions } from '../node-core/node/options.ts';
import {
  decideNavigation,
  explorerUrlOf,
  isExplorerUrl,
  isExternalWebLink,
  isPermissionGranted,
  isPermissionGrantedToOrigin,
  isShellPage,
  secureWebPreferences,
  withDesktopCsp,
  type SecureWebPreferences,
} from './hardening.ts';
import { ledgerDiskBytes } from '../node-core/ledger/ledger-folder.ts';
import { MIN_LIMIT_LEDGER_SIZE } from '../node-core/node/options.ts';
import { failurePage, settingsPage, SHELL_ACTIONS, startingPage, stoppedPage, type SettingsView, type ShellAction } from './pages.ts';
import { applySettings, DEFAULT_SETTINGS, parseLimitLedgerSize, readSettings, writeSettings, type DesktopSettings } from './settings.ts';

/** A cancellable Electron event. */
export interface PreventableEvent {
  preventDefault(): void;
}

export interface WebContentsLike {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' } | { action: 'allow' }): void;
  on(event: 'will-navigate', listener: (event: PreventableEvent & { url: string }) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: PreventableEvent) => void): unknown;
  on(event: 'render-process-gone', listener: (event: unknown, details: { reason: string }) => void): unknown;
  getURL(): string;
}

export interface WindowLike {
  loadURL(url: string): Promise<void>;
  webContents: WebContentsLike;
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  focus(): void;
  on(event: 'closed', listener: () => void): unknown;
}

export interface WindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  title: string;
  backgroundColor: string;
  webPreferences: SecureWebPreferences;
}

export interface SessionLike {
  setPermissionRequestHandler(handler: (webContents: unknown, permission: string, callback: (granted: boolean) => void, details: { requestingUrl: string }) => void): void;
  setPermissionCheckHandler(handler: (webContents: unknown, permission: string, requestingOrigin: string) => boolean): void;
  webRequest: {
    onHeadersReceived(
      listener: (
        details: { url: string; responseHeaders?: Record<string, string[]> },
        callback: (response: { responseHeaders?: Record<string, string[]> }) => void,
      ) => void,
    ): void;
  };
}

export interface IpcEventLike {
  senderFrame: { url: string } | null;
}

/** The parts of Electron the shell uses (main.ts adapts the real module to this). */
export interface ElectronLike {
  app: {
    requestSingleInstanceLock(): boolean;
    whenReady(): Promise<unknown>;
    on(event: 'window-all-closed' | 'activate' | 'second-instance', listener: () => void): unknown;
    on(event: 'before-quit', listener: (event: PreventableEvent) => void): unknown;
    quit(): void;
    getVersion(): string;
  };
  createWindow(options: WindowOptions): WindowLike;
  windowCount(): number;
  /** The default session (only once the app is ready). */
  defaultSession(): SessionLike;
  shell: { openExternal(url: string): Promise<void> };
  ipcMain: { handle(channel: string, listener: (event: IpcEventLike, ...args: unknown[]) => unknown): void };
}

export interface DesktopDeps {
  electron: ElectronLike;
  startNode(options: NodeOptions): Promise<RunningNode>;
  /** The node's options (the per-user ledger, the default ports). */
  options: NodeOptions;
  platform: NodeJS.Platform;
  /** Absolute path of the CommonJS preload (electron/preload.cjs). */
  preload: string;
  /** The settings file (in the app's userData folder); without one, settings last for this run only. */
  settingsFile?: string;
  log?: (message: string) => void;
}

/** What the explorer may ask the preload for. */
export interface DesktopInfo {
  version: string;
  rpcUrl: string;
  pubsubUrl: string;
  evmRpcUrl: string;
  explorerUrl: string;
}

export interface Desktop {
  /** False when another instance already runs (this one quits at once). */
  primary: boolean;
  /** Resolves once the window shows the explorer (the running node) or a failure page (null). */
  ready: Promise<RunningNode | null>;
  /** The node now running, if any. */
  node(): RunningNode | null;
  /** The node options in use (after "Start on free ports", ports 0), the settings applied. */
  options(): NodeOptions;
  /** The settings as saved. */
  settings(): DesktopSettings;
}

export function runDesktop({ electron, startNode, options, platform, preload, settingsFile, log = () => {} }: DesktopDeps): Desktop {
  const { app, shell, ipcMain } = electron;
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return { primary: false, ready: Promise.resolve(null), node: () => null, options: () => options, settings: () => ({ ...DEFAULT_SETTINGS }) };
  }

  let settings: DesktopSettings = { ...DEFAULT_SETTINGS };
  if (settingsFile) {
    const read = readSettings(settingsFile);
    if (read.problem) log(read.problem);
    settings = read.settings;
  }
  let node: RunningNode | null = null;
  let nodeOptions = applySettings(options, settings);
  let starting: Promise<RunningNode | null> | null = null;
  let window: WindowLike | null = null;
  let shownPage = '';
  /** The page the settings' Back returns to when no node runs. */
  let pageBeforeSettings = '';
  /** Set once the node is stopped for quitting: the next before-quit goes through. */
  let readyToQuit = false;
  let quitting: Promise<void> | null = null;

  const openExternally = (url: string) => {
    if (isExternalWebLink(url)) void shell.openExternal(url).catch((e) => log(`could not open ${url}: ${(e as Error).message}`));
  };

  let settingsShown = false;
  const show = (url: string, isSettings = false) => {
    shownPage = url;
    settingsShown = isSettings;
    if (!window || window.isDestroyed()) return Promise.resolve();
    return window.loadURL(url).catch((e) => log(`could not load ${url.slice(0, 80)}: ${(e as Error).message}`));
  };

  const openWindow = (): WindowLike => {
    const win = electron.createWindow({
      width: 1280,
      height: 860,
      minWidth: 720,
      minHeight: 480,
      title: 'Isthmus',
      backgroundColor: '#0f1420',
      webPreferences: secureWebPreferences(preload, app.getVersion()),
    });
    const contents = win.webContents;
    contents.setWindowOpenHandler(({ url }) => {
      openExternally(url);
      return { action: 'deny' };
    });
    contents.on('will-navigate', (e) => {
      const decision = decideNavigation(e.url, node);
      if (decision === 'allow') return;
      e.preventDefault();
      if (decision === 'open-externally') openExternally(e.url);
    });
    contents.on('will-attach-webview', (e) => e.preventDefault());
    // A crashed or killed page comes back (the node keeps running meanwhile).
    contents.on('render-process-gone', (_e, { reason }) => {
      log(`the window's page ended (${reason}); reloading it`);
      if (reason !== 'clean-exit' && window === win) void show(shownPage, settingsShown);
    });
    win.on('closed', () => {
      if (window === win) window = null;
    });
    window = win;
    return win;
  };

  /** A node that stops by itself (not by quitting or a restart, which first take it from `node`) is reported in the window. */
  const watchForStop = (running: RunningNode) => {
    void running.stopped.then((failure) => {
      if (node !== running) return;
      node = null;
      log(`the node stopped: ${failure ? failure.message : 'no reason given'}`);
      if (!quitting) void show(stoppedPage(failure, nodeOptions.ledger));
    });
  };

  /**
   * Starts the node with `opts` (after stopping `previous`, for a restart) and shows the explorer, or
   * the page saying why it could not start.
   */
  const startAndShow = (opts: NodeOptions, previous: RunningNode | null = null): Promise<RunningNode | null> => {
    nodeOptions = opts;
    starting = (async () => {
      await show(startingPage(opts.ledger));
      if (previous) {
        await previous.close().catch((e) => log(`stopping the node failed: ${(e as Error).message}`));
      }
      let started: RunningNode;
      try {
        started = await startNode(opts);
      } catch (e) {
        log(`the node could not start: ${(e as Error).message}`);
        await show(failurePage(e, opts.ledger));
        return null;
      }
      node = started;
      watchForStop(started);
      await show(explorerUrlOf(started));
      return started;
    })().finally(() => {
      starting = null;
    });
    return starting;
  };

  // ---- settings ----
  const settingsView = async (extra: Pick<SettingsView, 'message' | 'input'> = {}): Promise<SettingsView> => ({
    ledger: nodeOptions.ledger,
    diskBytes: await ledgerDiskBytes(nodeOptions.ledger).catch(() => null),
    limitLedgerSize: settings.limitLedgerSize,
    runningLimit: node ? (nodeOptions.limitLedgerSize ?? null) : undefined,
    minimum: MIN_LIMIT_LEDGER_SIZE,
    slotMs: nodeOptions.slotMs,
    ...extra,
  });
  const showSettings = async (extra: Pick<SettingsView, 'message' | 'input'> = {}) => {
    if (!settingsShown) pageBeforeSettings = shownPage;
    const view = await settingsView(extra);
    await show(settingsPage(view), true);
  };
  /** Checks and saves the settings from the settings page; bad input is shown there and changes nothing. */
  const saveSettings = async (values: unknown): Promise<{ ok: true; settings: DesktopSettings } | { ok: false; error: string }> => {
    const input = values !== null && typeof values === 'object' ? (values as Record<string, unknown>)['limit-ledger-size'] : undefined;
    const limit = parseLimitLedgerSize(input);
    if (!limit.ok) {
      await showSettings({ message: { kind: 'error', text: limit.error }, input: typeof input === 'string' ? input : '' });
      return limit;
    }
    const next: DesktopSettings = { ...settings, limitLedgerSize: limit.value };
    try {
      if (settingsFile) writeSettings(settingsFile, next);
    } catch (e) {
      const error = `The settings could not be saved: ${(e as Error).message}`;
      await showSettings({ message: { kind: 'error', text: error }, input: typeof input === 'string' ? input : '' });
      return { ok: false, error };
    }
    settings = next;
    // The next start takes them; the running node keeps its options until then.
    if (!node && !starting) nodeOptions = applySettings(nodeOptions, settings);
    await showSettings({ message: { kind: 'saved', text: node ? 'Saved. The node applies it when it restarts.' : 'Saved.' } });
    return { ok: true, settings };
  };

  let appReady = false;
  const focusWindow = () => {
    if (!appReady) return; // no window can exist before the app is ready (macOS may activate it earlier)
    if (!window || window.isDestroyed()) {
      openWindow();
      void show(node ? explorerUrlOf(node) : shownPage);
      return;
    }
    if (window.isMinimized()) window.restore();
    window.focus();
  };

  /** Permissions and the content security policy of the window's session. */
  const configureSession = (session: SessionLike) => {
    session.setPermissionRequestHandler((_contents, permission, callback, details) => callback(isPermissionGranted(permission, details.requestingUrl, node)));
    session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => isPermissionGrantedToOrigin(permission, requestingOrigin, node));
    session.webRequest.onHeadersReceived((details, callback) => callback({ responseHeaders: withDesktopCsp(details.url, details.responseHeaders, node) }));
  };

  // ---- the preload's channels; each checks which page is asking ----
  const fromExplorer = (e: IpcEventLike) => !!e.senderFrame && isExplorerUrl(e.senderFrame.url, node);
  const fromShellPage = (e: IpcEventLike) => !!e.senderFrame && isShellPage(e.senderFrame.url);
  ipcMain.handle('isthmus:info', (e): DesktopInfo | null => {
    if (!fromExplorer(e) || !node) return null;
    return { version: app.getVersion(), rpcUrl: node.rpcUrl, pubsubUrl: node.pubsubUrl, evmRpcUrl: node.evmRpcUrl, explorerUrl: explorerUrlOf(node) };
  });
  ipcMain.handle('isthmus:open-external', (e, url) => {
    if (!fromExplorer(e) || typeof url !== 'string' || !isExternalWebLink(url)) return false;
    openExternally(url);
    return true;
  });
  // The explorer (in the desktop) opens the settings; everything else is asked by the shell's own pages.
  ipcMain.handle('isthmus:open-settings', (e) => {
    if (!fromExplorer(e) && !fromShellPage(e)) return false;
    return showSettings().then(() => true);
  });
  for (const action of SHELL_ACTIONS) {
    if (action === 'open-settings') continue;
    ipcMain.handle(`isthmus:${action}`, (e, values) => (fromShellPage(e) ? shellAction(action, values) : false));
  }
  const shellAction = (action: Exclude<ShellAction, 'open-settings'>, values: unknown): boolean | Promise<unknown> => {
    switch (action) {
      case 'quit':
        app.quit();
        return true;
      case 'save-settings':
        return saveSettings(values);
      case 'show-explorer':
        return show(node ? explorerUrlOf(node) : isShellPage(pageBeforeSettings) ? pageBeforeSettings : stoppedPage(null, nodeOptions.ledger)).then(() => true);
      case 'restart-node': {
        if (!node || starting || quitting) return false;
        const previous = node;
        node = null; // taken out first: its stop is not "unexpected"
        void startAndShow(applySettings(nodeOptions, settings), previous);
        return true;
      }
      case 'retry':
      case 'use-free-ports': {
        if (node || starting || quitting) return false;
        const opts = applySettings(action === 'use-free-ports' ? { ...nodeOptions, rpcPort: 0, rpcPubsubPort: undefined, evmRpcPort: 0 } : nodeOptions, settings);
        void startAndShow(opts);
        return true;
      }
    }
  };

  // ---- app lifecycle ----
  app.on('second-instance', focusWindow);
  app.on('window-all-closed', () => {
    if (platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (electron.windowCount() === 0) focusWindow();
  });
  app.on('before-quit', (e) => {
    if (readyToQuit) return;
    if (!node && !starting && !quitting) return;
    // Hold the quit until the node has stopped and its store is flushed, then quit for real.
    e.preventDefault();
    quitting ??= (async () => {
      const running = starting ? await starting.catch(() => null) : node;
      node = null; // taken out first: its stop is not "unexpected"
      try {
        await running?.close();
      } catch (err) {
        log(`stopping the node failed: ${(err as Error).message}`);
      }
      readyToQuit = true;
      app.quit();
    })();
  });

  const ready = (async () => {
    await app.whenReady();
    appReady = true;
    configureSession(electron.defaultSession());
    openWindow();
    return startAndShow(nodeOptions);
  })();
  return { primary: true, ready, node: () => node, options: () => nodeOptions, settings: () => ({ ...settings }) };
}
