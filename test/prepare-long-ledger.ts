/**
 * Makes the 100,000-slot ledger template (test/helpers/long-ledger.ts) before the tests run, when the
 * ledger code has no template yet on this machine (a fresh clone, or a change under store/, ledger/
 * or evm/). Two test files copy it; made inside them, its minutes under load counted against their
 * time limits and they could both be making it at once.
 */
import { copyOfLongLedger } from './helpers/long-ledger.ts';
import fs from 'node:fs';
import path from 'node:path';

const started = Date.now();
const copy = await copyOfLongLedger(100_000, { progress: (slot) => console.log(`  long-ledger template: slot ${slot}`) });
fs.rmSync(path.dirname(copy.dir), { recursive: true, force: true });
const seconds = (Date.now() - started) / 1000;
if (seconds > 5) console.log(`Made the 100,000-slot ledger template for the tests in ${seconds.toFixed(0)} s`);
