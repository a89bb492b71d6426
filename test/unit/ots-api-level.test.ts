/**
 * ots_getApiLevel announces level 8 only when the node serves every method of level 8: the level is
 * computed from the method table, so it flips when the tracing methods land in ethMethods.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ethMethods } from '../../node-core/rpc/eth/methods.ts';
import { OTS_LEVEL_8_METHODS, otsApiLevel } from '../../node-core/rpc/eth/ots.ts';

describe('ots_getApiLevel', () => {
  test('8 with every method of level 8, 0 when any one is missing', () => {
    assert.equal(otsApiLevel(OTS_LEVEL_8_METHODS), 8);
    assert.equal(otsApiLevel([...OTS_LEVEL_8_METHODS, 'eth_chainId']), 8);
    for (const missing of OTS_LEVEL_8_METHODS) assert.equal(otsApiLevel(OTS_LEVEL_8_METHODS.filter((m) => m !== missing)), 0, missing);
  });

  test('the node serves every method of level 8 and announces 8', () => {
    const served = Object.keys(ethMethods);
    assert.deepEqual(OTS_LEVEL_8_METHODS.filter((m) => !served.includes(m)), []);
    assert.equal((ethMethods.ots_getApiLevel as (p: unknown, ctx: never) => unknown)([], undefined as never), 8);
  });

  test('it takes no params', () => {
    assert.throws(() => (ethMethods.ots_getApiLevel as (p: unknown, ctx: never) => unknown)([1], undefined as never), /too many|params/i);
  });
});
