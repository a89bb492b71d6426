/**
 * The struct logger's entries as text: each entry is geth's object in geth's member order, written as
 * JSON.stringify would write it, whatever pieces the writer made it of (an entry with a refund or without
 * a stack takes another path than the common one).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { joinPieces } from '../../node-core/common/json-text.ts';
import { EvmChanges } from '../../node-core/evm/state.ts';
import { StructLogger, type StructLoggerConfig } from '../../node-core/evm/trace/struct-logger.ts';
import { machineWithContract } from '../helpers/evm-machine.ts';

/** PUSH1 0 PUSH1 0 SSTORE (slot 0 from 1 to 0: a refund, shown from the SSTORE's own entry on as geth does), PUSH1 7 PUSH1 1 ADD POP STOP. */
const CODE = Uint8Array.of(0x60, 0x00, 0x60, 0x00, 0x55, 0x60, 0x07, 0x60, 0x01, 0x01, 0x50, 0x00);
const KEY = new Uint8Array(32).fill(9);
const CONTRACT = '0x' + '22'.repeat(20);
const SLOT0 = `0x${'0'.repeat(64)}`;

async function trace(config: StructLoggerConfig): Promise<string> {
  const { machine, base, env, transaction } = await machineWithContract(CODE, KEY, CONTRACT);
  base.storageByAddress.set(CONTRACT, new Map([[SLOT0, Uint8Array.of(1)]]));
  const logger = new StructLogger(config);
  const run = await machine.runListened({ tx: await transaction(), env, below: base, changes: new EvmChanges(), canCredit: () => false }, logger.listeners);
  return joinPieces(logger.result(run).pieces);
}

interface Entry {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  refund: number;
  stack?: string[];
  storage?: Record<string, string>;
}

/** The text geth's shape gives for these values, member by member in geth's order. */
function gethText(r: { gas: number; failed: boolean; returnValue: string; structLogs: Entry[] }): string {
  const structLogs = r.structLogs.map((e) => {
    const o: Record<string, unknown> = { pc: e.pc, op: e.op, gas: e.gas, gasCost: e.gasCost, depth: e.depth, refund: e.refund };
    if (e.stack) o.stack = e.stack;
    if (e.storage) o.storage = e.storage;
    return o;
  });
  return JSON.stringify({ gas: r.gas, failed: r.failed, returnValue: r.returnValue, structLogs });
}

test('entries before and after a refund, with and without the stack, are geth\'s objects as JSON.stringify writes them', async () => {
  for (const disableStack of [false, true]) {
    const text = await trace({ disableStack });
    const r = JSON.parse(text) as { gas: number; failed: boolean; returnValue: string; structLogs: Entry[] };
    assert.equal(text, gethText(r));
    assert.deepEqual(
      r.structLogs.map((e) => [e.pc, e.op, e.refund, e.depth]),
      [[0, 'PUSH1', 0, 1], [2, 'PUSH1', 0, 1], [4, 'SSTORE', 4800, 1], [5, 'PUSH1', 4800, 1], [7, 'PUSH1', 4800, 1], [9, 'ADD', 4800, 1], [10, 'POP', 4800, 1], [11, 'STOP', 4800, 1]],
    );
    assert.deepEqual(r.structLogs.map((e) => e.gasCost), [3, 3, 5000, 3, 3, 3, 2, 0]);
    for (let i = 1; i < r.structLogs.length; i++) assert.equal(r.structLogs[i]!.gas, r.structLogs[i - 1]!.gas - r.structLogs[i - 1]!.gasCost);
    assert.deepEqual(r.structLogs[2]!.storage, { [SLOT0]: SLOT0 });
    assert.ok(r.structLogs.every((e, i) => (e.storage !== undefined) === (i === 2)));
    if (disableStack) assert.ok(r.structLogs.every((e) => e.stack === undefined));
    else assert.deepEqual(r.structLogs.map((e) => e.stack), [[], ['0x0'], ['0x0', '0x0'], [], ['0x7'], ['0x7', '0x1'], ['0x8'], []]);
  }
});
