// The newest modification time (ms) of a file, or of a folder and everything in it: what the
// build-if-stale scripts compare their output against.
import fs from 'node:fs';
import path from 'node:path';

export function newestMtime(p) {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = st.mtimeMs;
  for (const e of fs.readdirSync(p)) m = Math.max(m, newestMtime(path.join(p, e)));
  return m;
}
