/**
 * DNS-rebinding protection (geth's --http.vhosts rule): the dev accounts are unlocked, so a web page
 * must not reach the node under a hostname the attacker controls. A request passes when its Host
 * is an IP literal (a rebinding attack always carries the attacker's name), `localhost` (or a
 * subdomain of it), or a name the user allowed with --rpc-allowed-hosts ("*" allows any).
 */
import net from 'node:net';

export const DEFAULT_ALLOWED_HOSTS: readonly string[] = [];

/** The host name of a Host header, without the port and IPv6 brackets; lower-cased. */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.lastIndexOf(':');
  return colon > 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h;
}

export function hostAllowed(header: string | undefined, allowed: readonly string[]): boolean {
  // HTTP/1.0 clients may send no Host; a browser always sends one.
  if (header === undefined || header === '') return true;
  const name = hostName(header);
  if (net.isIP(name) !== 0) return true;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return allowed.some((a) => a === '*' || a.toLowerCase() === name);
}

export const forbiddenHostMessage = (header: string | undefined) =>
  `Forbidden: invalid host ${JSON.stringify(header ?? '')}. This node answers only requests to localhost or an IP address; allow another host name with --rpc-allowed-hosts\n`;
