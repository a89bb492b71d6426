/**
 * The value-conservation check of the two spaces: native lamports (the EVM state account included)
 * plus burned fees equal the genesis supply plus the inflation rewards minted, and the wei of all EVM balances equal the EVM state
 * account's lamports beyond its reserve, times 10^9.
 */
import assert from 'node:assert/strict';
import { EVM_STATE_ID, WEI_PER_LAMPORT } from '../../node-core/evm/constants.ts';
import { evmStateReserve } from '../../node-core/evm/genesis.ts';
import type { RunningNode } from '../../node-core/node/start.ts';
import { waitFor } from './node.ts';

export async function checkValueConservation(node: RunningNode): Promise<{ native: number; evmWei: bigint }> {
  // Read when every sealed slot is committed, so the confirmed bank and the supply counters agree.
  await waitFor(async () => {
    await node.chain.flushed();
    return node.chain.confirmedSlot === node.chain.processedSlot - 1;
  }, { what: 'a committed chain' });
  const bank = node.chain.bankAt('confirmed');
  let native = 0;
  for (const [, a] of bank.entries()) native += a.lamports;
  // The counters as this bank sealed them (the working bank may already hold an epoch's rewards).
  const { capitalization: total, burnedTotal: burned, mintedTotal: minted } = bank;
  const genesis = node.genesis.accounts.reduce((n, a) => n + a.lamports, 0);
  assert.equal(native, total, 'native lamports equal the supply');
  assert.equal(total + burned, genesis + minted, 'supply plus burned fees equal the genesis supply plus inflation');
  let evmWei = 0n;
  for (const [, a] of node.evm.stateAt('confirmed').accounts()) evmWei += a.balance;
  const backing = BigInt(bank.get(EVM_STATE_ID)!.lamports - evmStateReserve(node.genesis.rent));
  assert.equal(evmWei, backing * WEI_PER_LAMPORT, 'EVM balances equal the EVM state account\'s backing');
  return { native, evmWei };
}
