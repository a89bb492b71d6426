/** common/bounded-map.ts: a cache Map that lets its oldest entries go, by count or by weight, in constant time. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BoundedMap } from '../../node-core/common/bounded-map.ts';

describe('BoundedMap', () => {
  test('holds at most its limit, the oldest insertion leaving first', () => {
    const m = new BoundedMap<number, string>(3);
    for (let i = 0; i < 5; i++) m.set(i, `v${i}`);
    assert.deepEqual([...m.keys()], [2, 3, 4]);
    assert.equal(m.size, 3);
    assert.equal(m.get(1), undefined);
    assert.equal(m.get(4), 'v4');
  });

  test('replacing a value keeps the entry count and does not evict', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1).set('b', 2).set('a', 3);
    assert.deepEqual([...m.keys()], ['a', 'b']);
    assert.equal(m.get('a'), 3);
  });

  test('deleted keys are not counted, and a key set again after a delete is new', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1).set('b', 2);
    assert.equal(m.delete('a'), true);
    assert.equal(m.delete('a'), false);
    m.set('c', 3);
    assert.deepEqual([...m.keys()], ['b', 'c']);
    m.set('a', 4);
    assert.deepEqual([...m.keys()], ['c', 'a']);
  });

  test('by weight: the oldest leave until the sum fits, never the entry just set', () => {
    const m = new BoundedMap<string, Uint8Array>(10, (v) => v.length);
    m.set('a', new Uint8Array(4)).set('b', new Uint8Array(4));
    assert.equal(m.weight, 8);
    m.set('c', new Uint8Array(6));
    assert.deepEqual([...m.keys()], ['b', 'c']);
    assert.equal(m.weight, 10);
    m.set('big', new Uint8Array(50));
    assert.deepEqual([...m.keys()], ['big'], 'an entry over the limit alone stays until the next one');
    m.set('d', new Uint8Array(1));
    assert.deepEqual([...m.keys()], ['d']);
    assert.equal(m.weight, 1);
  });

  test('a long run of inserts, deletes and replacements keeps the count and the order of the Map', () => {
    const m = new BoundedMap<number, number>(1000);
    const model = new Map<number, number>();
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 3000;
    for (let i = 0; i < 200_000; i++) {
      const k = rand();
      if (i % 5 === 0) {
        assert.equal(m.delete(k), model.delete(k));
      } else {
        if (!model.has(k) && model.size >= 1000) model.delete(model.keys().next().value!);
        model.set(k, i);
        m.set(k, i);
      }
      assert.equal(m.size, model.size);
    }
    assert.deepEqual([...m.keys()], [...model.keys()]);
    for (const k of m.keys()) assert.equal(m.get(k), model.get(k));
  });

  test('a replacement that goes over the limit lets the others go, oldest first', () => {
    const m = new BoundedMap<string, Uint8Array>(10, (v) => v.length);
    m.set('a', new Uint8Array(3)).set('b', new Uint8Array(3)).set('c', new Uint8Array(3));
    m.set('a', new Uint8Array(6));
    assert.deepEqual([...m.keys()].sort(), ['a', 'c']);
    assert.equal(m.weight, 9);
  });

  test('clear empties it', () => {
    const m = new BoundedMap<number, number>(2, () => 5);
    m.set(1, 1);
    m.clear();
    assert.equal(m.size, 0);
    assert.equal(m.weight, 0);
    m.set(2, 2);
    assert.deepEqual([...m.keys()], [2]);
  });
});
