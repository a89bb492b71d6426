/**
 * What makes a folder an Isthmus ledger: a marker file. A new ledger gets one; `--reset` empties only
 * folders that carry it (and that no running node holds); a non-empty folder without it is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ledgerFiles } from './genesis.ts';
import { lockLedger } from './ledger-lock.ts';

export class LedgerError extends Error {}

export function prepareLedgerFolder(ledger: string, reset: boolean): void {
  const files = ledgerFiles(ledger);
  if (reset && fs.existsSync(ledger)) {
    const entries = fs.readdirSync(ledger);
    if (entries.length > 0 && !fs.existsSync(files.marker)) {
      throw new LedgerError(`refusing to --reset ${ledger}: it is not an Isthmus ledger (no ${ledgerFiles('').marker.slice(1)})`);
    }
    lockLedger(ledger)(); // refuses while another node runs on it
    fs.rmSync(ledger, { recursive: true, force: true });
  }
  fs.mkdirSync(ledger, { recursive: true });
  if (!fs.existsSync(files.marker)) {
    if (fs.readdirSync(ledger).length > 0) throw new LedgerError(`${ledger} is not empty and is not an Isthmus ledger; pass another --ledger`);
    fs.writeFileSync(files.marker, JSON.stringify({ format: 1 }) + '\n');
  }
}

/**
 * The bytes the ledger folder's files take on disk, as `du` counts them (allocated blocks where the
 * platform reports them, else the file sizes). Files that vanish during the walk (lock files) count 0.
 */
export async function ledgerDiskBytes(dir: string): Promise<number> {
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
  let total = 0;
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await ledgerDiskBytes(full);
    else if (entry.isFile()) {
      const stat = await fs.promises.stat(full).catch(() => null);
      if (stat) total += typeof stat.blocks === 'number' && process.platform !== 'win32' ? stat.blocks * 512 : stat.size;
    }
  }
  return total;
}
