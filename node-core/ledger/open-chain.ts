/**
 * Writing a new ledger's genesis into a store, and rebuilding a Chain from what a store holds (the
 * accounts, the chain counters, and the recent blocks that feed the blockhash queue and status cache).
 */
import { markRentExempt } from '../runtime/account.ts';
import { genesisRecord, genesisSlotCommit } from './genesis-commit.ts';
import { SLOT_HISTORY_MAX_ENTRIES } from '../runtime/sysvars.ts';
import type { ProgramRegistry } from '../runtime/program.ts';
import type { BlockHeader, ChainMeta, Store } from '../store/store.ts';
import type { AccountsDb } from './bank.ts';
import type { ExtensionGenesisRecords } from './chain-extension.ts';
import { BLOCKHASH_QUEUE_ENTRIES, MAX_RECENT_BLOCKHASHES } from './blockhash-queue.ts';
import { epochOf } from './epoch.ts';
import { Chain, type ChainParams, type ChainState } from './chain.ts';
import type { SignatureStatus } from './status-cache.ts';
import type { GenesisConfig } from './genesis-config.ts';

export { genesisBlockhash } from './genesis-commit.ts';

/** Writes the genesis record and slot 0 (the genesis accounts); returns the chain counters after it. */
export async function writeGenesis(store: Store, config: GenesisConfig, genesisHash: string, extensions: ExtensionGenesisRecords[] = []): Promise<ChainMeta> {
  const commit = genesisSlotCommit(config, genesisHash, extensions);
  await store.writeGenesis(genesisRecord(config, genesisHash));
  await store.commitSlot(commit);
  return commit.meta;
}

export type OpenChainParams = Pick<ChainParams, 'store' | 'genesis' | 'genesisHash' | 'programs' | 'slotMs' | 'rootDepth' | 'limitLedgerSize' | 'extensions' | 'voter'> & {
  programs: ProgramRegistry;
};

export class LedgerStateError extends Error {}

/** A Chain over everything the store holds, resuming after its newest slot. */
export async function openChain(p: OpenChainParams): Promise<Chain> {
  const meta = await p.store.readMeta();
  if (!meta) throw new LedgerStateError('the ledger has a genesis but no slots; start it with --reset');
  const accounts: AccountsDb = new Map();
  // Accounts stored before rent epochs followed Agave's rule read as Agave reports them.
  for await (const [k, a] of p.store.loadAccounts()) accounts.set(k, markRentExempt(a, p.genesis.rent));
  const historyFrom = Math.max(0, meta.slot - SLOT_HISTORY_MAX_ENTRIES + 1);
  const blockSlots = await p.store.getBlockSlots(historyFrom, meta.slot, SLOT_HISTORY_MAX_ENTRIES);
  const recent = await recentChainState(p.store, p.genesis, meta);
  const chain = new Chain({ ...p, accounts, meta, ...recent, blockSlots });
  chain.firstAvailableSlot = (await p.store.firstAvailableSlot()) ?? 0;
  return chain;
}

/** What the chain reads of the newest stored slots besides the accounts: the blockhash queue's headers, the status cache's statuses, the epoch's start. */
export async function recentChainState(store: Store, genesis: GenesisConfig, meta: ChainMeta): Promise<Omit<ChainState, 'accounts' | 'meta'>> {
  const headers: BlockHeader[] = [];
  const statuses: Array<[string, SignatureStatus]> = [];
  // Headers of the newest 512 slots (the slot hashes); statuses only of the newest 300 (the status cache).
  const first = Math.max(0, meta.slot - BLOCKHASH_QUEUE_ENTRIES + 1);
  for (const block of await store.getBlockStatuses(first, meta.slot, meta.slot - MAX_RECENT_BLOCKHASHES + 1)) {
    headers.push(block.header);
    for (const [signature, index, err] of block.statuses ?? []) statuses.push([signature, { slot: block.header.slot, index, err }]);
  }
  const epochFirstSlot = epochOf(genesis.epochSchedule, meta.slot).firstSlot;
  const [epochFirstBlock] = epochFirstSlot === 0 ? [] : await store.getBlockSlots(epochFirstSlot, meta.slot, 1);
  const epochStartTimestamp = epochFirstBlock === undefined ? undefined : (await store.getBlockHeader(epochFirstBlock))?.blockTime;
  return { recentHeaders: headers, recentStatuses: statuses, epochStartTimestamp };
}
