/**
 * Bank reads through BankForks' index of unrooted changes answer exactly as reads that walk every
 * bank down to the rooted map: through writes, closings, roots and a bank that left the forks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { Bank, type AccountsDb } from '../../node-core/ledger/bank.ts';
import { BankForks } from '../../node-core/ledger/bank-forks.ts';
import { BlockhashQueue } from '../../node-core/ledger/blockhash-queue.ts';
import { BlockSlotRing } from '../../node-core/ledger/slot-history.ts';
import type { Account } from '../../node-core/runtime/account.ts';
import { testSysvars } from '../helpers/program-context.ts';

const account = (lamports: number): Account => ({ lamports, data: new Uint8Array(0), owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: 0 });
const ADDRESSES = Array.from({ length: 12 }, (_, i) => `Addr${i}`);

/** A bank over the same parent and rooted map that walks every bank (no index). */
function walkingView(bank: Bank, rooted: AccountsDb): Bank {
  const view = new Bank(bank.slot, bank.parentSlot, bank, rooted, bank.sysvars);
  return view;
}

test('reads with the unrooted index equal reads that walk the banks, through writes, closings and roots', () => {
  const rooted: AccountsDb = new Map(ADDRESSES.slice(0, 6).map((a, i) => [a, account(1000 + i)]));
  const forks = new BankForks(rooted, new BlockhashQueue(), new BlockSlotRing());
  const sysvars = testSysvars();
  const root = new Bank(0, 0, null, rooted, sysvars, forks.unrooted);
  forks.openAt(root);
  let working = root;
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const banks: Bank[] = [root];
  for (let slot = 1; slot <= 40; slot++) {
    const bank = new Bank(slot, working.slot, working, rooted, sysvars, forks.unrooted);
    bank.blockHeight = slot;
    forks.insertWorking(bank);
    for (let w = 0; w < 4; w++) bank.set(ADDRESSES[random(ADDRESSES.length)]!, account(random(3) === 0 ? 0 : 1 + random(5000)));
    banks.push(bank);
    working = bank;
    // Root three blocks behind, as the chain does with a root depth of 3.
    forks.confirm(bank);
    forks.rootUpTo(bank.slot, bank.blockHeight - 3);
    for (const b of [forks.working, forks.confirmed, forks.root]) {
      for (const a of ADDRESSES) assert.deepEqual(b.get(a), walkingView(b, rooted).get(a), `slot ${b.slot}, ${a}`);
    }
  }
  // Nothing is counted twice or left behind: the index holds exactly the unrooted banks' addresses.
  const unrooted = new Set<string>();
  for (const b of banks) if (b.slot > forks.root.slot) for (const k of b.changes.keys()) unrooted.add(k);
  assert.equal(forks.unrooted.size, unrooted.size);
  for (const a of ADDRESSES) assert.equal(forks.unrooted.has(a), unrooted.has(a), a);
  // A bank rooted over (it left the forks) reads as before the index: its own changes, then the rooted map.
  const old = banks[5]!;
  for (const a of ADDRESSES) {
    const own = old.changes.get(a);
    assert.deepEqual(old.get(a), own !== undefined ? own : (rooted.get(a) ?? null), a);
  }
});
