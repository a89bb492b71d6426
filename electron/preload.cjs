/*
 * The preload of the desktop window (CommonJS: a sandboxed preload cannot be an ES module). It gives
 * the page one small frozen API, `window.isthmusDesktop`, and wires the buttons of the shell's own
 * pages (data-desktop-action) to the main process; save-settings sends the values of the page's
 * data-desktop-setting fields. The main process checks which page asks for what.
 */
'use strict';
const { contextBridge, ipcRenderer } = require('electron');

const VERSION_ARGUMENT = '--isthmus-desktop-version=';
// As SHELL_ACTIONS in pages.ts (a sandboxed preload cannot import it; a test compares the two).
const SHELL_ACTIONS = ['use-free-ports', 'retry', 'quit', 'open-settings', 'save-settings', 'restart-node', 'show-explorer'];

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
    /** Shows the desktop app's settings (the ledger's size, its size limit) in the window. */
    openSettings: () => ipcRenderer.invoke('isthmus:open-settings'),
  }),
);

window.addEventListener('DOMContentLoaded', () => {
  for (const element of document.querySelectorAll('[data-desktop-action]')) {
    const action = element.getAttribute('data-desktop-action');
    if (!SHELL_ACTIONS.includes(action)) continue;
    element.addEventListener('click', () => {
      element.setAttribute('disabled', '');
      if (action !== 'save-settings') return void ipcRenderer.invoke(`isthmus:${action}`);
      const values = {};
      for (const field of document.querySelectorAll('[data-desktop-setting]')) values[field.getAttribute('data-desktop-setting')] = String(field.value);
      void ipcRenderer.invoke(`isthmus:${action}`, values);
    });
  }
});
