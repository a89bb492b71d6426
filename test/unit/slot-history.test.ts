import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getSysvarSlotHistoryCodec } from '@solana/sysvars';
import { BlockSlotRing } from '../../node-core/ledger/slot-history.ts';
import { encodeAccount } from '../../node-core/rpc/encoding/account.ts';
import {
  renderSysvar,
  SLOT_HISTORY_MAX_ENTRIES,
  SLOT_HISTORY_SIZE,
  SYSVAR_LAST_RESTART_SLOT_ID,
  SYSVAR_SLOT_HISTORY_ID,
  type Sysvars,
} from '../../node-core/runtime/sysvars.ts';
import { thrownBy } from '../helpers/thrown.ts';

const MAX = SLOT_HISTORY_MAX_ENTRIES;
const decode = (data: Uint8Array) => getSysvarSlotHistoryCodec().decode(data);
/** Agave's SlotHistory::check for a decoded account. */
function check(h: { bits: readonly bigint[]; nextSlot: bigint }, slot: number): 'future' | 'tooOld' | 'found' | 'notFound' {
  const next = Number(h.nextSlot);
  if (slot > next - 1) return 'future';
  if (slot < Math.max(0, next - MAX)) return 'tooOld';
  const i = slot % MAX;
  return (h.bits[Math.floor(i / 64)]! >> BigInt(i % 64)) & 1n ? 'found' : 'notFound';
}

function ringWith(...slots: number[]): BlockSlotRing {
  const ring = new BlockSlotRing();
  for (const s of slots) ring.add(s);
  return ring;
}

describe('SlotHistory sysvar', () => {
  it('has the size and layout @solana/sysvars decodes (131,097 bytes)', () => {
    const data = ringWith(0, 2, 3, 7).sysvarDataAt(7);
    assert.equal(data.length, SLOT_HISTORY_SIZE);
    assert.equal(SLOT_HISTORY_SIZE, 131_097);
    const h = decode(data);
    assert.equal(h.nextSlot, 8n);
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 7, 8].map((s) => check(h, s)), ['found', 'notFound', 'found', 'found', 'notFound', 'notFound', 'notFound', 'found', 'future']);
  });

  it('shows an older bank the chain as that bank saw it', () => {
    const ring = ringWith(0, 1, 5, 9);
    const h = decode(ring.sysvarDataAt(5));
    assert.equal(h.nextSlot, 6n);
    assert.equal(check(h, 5), 'found');
    assert.equal(h.bits[0], 0b100011n, 'slots 0, 1 and 5; not 9');
  });

  it('wraps after 2^20 slots as Agave does: old slots too old, the window kept', () => {
    const ring = ringWith(0, 2, 20, MAX, MAX + 3);
    const h = decode(ring.sysvarDataAt(MAX + 3));
    assert.equal(check(h, 0), 'tooOld');
    assert.equal(check(h, 3), 'tooOld');
    assert.equal(check(h, 4), 'notFound');
    for (const s of [20, MAX, MAX + 3]) assert.equal(check(h, s), 'found', `slot ${s}`);
    for (const s of [21, MAX - 1, MAX + 1, MAX + 2]) assert.equal(check(h, s), 'notFound', `slot ${s}`);
    // A bank one wrap behind still sees slot 2, whose bit the newer slots share in the 2^20 view.
    const older = decode(ring.sysvarDataAt(MAX));
    assert.equal(check(older, 2), 'found');
    assert.equal(check(older, 20), 'found');
  });

  it('a jump of more than the ring clears it', () => {
    const ring = ringWith(0, 5, 5 + 4 * MAX);
    const h = decode(ring.sysvarDataAt(5 + 4 * MAX));
    assert.equal(h.bits.filter((b) => b !== 0n).length, 1);
    assert.equal(check(h, 5 + 4 * MAX), 'found');
  });

  it('refuses slots out of order and banks outside the window', () => {
    const ring = ringWith(0, 10);
    assert.match(thrownBy(() => ring.add(9), RangeError).message, /slot 9 added after slot 10/);
    assert.match(thrownBy(() => ring.sysvarDataAt(11), RangeError).message, /outside the slot history/);
    ring.add(MAX + 20);
    assert.match(thrownBy(() => ring.sysvarDataAt(10), RangeError).message, /outside the slot history/);
  });

  it('jsonParsed: Agave\'s UiSlotHistory, one character per slot', () => {
    const ring = ringWith(0, 1, 3);
    const account = renderSysvar(SYSVAR_SLOT_HISTORY_ID, sysvarsWith(() => ring.sysvarDataAt(3)))!;
    assert.equal(account.data.length, SLOT_HISTORY_SIZE);
    assert.equal(account.lamports, (SLOT_HISTORY_SIZE + 128) * 3480 * 2, 'rent-exempt');
    const ui = encodeAccount(SYSVAR_SLOT_HISTORY_ID, account, { encoding: 'jsonParsed' });
    const data = ui.data as { program: string; parsed: { type: string; info: { nextSlot: number; bits: string } }; space: number };
    assert.equal(data.program, 'sysvar');
    assert.equal(data.space, SLOT_HISTORY_SIZE);
    assert.equal(data.parsed.type, 'slotHistory');
    assert.deepEqual(Object.keys(data.parsed.info), ['nextSlot', 'bits']);
    assert.equal(data.parsed.info.nextSlot, 4);
    assert.equal(data.parsed.info.bits.length, MAX);
    assert.equal(data.parsed.info.bits.slice(0, 6), '110100');
    assert.equal(data.parsed.info.bits.lastIndexOf('1'), 3);
    // A bank that does not serve it (no renderer) has no such account.
    assert.equal(renderSysvar(SYSVAR_SLOT_HISTORY_ID, sysvarsWith(undefined)), null);
  });

  it('the LastRestartSlot sysvar says 0: this chain has no hard forks', () => {
    const account = renderSysvar(SYSVAR_LAST_RESTART_SLOT_ID, sysvarsWith(undefined))!;
    assert.deepEqual([...account.data], [0, 0, 0, 0, 0, 0, 0, 0]);
    const ui = encodeAccount(SYSVAR_LAST_RESTART_SLOT_ID, account, { encoding: 'jsonParsed' });
    assert.deepEqual(ui.data, { program: 'sysvar', parsed: { type: 'lastRestartSlot', info: { lastRestartSlot: 0 } }, space: 8 });
  });
});

function sysvarsWith(slotHistory: Sysvars['slotHistory']): Sysvars {
  return {
    clock: { slot: 3, epochStartTimestamp: 0, epoch: 0, leaderScheduleEpoch: 1, unixTimestamp: 0 },
    rent: { lamportsPerByteYear: 3480, exemptionThreshold: 2, burnPercent: 50 },
    epochSchedule: { slotsPerEpoch: 432000, leaderScheduleSlotOffset: 432000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
    recentBlockhashes: [],
    slotHashes: [],
    lamportsPerSignature: 5000,
    slotHistory,
  };
}
