/**
 * The desktop app's settings, kept in a small JSON file in the app's userData folder and applied to
 * the node's options at each (re)start. Today one setting: the slots of block history the ledger keeps
 * (the CLI's --limit-ledger-size). Input is checked before anything is written; bad input changes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MIN_LIMIT_LEDGER_SIZE, type NodeOptions } from '../node-core/node/options.ts';

export interface DesktopSettings {
  /** Slots of block history the ledger keeps; null keeps every slot. */
  limitLedgerSize: number | null;
}

export const DEFAULT_SETTINGS: DesktopSettings = Object.freeze({ limitLedgerSize: null });

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** The ledger size limit as typed in the settings page: empty keeps all, else a whole number of slots ≥ the minimum. */
export function parseLimitLedgerSize(input: unknown): Parsed<number | null> {
  const text = typeof input === 'number' ? String(input) : typeof input === 'string' ? input.trim().replace(/[,_\s]/g, '') : null;
  if (text === null) return { ok: false, error: 'The ledger size limit must be a number of slots.' };
  if (text === '') return { ok: true, value: null };
  if (!/^\d+$/.test(text)) {
    return { ok: false, error: `"${String(input).slice(0, 40)}" is not a whole number of slots: enter one (at least ${MIN_LIMIT_LEDGER_SIZE}), or leave the field empty to keep every slot.` };
  }
  const value = Number(text);
  if (!Number.isSafeInteger(value)) return { ok: false, error: `${text} slots is more than this app can count; leave the field empty to keep every slot.` };
  if (value < MIN_LIMIT_LEDGER_SIZE) return { ok: false, error: `${value} slots is too few: the ledger keeps at least ${MIN_LIMIT_LEDGER_SIZE}.` };
  return { ok: true, value };
}

/** The settings in `file`; a missing file gives the defaults, a damaged one the defaults and the reason. */
export function readSettings(file: string): { settings: DesktopSettings; problem?: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { settings: { ...DEFAULT_SETTINGS } };
    return { settings: { ...DEFAULT_SETTINGS }, problem: `${file} could not be read (${(e as Error).message}); using the defaults` };
  }
  const stored = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>).limitLedgerSize : undefined;
  if (stored === undefined || stored === null) return { settings: { ...DEFAULT_SETTINGS } };
  const limit = parseLimitLedgerSize(stored);
  if (!limit.ok) return { settings: { ...DEFAULT_SETTINGS }, problem: `${file}: ${limit.error} Keeping every slot.` };
  return { settings: { limitLedgerSize: limit.value } };
}

/** Writes the settings whole (a temp file renamed over the old one: a crash leaves one or the other). */
export function writeSettings(file: string, settings: DesktopSettings): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, JSON.stringify(settings, null, 2) + '\n');
  fs.renameSync(temp, file);
}

/** The node's options with the settings applied. */
export function applySettings(options: NodeOptions, settings: DesktopSettings): NodeOptions {
  const { limitLedgerSize: _ignored, ...rest } = options;
  return settings.limitLedgerSize === null ? rest : { ...rest, limitLedgerSize: settings.limitLedgerSize };
}
