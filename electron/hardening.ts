/**
 * The desktop window's security rules, as pure functions the main process wires into Electron: the
 * web preferences, which navigations stay in the window, which URLs may open in the system browser,
 * the permissions granted (none but writing to the clipboard from the explorer), and the content
 * security policy added to the node's responses.
 */

import { EXPLORER_CSP, EXPLORER_PATH } from '../node-core/transport/explorer-static.ts';

export { EXPLORER_PATH };

/** URLs of the running node the window may talk to. */
export interface NodeUrls {
  rpcUrl: string;
  pubsubUrl: string;
  evmRpcUrl: string;
}

export const explorerUrlOf = (node: Pick<NodeUrls, 'rpcUrl'>): string => new URL(EXPLORER_PATH, node.rpcUrl).toString();

export interface SecureWebPreferences {
  contextIsolation: true;
  sandbox: true;
  nodeIntegration: false;
  nodeIntegrationInWorker: false;
  webSecurity: true;
  webviewTag: false;
  spellcheck: false;
  preload: string;
  additionalArguments: string[];
}

/** The preload reads the app version from its arguments (a sandboxed preload cannot read files). */
export const VERSION_ARGUMENT = '--isthmus-desktop-version=';

export function secureWebPreferences(preload: string, version: string): SecureWebPreferences {
  return {
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    webSecurity: true,
    webviewTag: false,
    spellcheck: false,
    preload,
    additionalArguments: [`${VERSION_ARGUMENT}${version}`],
  };
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** True for pages of the node's explorer (same origin, under /explorer). */
export function isExplorerUrl(url: string, node: Pick<NodeUrls, 'rpcUrl'> | null): boolean {
  if (!node) return false;
  const u = parse(url);
  const origin = parse(node.rpcUrl)?.origin;
  return !!u && u.origin === origin && (u.pathname === '/explorer' || u.pathname.startsWith(EXPLORER_PATH));
}

/** True for pages the desktop shell itself shows (starting, port in use, failure): data: URLs it made. */
export const isShellPage = (url: string): boolean => url.startsWith('data:text/html');

/** Only web links leave the app for the system browser; file:, javascript:, custom schemes never do. */
export function isExternalWebLink(url: string): boolean {
  const u = parse(url);
  return !!u && (u.protocol === 'https:' || u.protocol === 'http:');
}

export type NavigationDecision = 'allow' | 'open-externally' | 'deny';

/** A navigation the page started: the explorer stays in the window, web links go to the browser, the rest nowhere. */
export function decideNavigation(url: string, node: Pick<NodeUrls, 'rpcUrl'> | null): NavigationDecision {
  if (isExplorerUrl(url, node)) return 'allow';
  return isExternalWebLink(url) ? 'open-externally' : 'deny';
}

/** Permissions granted to the window: clipboard writes from the explorer (its copy buttons); nothing else. */
export function isPermissionGranted(permission: string, requestingUrl: string, node: Pick<NodeUrls, 'rpcUrl'> | null): boolean {
  return permission === 'clipboard-sanitized-write' && isExplorerUrl(requestingUrl, node);
}

/** The same rule for a permission check, which names only the requesting origin. */
export function isPermissionGrantedToOrigin(permission: string, origin: string, node: Pick<NodeUrls, 'rpcUrl'> | null): boolean {
  const u = parse(origin);
  return !!u && isPermissionGranted(permission, new URL(EXPLORER_PATH, u.origin).toString(), node);
}

const wsOf = (httpUrl: string): string => httpUrl.replace(/^http/, 'ws');

/**
 * The policy the desktop adds to the node's responses (enforced together with the one the node's
 * explorer route sends): the explorer's own policy (node-core/transport/explorer-static.ts), with the
 * node's endpoints named in connect-src beside the other networks its switcher may be pointed at.
 */
export function desktopCsp(node: NodeUrls): string {
  const own = [node.rpcUrl, node.pubsubUrl, node.evmRpcUrl, wsOf(node.evmRpcUrl)];
  return EXPLORER_CSP.split('; ')
    .map((directive) => (directive.startsWith('connect-src ') ? `connect-src 'self' ${own.join(' ')} ${directive.slice('connect-src '.length)}` : directive))
    .join('; ');
}

/** Response headers with the desktop policy appended (existing policies are kept: all of them apply). */
export function withDesktopCsp(url: string, headers: Record<string, string[]> | undefined, node: NodeUrls | null): Record<string, string[]> {
  const out: Record<string, string[]> = { ...(headers ?? {}) };
  const u = parse(url);
  if (!node || !u || u.origin !== parse(node.rpcUrl)?.origin) return out;
  const key = Object.keys(out).find((k) => k.toLowerCase() === 'content-security-policy') ?? 'Content-Security-Policy';
  out[key] = [...(out[key] ?? []), desktopCsp(node)];
  return out;
}
