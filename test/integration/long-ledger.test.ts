/**
 * A node started with `isthmus start --ledger DIR` on a ledger of 100,000 slots (test/helpers/long-ledger.ts)
 * answers history reads consistently: old blocks chain to their parents, block ranges have no gaps,
 * getSignaturesForAddress pages through thousands of signatures exactly as the slot-range method lists
 * them, and failed transactions, memos and block times come back as written.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePorts, killLeftovers, runIsthmus, waitForRpc, type NodeProcess } from '../helpers/cli-process.ts';
import { copyOfLongLedger, type LongLedger } from '../helpers/long-ledger.ts';
import { rpc, waitFor } from '../helpers/node.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const SLOTS = 100_000;

after(killLeftovers);

describe(`a node on a ${SLOTS.toLocaleString('en')}-slot ledger`, { timeout: 15 * 60_000 }, () => {
  let ledger: LongLedger;
  let node: NodeProcess;
  let url: string;
  let startMs: number;

  const call = async (method: string, params?: unknown): Promise<Json> => {
    const r = await rpc(url, method, params);
    if (r.error) throw new Error(`${method} ${JSON.stringify(params)}: ${JSON.stringify(r.error)}`);
    return r.result;
  };

  before(async () => {
    ledger = await copyOfLongLedger(SLOTS, { progress: (s) => console.log(`long ledger: slot ${s}`) });
    // The WebSocket port too: by default it is the RPC port + 1, which another process may hold.
    const [rpcPort, pubsubPort, evmPort] = await freePorts(3);
    url = `http://127.0.0.1:${rpcPort}`;
    const t0 = Date.now();
    node = runIsthmus(['start', '--ledger', ledger.dir, '--rpc-port', String(rpcPort), '--rpc-pubsub-port', String(pubsubPort), '--evm-rpc-port', String(evmPort), '--quiet']);
    await waitForRpc(url, node.child, 60_000);
    startMs = Date.now() - t0;
    console.log(`started on ${ledger.lastSlot} slots in ${startMs} ms (ledger made in ${ledger.elapsedMs} ms)`);
  });

  after(async () => {
    if (node && node.child.exitCode === null) {
      node.child.kill('SIGINT');
      await node.exited;
    }
    if (ledger) fs.rmSync(path.dirname(ledger.dir), { recursive: true, force: true });
  });

  test('resumes after the newest stored slot and keeps making slots', async () => {
    assert.ok(ledger.lastSlot >= SLOTS);
    const first = await call('getSlot', [{ commitment: 'confirmed' }]);
    assert.ok(first >= ledger.lastSlot, `getSlot ${first} < ${ledger.lastSlot}`);
    await waitFor(async () => (await call('getSlot', [{ commitment: 'confirmed' }])) > first, { what: 'a new slot' });
    assert.equal(await call('getFirstAvailableBlock'), 0);
    // Every slot made since the restart holds the validator's vote on its parent; the count includes them.
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 0, method: 'getTransactionCount', params: [{ commitment: 'processed' }] },
        { jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'processed' }] },
      ]),
    });
    const [count, slot] = ((await res.json()) as Array<{ result: number }>).map((r) => r.result);
    assert.equal(count, ledger.storedTransactionCount + (slot! - ledger.lastSlot));
    assert.equal(await call('getGenesisHash'), ledger.genesisHash);
  });

  test('old blocks carry their transactions and chain to their parents', async () => {
    for (const slot of [1, 2, 50_000, 99_998]) {
      const block = await call('getBlock', [slot, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }]);
      const parent = await call('getBlock', [slot - 1, { transactionDetails: 'none', rewards: false, commitment: 'confirmed' }]);
      assert.equal(block.parentSlot, slot - 1);
      assert.equal(block.previousBlockhash, parent.blockhash, `slot ${slot} links to its parent`);
      assert.equal(block.blockHeight, slot);
      assert.equal(typeof block.blockTime, 'number');
      assert.equal(await call('getBlockTime', [slot]), block.blockTime);
      for (const tx of block.transactions) {
        const [sig] = tx.transaction.signatures;
        const one = await call('getTransaction', [sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
        assert.equal(one.slot, slot);
        assert.deepEqual(one.meta, tx.meta);
        const status = (await call('getSignatureStatuses', [[sig], { searchTransactionHistory: true }])).value[0];
        assert.equal(status.slot, slot);
        assert.equal(status.confirmationStatus, 'finalized');
      }
    }
    const busy = await call('getBlock', [50_000, { encoding: 'json', commitment: 'confirmed' }]);
    assert.ok(busy.transactions.length > 0, 'slot 50,000 holds transfers');
  });

  test('block ranges have no gaps, old and new', async () => {
    const range = await call('getBlocks', [10_000, 10_499]);
    assert.deepEqual(range, Array.from({ length: 500 }, (_, i) => 10_000 + i));
    const withLimit = await call('getBlocksWithLimit', [SLOTS - 1000, 1000]);
    assert.deepEqual(withLimit, Array.from({ length: 1000 }, (_, i) => SLOTS - 1000 + i));
    const whole = await call('getBlocks', [0, SLOTS]);
    assert.equal(whole.length, SLOTS + 1);
  });

  test('getSignaturesForAddress pages through every signature of an address, as the slot-range method lists them', async () => {
    let total = 0;
    for (const address of ledger.recipients) {
      const paged: Json[] = [];
      let before: string | undefined;
      for (;;) {
        const page = await call('getSignaturesForAddress', [address, { limit: 1000, ...(before ? { before } : {}) }]);
        paged.push(...page);
        if (page.length < 1000) break;
        before = page[page.length - 1].signature;
      }
      assert.equal(new Set(paged.map((e) => e.signature)).size, paged.length, 'no signature twice');
      for (let i = 1; i < paged.length; i++) assert.ok(paged[i - 1].slot >= paged[i].slot, 'newest first');
      const ranged: string[] = [];
      for (let start = 0; start <= ledger.lastSlot; start += 10_000) {
        ranged.push(...(await call('getConfirmedSignaturesForAddress', [address, start, Math.min(start + 9_999, ledger.lastSlot)])));
      }
      assert.deepEqual(new Set(ranged), new Set(paged.map((e) => e.signature)));
      total += paged.length;
    }
    // Every transaction but the one funding the failing signer went to a recipient (the failures to the first).
    assert.equal(total, ledger.transactionCount - 1);
  });

  test('failed transactions and memos are kept as written', async () => {
    const failing = await call('getSignaturesForAddress', [ledger.failing, { limit: 1000 }]);
    assert.equal(failing.length, ledger.failedCount + 1);
    assert.equal(failing.filter((e: Json) => e.err !== null).length, ledger.failedCount);
    const failed = failing.find((e: Json) => e.err !== null);
    const tx = await call('getTransaction', [failed.signature, { encoding: 'json' }]);
    assert.deepEqual(tx.meta.err, { InstructionError: [0, { Custom: 1 }] });
    assert.equal(tx.meta.fee, 5000);

    const page = await call('getSignaturesForAddress', [ledger.recipients[1], { limit: 1000 }]);
    const withMemo = page.filter((e: Json) => e.memo !== null);
    assert.ok(withMemo.length > 0);
    assert.match(withMemo[0].memo, /^\[\d+\] slot \d+ transfer \d+$/);
  });
});
