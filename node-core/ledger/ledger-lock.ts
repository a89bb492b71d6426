/**
 * One node per ledger: a lock file holding the owner's pid. A lock left by a process that no longer
 * runs (after kill -9) is taken over.
 */
import fs from 'node:fs';
import path from 'node:path';

export class LedgerLockedError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the ledger's lock; returns the function that releases it. */
export function lockLedger(ledger: string): () => void {
  const file = path.join(ledger, 'ledger.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number(fs.readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner !== process.pid && alive(owner)) {
        throw new LedgerLockedError(`the ledger ${ledger} is in use by another node (pid ${owner}); stop it or pass another --ledger`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new LedgerLockedError(`could not lock the ledger ${ledger}`);
}
