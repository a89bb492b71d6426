/**
 * The EVM space at genesis: the EVM program and state accounts of the native space (the state
 * account's lamports back the genesis EVM balances exactly), the funded dev accounts, the genesis
 * state trie, and EVM block 0.
 */
import { bytesToHex } from '@ethereumjs/util';
import { NATIVE_LOADER_ID, SYSTEM_PROGRAM_ID, type Address } from '../common/pubkey.ts';
import type { EvmKey } from '../keys/evm-keys.ts';
import type { ExtensionGenesisSection } from '../ledger/chain-extension.ts';
import type { GenesisAccount, GenesisConfig } from '../ledger/genesis-config.ts';
import { minimumBalanceForRentExemption, type RentConfig } from '../runtime/account.ts';
import type { SlotCommit } from '../store/store.ts';
import { buildBlock } from './block-builder.ts';
import { BASE_FEE_PER_GAS, EVM_PROGRAM_ID, EVM_STATE_DATA, EVM_STATE_ID, WEI_PER_LAMPORT } from './constants.ts';
import { createEvmCommon } from './machine.ts';
import { ACCOUNT_TABLE, BLOCK_HASH_TABLE, BLOCK_TABLE, encodeAccountRecord, encodeBlockRecord, type EvmSpaceMeta, type Hex } from './records.ts';
import { EVM_EXTENSION } from './program.ts';
import { EvmChanges, newEvmAccount } from './state.ts';
import { EvmStateTrie, type TrieSource } from './state-trie.ts';

/** The EVM part of the genesis record (its `evm` section). */
export interface EvmGenesis {
  chainId: number;
  /** Funded accounts: address and balance in lamports (whole lamports, so the backing is exact). */
  accounts: Array<{ address: Hex; lamports: number }>;
  /** The native key that relays eth_sendRawTransaction into native transactions (`bridge` in ledgers made before the name changed; neither is read back). */
  relayer?: Address;
}

/** The relayer's native balance at genesis: it signs and pays the native transactions that carry EVM ones. */
const RELAYER_LAMPORTS = 1_000_000_000_000;

const base64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

/** The EVM space's section of a new genesis: the funded dev accounts, and the native accounts it needs. */
export function evmGenesisSection(p: { chainId: number; devAccounts: readonly EvmKey[]; devAccountLamports: number; relayer: Address; rent: RentConfig }): ExtensionGenesisSection {
  const section: EvmGenesis = { chainId: p.chainId, accounts: p.devAccounts.map((k) => ({ address: k.address, lamports: p.devAccountLamports })), relayer: p.relayer };
  const relayer: GenesisAccount = { address: p.relayer, lamports: RELAYER_LAMPORTS, owner: SYSTEM_PROGRAM_ID, data: '', executable: false };
  return { name: EVM_EXTENSION, section, accounts: [relayer, ...evmGenesisAccounts(section, p.rent)] };
}

/** A ledger's EVM section; undefined for ledgers made before the EVM space existed. */
export const evmGenesisOf = (config: GenesisConfig): EvmGenesis | undefined => config[EVM_EXTENSION] as EvmGenesis | undefined;

/** The native accounts the EVM space needs at genesis. */
function evmGenesisAccounts(evm: EvmGenesis, rent: RentConfig): GenesisAccount[] {
  const backing = evm.accounts.reduce((n, a) => n + a.lamports, 0);
  return [
    // Velas's program account: native_loader::create_loadable_account("Evm Processor", 1).
    { address: EVM_PROGRAM_ID, lamports: 1, owner: NATIVE_LOADER_ID, data: base64(new TextEncoder().encode('Evm Processor')), executable: true },
    { address: EVM_STATE_ID, lamports: evmStateReserve(rent) + backing, owner: EVM_PROGRAM_ID, data: base64(EVM_STATE_DATA), executable: false },
  ];
}

/** Lamports the EVM state account keeps beyond the EVM balances it backs: its rent-exempt minimum. */
export const evmStateReserve = (rent: RentConfig): number => minimumBalanceForRentExemption(rent, EVM_STATE_DATA.length);

/** Nothing stored: the genesis trie is built from nothing, whatever the ledger's store holds (a chain reset writes it again). */
const NOTHING_STORED: TrieSource = { getExtra: async () => null, scanExtras: () => [] };

/** The genesis records of the EVM space for the slot-0 commit, and the space's meta after them: from the genesis record alone. */
export async function evmGenesisRecords(
  evm: EvmGenesis,
  native: { creationTime: number; blockhash: string },
): Promise<{ extras: NonNullable<SlotCommit['extras']>; meta: EvmSpaceMeta }> {
  const changes = new EvmChanges();
  for (const a of evm.accounts) changes.accounts.set(a.address.toLowerCase(), newEvmAccount(BigInt(a.lamports) * WEI_PER_LAMPORT));
  const extras: NonNullable<SlotCommit['extras']> = [];
  for (const [address, account] of changes.accounts) extras.push({ table: ACCOUNT_TABLE, key: address, value: encodeAccountRecord(account!) });
  const trie = await EvmStateTrie.open(NOTHING_STORED, null);
  const reader = { account: (a: string) => changes.accounts.get(a) ?? null, storage: () => new Uint8Array(0), code: () => undefined };
  const sealed = await trie.apply(0, changes, reader);
  extras.push(...sealed.extras);
  const block = await buildBlock(createEvmCommon(evm.chainId), {
    number: 0,
    parentHash: bytesToHex(new Uint8Array(32)),
    env: { number: 0n, timestamp: BigInt(native.creationTime), prevRandao: new Uint8Array(32), baseFeePerGas: BASE_FEE_PER_GAS },
    stateRoot: sealed.stateRoot,
    transactions: [],
    nativeSlot: 0,
    nativeBlockhash: native.blockhash,
  });
  extras.push({ table: BLOCK_TABLE, key: 0, value: encodeBlockRecord(block) });
  extras.push({ table: BLOCK_HASH_TABLE, key: block.hash, value: 0 });
  return { extras, meta: { nextBlockNumber: 1, head: { number: 0, hash: block.hash }, stateRoot: bytesToHex(sealed.stateRoot) } };
}
