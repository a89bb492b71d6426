import assert from 'node:assert/strict';
import { test } from 'node:test';
import { joinPieces } from '../../node-core/common/json-text.ts';
import { EvmChanges } from '../../node-core/evm/state.ts';
import { StructLogger, TraceTooLarge } from '../../node-core/evm/trace/struct-logger.ts';
import { machineWithContract } from '../helpers/evm-machine.ts';

/** A contract that loops until its gas is gone: JUMPDEST PUSH1 0 JUMP. */
const LOOP = Uint8Array.of(0x5b, 0x60, 0x00, 0x56);
const KEY = new Uint8Array(32).fill(7);
const CONTRACT = '0x' + '11'.repeat(20);

async function tracedRun(maxBytes?: number) {
  const { machine, base, env, transaction } = await machineWithContract(LOOP, KEY, CONTRACT);
  const logger = new StructLogger({}, maxBytes);
  const run = await machine.runListened({ tx: await transaction(), env, below: base, changes: new EvmChanges(), canCredit: () => false }, logger.listeners);
  return () => logger.result(run);
}

test('a struct-logger trace past its cap is refused with a way to ask for less; under the cap it is whole', async () => {
  const whole = JSON.parse(joinPieces((await tracedRun())().pieces));
  assert.equal(whole.failed, true, 'the loop runs out of gas');
  assert.ok(whole.structLogs.length > 10_000, `${whole.structLogs.length} steps`);
  const bytes = joinPieces((await tracedRun())().pieces).length;
  const capped = await tracedRun(Math.floor(bytes / 4));
  assert.throws(capped, (e: unknown) => e instanceof TraceTooLarge && /^trace larger than \d+ MB: ask for less \(a limit, disableStack/.test(e.message));
  // Exactly at its size it still fits.
  assert.equal(joinPieces((await tracedRun(bytes))().pieces).length, bytes);
});

/** The same loop traced with the logger streaming into a sink that keeps the pieces (and says it is full every `fullEvery` pieces). */
async function streamedRun(maxBytes?: number, fullEvery = 1) {
  const { machine, base, env, transaction } = await machineWithContract(LOOP, KEY, CONTRACT);
  const pieces: Uint8Array[] = [];
  let waits = 0;
  const sink = { write: (p: string | Uint8Array) => (pieces.push(p as Uint8Array), pieces.length % fullEvery !== 0), ready: async () => void waits++ };
  const logger = new StructLogger({}, maxBytes, sink);
  const run = await machine.runListened({ tx: await transaction(), env, below: base, changes: new EvmChanges(), canCredit: () => false }, logger.listeners);
  await logger.end(run);
  return { text: joinPieces(pieces), waits, chunks: pieces.length };
}

test('streamed into a sink, the answer has its entries first and parses equal to the whole one; the run waits whenever the sink is full', async () => {
  const whole = JSON.parse(joinPieces((await tracedRun())().pieces));
  const streamed = await streamedRun();
  assert.ok(streamed.text.startsWith('{"structLogs":[{"pc":0,'), streamed.text.slice(0, 40));
  assert.deepEqual(Object.keys(JSON.parse(streamed.text)), ['structLogs', 'gas', 'failed', 'returnValue']);
  assert.deepEqual(JSON.parse(streamed.text), whole);
  assert.ok(streamed.chunks >= 2, `${streamed.chunks} chunks`);
  assert.equal(streamed.waits, streamed.chunks, 'the sink said full at each chunk');
});

test('streamed past its cap, the run stops there with TraceTooLarge', async () => {
  const bytes = (await streamedRun()).text.length;
  await assert.rejects(streamedRun(Math.floor(bytes / 4)), TraceTooLarge);
});
