import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import type { EVMResult } from '@ethereumjs/evm';
import { keccak256 } from '../../node-core/common/hash.ts';
import { installFrameResultShape } from '../../node-core/evm/frame-result-shape.ts';
import { EvmChanges, newEvmAccount } from '../../node-core/evm/state.ts';
import { machineWithContract } from '../helpers/evm-machine.ts';

const KEY = new Uint8Array(32).fill(9);
const OUTER = `0x${'21'.repeat(20)}` as const;
const INNER = `0x${'22'.repeat(20)}` as const;
/** Returns the word 42. */
const RETURNS_42 = hexToBytes('0x602a60005260206000f3');
/** CALLs INNER, then returns the word INNER wrote into its memory. */
const CALLS_INNER = hexToBytes(`0x60206000600060006000${'73' + INNER.slice(2)}5af15060206000f3`);

/** What runInterpreter's `{ ...runState, ...result, ...env }` gives for a frame that succeeded, read back from its interpreter. */
function spreadOf(runState: Record<string, unknown>): Record<string, unknown> {
  const i = runState.interpreter as { _runState: object; _result: object; _env: object };
  return { ...i._runState, ...i._result, ...i._env };
}

test("every frame's runState has the keys, order and values of @ethereumjs's own spread (the shaped copy only saves time)", async () => {
  const { machine, base, env, transaction } = await machineWithContract(CALLS_INNER, KEY, OUTER);
  assert.equal(await installFrameResultShape(), true, "this @ethereumjs version's interpreter is reached");
  const codeHash = keccak256(RETURNS_42);
  base.accounts.set(INNER, { ...newEvmAccount(0n), codeHash });
  base.codes.set(bytesToHex(codeHash), RETURNS_42);
  const frames: EVMResult[] = [];
  const run = await machine.runListened({ tx: await transaction(), env, below: base, changes: new EvmChanges(), canCredit: () => false }, { afterMessage: (r) => void frames.push(r) });
  assert.equal(run.execResult.exceptionError, undefined);
  assert.equal(BigInt(bytesToHex(run.execResult.returnValue)), 42n);
  assert.equal(frames.length, 2, 'the outer frame and the one it called');
  for (const frame of frames) {
    const runState = frame.execResult.runState as unknown as Record<string, unknown>;
    const expected = spreadOf(runState);
    assert.deepEqual(Object.keys(runState), Object.keys(expected));
    for (const k of Object.keys(expected)) assert.equal(runState[k], expected[k], k);
  }
  // The same for eth_call's message call.
  const call = await machine.call({ caller: new Address(hexToBytes(`0x${'33'.repeat(20)}`)), to: new Address(hexToBytes(OUTER)), data: new Uint8Array(0), value: 0n, gasLimit: 1_000_000n, gasPrice: 0n, env, below: base, canCredit: () => false });
  assert.equal(BigInt(bytesToHex(call.execResult.returnValue)), 42n);
  const runState = call.execResult.runState as unknown as Record<string, unknown>;
  assert.deepEqual(Object.keys(runState), Object.keys(spreadOf(runState)));
});
