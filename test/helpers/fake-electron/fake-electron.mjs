// A stand-in for Electron's main-process API, enough to run dist/electron/main.mjs under plain Node.
// Every window and page load is printed to stdout as a JSON line ({"event": ...}), for the test to
// follow. Like a user, it presses "Start on free ports" when the window shows the port-in-use page.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const emit = (event, data = {}) => process.stdout.write(`${JSON.stringify({ event, ...data })}\n`);
const appPath = process.env.FAKE_ELECTRON_APP_PATH ?? process.cwd();
const listeners = new Map();
const handlers = new Map();
const windows = [];

const on = (map) => (event, listener) => {
  map.set(event, [...(map.get(event) ?? []), listener]);
};
const fire = (map, event, ...args) => {
  for (const l of map.get(event) ?? []) l(...args);
};

export const app = {
  requestSingleInstanceLock: () => true,
  whenReady: () => Promise.resolve(),
  on: on(listeners),
  quit() {
    let prevented = false;
    fire(listeners, 'before-quit', { preventDefault: () => (prevented = true) });
    emit('quit', { prevented });
    if (!prevented) process.exit(0);
  },
  getVersion: () => JSON.parse(fs.readFileSync(path.join(appPath, 'package.json'), 'utf8')).version,
  getAppPath: () => appPath,
  // As Electron's on Linux: userData is $XDG_CONFIG_HOME/<app name>.
  getPath: (name) => {
    if (name !== 'userData') throw new Error(`fake electron: no path ${name}`);
    return path.join(process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'), 'isthmus');
  },
};

export class BrowserWindow {
  constructor(options) {
    this.options = options;
    const webListeners = new Map();
    this.webContents = { setWindowOpenHandler() {}, on: on(webListeners), getURL: () => this.url ?? '' };
    windows.push(this);
    emit('window', { webPreferences: options.webPreferences });
  }
  async loadURL(url) {
    this.url = url;
    const page = url.startsWith('data:') ? /data-shell-page="([^"]+)"/.exec(decodeURIComponent(url))?.[1] : undefined;
    emit('load', { url: page ? `shell:${page}` : url, html: page ? decodeURIComponent(url.slice(url.indexOf(',') + 1)) : undefined });
    if (page === 'port-in-use') {
      setTimeout(() => handlers.get('isthmus:use-free-ports')({ senderFrame: { url } }), 10);
    }
  }
  isDestroyed = () => false;
  isMinimized = () => false;
  restore() {}
  focus() {}
  on() {}
  static getAllWindows = () => windows;
}

export const session = {
  defaultSession: {
    setPermissionRequestHandler() {},
    setPermissionCheckHandler() {},
    webRequest: { onHeadersReceived() {} },
  },
};
export const shell = { openExternal: async () => {} };
export const ipcMain = { handle: (channel, listener) => handlers.set(channel, listener) };

export default { app, BrowserWindow, session, shell, ipcMain };
