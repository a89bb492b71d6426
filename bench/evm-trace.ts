/**
 * bench/evm-trace: how long debug_traceTransaction takes for a transaction of about 1,000,000 gas
 * (TraceMe.burn: a keccak chain), on the node (`isthmus start`, replaying from stored state) and on
 * Anvil (started by this script with --steps-tracing, which keeps its traces from execution) in the
 * same run: callTracer, the default struct logger, and the struct logger without the stack. Median
 * of N requests each, one at a time, each timed until the last byte of its answer has arrived
 * (node:http, bytes kept as they come: the client's decoding of a 70 MB text is not the server's answer).
 *
 *   node --import tsx bench/evm-trace.ts [--runs N]     (npm run bench:evm-trace -- --runs N)
 */
import { parseArgs } from 'node:util';
import { Interface, JsonRpcProvider, Wallet } from 'ethers';
import { deriveEvmKeys } from '../node-core/keys/evm-keys.ts';
import { compileFixture, startAnvil } from '../test/helpers/evm.ts';
import { headline } from './lib/headline.ts';
import { postForBytes, rpcCall } from './lib/http-load.ts';
import { startNodeProcess } from './lib/node-process.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const RUNS = Number(values.runs);
const WORDS = 'test test test test test test test test test test test junk';
const TARGET_GAS = 1_000_000n;
const traceMe = compileFixture('TraceMe.sol', 'TraceMe');
const iface = new Interface(traceMe.abi as never);

const TRACERS: Array<[string, object]> = [
  ['callTracer', { tracer: 'callTracer' }],
  ['struct logger', {}],
  ['struct logger, disableStack', { disableStack: true }],
];

type Figures = Record<string, { ms: number; bytes: number }>;

/** `rounds`: burn's argument, found on the first node and reused on the second so both trace the same work. */
async function measure(name: string, url: string, given?: number): Promise<{ gasUsed: bigint; rounds: number; figures: Figures }> {
  const provider = new JsonRpcProvider(url, undefined, { pollingInterval: 50, cacheTimeout: -1 });
  try {
    const alice = new Wallet(Buffer.from(deriveEvmKeys(WORDS, 1)[0]!.privateKey).toString('hex'), provider);
    const deployed = await (await alice.sendTransaction({ data: traceMe.bytecode, gasLimit: 2_000_000n })).wait();
    const at = deployed!.contractAddress!;
    // Rounds for ~1M gas: the per-round cost from two estimates.
    const gasOf = async (rounds: number) => BigInt(await rpcCall(url, 'eth_estimateGas', [{ from: alice.address, to: at, data: iface.encodeFunctionData('burn', [rounds]) }]));
    const rounds = given ?? (await roundsFor(gasOf));
    const sent = await alice.sendTransaction({ to: at, data: iface.encodeFunctionData('burn', [rounds]), gasLimit: 1_200_000n });
    const receipt = (await sent.wait())!;
    const figures = {} as Figures;
    for (const [label, cfg] of TRACERS) {
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < RUNS; i++) {
        const start = performance.now();
        const answer = await postForBytes(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_traceTransaction', params: [sent.hash, cfg] }));
        times.push(performance.now() - start);
        if (!answer.includes('"result"')) throw new Error(`${name} ${label}: ${answer.subarray(0, 300).toString()}`);
        bytes = answer.length;
      }
      times.sort((a, b) => a - b);
      figures[label] = { ms: times[Math.floor(times.length / 2)]!, bytes };
      console.log(`  ${name}: ${label}: median ${figures[label].ms.toFixed(0)} ms of ${RUNS} (min ${times[0]!.toFixed(0)}, max ${times[times.length - 1]!.toFixed(0)}), ${(bytes / 1e6).toFixed(1)} MB`);
    }
    console.log(`  ${name}: burn(${rounds}) used ${receipt.gasUsed} gas`);
    return { gasUsed: receipt.gasUsed, rounds, figures };
  } finally {
    provider.destroy();
  }
}

async function roundsFor(gasOf: (rounds: number) => Promise<bigint>): Promise<number> {
  const [g100, g200] = [await gasOf(100), await gasOf(200)];
  const perRound = (g200 - g100) / 100n;
  let rounds = Number((TARGET_GAS - (g100 - 100n * perRound)) / perRound);
  // Memory's cost grows faster than the rounds: step down until the estimate is within the target.
  while (rounds > 1 && (await gasOf(rounds)) > TARGET_GAS) rounds = Math.floor(rounds * 0.99);
  return rounds;
}

console.log(`evm-trace: debug_traceTransaction of a ~${TARGET_GAS} gas transaction, ${RUNS} requests per tracer`);
const node = await startNodeProcess(['--mnemonic', WORDS]);
let ours;
try {
  ours = await measure('isthmus', node.evmRpcUrl);
} finally {
  await node.stop();
}
const anvil = await startAnvil(['--mnemonic', WORDS, '--steps-tracing', '--hardfork', 'osaka']);
let theirs = null;
if (!anvil) console.log('  anvil: not available on this platform (npm ships it for linux-x64)');
else {
  try {
    theirs = await measure('anvil', anvil.url, ours.rounds);
  } finally {
    anvil.stop();
  }
}
console.log('');
for (const [label] of TRACERS) {
  const a = ours.figures[label]!;
  const b = theirs?.figures[label];
  console.log(`${label.padEnd(30)} ${a.ms.toFixed(0).padStart(6)} ms = ${b ? `${(a.ms / b.ms).toFixed(2)}x Anvil's time (${b.ms.toFixed(0)} ms)` : 'no Anvil here'}; bar < 1000 ms for ${ours.gasUsed} gas`);
  headline({ bench: 'evm-trace', figure: `debug_traceTransaction ${label}, ${ours.gasUsed} gas`, value: a.ms, unit: 'ms', ...(b ? { peer: { name: 'Anvil', value: b.ms } } : {}), goal: '< 1000 ms' });
}
