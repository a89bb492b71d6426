/*
 * The preload of the desktop window (CommonJS: a sandboxed preload cannot be an ES module). It gives
 * the page one small frozen API, `window.isthmusDesktop`, and wires the buttons of the shell's own
 * pages (data-desktop-action) to the main process. The main process checks which page asks for what.
 */
'use strict';
const { contextBridge, ipcRenderer } = require('electron');

const VERSION_ARGUMENT = '--isthmus-desktop-version=';
const SHELL_ACTIONS = ['use-free-ports', 'retry', 'quit'];

const versionArg = process.argv.find((a) => a.startsWith(VERSION_ARGUMENT));

contextBridge.exposeInMainWorld(
  'isthmusDesktop',
  Object.freeze({
    /** The desktop app's version. */
    version: versionArg ? versionArg.slice(VERSION_ARGUMENT.length) : '',
    /** The node's URLs and the app version: { version, rpcUrl, pubsubUrl, evmRpcUrl, explorerUrl } (explorer pages only). */
    info: () => ipcRenderer.invoke('isthmus:info'),
    /** Opens an http(s) link in the system browser; resolves true when it did. */
    openExternal: (url) => ipcRenderer.invoke('isthmus:open-external', String(url)),
  }),
);

window.addEventListener('DOMContentLoaded', () => {
  for (const element of document.querySelectorAll('[data-desktop-action]')) {
    const action = element.getAttribute('data-desktop-action');
    if (!SHELL_ACTIONS.includes(action)) continue;
    element.addEventListener('click', () => {
      element.setAttribute('disabled', '');
      void ipcRenderer.invoke(`isthmus:${action}`);
    });
  }
});
