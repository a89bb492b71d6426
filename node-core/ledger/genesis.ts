/**
 * Makes a ledger's genesis once: keypair files for the faucet, the validator identity and its vote
 * and stake accounts; ten dev accounts from a BIP39 mnemonic; the builtin program accounts; the rent,
 * fee, epoch and inflation settings; and what extensions add (the EVM space's section and accounts).
 * The genesis hash is the SHA-256 of the genesis record.
 */
import fs from 'node:fs';
import path from 'node:path';
import { encodeBase58 } from '../common/base58.ts';
import { sha256 } from '../common/hash.ts';
import {
  BPF_LOADER_2_ID,
  CONFIG_PROGRAM_ID,
  COMPUTE_BUDGET_PROGRAM_ID,
  MEMO_PROGRAM_ID,
  MEMO_V1_PROGRAM_ID,
  NATIVE_LOADER_ID,
  STAKE_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  SYSVAR_OWNER_ID,
  VOTE_PROGRAM_ID,
} from '../common/pubkey.ts';
import { generateKeypair, readKeypairFile, writeKeypairFile, type Keypair } from '../keys/keypair.ts';
import { deriveDevKeypairs, generateMnemonic } from '../keys/mnemonic.ts';
import { minimumBalanceForRentExemption, type Account } from '../runtime/account.ts';
import { PRECOMPILE_IDS } from '../runtime/programs/precompiles/index.ts';
import { BPF_LOADER_DEPRECATED_ID, BPF_LOADER_UPGRADEABLE_ID } from '../runtime/programs/bpf-loader/upgradeable-state.ts';
import { fixedEpochSchedule } from './epoch.ts';
import { ADDRESS_LOOKUP_TABLE_PROGRAM_ID } from '../runtime/programs/address-lookup-table/state.ts';
import { ASSOCIATED_TOKEN_PROGRAM_ID, MINT_LEN, NATIVE_MINT, TOKEN_PROGRAM_ID, nativeMintData } from '../runtime/programs/token/state.ts';
import { emptyStakeHistoryData, stakeConfigData, stakeStateData, voteStateData, STAKE_CONFIG_ID, STAKE_HISTORY_SIZE, STAKE_STATE_SIZE, VOTE_STATE_SIZE } from './genesis-accounts.ts';
import { SYSVAR_STAKE_HISTORY_ID } from '../runtime/sysvars.ts';
import type { ExtensionGenesisSection } from './chain-extension.ts';
import {
  DEFAULT_FEE_RATE_GOVERNOR,
  DEFAULT_INFLATION,
  DEFAULT_RENT,
  type GenesisAccount,
  type GenesisConfig,
} from './genesis-config.ts';

export const LAMPORTS_PER_SOL = 1_000_000_000;
export const DEV_ACCOUNT_COUNT = 10;
const FAUCET_LAMPORTS = 500_000 * LAMPORTS_PER_SOL;
const IDENTITY_LAMPORTS = 500 * LAMPORTS_PER_SOL;
const BOOTSTRAP_STAKE_LAMPORTS = 500_000 * LAMPORTS_PER_SOL;

/** Files a ledger keeps beside its store. */
export const ledgerFiles = (ledger: string) => ({
  faucet: path.join(ledger, 'faucet-keypair.json'),
  identity: path.join(ledger, 'validator-keypair.json'),
  vote: path.join(ledger, 'vote-account-keypair.json'),
  stake: path.join(ledger, 'stake-account-keypair.json'),
  mnemonic: path.join(ledger, 'dev-accounts-mnemonic.txt'),
  store: path.join(ledger, 'store'),
  marker: path.join(ledger, 'isthmus-ledger.json'),
});

export interface GenesisParams {
  ledger: string;
  mnemonic?: string;
  slotMs: number;
  slotsPerEpoch: number;
  devAccountLamports: number;
  /** The extensions' sections of the genesis record, with the native accounts each needs. */
  extensions?: readonly ExtensionGenesisSection[];
  /** Accounts from files (--account): added to genesis, in place of a genesis account at the same address. */
  extraAccounts?: ReadonlyArray<{ address: string; account: Account }>;
}

