/**
 * What a ledger's genesis writes into its store: the genesis record and slot 0 (the genesis accounts,
 * the chain counters, and each extension's records). A new ledger writes it once (open-chain.ts);
 * a chain reset writes the same again (snapshots.ts).
 */
import { markRentExempt } from '../runtime/account.ts';
import type { ChainMeta, SlotCommit } from '../store/store.ts';
import type { ExtensionGenesisRecords } from './chain-extension.ts';
import type { GenesisConfig } from './genesis-config.ts';
import { blockhashOf } from './slot-commit.ts';

/** The blockhash of slot 0. */
export const genesisBlockhash = (genesisHash: string): string => blockhashOf(genesisHash, 0, []);

/** The genesis record as the store keeps it. */
export const genesisRecord = (config: GenesisConfig, genesisHash: string) => ({ config, hash: genesisHash });

/** Slot 0's commit: the genesis accounts, the counters after it, and the extensions' records. */
export function genesisSlotCommit(config: GenesisConfig, genesisHash: string, extensions: readonly ExtensionGenesisRecords[] = []): SlotCommit & { meta: ChainMeta } {
  const blockhash = genesisBlockhash(genesisHash);
  const meta: ChainMeta = {
    slot: 0,
    blockhash,
    blockTime: config.creationTime,
    transactionCount: 0,
    lamportsPerSignature: config.feeRateGovernor.minLamportsPerSignature,
    totalSupply: config.accounts.reduce((n, a) => n + a.lamports, 0),
    burned: 0,
    extensions: Object.fromEntries(extensions.map((e) => [e.name, e.meta])),
  };
  return {
    block: { slot: 0, parentSlot: 0, blockhash, previousBlockhash: genesisHash, blockTime: config.creationTime, blockHeight: 0, transactionCount: 0, rewards: [], transactions: [] },
    accounts: config.accounts.map((a) => [
      a.address,
      markRentExempt({ lamports: a.lamports, data: new Uint8Array(Buffer.from(a.data, 'base64')), owner: a.owner, executable: a.executable, rentEpoch: a.rentEpoch ?? 0 }, config.rent),
    ]),
    meta,
    extras: extensions.flatMap((e) => e.extras),
  };
}
