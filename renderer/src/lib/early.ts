/**
 * Reads started at boot, before the app mounts and before isthmus_getNodeInfo has answered, so the
 * first page's round trips overlap the app's own start instead of following it. The page takes its
 * read once, by name and URL (the node it reads from); later visits, another node, or a read older
 * than a few seconds ask the node again as usual.
 */
const MAX_AGE_MS = 5_000;

interface Started {
  at: number;
  answer: Promise<unknown>;
}

const started = new Map<string, Started>();

const keyOf = (name: string, url: string) => `${name} ${url}`;

export function startEarly<T>(name: string, url: string, read: () => Promise<T>): void {
  const answer = read();
  // Taken (and its error handled) by the page later, or never: no unhandled rejection meanwhile.
  answer.catch(() => undefined);
  started.set(keyOf(name, url), { at: Date.now(), answer });
}

/** The read started at boot for `name` on `url`, once; undefined when there is none (or it is stale). */
export function takeEarly<T>(name: string, url: string | undefined): Promise<T> | undefined {
  if (url === undefined) return undefined;
  const key = keyOf(name, url);
  const s = started.get(key);
  started.delete(key);
  return s && Date.now() - s.at <= MAX_AGE_MS ? (s.answer as Promise<T>) : undefined;
}