/** The signature-verification precompiles' accounts, as Agave's genesis has them: empty, executable, 1 lamport. */
export const precompileGenesisAccounts = (): GenesisAccount[] => [...PRECOMPILE_IDS].map((id) => account(id, 1, NATIVE_LOADER_ID, new Uint8Array(0), true));

/** The BPF loaders' accounts, as Agave's builtins: the native loader's, executable, 1 lamport, the builtin's name as data. */
export const loaderGenesisAccounts = (): GenesisAccount[] =>
  (
    [
      [BPF_LOADER_DEPRECATED_ID, 'solana_bpf_loader_deprecated_program'],
      [BPF_LOADER_2_ID, 'solana_bpf_loader_program'],
      [BPF_LOADER_UPGRADEABLE_ID, 'solana_bpf_loader_upgradeable_program'],
    ] as const
  ).map(([id, name]) => account(id, 1, NATIVE_LOADER_ID, new TextEncoder().encode(name), true));

/** Builtin accounts a ledger made by an older version may lack: put in place at start when missing. */
export const laterBuiltinGenesisAccounts = (): GenesisAccount[] => [...precompileGenesisAccounts(), ...loaderGenesisAccounts()];

export interface LedgerKeys {
  faucet: Keypair;
  identity: Keypair;
  mnemonic: string;
  devAccounts: Keypair[];
}

const account = (address: string, lamports: number, owner: string, data: Uint8Array = new Uint8Array(0), executable = false): GenesisAccount => ({
  address,
  lamports,
  owner,
  data: Buffer.from(data).toString('base64'),
  executable,
});

export function genesisHashOf(config: GenesisConfig): string {
  return encodeBase58(sha256(new TextEncoder().encode(JSON.stringify(config))));
}

