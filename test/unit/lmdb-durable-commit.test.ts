/**
 * What a resolved LmdbStore.commitSlot promises, checked against a writer process killed with
 * SIGKILL: the slot is flushed (it is there when the ledger is opened on its last flushed meta page
 * only, as after a power loss), and every slot is whole (its writes are one transaction). The slots
 * are large: queued for lmdb-js's write thread, as a branch once tried, it starts on them before
 * they are all queued.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { open, type RootDatabaseOptionsWithPath } from 'lmdb';
import type { ChainMeta } from '../../node-core/store/store.ts';
import { openLmdbStore } from '../../node-core/store/lmdb-store.ts';
import { CRASH_ADDRESSES, CRASH_COUNTER, signature } from '../helpers/store-fixtures.ts';
import { LARGE_SLOT_TXS, largeSlotKeys } from '../helpers/store-large-slots.ts';

const REPORTER = fileURLToPath(new URL('../helpers/store-commit-reporter.ts', import.meta.url));
const ROUNDS = 4;

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs the writer until it has reported `slots` more resolved commits (and waits `extraMs` more),
 * SIGKILLs it, and returns the last slot it reported.
 */
function runUntilKilled(dir: string, slots: number, extraMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', REPORTER, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let out = '';
    let reported = 0;
    let last = 0;
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const lines = out.split('\n');
      out = lines.pop()!;
      for (const line of lines) {
        if (reported >= slots) return; // killed already: later reports do not count
        last = Number(line);
        if (++reported === slots) {
          if (extraMs === 0) child.kill('SIGKILL');
          else setTimeout(() => child.kill('SIGKILL'), extraMs);
        }
      }
    });
    child.on('error', reject);
    child.on('exit', (code, sig) => (sig === 'SIGKILL' ? resolve(last) : reject(new Error(`writer exited ${code}: ${stderr}`))));
  });
}

/** The chain record as LMDB finds it on the newest flushed meta page (lmdb-js's safe restore). */
function flushedMeta(dir: string): ChainMeta | undefined {
  // usePreviousSnapshot: an lmdb-js option its typings leave out.
  const root = open({ path: dir, maxDbs: 16, usePreviousSnapshot: true, safeRestore: true } as RootDatabaseOptionsWithPath);
  try {
    return root.openDB<ChainMeta, string>('meta', {}).get('chain');
  } finally {
    void root.close();
  }
}

describe('LmdbStore commits under SIGKILL', () => {
  it('a resolved commit is flushed: it is on the newest flushed meta page', { timeout: 120_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-durable-commit-'));
    dirs.push(dir);
    for (let round = 0; round < ROUNDS; round++) {
      // Killed the moment the report arrives: the commit after it is in flight.
      const last = await runUntilKilled(dir, 3 + round, 0);
      const meta = flushedMeta(dir);
      assert.ok(meta && meta.slot >= last, `the writer reported slot ${last} committed; the flushed ledger is at ${meta?.slot}`);
    }
  });

  it('a large slot is whole after a kill at any moment', { timeout: 120_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-whole-slot-'));
    dirs.push(dir);
    for (let round = 0; round < ROUNDS; round++) {
      await runUntilKilled(dir, 2, Math.random() * 60);
      const store = await openLmdbStore(dir);
      try {
        const meta = await store.readMeta();
        assert.ok(meta, 'meta is stored');
        const slot = meta.slot;
        const block = await store.getBlock(slot);
        assert.equal(block?.transactions.length, LARGE_SLOT_TXS, `block ${slot} has all its transactions`);
        assert.equal(await store.getBlock(slot + 1), null, `no block after meta's slot ${slot}`);
        for (const index of [0, LARGE_SLOT_TXS - 1]) {
          assert.deepEqual(await store.getSignatureLocation(signature(slot, index)), { slot, index, err: null });
          assert.equal(await store.getSignatureLocation(signature(slot + 1, index)), null);
        }
        const newest = await store.getSignaturesForAddress(CRASH_ADDRESSES[0]!, { limit: 1, maxSlot: slot + 10 });
        const newestIndex = Array.from({ length: LARGE_SLOT_TXS }, (_, i) => i).filter((i) => largeSlotKeys(slot, i).includes(CRASH_ADDRESSES[0]!)).pop()!;
        assert.deepEqual(newest.map((e) => e.signature), [signature(slot, newestIndex)], 'the address index ends with the slot');
        const accounts = new Map(store.loadAccounts());
        assert.equal(accounts.get(CRASH_COUNTER)?.lamports, slot);
        assert.deepEqual(await store.getExtra('large', 0), { slot });
      } finally {
        await store.close();
      }
    }
  });
});
