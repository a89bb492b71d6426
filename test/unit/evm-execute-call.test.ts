import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEVM, Message } from '@ethereumjs/evm';
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { createEvmCommon } from '../../node-core/evm/evm-common.ts';
import { frameMessage, installExecuteCall, MESSAGE_KEYS, messageShape } from '../../node-core/evm/execute-call.ts';

const CALLER = new Address(hexToBytes(`0x${'33'.repeat(20)}`));
const INNER = `0x${'22'.repeat(20)}` as const;
const at = (n: number) => new Address(hexToBytes(`0x${n.toString(16).padStart(40, '0')}`));
const IDENTITY = at(4);

/** Code at its own address for each way a CALL frame can go (value and depth per case below). */
const CASES: Record<string, { code?: string; to?: Address; value?: bigint }> = {
  'returns 42': { code: '0x602a60005260206000f3' },
  'reverts with data': { code: '0x602a60005260206000fd' },
  'out of gas in a loop': { code: '0x5b600056' },
  'calls INNER and returns its word': { code: `0x60206000600060006000${'73' + INNER.slice(2)}5af15060206000f3` },
  'delegatecalls INNER and returns its word': { code: `0x6020600060006000${'73' + INNER.slice(2)}5af45060206000f3` },
  'stores, logs and returns (value sent)': { code: '0x602a6000526020600020600055602060002060006000a160005460005260206000f3', value: 7n },
  'an account without code (value sent)': { value: 5n },
  'more value than the caller has': { code: '0x602a60005260206000f3', value: 10n ** 30n },
  'the identity precompile': { to: IDENTITY },
};

const show = (v: unknown): unknown =>
  v instanceof Uint8Array ? bytesToHex(v) : v instanceof Address ? v.toString() : v instanceof Map || v instanceof Set ? `${v.constructor.name}(${v.size})` : typeof v === 'function' ? 'function' : v;

async function runAll(): Promise<Record<string, unknown>> {
  const evm = await createEVM({ common: createEvmCommon(5705) });
  await evm.stateManager.putCode(new Address(hexToBytes(INNER)), hexToBytes('0x602a60005260206000f3'));
  await evm.stateManager.modifyAccountFields(CALLER, { balance: 10n ** 18n });
  // What runInterpreter is handed for each frame: its keys in order and their values.
  const handed: unknown[] = [];
  type RunInterpreter = (message: Message, opts: object) => Promise<unknown>;
  const frames = evm as unknown as { runInterpreter: RunInterpreter };
  const runInterpreter = frames.runInterpreter;
  frames.runInterpreter = function (this: typeof evm, message, opts) {
    handed.push(Object.entries(message).map(([k, v]) => [k, show(v)]));
    return runInterpreter.call(this, message, opts);
  };
  // Whether frameMessage builds each frame's message as its literal (1 or 2) or spreads it (0), seen once _loadCode has run.
  const shapes: number[] = [];
  const loadCode = (evm as unknown as { _loadCode(m: Message): Promise<void> })._loadCode;
  (evm as unknown as { _loadCode(m: Message): Promise<void> })._loadCode = async function (this: typeof evm, message: Message) {
    await loadCode.call(this, message);
    shapes.push(messageShape(message as never));
  };
  const out: Record<string, unknown> = {};
  let n = 0x1000; // clear of the precompiles
  for (const [name, c] of Object.entries(CASES)) {
    handed.length = 0;
    shapes.length = 0;
    const to = c.to ?? at(n++);
    if (c.code) await evm.stateManager.putCode(to, hexToBytes(c.code as `0x${string}`));
    const r = await evm.runCall({ caller: CALLER, to, gasLimit: 100_000n, value: c.value ?? 0n, data: hexToBytes('0x0102') });
    const e = r.execResult;
    out[name] = {
      returnValue: bytesToHex(e.returnValue),
      gasUsed: e.executionGasUsed,
      error: e.exceptionError?.error,
      refund: e.gasRefund ?? 0n,
      logs: e.logs?.length ?? 0,
      keys: Object.keys(e),
      balance: (await evm.stateManager.getAccount(to))?.balance,
      handed: [...handed],
      shapes: [...shapes],
    };
  }
  return out;
}

test("with _executeCall's copy installed, every kind of CALL frame gives @ethereumjs's own results, and runInterpreter is handed the same object", async () => {
  const before = await runAll();
  assert.equal(await installExecuteCall(), true, "this @ethereumjs version's _executeCall is the one copied");
  const after = await runAll();
  assert.deepEqual(after, before);
  // The cases do go the ways their names say.
  const b = before as Record<string, { returnValue: string; error?: string; handed: unknown[]; balance?: bigint; shapes: number[] }>;
  // Every frame here is built as the literal: with _loadCode's key where it loaded code, without it for the precompile.
  for (const [name, o] of Object.entries(b)) for (const shape of o.shapes) assert.ok(shape === (name === 'the identity precompile' ? 1 : 2), name);
  assert.deepEqual(b['calls INNER and returns its word']!.shapes, [2, 2]);
  assert.equal(b['returns 42']!.returnValue, `0x${'0'.repeat(62)}2a`);
  assert.equal(b['reverts with data']!.error, 'revert');
  assert.equal(b['out of gas in a loop']!.error, 'out of gas');
  assert.equal(b['calls INNER and returns its word']!.handed.length, 2);
  assert.equal(b['delegatecalls INNER and returns its word']!.returnValue, `0x${'0'.repeat(62)}2a`);
  assert.equal(b['an account without code (value sent)']!.handed.length, 0);
  assert.equal(b['an account without code (value sent)']!.balance, 5n);
  assert.match(b['more value than the caller has']!.error!, /insufficient balance/);
  assert.equal(b['the identity precompile']!.returnValue, '0x0102');
});

test("frameMessage builds { ...{ codeAddress }, ...message, gasLimit }: the same keys in the same order with the same values, also for a message with other keys", () => {
  const message = new Message({ caller: CALLER, to: at(0x1000), gasLimit: 100n, value: 3n, data: hexToBytes('0x01'), depth: 1, selfdestruct: new Map(), createdAddresses: new Set() });
  assert.deepEqual(Object.keys(message), MESSAGE_KEYS);
  const spread = (m: Message) => ({ ...{ codeAddress: m.codeAddress }, ...m, gasLimit: 99n });
  const check = (m: Message) => {
    const built = frameMessage(m as never, 99n);
    const expected = spread(m) as Record<string, unknown>;
    assert.deepEqual(Object.keys(built), Object.keys(expected));
    for (const k of Object.keys(expected)) assert.equal(built[k], expected[k], k);
    assert.equal(Object.getPrototypeOf(built), Object.prototype);
  };
  check(message);
  assert.equal(messageShape(message as never), 1);
  (message as unknown as { chargeCodeAccesses: boolean }).chargeCodeAccesses = true;
  check(message);
  assert.equal(messageShape(message as never), 2);
  assert.equal(frameMessage(message as never, 99n).chargeCodeAccesses, true);
  (message as unknown as { other: number }).other = 1;
  check(message);
  assert.equal(messageShape(message as never), 0, 'any other key: spread, as @ethereumjs does');
});

test('installs once (a second call answers the first)', async () => {
  assert.equal(await installExecuteCall(), true);
  assert.equal(await installExecuteCall(), true);
});
