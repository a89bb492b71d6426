/**
 * Node-progress notifications: slotNotification, rootNotification, slotsUpdatesNotification and
 * voteNotification. Each event is serialized once for all its subscribers.
 *
 * Our events map onto Agave's SlotUpdate kinds as follows (there are no shreds and no replay here):
 * - `createdBank` when a new working bank opens (`slot` event);
 * - `completed` then `frozen` when the bank is sealed into a block; `frozen.stats` counts every
 *   transaction as its own entry, as the block has no PoH entries;
 * - `optimisticConfirmation` when the slot becomes confirmed (our single validator's vote);
 * - `root` for each slot that becomes rooted, oldest first (before the matching rootNotification).
 * `firstShredReceived` and `dead` never happen.
 *
 * voteNotification (RpcVote): the validator votes on each slot it seals with a Vote transaction (the
 * first of the next block), so each confirmed slot yields `{votePubkey: <vote account>, slots: [slot],
 * hash: <the slot's blockhash>, timestamp: <its block time>, signature: <the vote transaction's>}`.
 */
import type { Bank } from '../ledger/bank.ts';
import { deliver } from './notification-text.ts';
import type { NodeSub } from './subscriptions.ts';

function broadcast(subs: Set<NodeSub>, result: () => unknown): void {
  if (subs.size === 0) return;
  const text = JSON.stringify(result());
  for (const sub of subs) deliver(sub, text);
}

export class SlotNotifier {
  constructor(
    private readonly subs: Readonly<Record<NodeSub['kind'], Set<NodeSub>>>,
    private readonly voteAccount: string,
    private readonly voteSignature: (slot: number) => string | undefined = () => undefined,
  ) {}

  onSlot(e: { slot: number; parent: number; root: number }): void {
    broadcast(this.subs.slot, () => ({ slot: e.slot, parent: e.parent, root: e.root }));
    broadcast(this.subs.slotsUpdates, () => ({ type: 'createdBank', slot: e.slot, parent: e.parent, timestamp: Date.now() }));
  }

  onSealed(bank: Bank): void {
    const updates = this.subs.slotsUpdates;
    if (updates.size === 0) return;
    const timestamp = Date.now();
    broadcast(updates, () => ({ type: 'completed', slot: bank.slot, timestamp }));
    let failed = 0;
    for (const tx of bank.transactions) if (tx.meta.err !== null) failed++;
    const n = bank.transactions.length;
    const stats = { numTransactionEntries: n, numSuccessfulTransactions: n - failed, numFailedTransactions: failed, maxTransactionsPerEntry: n ? 1 : 0 };
    broadcast(updates, () => ({ type: 'frozen', slot: bank.slot, timestamp, stats }));
  }

  onConfirmed(bank: Bank): void {
    broadcast(this.subs.slotsUpdates, () => ({ type: 'optimisticConfirmation', slot: bank.slot, timestamp: Date.now() }));
    broadcast(this.subs.vote, () => ({ votePubkey: this.voteAccount, slots: [bank.slot], hash: bank.blockhash, timestamp: bank.blockTime, signature: this.voteSignature(bank.slot) ?? '' }));
  }

  onRooted(banks: Bank[]): void {
    for (const bank of banks) {
      broadcast(this.subs.slotsUpdates, () => ({ type: 'root', slot: bank.slot, timestamp: Date.now() }));
      broadcast(this.subs.root, () => bank.slot);
    }
  }
}
