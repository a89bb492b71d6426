/**
 * The BPF Upgradeable Loader's account layouts against bytes Agave writes (bincode of
 * UpgradeableLoaderState) and the programdata address @solana/kit derives.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getProgramDerivedAddress, getAddressEncoder, address } from '@solana/kit';
import {
  BPF_LOADER_UPGRADEABLE_ID,
  decodeUpgradeableState,
  encodeUpgradeableState,
  programDataAddress,
  programDataBytes,
  BUFFER_METADATA_SIZE,
  PROGRAM_SIZE,
  PROGRAMDATA_METADATA_SIZE,
} from '../../node-core/runtime/programs/bpf-loader/upgradeable-state.ts';
import { DecodeError } from '../../node-core/common/bytes.ts';

const KEY = 'Vote111111111111111111111111111111111111111';
const keyBytes = getAddressEncoder().encode(address(KEY));

describe('upgradeable loader state', () => {
  it('writes each state as bincode: u32 tag, then its fields', () => {
    assert.deepEqual([...encodeUpgradeableState({ kind: 'uninitialized' })], [0, 0, 0, 0]);
    assert.deepEqual([...encodeUpgradeableState({ kind: 'buffer', authority: KEY })], [1, 0, 0, 0, 1, ...keyBytes]);
    assert.equal(encodeUpgradeableState({ kind: 'buffer', authority: KEY }).length, BUFFER_METADATA_SIZE);
    assert.deepEqual([...encodeUpgradeableState({ kind: 'program', programData: KEY })], [2, 0, 0, 0, ...keyBytes]);
    assert.equal(encodeUpgradeableState({ kind: 'program', programData: KEY }).length, PROGRAM_SIZE);
    const pd = encodeUpgradeableState({ kind: 'programData', slot: 258, authority: KEY });
    assert.deepEqual([...pd], [3, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0, 1, ...keyBytes]);
    assert.equal(pd.length, PROGRAMDATA_METADATA_SIZE);
    // None is the Option tag alone, as bincode writes it.
    assert.deepEqual([...encodeUpgradeableState({ kind: 'programData', slot: 1, authority: null })], [3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('reads back what it writes, with the ELF after the metadata', () => {
    for (const state of [
      { kind: 'uninitialized' },
      { kind: 'buffer', authority: null },
      { kind: 'buffer', authority: KEY },
      { kind: 'program', programData: KEY },
      { kind: 'programData', slot: 123_456, authority: KEY },
      { kind: 'programData', slot: 7, authority: null },
    ] as const) {
      assert.deepEqual(decodeUpgradeableState(encodeUpgradeableState(state)), state);
    }
    const bytes = programDataBytes(9, KEY, new Uint8Array([0x7f, 0x45, 0x4c, 0x46]));
    assert.equal(bytes.length, PROGRAMDATA_METADATA_SIZE + 4);
    assert.deepEqual([...bytes.subarray(PROGRAMDATA_METADATA_SIZE)], [0x7f, 0x45, 0x4c, 0x46]);
    assert.deepEqual(decodeUpgradeableState(bytes), { kind: 'programData', slot: 9, authority: KEY });
  });

  it('refuses an unknown tag, a bad Option tag and short data', () => {
    assert.throws(() => decodeUpgradeableState(new Uint8Array([4, 0, 0, 0])), DecodeError);
    assert.throws(() => decodeUpgradeableState(new Uint8Array([1, 0, 0, 0, 2])), DecodeError);
    assert.throws(() => decodeUpgradeableState(new Uint8Array([2, 0, 0, 0, 1, 2])), DecodeError);
    assert.throws(() => decodeUpgradeableState(new Uint8Array([3, 0])), DecodeError);
  });

  it('derives the programdata address as the PDA of [program id] under the loader', async () => {
    const program = 'noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV';
    const [expected] = await getProgramDerivedAddress({ programAddress: address(BPF_LOADER_UPGRADEABLE_ID), seeds: [getAddressEncoder().encode(address(program))] });
    assert.equal(programDataAddress(program), expected);
  });
});
