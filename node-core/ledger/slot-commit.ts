/**
 * A sealed slot's record for the store's one atomic commit: its block, its account changes, the
 * chain counters after it and the extensions' records; and the blockhash that chains each block to
 * its parent.
 */
import { decodeBase58, encodeBase58 } from '../common/base58.ts';
import { ByteReader, ByteWriter } from '../common/bytes.ts';
import { sha256 } from '../common/hash.ts';
import type { ChainMeta, SlotCommit, StoredTransaction } from '../store/store.ts';
import type { Bank } from './bank.ts';
import type { ChainExtension } from './chain-extension.ts';

/** sha256(parent blockhash ‖ slot ‖ first signature of each transaction): chains every block to its parent. */
export function blockhashOf(parentBlockhash: string, slot: number, transactions: StoredTransaction[]): string {
  const parts: Uint8Array[] = [decodeBase58(parentBlockhash), new ByteWriter(8).u64(slot).finish()];
  for (const t of transactions) parts.push(firstSignatureBytes(t.wire));
  return encodeBase58(sha256(...parts));
}

/** The first signature's bytes, read from the wire (the signature's base-58 text decodes to them, more slowly). */
function firstSignatureBytes(wire: Uint8Array): Uint8Array {
  const r = new ByteReader(wire);
  r.shortVec();
  return r.bytesN(64);
}

/** The chain's counters as they stand when a bank is sealed (ChainMeta less the block's own fields). */
export type ChainCounters = Omit<ChainMeta, 'slot' | 'blockhash' | 'blockTime' | 'blockHeight'> & { minted: number; epochStakes: NonNullable<ChainMeta['epochStakes']> };

/** The commit of a sealed bank (blockhash and block time set) over the parent blockhash `parentHash`. */
export function slotCommit(bank: Bank, parentHash: string, counters: ChainCounters): SlotCommit {
  const accounts: SlotCommit['accounts'] = [...bank.changes];
  const extras: NonNullable<SlotCommit['extras']> = [];
  return {
    block: {
      slot: bank.slot,
      parentSlot: bank.parentSlot,
      blockhash: bank.blockhash!,
      previousBlockhash: parentHash,
      blockTime: bank.blockTime,
      blockHeight: bank.blockHeight,
      transactionCount: bank.transactions.length,
      rewards: bank.rewards,
      transactions: bank.transactions,
    },
    accounts,
    meta: {
      slot: bank.slot,
      blockhash: bank.blockhash!,
      blockTime: bank.blockTime,
      transactionCount: counters.transactionCount,
      lamportsPerSignature: counters.lamportsPerSignature,
      totalSupply: counters.totalSupply,
      burned: counters.burned,
      minted: counters.minted,
      adjusted: counters.adjusted,
      blockHeight: bank.blockHeight,
      epochStakes: counters.epochStakes,
      extensions: counters.extensions,
    },
    extras,
  };
}

/**
 * Adds the extensions' records and counters to a slot's commit (run in commit order: slot order);
 * returns the extensions' counters after it, or undefined when there are no extensions.
 */
export async function sealExtensions(extensions: readonly ChainExtension[], bank: Bank, commit: SlotCommit): Promise<Record<string, unknown> | undefined> {
  if (extensions.length === 0) return undefined;
  const extensionsMeta = { ...commit.meta.extensions };
  for (const ext of extensions) {
    const sealed = await ext.seal(bank);
    commit.extras!.push(...sealed.extras);
    extensionsMeta[ext.name] = sealed.meta;
  }
  commit.meta.extensions = extensionsMeta;
  return extensionsMeta;
}
