/**
 * The pages the desktop shell shows in its window instead of the explorer: "starting", a port already
 * in use (with the way out), the ledger in use by another node, any other start failure, the node
 * that stopped by itself (with a restart), and the settings. They are data: URLs with no script at all
 * (CSP default-src 'none'); their buttons carry a `data-desktop-action` the preload wires to the main
 * process, which also gets the values of the page's `data-desktop-setting` fields on save-settings.
 */
import { LedgerLockedError } from '../node-core/ledger/ledger-lock.ts';
import { PortInUseError } from '../node-core/transport/listen.ts';
// The explorer's formatter: the desktop's pages show sizes as the status bar does.
import { formatBytes } from '../renderer/src/lib/format.ts';

/** Actions a shell page's buttons may ask of the main process. */
export const SHELL_ACTIONS = ['use-free-ports', 'retry', 'quit', 'open-settings', 'save-settings', 'restart-node', 'show-explorer'] as const;
export type ShellAction = (typeof SHELL_ACTIONS)[number];

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; display: grid; place-items: center; min-height: 100vh;
         background: #0f1420; color: #e6e9f0; }
  main { max-width: 42rem; padding: 2rem; }
  h1 { font-size: 1.4rem; margin: 0 0 1rem; }
  code { background: #1d2536; padding: 0.1rem 0.35rem; border-radius: 4px; }
  .actions { display: flex; gap: 0.75rem; margin-top: 1.5rem; flex-wrap: wrap; }
  button { font: inherit; padding: 0.5rem 1rem; border-radius: 6px; border: 1px solid #3a4a6b; background: #1d2536; color: inherit; cursor: pointer; }
  button.primary { background: #2f6fed; border-color: #2f6fed; }
  .detail { color: #9aa5bd; font-size: 0.9rem; }
  label { display: block; margin-top: 1rem; }
  input { font: inherit; margin-top: 0.35rem; padding: 0.4rem 0.6rem; border-radius: 6px; border: 1px solid #3a4a6b; background: #1d2536; color: inherit; width: 14rem; }
  .error { color: #ef6b6b; }
  .saved { color: #5fd38d; }`;

function page(kind: string, title: string, body: string): string {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Isthmus</title><style>${STYLE}</style></head>
<body><main data-shell-page="${kind}"><h1>${title}</h1>${body}</main></body></html>`;
  return `data:text/html;charset=utf-8,${encodeURIComponent(html)}`;
}

const button = (action: ShellAction, label: string, primary = false): string =>
  `<button type="button" data-desktop-action="${action}"${primary ? ' class="primary"' : ''}>${label}</button>`;

export function startingPage(ledger: string): string {
  return page('starting', 'Starting the node…', `<p class="detail">Ledger: <code>${escapeHtml(ledger)}</code></p>`);
}

/** What the window shows when the node could not start, by the kind of failure. */
export function failurePage(error: unknown, ledger: string): string {
  if (error instanceof PortInUseError) {
    return page(
      'port-in-use',
      `Port ${error.port} is already in use`,
      `<p>Another program — often another Isthmus node or a Solana test validator — is listening on port
<code>${error.port}</code>, which this node needs (the CLI's <code>${escapeHtml(error.flag)}</code>).</p>
<p>Quit that program and press <b>Try again</b>, or start this node on free ports chosen automatically
(the explorer follows; wallets and scripts must then use the URLs it shows).</p>
<div class="actions">${button('use-free-ports', 'Start on free ports', true)}${button('retry', 'Try again')}${button('quit', 'Quit')}</div>`,
    );
  }
  if (error instanceof LedgerLockedError) {
    return page(
      'ledger-in-use',
      'The ledger is in use by another node',
      `<p>${escapeHtml(error.message)}.</p>
<p>Stop that node (for example <code>isthmus start</code> in a terminal, with Ctrl-C), then press <b>Try again</b>.</p>
<div class="actions">${button('retry', 'Try again', true)}${button('quit', 'Quit')}</div>`,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return page(
    'start-failed',
    'The node could not start',
    `<p>${escapeHtml(message)}</p><p class="detail">Ledger: <code>${escapeHtml(ledger)}</code></p>
<div class="actions">${button('retry', 'Try again', true)}${button('quit', 'Quit')}</div>`,
  );
}

/** The window when the running node stopped by itself (it could not store a slot, …). */
export function stoppedPage(failure: Error | null, ledger: string): string {
  return page(
    'node-stopped',
    'The node stopped',
    `<p>The node stopped unexpectedly${failure ? `: ${escapeHtml(failure.message)}` : '.'}</p>
<p>Wallets, scripts and the explorer cannot reach it until it runs again. Restarting it goes on from the
last slot stored in its ledger.</p><p class="detail">Ledger: <code>${escapeHtml(ledger)}</code></p>
<div class="actions">${button('retry', 'Restart the node', true)}${button('open-settings', 'Settings')}${button('quit', 'Quit')}</div>`,
  );
}


export interface SettingsView {
  ledger: string;
  /** The ledger folder's size on disk, or null when it could not be read. */
  diskBytes: number | null;
  /** The saved limit (null: keep every slot). */
  limitLedgerSize: number | null;
  /** The limit the running node applies (undefined: no node runs). */
  runningLimit?: number | null;
  minimum: number;
  /** The node's slot time, to say how long the history kept lasts. */
  slotMs: number;
  /** What the last save said. */
  message?: { kind: 'error' | 'saved'; text: string };
  /** What the field shows (the rejected input after an error). */
  input?: string;
}

const keeps = (limit: number | null) => (limit === null ? 'every slot' : `the last ${limit.toLocaleString('en-US')} slots`);

/** The settings: the ledger's size on disk and the ledger size limit, applied when the node (re)starts. */
export function settingsPage(v: SettingsView): string {
  const field = v.input ?? (v.limitLedgerSize === null ? '' : String(v.limitLedgerSize));
  const pending = v.runningLimit !== undefined && v.runningLimit !== v.limitLedgerSize;
  return page(
    'settings',
    'Settings',
    `<p>Ledger: <code>${escapeHtml(v.ledger)}</code><br>Size on disk: <b data-ledger-disk-size>${v.diskBytes === null ? 'unknown' : formatBytes(v.diskBytes)}</b></p>
<label>Block history to keep, in slots
<br><input name="limit-ledger-size" data-desktop-setting="limit-ledger-size" inputmode="numeric" autocomplete="off" placeholder="every slot" value="${escapeHtml(field)}"></label>
<p class="detail">At least ${v.minimum.toLocaleString('en-US')} slots (at ${v.slotMs} ms a slot, ${Math.round(86_400_000 / v.slotMs).toLocaleString('en-US')} slots are a day); leave it empty to keep every slot.
Older blocks and their transactions are deleted as new ones come. Applied when the node (re)starts.</p>
${v.message ? `<p class="${v.message.kind}" data-settings-message="${v.message.kind}" role="status">${escapeHtml(v.message.text)}</p>` : ''}
${pending ? `<p class="detail" data-settings-pending>The running node keeps ${keeps(v.runningLimit!)}; restart it to keep ${keeps(v.limitLedgerSize)}.</p>` : ''}
<div class="actions">${button('save-settings', 'Save', true)}${v.runningLimit !== undefined ? button('restart-node', 'Restart the node now') : ''}${button('show-explorer', 'Back')}</div>`,
  );
}

/** The HTML of a data: URL made here (for tests and logs). */
export const pageHtml = (dataUrl: string): string => decodeURIComponent(dataUrl.slice(dataUrl.indexOf(',') + 1));
