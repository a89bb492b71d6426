/** Client-side routes under /explorer/ (the node answers index.html for each of them). */
import { writable } from 'svelte/store';
import { BASE, currentPath, matchRoute, type Route } from './routes.ts';

export { BASE, matchRoute, type Route };

export const path = writable(currentPath());

export const href = (p: string) => BASE + p;

export function navigate(p: string, replace = false): void {
  const url = BASE + p + location.search;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  path.set(currentPath());
  window.scrollTo(0, 0);
}

export function startRouter(): void {
  window.addEventListener('popstate', () => path.set(currentPath()));
  // Plain links inside the app change the route without a page load.
  document.addEventListener('click', (ev) => {
    if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    const a = (ev.target as Element | null)?.closest?.('a');
    if (!a || a.target || a.hasAttribute('download')) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || !url.pathname.startsWith(BASE + '/')) return;
    ev.preventDefault();
    navigate(url.pathname.slice(BASE.length) || '/');
  });
}
