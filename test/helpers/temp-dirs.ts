/** Temporary folders for a test file, each removed once the file's tests are done. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';

/** A maker of fresh folders named `prefix…` under the system's temp folder. */
export function tempDirMaker(prefix: string): () => string {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}
