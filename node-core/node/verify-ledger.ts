/**
 * `isthmus verify-ledger`: value conservation across the two spaces, checked on a stored ledger at its
 * last stored slot (after a restart every stored slot is final, so this is the rooted state):
 *
 *   Σ native lamports (the EVM state account included) + burned = genesis supply + minted + adjusted
 *   (adjusted: lamports of accounts written directly: at start over an existing ledger, --account / --bpf-program,
 *   and by chain-control edits, anvil_setBalance / surfnet_setAccount)
 *   Σ native lamports = the books' total supply (ChainMeta.totalSupply)
 *   Σ EVM balances (wei) = (EVM state account lamports − its rent-exempt reserve) × 10^9
 *
 * The ledger's lock is taken for the length of the check, so it refuses a ledger a node is running on
 * (a node's later commits would make the accounts, the books and the EVM state disagree mid-read).
 */
import fs from 'node:fs';
import { EVM_STATE_ID, WEI_PER_LAMPORT } from '../evm/constants.ts';
import { evmGenesisOf, evmStateReserve } from '../evm/genesis.ts';
import { ACCOUNT_TABLE, decodeAccountRecord } from '../evm/records.ts';
import type { GenesisConfig } from '../ledger/genesis-config.ts';
import { ledgerFiles } from '../ledger/genesis.ts';
import { lockLedger } from '../ledger/ledger-lock.ts';
import type { Store } from '../store/store.ts';
import { openLedgerStore } from './open-ledger.ts';

/** The ledger cannot be checked at all: not a ledger, in use by a node, or without a stored slot. */
export class LedgerUnreadableError extends Error {}

export interface LedgerBooks {
  slot: number;
  accounts: number;
  /** Σ lamports of every stored native account. */
  nativeLamports: bigint;
  genesisSupply: bigint;
  /** ChainMeta.totalSupply, burned, minted and adjusted as the last stored slot recorded them. */
  totalSupply: bigint;
  burned: bigint;
  minted: bigint;
  adjusted: bigint;
  /** The EVM space's accounts with a record, and their balances summed. */
  evmAccounts: number;
  evmWei: bigint;
  /** Lamports of the EVM state account, and those beyond its reserve (what backs the EVM balances). */
  evmStateLamports: bigint;
  evmBacking: bigint;
}

export interface Violation {
  equation: string;
  left: bigint;
  right: bigint;
}

export interface VerifyResult {
  books: LedgerBooks;
  violations: Violation[];
}

/** Checks conservation on the store of an opened ledger (the caller keeps others off it). */
export async function verifyStore(store: Store): Promise<VerifyResult> {
  const meta = await store.readMeta();
  const stored = (await store.readGenesis()) as { config: GenesisConfig } | null;
  if (!meta || !stored) throw new LedgerUnreadableError('the ledger has no stored slot yet (no genesis or chain record)');
  const genesis = stored.config;
  const evmGenesis = evmGenesisOf(genesis);
  if (!evmGenesis) throw new LedgerUnreadableError('this ledger was made before the EVM space existed; it has no EVM books to check');

  let nativeLamports = 0n;
  let accounts = 0;
  let evmStateLamports: bigint | null = null;
  for await (const [address, account] of store.loadAccounts()) {
    nativeLamports += BigInt(account.lamports);
    accounts++;
    if (address === EVM_STATE_ID) evmStateLamports = BigInt(account.lamports);
  }
  let evmWei = 0n;
  let evmAccounts = 0;
  for await (const [, value] of store.scanExtras(ACCOUNT_TABLE)) {
    evmWei += decodeAccountRecord(value as Uint8Array).balance;
    evmAccounts++;
  }
  const reserve = BigInt(evmStateReserve(genesis.rent));
  const books: LedgerBooks = {
    slot: meta.slot,
    accounts,
    nativeLamports,
    genesisSupply: genesis.accounts.reduce((n, a) => n + BigInt(a.lamports), 0n),
    totalSupply: BigInt(meta.totalSupply),
    burned: BigInt(meta.burned),
    minted: BigInt(meta.minted ?? 0),
    adjusted: BigInt(meta.adjusted ?? 0),
    evmAccounts,
    evmWei,
    evmStateLamports: evmStateLamports ?? 0n,
    evmBacking: (evmStateLamports ?? 0n) - reserve,
  };

  const violations: Violation[] = [];
  const check = (equation: string, left: bigint, right: bigint) => {
    if (left !== right) violations.push({ equation, left, right });
  };
  if (evmStateLamports === null) violations.push({ equation: `the EVM state account ${EVM_STATE_ID} exists`, left: 0n, right: 1n });
  check('native lamports + burned = genesis supply + minted + adjusted', books.nativeLamports + books.burned, books.genesisSupply + books.minted + books.adjusted);
  check('native lamports = recorded total supply', books.nativeLamports, books.totalSupply);
  check('EVM balances (wei) = EVM backing (lamports beyond the state account\'s reserve) × 10^9', books.evmWei, books.evmBacking * WEI_PER_LAMPORT);
  return { books, violations };
}

