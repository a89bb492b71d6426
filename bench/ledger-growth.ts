/**
 * bench/ledger-growth: how fast a ledger grows on disk. A real `isthmus start` process on a temp
 * ledger: idle (fast slots, each block only the validator's vote) the growth of the ledger's store
 * folder divided by the blocks made; then native transfers (pre-signed, over HTTP, a fixed set of
 * recipients so the figure is history, not new accounts) less those blocks' idle cost, per transfer.
 * LMDB grows its file a page at a time, so the counts are a few thousand.
 *
 *   npm run bench:ledger-growth [-- --slots N --transfers N --slot-ms MS]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { headline } from './lib/headline.ts';
import { postConcurrently, rpcCall } from './lib/http-load.ts';
import { startNodeProcess, type NodeProcess } from './lib/node-process.ts';
import { presignTransfers, randomAddress } from './lib/transfers.ts';

const { values } = parseArgs({
  options: { slots: { type: 'string', default: '3000' }, transfers: { type: 'string', default: '3000' }, 'slot-ms': { type: 'string', default: '10' } },
});
const IDLE_SLOTS = Number(values.slots);
const TRANSFERS = Number(values.transfers);
const IDLE_SLOT_MS = Number(values['slot-ms']);
const SLOTS_PER_DAY = 86_400_000 / 400;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Bytes of the files under `dir`: as their sizes say, and as the disk allocates them. */
function dirBytes(dir: string): { size: number; allocated: number } {
  let size = 0;
  let allocated = 0;
  for (const name of fs.readdirSync(dir)) {
    const st = fs.statSync(path.join(dir, name));
    if (st.isDirectory()) {
      const sub = dirBytes(path.join(dir, name));
      size += sub.size;
      allocated += sub.allocated;
    } else {
      size += st.size;
      allocated += st.blocks * 512;
    }
  }
  return { size, allocated };
}

const storeBytes = (node: NodeProcess) => dirBytes(path.join(node.ledger, 'store'));
const processedSlot = (node: NodeProcess): Promise<number> => rpcCall(node.rpcUrl, 'getSlot', [{ commitment: 'processed' }]);
/** Blocks stored in [from, to] (skipped slots have none). */
const blocksIn = async (node: NodeProcess, from: number, to: number): Promise<number> => ((await rpcCall(node.rpcUrl, 'getBlocks', [from, to, { commitment: 'confirmed' }])) as number[]).length;

async function waitForSlot(node: NodeProcess, commitment: string, slot: number): Promise<number> {
  for (;;) {
    const s: number = await rpcCall(node.rpcUrl, 'getSlot', [{ commitment }]);
    if (s >= slot) return s;
    await sleep(20);
  }
}

/** Idle growth: bytes per block (only the vote in it). */
async function idle(): Promise<{ perBlock: number; allocatedPerBlock: number; blocks: number }> {
  const node = await startNodeProcess(['--slot-ms', String(IDLE_SLOT_MS)]);
  try {
    // Past the first slots (genesis records, the first pages of each table).
    const start = await waitForSlot(node, 'confirmed', 200);
    const before = storeBytes(node);
    const end = await waitForSlot(node, 'confirmed', start + IDLE_SLOTS);
    const after = storeBytes(node);
    const blocks = await blocksIn(node, start + 1, end);
    return { perBlock: (after.size - before.size) / blocks, allocatedPerBlock: (after.allocated - before.allocated) / blocks, blocks };
  } finally {
    await node.stop();
  }
}

/** Bytes per transfer, less the idle cost of the blocks they took. */
async function transfers(idlePerBlock: number): Promise<{ perTransfer: number; blocks: number; landed: number }> {
  const node = await startNodeProcess();
  try {
    await waitForSlot(node, 'finalized', 1);
    // Preflight reads the bank at the default commitment (finalized): a blockhash it knows.
    const { value } = await rpcCall(node.rpcUrl, 'getLatestBlockhash', [{ commitment: 'finalized' }]);
    const recipients = Array.from({ length: 100 }, randomAddress);
    // Every recipient exists before the count starts: the figure is history, not new accounts.
    const warm = presignTransfers({ payers: [node.faucet], recipients, blockhash: value.blockhash, count: recipients.length, lamports: 10_000_000 });
    const warmed = await postConcurrently(node.rpcUrl, warm.map((w, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'sendTransaction', params: [Buffer.from(w).toString('base64'), { encoding: 'base64' }] })), 16);
    if (warmed.errors) throw new Error(`the recipients' first transfers failed: ${warmed.firstError}`);
    const wires = presignTransfers({ payers: [node.faucet], recipients, blockhash: value.blockhash, count: TRANSFERS });
    const bodies = wires.map((w, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'sendTransaction', params: [Buffer.from(w).toString('base64'), { encoding: 'base64' }] }));
    // The warm-up lands and is stored before the measurement starts.
    await waitForSlot(node, 'confirmed', (await processedSlot(node)) + 2);
    const first = (await rpcCall(node.rpcUrl, 'getSlot', [{ commitment: 'confirmed' }])) as number;
    const base: number = await rpcCall(node.rpcUrl, 'getTransactionCount', [{ commitment: 'confirmed' }]);
    const before = storeBytes(node);
    const load = await postConcurrently(node.rpcUrl, bodies, 32);
    if (load.errors) console.log(`  ${load.errors} sends failed, first: ${load.firstError}`);
    for (;;) {
      const n: number = await rpcCall(node.rpcUrl, 'getTransactionCount', [{ commitment: 'processed' }]);
      if (n - base >= load.ok) break;
      await sleep(20);
    }
    const last = await waitForSlot(node, 'confirmed', (await processedSlot(node)) + 1);
    const after = storeBytes(node);
    const blocks = await blocksIn(node, first + 1, last);
    const txs: number = await rpcCall(node.rpcUrl, 'getTransactionCount', [{ commitment: 'confirmed' }]);
    const landed = txs - base - blocks; // less each block's vote
    if (landed < TRANSFERS * 0.9) throw new Error(`only ${landed} of ${TRANSFERS} transfers landed`);
    return { perTransfer: (after.size - before.size - idlePerBlock * blocks) / landed, blocks, landed };
  } finally {
    await node.stop();
  }
}

console.log(`ledger growth: ${IDLE_SLOTS} idle slots at --slot-ms ${IDLE_SLOT_MS}, then ${TRANSFERS} native transfers at 400 ms slots`);
const i = await idle();
console.log(`  idle: ${i.perBlock.toFixed(1)} bytes per block (${i.allocatedPerBlock.toFixed(1)} allocated) over ${i.blocks} blocks = ${((i.perBlock * SLOTS_PER_DAY) / 1e6).toFixed(1)} MB/day at 400 ms slots`);
const t = await transfers(i.perBlock);
console.log(`  transfers: ${t.perTransfer.toFixed(1)} bytes per native transfer (${t.landed} transfers in ${t.blocks} blocks, their blocks' idle cost taken off)`);
headline({ bench: 'ledger-growth', figure: 'ledger growth per idle block', value: i.perBlock, unit: 'bytes', goal: '< 115 bytes (< 25 MB/day at 400 ms)' });
headline({ bench: 'ledger-growth', figure: 'ledger growth per native transfer', value: t.perTransfer, unit: 'bytes' });
