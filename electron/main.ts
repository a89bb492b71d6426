/**
 * Electron's main process: only wiring. The logic is in desktop.ts (tested with Electron mocked),
 * the node in node-core (startNode, as `isthmus start`). Built into dist/electron/main.mjs by
 * `npm run build:desktop` (electron/vite.config.ts); electron-builder packages that.
 */
import path from 'node:path';
import electron from 'electron';
import { defaultLedgerDir } from '../node-core/common/data-dir.ts';
import { startNode } from '../node-core/node/start.ts';
import { DEFAULT_OPTIONS } from '../node-core/node/options.ts';
import { runDesktop, type ElectronLike } from './desktop.ts';

const { app, BrowserWindow, session, shell, ipcMain } = electron;

const desktopElectron: ElectronLike = {
  app,
  shell,
  ipcMain,
  createWindow: (options) => new BrowserWindow(options),
  windowCount: () => BrowserWindow.getAllWindows().length,
  defaultSession: () => session.defaultSession,
};

runDesktop({
  electron: desktopElectron,
  startNode,
  // The ledger is the per-user one `isthmus start` uses too (one node at a time: the ledger's lock).
  options: { ...DEFAULT_OPTIONS, ledger: defaultLedgerDir(), quiet: true, explorerDir: path.join(app.getAppPath(), 'renderer', 'dist') },
  platform: process.platform,
  preload: path.join(app.getAppPath(), 'electron', 'preload.cjs'),
  // The app's own settings (the ledger size limit), beside Electron's files in the per-user app folder.
  settingsFile: path.join(app.getPath('userData'), 'settings.json'),
  log: (message) => console.error(`isthmus desktop: ${message}`),
});

// A terminal's Ctrl-C or a service manager's stop quits like the menu does (the store is flushed).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
