/**
 * Fuzzes every port of a node in a child process: --count malformed or hostile requests (default
 * 100,000) drawn from --seed across native HTTP, EVM HTTP, PubSub and EVM WebSocket, then checks the
 * node still serves. Prints the answers by kind, RSS before and after, and every rule broken; exits 1
 * if the node died, any answer broke the rules, or it stopped serving.
 */
import { parseArgs } from 'node:util';
import { checkServing, formatReport, runFuzz, startFuzzNode } from './lib/fuzz-ports.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '19' },
    concurrency: { type: 'string', default: '32' },
    'flood-size': { type: 'string', default: '2000' },
  },
});
const count = Number(values.count);
const seed = Number(values.seed);

const node = await startFuzzNode();
let failed = false;
try {
  const rssBefore = node.rssBytes();
  const started = Date.now();
  console.log(`fuzzing ${count} requests, seed ${seed}, node pid ${node.child.pid}, RSS ${(rssBefore / 2 ** 20).toFixed(0)} MiB`);
  let peak = rssBefore;
  const report = await runFuzz(node, {
    count,
    seed,
    concurrency: Number(values.concurrency),
    floodSize: Number(values['flood-size']),
    progress: (done) => {
      if (!node.exit) peak = Math.max(peak, node.rssBytes());
      if (done % 10_000 === 0) console.log(`  ${done} cases, ${((Date.now() - started) / 1000).toFixed(0)} s, RSS ${(node.rssBytes() / 2 ** 20).toFixed(0)} MiB`);
    },
  });
  console.log(formatReport(report));
  console.log(`\n${report.cases} cases in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (report.acceptedMethods.size) console.log(`hostile requests answered with a result, by method: ${[...report.acceptedMethods].sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${n}`).join(', ')}`);
  if (report.crashed) {
    failed = true;
    console.log(`CRASH: the node exited (${JSON.stringify(report.crashed)}); stderr:\n${node.stderr().slice(-3000)}`);
  } else {
    const rssAfter = node.rssBytes();
    console.log(`RSS before ${(rssBefore / 2 ** 20).toFixed(0)} MiB, peak ${(peak / 2 ** 20).toFixed(0)} MiB, after ${(rssAfter / 2 ** 20).toFixed(0)} MiB`);
    try {
      const s = await checkServing(node);
      console.log(`still serving: slot advanced past ${s.slot}, transfer ${s.signature} confirmed, eth_blockNumber ${s.evmBlock}, PubSub notifies`);
    } catch (e) {
      failed = true;
      console.log(`NOT SERVING: ${(e as Error).message}`);
    }
  }
  console.log(`internal errors logged by the node: ${report.internalErrorsLogged}`);
  console.log(`rules broken: ${report.violationCount}`);
  for (const v of report.violations) console.log(`  ${v.target} ${v.kind}: ${v.what}: ${v.detail}`);
  if (report.violationCount || report.internalErrorsLogged) failed = true;
} finally {
  await node.stop();
}
process.exitCode = failed ? 1 : 0;
