import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBlock } from '@ethereumjs/block';
import { createEVM, type InterpreterStep } from '@ethereumjs/evm';
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { createEvmCommon } from '../../node-core/evm/evm-common.ts';
import { installSyncSteps, syncGasHandlerCount } from '../../node-core/evm/sync-steps.ts';

const CALLER = new Address(hexToBytes(`0x${'33'.repeat(20)}`));
const INNER = `0x${'22'.repeat(20)}` as const;
const at = (n: number) => new Address(hexToBytes(`0x${n.toString(16).padStart(40, '0')}`));

/** Code that ends every way a frame can end, each at its own address. */
const CASES: Record<string, string> = {
  'returns 42': '0x602a60005260206000f3',
  'reverts with data': '0x602a60005260206000fd',
  'invalid opcode': '0xfe',
  'out of gas in a loop': '0x5b600056',
  'stack underflow': '0x01',
  'adds, then STOP': '0x600160020100',
  'jumps to a non-JUMPDEST': '0x600356',
  'pushes past the end of the code': '0x6001600260',
  'calls INNER and returns its word': `0x60206000600060006000${'73' + INNER.slice(2)}5af15060206000f3`,
  'hashes, logs and stores (dynamic gas)': '0x602a6000526020600020600055602060002060006000a160005460005260206000f3',
  // Steps that also run in place: memory expansion gas (MLOAD, MSTORE, MSTORE8, RETURN) and handlers @ethereumjs marks async.
  'reads call data and value, stores a byte, loads memory, returns 64 bytes': '0x6000353460ff6041536040513401600052604051602052604052596000f3',
  'loads a slot (an async handler)': '0x6005546000526020 6000f3'.replace(' ', ''),
  'MSTORE on an empty stack': '0x52',
  'BLOCKHASH of an earlier block (a handler that awaits)': '0x60094060005260206000f3',
  'RETURN of a huge memory range (out of gas)': '0x6fffffffffffffffffffffffffffffffff6000f3',
  'MLOAD far out (expansion gas)': '0x6110005160005260206000f3',
};

type Outcome = { returnValue: string; gasUsed: bigint; error: string | undefined; refund: bigint; logs: number; steps: number; opcodes: string };

async function runAll(withStepListener: boolean): Promise<Record<string, Outcome>> {
  const evm = await createEVM({ common: createEvmCommon(5705) });
  await evm.stateManager.putCode(new Address(hexToBytes(INNER)), hexToBytes('0x602a60005260206000f3'));
  const out: Record<string, Outcome> = {};
  let n = 0x1000; // clear of the precompiles
  for (const [name, code] of Object.entries(CASES)) {
    const to = at(n++);
    await evm.stateManager.putCode(to, hexToBytes(code as `0x${string}`));
    const names: string[] = [];
    const onStep = (e: InterpreterStep, done?: () => void) => {
      names.push(e.opcode.name);
      done?.();
    };
    if (withStepListener) evm.events!.on('step', onStep);
    const r = await evm.runCall({ caller: CALLER, to, gasLimit: 100_000n, skipBalance: true, value: 3n, data: hexToBytes('0x0102030405'), block: createBlock({ header: { number: 20n } }, { common: evm.common }) });
    if (withStepListener) evm.events!.off('step', onStep);
    out[name] = {
      returnValue: bytesToHex(r.execResult.returnValue),
      gasUsed: r.execResult.executionGasUsed,
      error: r.execResult.exceptionError?.error,
      refund: r.execResult.gasRefund ?? 0n,
      logs: r.execResult.logs?.length ?? 0,
      steps: names.length,
      opcodes: names.join(','),
    };
  }
  return out;
}

test("with steps run in place, every way a frame ends gives @ethereumjs's own return data, gas, error, refund and logs; step listeners still see every step", async () => {
  const before = await runAll(false);
  const beforeTraced = await runAll(true);
  assert.equal(await installSyncSteps(), true, "this @ethereumjs version's run and runStep are the ones copied");
  assert.equal(syncGasHandlerCount(), 4, "this version's MLOAD, MSTORE, MSTORE8 and RETURN gas handlers are the ones copied");
  const after = await runAll(false);
  const afterTraced = await runAll(true);
  assert.deepEqual(after, before);
  assert.deepEqual(afterTraced, beforeTraced);
  // The cases do end the ways their names say.
  assert.equal(before['returns 42']!.returnValue, `0x${'0'.repeat(62)}2a`);
  assert.equal(before['reverts with data']!.error, 'revert');
  assert.equal(before['invalid opcode']!.error, 'invalid opcode');
  assert.equal(before['out of gas in a loop']!.error, 'out of gas');
  assert.equal(before['stack underflow']!.error, 'stack underflow');
  assert.equal(before['adds, then STOP']!.error, undefined);
  assert.match(before['jumps to a non-JUMPDEST']!.error!, /^invalid JUMP/);
  assert.equal(before['calls INNER and returns its word']!.returnValue, `0x${'0'.repeat(62)}2a`);
  assert.equal(before['hashes, logs and stores (dynamic gas)']!.logs, 1);
  assert.ok(beforeTraced['calls INNER and returns its word']!.steps > 10);
  assert.equal(before['loads a slot (an async handler)']!.error, undefined);
  assert.equal(before['MSTORE on an empty stack']!.error, 'stack underflow');
  assert.equal(before['BLOCKHASH of an earlier block (a handler that awaits)']!.error, undefined);
  assert.equal(before['RETURN of a huge memory range (out of gas)']!.error, 'out of gas');
  assert.equal(before['MLOAD far out (expansion gas)']!.error, undefined);
  assert.equal(before['reads call data and value, stores a byte, loads memory, returns 64 bytes']!.returnValue.length, 2 + 2 * 0x60);
});

test('installs once (a second call answers the first)', async () => {
  assert.equal(await installSyncSteps(), true);
  assert.equal(await installSyncSteps(), true);
});
