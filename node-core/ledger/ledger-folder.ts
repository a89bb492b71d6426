/**
 * What makes a folder an Isthmus ledger: a marker file. A new ledger gets one; `--reset` empties only
 * folders that carry it (and that no running node holds); a non-empty folder without it is refused.
 */
import fs from 'node:fs';
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
