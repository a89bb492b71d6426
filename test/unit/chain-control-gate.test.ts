/** The chain-control gate: loopback binds allow, others refuse unless the flag allows; the wrapper checks before params. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CHAIN_CONTROL_REFUSED, ChainControlGate, gated } from '../../node-core/rpc/chain-control-gate.ts';
import { RpcError } from '../../node-core/rpc/errors.ts';

describe('chain-control gate', () => {
  test('loopback binds allow; others only with --allow-chain-control', () => {
    for (const a of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) assert.equal(new ChainControlGate(a).allowed, true, a);
    for (const a of ['0.0.0.0', '::', '192.168.1.5']) {
      assert.equal(new ChainControlGate(a).allowed, false, a);
      assert.equal(new ChainControlGate(a, true).allowed, true, a);
    }
  });

  test('a gated method refuses before it reads its params, keeps its properties, and answers when allowed', () => {
    let calls = 0;
    const m = Object.assign((params: unknown, _ctx: unknown) => {
      calls++;
      return params;
    }, { params: ['schema'] });
    const wrapped = gated('anvil_setBalance', m);
    assert.deepEqual(wrapped.params, ['schema']);
    const refused = (e: unknown) => e instanceof RpcError && e.code === CHAIN_CONTROL_REFUSED && /anvil_setBalance/.test(e.message) && /--allow-chain-control/.test(e.message);
    assert.throws(() => wrapped(['x'], { chainControl: new ChainControlGate('0.0.0.0') }), refused);
    assert.throws(() => wrapped(['x'], {}), (e: unknown) => e instanceof RpcError && e.code === CHAIN_CONTROL_REFUSED);
    assert.equal(calls, 0);
    assert.deepEqual(wrapped(['x'], { chainControl: new ChainControlGate('127.0.0.1') }), ['x']);
    assert.equal(calls, 1);
  });
});
