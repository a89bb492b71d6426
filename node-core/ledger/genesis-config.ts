/** The genesis record: made once per ledger, kept in the store, and hashed into the genesis hash. */
import type { Address } from '../common/pubkey.ts';
import type { RentConfig } from '../runtime/account.ts';
import type { EpochSchedule } from '../runtime/sysvars.ts';

export interface FeeRateGovernor {
  burnPercent: number;
  maxLamportsPerSignature: number;
  minLamportsPerSignature: number;
  targetLamportsPerSignature: number;
  targetSignaturesPerSlot: number;
}

export interface InflationConfig {
  initial: number;
  terminal: number;
  taper: number;
  foundation: number;
  foundationTerm: number;
}

export interface GenesisAccount {
  address: Address;
  lamports: number;
  owner: Address;
  /** base64 */
  data: string;
  executable: boolean;
  /** As given by an account file (--account); otherwise Agave's rule (u64::MAX when rent-exempt, else 0). */
  rentEpoch?: number;
}

export interface GenesisConfig {
  creationTime: number;
  clusterType: 'development';
  faucet: Address;
  identity: Address;
  voteAccount: Address;
  stakeAccount: Address;
  devAccounts: Address[];
  rent: RentConfig;
  feeRateGovernor: FeeRateGovernor;
  epochSchedule: EpochSchedule;
  inflation: InflationConfig;
  slotMs: number;
  ticksPerSlot: number;
  accounts: GenesisAccount[];
  /**
   * The sections that extensions (chain-extension.ts) add under their own names, opaque to the
   * ledger: the EVM space's is `evm` (absent in ledgers made before it existed).
   */
  readonly [section: string]: unknown;
}

/** Solana's defaults (sdk fee_calculator.rs, rent.rs, inflation.rs). */
export const DEFAULT_FEE_RATE_GOVERNOR: FeeRateGovernor = {
  burnPercent: 50,
  maxLamportsPerSignature: 100_000,
  minLamportsPerSignature: 5_000,
  targetLamportsPerSignature: 10_000,
  targetSignaturesPerSlot: 20_000,
};

export const DEFAULT_RENT: RentConfig = { lamportsPerByteYear: 3480, exemptionThreshold: 2.0, burnPercent: 50 };

export const DEFAULT_INFLATION: InflationConfig = { initial: 0.08, terminal: 0.015, taper: 0.15, foundation: 0.05, foundationTerm: 7.0 };
