/**
 * The short crash soak (the full one, 20 kills, is `npm run soak:crash`): the real command under mixed
 * load across both spaces, kill -9 three times at random moments, and after each: verify-ledger passes,
 * every transaction reported finalized is there with its status, and finalized balances are as they were.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { killLeftovers } from '../helpers/cli-process.ts';
import { runCrashSoak } from '../helpers/crash-soak.ts';
import { tempLedger } from '../helpers/node.ts';

after(killLeftovers);

test('crash soak: 3 kill -9 under native, token, EVM and bridge load; finalized transactions, balances and conservation survive', { timeout: 240_000 }, async (t) => {
  const seed = Number(process.env.ISTHMUS_SOAK_SEED ?? Date.now() % 1_000_000);
  t.diagnostic(`seed ${seed} (set ISTHMUS_SOAK_SEED to repeat)`);
  const ledger = tempLedger();
  try {
    const report = await runCrashSoak({ kills: 3, seed, ledger, log: (line) => t.diagnostic(line) });
    assert.equal(report.verifyLedgerRuns, 3);
    // Per round: a native transfer, a failed airdrop, a token transfer, a deposit, three EVM transactions (each with its native carrier).
    assert.ok(report.nativeTransactions >= 3 * 7, JSON.stringify(report));
    assert.equal(report.evmTransactions, 3 * 3);
    assert.match(report.lastVerify, /value is conserved/);
  } finally {
    fs.rmSync(ledger, { recursive: true, force: true });
  }
});
