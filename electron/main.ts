/** Electron's main process: only wiring; the logic is in desktop.ts and the node in node-core. */
import electron from 'electron';
import { defaultLedgerDir } from '../node-core/common/data-dir.ts';
import { startNode } from '../node-core/server/start.ts';
import { DEFAULT_OPTIONS } from '../node-core/server/options.ts';
import { runDesktop } from './desktop.ts';

runDesktop({
  electron,
  startNode,
  options: { ...DEFAULT_OPTIONS, ledger: defaultLedgerDir(), quiet: true },
  platform: process.platform,
}).ready.catch(() => {
  // Already reported in a dialog.
});
