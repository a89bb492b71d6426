/**
 * blockNotification: `{context:{slot}, value:{slot, block, err}}` when a slot reaches the
 * subscription's commitment (confirmed or finalized). The block is built from the Bank in
 * getBlock's shape; with `mentionsAccountOrProgram` only transactions naming the key are kept and
 * a slot without any sends nothing, as Agave does.
 */
import type { Bank } from '../ledger/bank.ts';
import { encodeBlock } from '../rpc/encoding/transaction.ts';
import { refusedTransactionVersion } from '../rpc/errors.ts';
import type { StoredBlock } from '../store/store.ts';
import { deliver, SharedResults, withSlot } from './notification-text.ts';
import type { SlotMemo } from './slot-memo.ts';
import type { BlockSub, Level } from './subscriptions.ts';

export class BlockNotifier {
  constructor(private readonly memo: SlotMemo) {}

  onBank(level: Level, bank: Bank): void {
    if (level.blocks.size === 0) return;
    const full: StoredBlock = {
      slot: bank.slot,
      parentSlot: bank.parentSlot,
      blockhash: bank.blockhash!,
      previousBlockhash: this.memo.previousBlockhash(bank),
      blockTime: bank.blockTime,
      blockHeight: bank.blockHeight,
      transactionCount: bank.transactions.length,
      rewards: bank.rewards,
      transactions: bank.transactions,
    };
    const results = new SharedResults();
    for (const sub of level.blocks) {
      const text = results.get(`${sub.mentions ?? ''}|${sub.encodingKey}`, () => this.result(full, sub));
      if (text !== null) deliver(sub, text);
    }
  }

  private result(full: StoredBlock, sub: BlockSub): string | null {
    let block = full;
    if (sub.mentions !== null) {
      const key = sub.mentions;
      const transactions = full.transactions.filter((t) => t.accountKeys.includes(key));
      if (transactions.length === 0) return null;
      block = { ...full, transactions };
    }
    let value: { slot: number; block: unknown; err: unknown };
    try {
      const encoded = encodeBlock(block, {
        encoding: sub.encoding,
        transactionDetails: sub.transactionDetails,
        rewards: sub.showRewards,
        maxSupportedTransactionVersion: sub.maxSupportedTransactionVersion,
      });
      value = { slot: full.slot, block: encoded, err: null };
    } catch (e) {
      const version = refusedTransactionVersion(e);
      if (version === null) throw e;
      value = { slot: full.slot, block: null, err: { UnsupportedTransactionVersion: version } };
    }
    return withSlot(full.slot, JSON.stringify(value));
  }
}
