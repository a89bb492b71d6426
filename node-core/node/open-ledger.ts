/**
 * Opening a node's ledger: the folder (marker and lock), the store, and the genesis — made once,
 * with the EVM space's section and records, or read back with the keys its folder keeps.
 */
import type { EvmKey } from '../keys/evm-keys.ts';
import { deriveEvmKeys } from '../keys/evm-keys.ts';
import fs from 'node:fs';
import { readKeypairFile, type Keypair } from '../keys/keypair.ts';
import { generateMnemonic } from '../keys/mnemonic.ts';
import { DEFAULT_RENT, type GenesisConfig } from '../ledger/genesis-config.ts';
import { createGenesis, DEV_ACCOUNT_COUNT, genesisHashOf, ledgerFiles, readLedgerKeys, type LedgerKeys } from '../ledger/genesis.ts';
import { prepareLedgerFolder } from '../ledger/ledger-folder.ts';
import { lockLedger } from '../ledger/ledger-lock.ts';
import { genesisBlockhash, LedgerStateError, writeGenesis } from '../ledger/open-chain.ts';
import { CHAIN_IDS } from '../evm/constants.ts';
import { evmGenesisOf, evmGenesisRecords, evmGenesisSection, type EvmGenesis } from '../evm/genesis.ts';
import { EVM_EXTENSION } from '../evm/program.ts';
import { createRelayerKey, readRelayerKey } from '../evm/relayer-key.ts';
import { openLmdbStore, type LmdbStore } from '../store/lmdb-store.ts';
import type { Store } from '../store/store.ts';
import type { NodeOptions } from './options.ts';
import { programAccounts } from './program-flags.ts';

/** Every key a node holds: the native ledger's, the EVM dev accounts, and the relayer of EVM transactions. */
export interface NodeKeys extends LedgerKeys {
  /** The EVM dev accounts (m/44'/60'/0'/0/i of the same mnemonic). */
  evmDevAccounts: EvmKey[];
  /** Signs and pays the native transactions that carry EVM transactions (evm/relay.ts). */
  evmRelayer: Keypair;
}

export interface OpenedLedger {
  store: Store;
  genesis: GenesisConfig;
  genesisHash: string;
  evmGenesis: EvmGenesis;
  keys: NodeKeys;
  /** True when this start made the ledger's genesis. */
  createdLedger: boolean;
  /** Closes the store and releases the ledger's lock. */
  close(): Promise<void>;
}

type LedgerOptions = Pick<NodeOptions, 'ledger' | 'reset' | 'mnemonic' | 'slotMs' | 'slotsPerEpoch' | 'devAccountLamports' | 'evmChainId' | 'accounts' | 'programs'>;

export async function openLedger(options: LedgerOptions): Promise<OpenedLedger> {
  prepareLedgerFolder(options.ledger, options.reset);
  const unlock = lockLedger(options.ledger);
  let store: LmdbStore;
  try {
    store = await openLedgerStore(options.ledger);
  } catch (e) {
    unlock();
    throw e;
  }
  const close = async () => {
    await store.close();
    unlock();
  };
  try {
    const stored = (await store.readGenesis()) as { config: GenesisConfig; hash: string } | null;
    const opened = stored ? readLedger(options.ledger, stored.config, stored.hash) : await createLedger(store, options);
    // The validator's votes are stored compactly and signed again on read (lmdb-own-votes.ts).
    store.signOwnVotesWith(opened.keys.identity);
    return { ...opened, store, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * The store of the ledger folder `ledger`, able to read the validator's compactly stored votes: they
 * are signed again with the identity's key the folder keeps (lmdb-own-votes.ts). Every opening of a
 * ledger's store goes through here.
 */
export async function openLedgerStore(ledger: string): Promise<LmdbStore> {
  const files = ledgerFiles(ledger);
  const store = await openLmdbStore(files.store);
  if (fs.existsSync(files.identity)) {
    try {
      store.signOwnVotesWith(readKeypairFile(files.identity));
    } catch (e) {
      await store.close();
      throw e;
    }
  }
  return store;
}

type Genesis = Pick<OpenedLedger, 'genesis' | 'genesisHash' | 'evmGenesis' | 'keys' | 'createdLedger'>;

async function createLedger(store: Store, options: LedgerOptions): Promise<Genesis> {
  // The EVM dev accounts derive from the same words as the native ones.
  const mnemonic = options.mnemonic ?? generateMnemonic();
  const evmDevAccounts = deriveEvmKeys(mnemonic, DEV_ACCOUNT_COUNT);
  const evmRelayer = createRelayerKey(options.ledger);
  const evm = evmGenesisSection({
    chainId: options.evmChainId ?? CHAIN_IDS.devnet,
    devAccounts: evmDevAccounts,
    devAccountLamports: options.devAccountLamports,
    relayer: evmRelayer.address,
    rent: DEFAULT_RENT,
  });
  const made = createGenesis({
    ledger: options.ledger,
    mnemonic,
    slotMs: options.slotMs,
    slotsPerEpoch: options.slotsPerEpoch,
    devAccountLamports: options.devAccountLamports,
    // As the test validator: account files first, then the programs (deployed at slot 0) over them.
    extraAccounts: [...(options.accounts ?? []), ...programAccounts(options.programs ?? [], DEFAULT_RENT, 0)],
    extensions: [evm],
  });
  const hash = genesisHashOf(made.config);
  const evmGenesis = evmGenesisOf(made.config)!;
  const evmRecords = await evmGenesisRecords(evmGenesis, { creationTime: made.config.creationTime, blockhash: genesisBlockhash(hash) });
  await writeGenesis(store, made.config, hash, [{ name: EVM_EXTENSION, ...evmRecords }]);
  return { genesis: made.config, genesisHash: hash, evmGenesis, keys: { ...made.keys, evmDevAccounts, evmRelayer }, createdLedger: true };
}

function readLedger(ledger: string, genesis: GenesisConfig, genesisHash: string): Genesis {
  const evmGenesis = evmGenesisOf(genesis);
  if (!evmGenesis) throw new LedgerStateError('this ledger was made before the EVM space existed; start it with --reset for a new genesis');
  const keys = readLedgerKeys(ledger, genesis);
  return {
    genesis,
    genesisHash,
    evmGenesis,
    keys: { ...keys, evmDevAccounts: deriveEvmKeys(keys.mnemonic, evmGenesis.accounts.length), evmRelayer: readRelayerKey(ledger) },
    createdLedger: false,
  };
}
