/**
 * Wires the chain's events to the notification families, by commitment:
 * - processed: each `transaction` (accounts, programs, logs, signatures);
 * - confirmed: the `confirmed` bank (its changes and transactions; blocks; votes);
 * - finalized: each `rooted` bank, oldest first, context = the rooted slot;
 * - every level: the accounts a `reverted` chain put back, context = the slot reverted to.
 * A failing notification is logged and never reaches the chain that emitted the event. What a handler
 * queued is written to the sockets as it ends (`flush`), before the chain's work after the event.
 */
import type { Chain, ChainEventMap } from '../ledger/chain.ts';
import { AccountNotifier } from './accounts.ts';
import { BlockNotifier } from './blocks.ts';
import { SlotMemo } from './slot-memo.ts';
import { SlotNotifier } from './slots.ts';
import type { Registry } from './subscriptions.ts';
import { TransactionNotifier } from './transactions.ts';

export interface Notifier {
  transactions: TransactionNotifier;
  /** Detaches from the chain. */
  detach(): void;
}

type Handlers = { [K in keyof ChainEventMap]: (...args: ChainEventMap[K]) => void };

export function attachNotifier(chain: Chain, registry: Registry, log: (line: string) => void, flush: () => void): Notifier {
  const memo = new SlotMemo(chain);
  const accounts = new AccountNotifier(memo, (a) => chain.getAccount(a, 'processed'));
  const transactions = new TransactionNotifier(registry, chain);
  const blocks = new BlockNotifier(memo);
  const slots = new SlotNotifier(registry.node, chain.genesis.voteAccount, (slot) => chain.voteSignature(slot));
  const { processed, confirmed, finalized } = registry.levels;

  const handlers: Handlers = {
    slot: (e) => slots.onSlot(e),
    received: (signature) => transactions.onReceived(signature),
    dropped: () => {},
    // The node closes the sockets when the chain fails (node/start.ts): no notification to send.
    failed: () => {},
    transaction: (e) => {
      memo.onTransaction(e.slot, e.writes);
      accounts.onTransaction(processed, e.slot, e.writes);
      transactions.onTransaction(processed, e.slot, e.transaction);
    },
    sealed: (bank) => {
      memo.onSealed(bank);
      accounts.onSealed(processed, bank);
      slots.onSealed(bank);
      // After the new slot's notifications (the chain emits `slot` next) and before the store commit
      // that confirms this bank: the chain queues that commit after this event.
      queueMicrotask(() => {
        try {
          accounts.prepare(confirmed, bank);
        } catch (e) {
          log(`isthmus: pubsub: preparing confirmed notifications failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        }
      });
    },
    confirmed: (bank) => {
      accounts.onBank(confirmed, bank);
      transactions.onBank(confirmed, bank);
      blocks.onBank(confirmed, bank);
      slots.onConfirmed(bank);
    },
    rooted: (banks) => {
      for (const bank of banks) {
        accounts.onBank(finalized, bank);
        transactions.onBank(finalized, bank);
        blocks.onBank(finalized, bank);
      }
      slots.onRooted(banks);
      memo.forgetThrough(banks[banks.length - 1]!.slot);
    },
    reverted: (e) => {
      memo.forgetAfter(e.slot);
      for (const level of [processed, confirmed, finalized]) accounts.onReverted(level, e.slot, e.accounts);
    },
  };

  const attached: Array<[keyof ChainEventMap, (...args: never[]) => void]> = [];
  for (const name of Object.keys(handlers) as Array<keyof ChainEventMap>) {
    const handler = handlers[name] as (...args: unknown[]) => void;
    const guarded = (...args: unknown[]) => {
      try {
        handler(...args);
      } catch (e) {
        log(`isthmus: pubsub: ${name} notifications failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      } finally {
        flush();
      }
    };
    chain.on(name, guarded as never);
    attached.push([name, guarded]);
  }
  return {
    transactions,
    detach: () => {
      for (const [name, fn] of attached) chain.off(name, fn as never);
    },
  };
}