/** Opens the ledger at `dir` under its lock, checks it, and closes it. */
export async function verifyLedger(dir: string): Promise<VerifyResult> {
  const files = ledgerFiles(dir);
  if (!fs.existsSync(dir)) throw new LedgerUnreadableError(`${dir} does not exist`);
  if (!fs.existsSync(files.marker)) throw new LedgerUnreadableError(`${dir} is not an Isthmus ledger (no ${files.marker})`);
  if (!fs.existsSync(files.store)) throw new LedgerUnreadableError(`${dir} has no store yet (a node never committed a slot to it)`);
  let unlock: () => void;
  try {
    unlock = lockLedger(dir);
  } catch (e) {
    throw new LedgerUnreadableError(`${(e as Error).message}; verify-ledger reads a ledger only while no node runs on it`);
  }
  try {
    const store = await openLedgerStore(dir);
    try {
      return await verifyStore(store);
    } finally {
      await store.close();
    }
  } finally {
    unlock();
  }
}

const lamportsPerSol = 1_000_000_000n;
const sol = (lamports: bigint) => {
  const sign = lamports < 0n ? '-' : '';
  const abs = lamports < 0n ? -lamports : lamports;
  return `${sign}${abs / lamportsPerSol}.${(abs % lamportsPerSol).toString().padStart(9, '0')}`;
};

/** What the command prints: the books, then each equation held or broken with its difference. */
export function describeResult(dir: string, { books: b, violations }: VerifyResult): string {
  const lines = [
    `ledger ${dir} at slot ${b.slot} (its last stored slot)`,
    `  native: ${b.accounts} accounts hold ${b.nativeLamports} lamports (${sol(b.nativeLamports)} SOL); burned ${b.burned}, minted ${b.minted}, adjusted at start ${b.adjusted}, genesis supply ${b.genesisSupply}, recorded total supply ${b.totalSupply}`,
    `  EVM: ${b.evmAccounts} accounts hold ${b.evmWei} wei; the EVM state account holds ${b.evmStateLamports} lamports, ${b.evmBacking} of them backing`,
  ];
  if (violations.length === 0) {
    lines.push('value is conserved:');
    lines.push(`  native lamports + burned = genesis supply + minted + adjusted: ${b.nativeLamports + b.burned} = ${b.genesisSupply + b.minted + b.adjusted}`);
    lines.push(`  native lamports = recorded total supply: ${b.nativeLamports}`);
    lines.push(`  EVM balances = backing × 10^9: ${b.evmWei} wei`);
  } else {
    lines.push(`VALUE IS NOT CONSERVED (${violations.length} of the books disagree):`);
    for (const v of violations) lines.push(`  ${v.equation}: ${v.left} ≠ ${v.right} (left − right = ${v.left - v.right})`);
  }
  return lines.join('\n') + '\n';
}
