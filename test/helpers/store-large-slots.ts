/** Large slots for the store's kill tests (store-commit-reporter.ts writes them, lmdb-durable-commit.test.ts checks them). */
import type { Address } from '../../node-core/common/pubkey.ts';
import type { SlotCommit } from '../../node-core/store/store.ts';
import { address, chainMeta, CRASH_ADDRESSES, CRASH_COUNTER, slotCommit, transaction } from './store-fixtures.ts';

/** Transactions per slot: with their signature and address entries, over lmdb-js's 1,000-write batch start. */
export const LARGE_SLOT_TXS = 600;
export const largeSlotKeys = (slot: number, index: number): Address[] => [CRASH_ADDRESSES[index % 5]!, CRASH_ADDRESSES[(slot + index) % 5]!];

/** A slot of LARGE_SLOT_TXS transactions whose counter account and extra record say its slot. */
export function largeSlotCommit(slot: number): SlotCommit {
  const txs = Array.from({ length: LARGE_SLOT_TXS }, (_, i) => transaction(slot, i, largeSlotKeys(slot, i)));
  return slotCommit(slot, txs, {
    meta: chainMeta(slot),
    accounts: [[CRASH_COUNTER, { lamports: slot, data: new Uint8Array(8), owner: address(0), executable: false, rentEpoch: 0 }]],
    extras: [{ table: 'large', key: 0, value: { slot } }],
  });
}
