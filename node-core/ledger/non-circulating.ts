/**
 * The non-circulating set (Agave's calculate_non_circulating_supply, for this chain): the accounts
 * genesis sets aside (the bootstrap validator's stake account, as a cluster's foundation stake is),
 * stake accounts withdrawable by a non-circulating authority (the bootstrap stake's authority), and
 * stake accounts whose lockup is still in force. getSupply and getLargestAccounts both use it.
 */
import { STAKE_PROGRAM_ID, type Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import { lockupInForce, tryDecodeStakeState } from '../runtime/programs/stake/state.ts';
import type { Clock } from '../runtime/sysvars.ts';
import type { GenesisConfig } from './genesis-config.ts';

interface BankView {
  entries(): Iterable<[Address, Account]>;
  get(address: Address): Account | null;
  readonly sysvars: { clock: Clock };
  /** Set once the bank is sealed: its accounts no longer change, so its set is computed once. */
  readonly blockhash?: string | null;
}

const sealedSets = new WeakMap<BankView, Address[]>();

export function nonCirculatingAccounts(bank: BankView, genesis: GenesisConfig): Address[] {
  const cached = sealedSets.get(bank);
  if (cached) return cached;
  const set = computeNonCirculating(bank, genesis);
  if (bank.blockhash) sealedSets.set(bank, set);
  return set;
}

function computeNonCirculating(bank: BankView, genesis: GenesisConfig): Address[] {
  const set = new Set<Address>([genesis.stakeAccount]);
  const bootstrap = bank.get(genesis.stakeAccount);
  const bootstrapState = bootstrap ? tryDecodeStakeState(bootstrap.data) : null;
  const authorities = new Set<Address>();
  if (bootstrapState && (bootstrapState.kind === 'stake' || bootstrapState.kind === 'initialized')) authorities.add(bootstrapState.meta.withdrawer);
  const clock = bank.sysvars.clock;
  for (const [address, account] of bank.entries()) {
    if (account.owner !== STAKE_PROGRAM_ID) continue;
    const s = tryDecodeStakeState(account.data);
    if (!s || (s.kind !== 'stake' && s.kind !== 'initialized')) continue;
    if (lockupInForce(s.meta.lockup, clock, null) || authorities.has(s.meta.withdrawer)) set.add(address);
  }
  return [...set].sort();
}

/** Lamports held by the non-circulating accounts. */
export function nonCirculatingLamports(bank: BankView, accounts: Address[]): number {
  return accounts.reduce((n, k) => n + (bank.get(k)?.lamports ?? 0), 0);
}
