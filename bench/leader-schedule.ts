/**
 * bench/leader-schedule: what the schedule from stake costs.
 *  - Drawing one epoch's schedule (432,000 slots, Agave's draw) for 1, 100 and 1,500 staked nodes
 *    (mainnet has ~1,400 staked validators), in process: milliseconds per epoch.
 *  - Over HTTP against a real `isthmus start` (432,000-slot epochs, so one epoch's schedule is the
 *    whole answer): getLeaderSchedule, getSlotLeaders for 5,000 slots, getBlockProduction for the
 *    epoch so far, and the SlotHistory sysvar (131 KB, drawn when read) as base64 and jsonParsed:
 *    milliseconds per call.
 * No peer that runs here has a leader schedule (Ganache, Anvil and LiteSVM have no slots led by
 * stake), so there is no ratio; solana-test-validator cannot run on this machine.
 *
 *   npm run bench:leader-schedule
 */
import { performance } from 'node:perf_hooks';
import { encodeBase58 } from '../node-core/common/base58.ts';
import { drawLeaders } from '../node-core/ledger/leader-schedule.ts';
import { startNodeProcess } from './lib/node-process.ts';
import { rpcCall } from './lib/http-load.ts';

const SLOTS = 432_000;

function nodes(n: number): Array<[string, bigint]> {
  return Array.from({ length: n }, (_, i) => {
    const key = new Uint8Array(32);
    new DataView(key.buffer).setUint32(0, i + 1);
    // Stakes spread over three orders of magnitude, as on mainnet.
    return [encodeBase58(key), BigInt(1_000 + ((i * 7_919) % 1_000_000)) * 1_000_000_000n] as [string, bigint];
  });
}

async function timeIt(runs: number, f: () => unknown): Promise<number> {
  await f();
  const start = performance.now();
  for (let i = 0; i < runs; i++) await f();
  return (performance.now() - start) / runs;
}

console.log(`leader-schedule: one epoch of ${SLOTS.toLocaleString('en-US')} slots`);
for (const n of [1, 100, 1_500]) {
  const staked = nodes(n);
  const ms = await timeIt(5, () => drawLeaders(7, staked, SLOTS));
  console.log(`  draw for ${n.toLocaleString('en-US')} staked nodes: ${ms.toFixed(1)} ms per epoch`);
}

// Short slots, so the epoch so far has some thousand slots for getBlockProduction to count.
const node = await startNodeProcess(['--slot-ms', '10']);
try {
  await new Promise((r) => setTimeout(r, 15_000));
  const schedule = await timeIt(20, () => rpcCall(node.rpcUrl, 'getLeaderSchedule'));
  console.log(`  getLeaderSchedule (one identity, ${SLOTS.toLocaleString('en-US')} slot indexes): ${schedule.toFixed(1)} ms per call`);
  const slot = (await rpcCall(node.rpcUrl, 'getSlot', [{ commitment: 'confirmed' }])) as number;
  const leaders = await timeIt(50, () => rpcCall(node.rpcUrl, 'getSlotLeaders', [slot, 5_000]));
  console.log(`  getSlotLeaders for 5,000 slots: ${leaders.toFixed(2)} ms per call`);
  const production = await timeIt(50, () => rpcCall(node.rpcUrl, 'getBlockProduction', [{ commitment: 'confirmed' }]));
  console.log(`  getBlockProduction (the epoch so far, ${slot} slots): ${production.toFixed(2)} ms per call`);
  for (const encoding of ['base64', 'jsonParsed']) {
    const read = await timeIt(20, () => rpcCall(node.rpcUrl, 'getAccountInfo', ['SysvarS1otHistory11111111111111111111111111', { encoding, commitment: 'processed' }]));
    console.log(`  getAccountInfo SlotHistory (${encoding}, a new bank each call): ${read.toFixed(1)} ms per call`);
  }
} finally {
  await node.stop();
}
