declare module '*.svelte' {
  import type { Component } from 'svelte';
  const component: Component<any>;
  export default component;
}

interface EthereumProvider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}
/** What the desktop app's preload (electron/preload.cjs) gives the explorer; absent in a browser. */
interface IsthmusDesktop {
  version: string;
  openExternal(url: string): Promise<boolean>;
  /** Shows the desktop app's settings (the ledger's size and its size limit) in the window. */
  openSettings?(): Promise<boolean>;
}
interface Window {
  ethereum?: EthereumProvider;
  isthmusDesktop?: IsthmusDesktop;
}
