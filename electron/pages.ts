/**
 * The pages the desktop shell shows in its window before the explorer can load: "starting", a port
 * already in use (with the way out), the ledger in use by another node, and any other start failure.
 * They are data: URLs with no script at all (CSP default-src 'none'); their buttons carry a
 * `data-desktop-action` the preload wires to the main process.
 */
import { LedgerLockedError } from '../node-core/ledger/ledger-lock.ts';
import { PortInUseError } from '../node-core/transport/listen.ts';

/** Actions a shell page's buttons may ask of the main process. */
export const SHELL_ACTIONS = ['use-free-ports', 'retry', 'quit'] as const;
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
  .detail { color: #9aa5bd; font-size: 0.9rem; }`;

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

/** The HTML of a data: URL made here (for tests and logs). */
export const pageHtml = (dataUrl: string): string => decodeURIComponent(dataUrl.slice(dataUrl.indexOf(',') + 1));
