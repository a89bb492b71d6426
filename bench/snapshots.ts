/**
 * bench/snapshots: what a snapshot and a revert cost, through JSON-RPC (isthmus_snapshot,
 * isthmus_revert) against a real node started in this process.
 *
 * The ledger: 100,000 slots of real transactions (test/helpers/long-ledger.ts, cached) plus 10,000
 * funded accounts written at start. Each round takes a snapshot, then drives 1,000 slots through the
 * chain by hand (a transfer to one of the 10,000 accounts in each, so every slot changes accounts,
 * as well as the validator's vote), then reverts them. The same rounds on a fresh ledger with the same
 * 10,000 accounts show that a revert grows with what changed since the snapshot (100 against 1,000
 * slots), not with the ledger (fresh against 100,000 slots). Goal: each under 100 ms.
 *
 * Anvil's evm_snapshot/evm_revert keep the state in memory and no history to discard, so they are no
 * peer for a durable revert of both spaces; there is no ratio.
 *
 *   npm run bench:snapshots        (ISTHMUS_BENCH_ROUNDS: rounds per case, default 5;
 *                                   ISTHMUS_BENCH_LONG_LEDGER: a 100,000-slot ledger folder to copy)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Address } from '../node-core/common/pubkey.ts';
import { SYSTEM_PROGRAM_ID } from '../node-core/common/pubkey.ts';
import { keypairFromSeed } from '../node-core/keys/keypair.ts';
import { startNode, type RunningNode } from '../node-core/node/start.ts';
import { DEFAULT_OPTIONS, type NodeOptions } from '../node-core/node/options.ts';
import { compileMessage, signTransaction } from '../node-core/runtime/message-builder.ts';
import { systemTransferInstruction } from '../node-core/runtime/programs/system-instruction.ts';
import { copyOfLongLedger } from '../test/helpers/long-ledger.ts';
import { tempLedger } from '../test/helpers/node.ts';
import { headline } from './lib/headline.ts';

const LEDGER_SLOTS = 100_000;
const ACCOUNTS = 10_000;
const ROUNDS = Number(process.env.ISTHMUS_BENCH_ROUNDS ?? 5);

function accountAddresses(): Address[] {
  return Array.from({ length: ACCOUNTS }, (_, i) => {
    const seed = new Uint8Array(32);
    new DataView(seed.buffer).setUint32(0, i + 1);
    seed[31] = 0x5a;
    return keypairFromSeed(seed).address;
  });
}

async function call(url: string, method: string, params: unknown[]): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => `${x.toFixed(1)} ms`;

/** Seals `count` slots by hand, a transfer to one of the accounts in each (what the revert then undoes). */
async function driveSlots(node: RunningNode, accounts: Address[], count: number, round: number): Promise<void> {
  const chain = node.chain;
  const payer = node.keys.devAccounts[round % node.keys.devAccounts.length]!;
  const until = chain.processedSlot + count;
  for (let i = 0; chain.processedSlot < until; i++) {
    const to = accounts[(round * 7_919 + i * 104_729) % accounts.length]!;
    const message = compileMessage(payer.address, [systemTransferInstruction(payer.address, to, 1_000 + i)], chain.latestBlockhash('processed').blockhash);
    chain.processTransaction(signTransaction(message, [payer]));
    chain.sealWorkingBank();
    if (i % 64 === 63) await chain.flushed();
  }
  await chain.flushed();
}

async function measure(name: string, ledger: string, accounts: Address[], discard: number[]): Promise<void> {
  const account = { lamports: 10_000_000, data: new Uint8Array(0), owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: 0 };
  const node = await startNode({
    ...(DEFAULT_OPTIONS as Omit<NodeOptions, 'ledger'>),
    ledger,
    rpcPort: 0,
    evmRpcPort: 0,
    quiet: true,
    accounts: accounts.map((address) => ({ address, account })),
  });
  try {
    await node.chain.sealWhenIdle();
    await node.chain.flushed();
    console.log(`${name}: newest slot ${node.chain.confirmedSlot.toLocaleString('en-US')}, ${ACCOUNTS.toLocaleString('en-US')} accounts written at start`);
    for (const slots of discard) {
      const snapshots: number[] = [];
      const reverts: number[] = [];
      let discarded = 0;
      for (let round = 0; round < ROUNDS; round++) {
        let t = performance.now();
        const snap = await call(node.rpcUrl, 'isthmus_snapshot', [`bench ${round}`]);
        snapshots.push(performance.now() - t);
        await driveSlots(node, accounts, slots, round);
        t = performance.now();
        const reverted = await call(node.rpcUrl, 'isthmus_revert', [snap.id]);
        reverts.push(performance.now() - t);
        discarded = reverted.discardedSlots;
        if (node.chain.confirmedSlot > snap.slot + 1) throw new Error(`after the revert the chain is at ${node.chain.confirmedSlot}, the snapshot at ${snap.slot}`);
      }
      headline({ bench: 'snapshots', figure: `revert of ${slots.toLocaleString('en-US')} slots, ${name}`, value: median(reverts), unit: 'ms', goal: '< 100 ms' });
      console.log(
        `  ${String(slots).padStart(5)} slots to discard (${discarded} stored): snapshot median ${ms(median(snapshots))} (max ${ms(Math.max(...snapshots))}), revert median ${ms(median(reverts))} (max ${ms(Math.max(...reverts))})`,
      );
    }
  } finally {
    await node.close();
  }
}

function copyOfGivenLedger(dir: string): { dir: string } {
  const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-bench-snapshots-')), 'ledger');
  fs.cpSync(dir, copy, { recursive: true });
  return { dir: copy };
}

const accounts = accountAddresses();
console.log(`snapshots: ${ROUNDS} rounds per case, through JSON-RPC`);

const fresh = tempLedger();
try {
  await measure('a fresh ledger', fresh, accounts, [100, 1_000]);
} finally {
  fs.rmSync(fresh, { recursive: true, force: true });
}

// ISTHMUS_BENCH_LONG_LEDGER: a copy of this 100,000-slot ledger folder instead of the cached template
// (one made by long-ledger.ts before a change to the ledger code, whose digest names the template).
const given = process.env.ISTHMUS_BENCH_LONG_LEDGER;
const long = given ? copyOfGivenLedger(given) : await copyOfLongLedger(LEDGER_SLOTS, { progress: (slot) => console.log(`  making the long ledger: slot ${slot}`) });
try {
  await measure(`a ledger of ${LEDGER_SLOTS.toLocaleString('en-US')} slots`, long.dir, accounts, [100, 1_000]);
} finally {
  fs.rmSync(path.dirname(long.dir), { recursive: true, force: true });
}