export function createGenesis(p: GenesisParams): { config: GenesisConfig; keys: LedgerKeys } {
  const files = ledgerFiles(p.ledger);
  const faucet = generateKeypair();
  const identity = generateKeypair();
  const vote = generateKeypair();
  const stake = generateKeypair();
  const mnemonic = p.mnemonic ?? generateMnemonic();
  const devAccounts = deriveDevKeypairs(mnemonic, DEV_ACCOUNT_COUNT);
  writeKeypairFile(files.faucet, faucet);
  writeKeypairFile(files.identity, identity);
  writeKeypairFile(files.vote, vote);
  writeKeypairFile(files.stake, stake);
  fs.writeFileSync(files.mnemonic, mnemonic + '\n', { mode: 0o600 });

  const rent = DEFAULT_RENT;
  const voteLamports = minimumBalanceForRentExemption(rent, VOTE_STATE_SIZE);
  const stakeReserve = minimumBalanceForRentExemption(rent, STAKE_STATE_SIZE);
  const builtin = (id: string, name: string) => account(id, 1, NATIVE_LOADER_ID, new TextEncoder().encode(name), true);
  const accounts: GenesisAccount[] = [
    builtin(SYSTEM_PROGRAM_ID, 'system_program'),
    builtin(COMPUTE_BUDGET_PROGRAM_ID, 'compute_budget_program'),
    builtin(VOTE_PROGRAM_ID, 'vote_program'),
    builtin(STAKE_PROGRAM_ID, 'stake_program'),
    // Written at each epoch boundary (in place: its balance is part of the genesis supply).
    account(SYSVAR_STAKE_HISTORY_ID, minimumBalanceForRentExemption(rent, STAKE_HISTORY_SIZE), SYSVAR_OWNER_ID, emptyStakeHistoryData()),
    account(STAKE_CONFIG_ID, minimumBalanceForRentExemption(rent, 10), CONFIG_PROGRAM_ID, stakeConfigData()),
    // The SPL Memo programs are BPF programs on a real cluster; here they run as builtins under the same ids and owner.
    account(MEMO_PROGRAM_ID, 1, BPF_LOADER_2_ID, new Uint8Array(0), true),
    account(MEMO_V1_PROGRAM_ID, 1, BPF_LOADER_2_ID, new Uint8Array(0), true),
    // SPL Token and Associated Token Account likewise, with the wrapped-SOL mint they ship with.
    account(TOKEN_PROGRAM_ID, 1, BPF_LOADER_2_ID, new Uint8Array(0), true),
    account(ASSOCIATED_TOKEN_PROGRAM_ID, 1, BPF_LOADER_2_ID, new Uint8Array(0), true),
    builtin(ADDRESS_LOOKUP_TABLE_PROGRAM_ID, 'address_lookup_table_program'),
    account(NATIVE_MINT, minimumBalanceForRentExemption(rent, MINT_LEN), TOKEN_PROGRAM_ID, nativeMintData()),
    account(faucet.address, FAUCET_LAMPORTS, SYSTEM_PROGRAM_ID),
    account(identity.address, IDENTITY_LAMPORTS, SYSTEM_PROGRAM_ID),
    // Commission 0, as solana-test-validator's bootstrap vote account: stakers get all of the rewards.
    account(vote.address, voteLamports, VOTE_PROGRAM_ID, voteStateData(identity.address, identity.address, 0)),
    account(
      stake.address,
      stakeReserve + BOOTSTRAP_STAKE_LAMPORTS,
      STAKE_PROGRAM_ID,
      stakeStateData({ rentExemptReserve: stakeReserve, authority: identity.address, voter: vote.address, stake: BOOTSTRAP_STAKE_LAMPORTS }),
    ),
    ...devAccounts.map((k) => account(k.address, p.devAccountLamports, SYSTEM_PROGRAM_ID)),
  ];
  for (const ext of p.extensions ?? []) accounts.push(...ext.accounts);
  accounts.push(...laterBuiltinGenesisAccounts());
  for (const { address, account: a } of p.extraAccounts ?? []) {
    const entry: GenesisAccount = { ...account(address, a.lamports, a.owner, a.data, a.executable), rentEpoch: a.rentEpoch };
    const at = accounts.findIndex((g) => g.address === address);
    if (at >= 0) accounts[at] = entry;
    else accounts.push(entry);
  }
  const total = accounts.reduce((n, a) => n + a.lamports, 0);
  if (!Number.isSafeInteger(total)) throw new RangeError('genesis supply must stay below 2^53 lamports');

  const config: GenesisConfig = {
    creationTime: Math.floor(Date.now() / 1000),
    clusterType: 'development',
    faucet: faucet.address,
    identity: identity.address,
    voteAccount: vote.address,
    stakeAccount: stake.address,
    devAccounts: devAccounts.map((k) => k.address),
    rent,
    feeRateGovernor: DEFAULT_FEE_RATE_GOVERNOR,
    epochSchedule: fixedEpochSchedule(p.slotsPerEpoch),
    inflation: DEFAULT_INFLATION,
    slotMs: p.slotMs,
    ticksPerSlot: 64,
    accounts,
    ...Object.fromEntries((p.extensions ?? []).map((ext) => [ext.name, ext.section])),
  };
  return { config, keys: { faucet, identity, mnemonic, devAccounts } };
}

/** The keys of an existing ledger, read back from its files. */
export function readLedgerKeys(ledger: string, config: GenesisConfig): LedgerKeys {
  const files = ledgerFiles(ledger);
  const mnemonic = fs.readFileSync(files.mnemonic, 'utf8').trim();
  return {
    faucet: readKeypairFile(files.faucet),
    identity: readKeypairFile(files.identity),
    mnemonic,
    devAccounts: deriveDevKeypairs(mnemonic, config.devAccounts.length),
  };
}
