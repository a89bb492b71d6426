/** The explorer's client-side routes under /explorer/ (the node answers index.html for each of them). Nothing here imports Svelte. */

export const BASE = '/explorer';

export type Route =
  | { page: 'dashboard' }
  | { page: 'block'; slot: number }
  | { page: 'transaction'; signature: string }
  | { page: 'account'; address: string }
  | { page: 'program'; address: string }
  | { page: 'evm-blocks' }
  | { page: 'evm-block'; id: string }
  | { page: 'evm-transaction'; hash: string }
  | { page: 'evm-address'; address: string }
  | { page: 'evm-hash'; hash: string }
  | { page: 'dev-accounts' }
  | { page: 'validators' }
  | { page: 'supply' }
  | { page: 'bridge' }
  | { page: 'networks' }
  | { page: 'control' }
  | { page: 'not-found'; path: string };

export function matchRoute(path: string): Route {
  const p = path.replace(/\/+$/, '') || '/';
  let m: RegExpExecArray | null;
  if (p === '/') return { page: 'dashboard' };
  if ((m = /^\/block\/(\d+)$/.exec(p))) return { page: 'block', slot: Number(m[1]) };
  if ((m = /^\/tx\/([1-9A-HJ-NP-Za-km-z]{64,90})$/.exec(p))) return { page: 'transaction', signature: m[1]! };
  if ((m = /^\/address\/([1-9A-HJ-NP-Za-km-z]{32,44})$/.exec(p))) return { page: 'account', address: m[1]! };
  if ((m = /^\/program\/([1-9A-HJ-NP-Za-km-z]{32,44})$/.exec(p))) return { page: 'program', address: m[1]! };
  if (p === '/evm/blocks') return { page: 'evm-blocks' };
  if ((m = /^\/evm\/block\/(\d+|0x[0-9a-fA-F]{64})$/.exec(p))) return { page: 'evm-block', id: m[1]!.toLowerCase() };
  if ((m = /^\/evm\/tx\/(0x[0-9a-fA-F]{64})$/.exec(p))) return { page: 'evm-transaction', hash: m[1]!.toLowerCase() };
  if ((m = /^\/evm\/address\/(0x[0-9a-fA-F]{40})$/.exec(p))) return { page: 'evm-address', address: m[1]!.toLowerCase() };
  if ((m = /^\/evm\/hash\/(0x[0-9a-fA-F]{64})$/.exec(p))) return { page: 'evm-hash', hash: m[1]!.toLowerCase() };
  if (p === '/dev') return { page: 'dev-accounts' };
  if (p === '/validators') return { page: 'validators' };
  if (p === '/supply') return { page: 'supply' };
  if (p === '/bridge') return { page: 'bridge' };
  if (p === '/networks') return { page: 'networks' };
  if (p === '/control') return { page: 'control' };
  return { page: 'not-found', path };
}

export function currentPath(): string {
  const p = location.pathname;
  return p.startsWith(BASE) ? p.slice(BASE.length) || '/' : '/';
}
