import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EVMResult } from '@ethereumjs/evm';
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from '../../node-core/common/hash.ts';
import { installFrameResultShape } from '../../node-core/evm/frame-result-shape.ts';
import { EvmChanges, newEvmAccount, type EvmBaseState } from '../../node-core/evm/state.ts';
import { machineWithContract } from '../helpers/evm-machine.ts';

const KEY = new Uint8Array(32).fill(9);
const OUTER = `0x${'21'.repeat(20)}` as const;
const INNER = `0x${'22'.repeat(20)}` as const;
const REVERTS = `0x${'23'.repeat(20)}` as const;
const CALLER = new Address(hexToBytes(`0x${'33'.repeat(20)}`));
/** Returns the word 42. */
const RETURNS_42 = hexToBytes('0x602a60005260206000f3');
/** REVERT with no data. */
const REVERT = hexToBytes('0x60006000fd');
/** CALLs INNER, then returns the word INNER wrote into its memory. */
const CALLS_INNER = hexToBytes(`0x60206000600060006000${'73' + INNER.slice(2)}5af15060206000f3`);

type Obj = Record<string, unknown>;
interface InterpreterFields {
  _runState: Obj;
  _result: Obj;
  _env: Obj;
}

function deploy(base: EvmBaseState, address: string, code: Uint8Array): void {
  const codeHash = keccak256(code);
  base.accounts.set(address, { ...newEvmAccount(0n), codeHash });
  base.codes.set(bytesToHex(codeHash), code);
}

/** The keys @ethereumjs's runInterpreter gives a frame's answer: `{ ...result, runState, exceptionError, gas, executionGasUsed, gasRefund, stateGasSpilled, returnValue }`. */
const answerKeys = (result: Obj) => Object.keys({ ...result, runState: 0, exceptionError: 0, gas: 0, executionGasUsed: 0, gasRefund: 0, stateGasSpilled: 0, returnValue: 0 });

test("a frame's answer and its runState have the keys, order and values of @ethereumjs's own spreads (the copy only builds them faster)", async () => {
  const { machine, base, env, transaction } = await machineWithContract(CALLS_INNER, KEY, OUTER);
  assert.equal(await installFrameResultShape(), true, "this @ethereumjs version's runInterpreter is the one copied");
  deploy(base, INNER, RETURNS_42);
  deploy(base, REVERTS, REVERT);
  const frames: EVMResult[] = [];
  const run = await machine.runListened({ tx: await transaction(), env, below: base, changes: new EvmChanges(), canCredit: () => false }, { afterMessage: (r) => void frames.push(r) });
  assert.equal(run.execResult.exceptionError, undefined);
  assert.equal(BigInt(bytesToHex(run.execResult.returnValue)), 42n);
  assert.equal(frames.length, 2, 'the outer frame and the one it called');
  for (const frame of frames) {
    const exec = frame.execResult as unknown as Obj;
    const runState = exec.runState as Obj;
    const i = runState.interpreter as InterpreterFields;
    const expected: Obj = { ...i._runState, ...i._result, ...i._env };
    assert.deepEqual(Object.keys(runState), Object.keys(expected));
    for (const k of Object.keys(expected)) assert.equal(runState[k], expected[k], k);
    assert.deepEqual(Object.keys(exec), answerKeys(i._result));
    for (const k of ['logs', 'selfdestruct', 'createdAddresses', 'returnValue'] as const) assert.equal(exec[k], i._result[k], k);
    assert.equal(exec.gas, i._runState.gasLeft);
  }

  // eth_call's message call, and one that reverts (the frame's result is cleared: new logs, selfdestruct and createdAddresses).
  const call = (to: string) => machine.call({ caller: CALLER, to: new Address(hexToBytes(to as `0x${string}`)), data: new Uint8Array(0), value: 0n, gasLimit: 1_000_000n, gasPrice: 0n, env, below: base, canCredit: () => false });
  const ok = await call(OUTER);
  assert.equal(BigInt(bytesToHex(ok.execResult.returnValue)), 42n);
  const okState = ok.execResult.runState as unknown as Obj;
  const okFields = okState.interpreter as InterpreterFields;
  assert.deepEqual(Object.keys(okState), Object.keys({ ...okFields._runState, ...okFields._result, ...okFields._env }));
  const reverted = await call(REVERTS);
  assert.equal(reverted.execResult.exceptionError?.error, 'revert');
  const state = reverted.execResult.runState as unknown as Obj;
  const fields = state.interpreter as InterpreterFields;
  const cleared = { ...fields._result, logs: [], selfdestruct: new Map(), createdAddresses: new Set() };
  assert.deepEqual(Object.keys(state), Object.keys({ ...fields._runState, ...cleared, ...fields._env }));
  assert.deepEqual(Object.keys(reverted.execResult), answerKeys(cleared));
  assert.ok(state.selfdestruct instanceof Map && (state.selfdestruct as Map<unknown, unknown>).size === 0);
  assert.equal(reverted.execResult.executionGasUsed, 6n, 'a revert keeps its unused gas: two PUSH1s used 6');
});
