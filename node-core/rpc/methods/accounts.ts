/** Account and balance methods. */
import type { Address } from '../../common/pubkey.ts';
import { minimumBalanceForRentExemption, MAX_PERMITTED_DATA_LENGTH } from '../../runtime/account.ts';
import { compileMessage, signTransaction } from '../../runtime/message-builder.ts';
import { systemTransferInstruction } from '../../runtime/programs/system-instruction.ts';
import { addressToBytes } from '../../common/pubkey.ts';
import { TransactionError } from '../../runtime/errors.ts';
import type { Commitment } from '../../ledger/commitment.ts';
import { nonCirculatingAccounts as nonCirculatingAccountsOf, nonCirculatingLamports } from '../../ledger/non-circulating.ts';
import { encodeAccount, type AccountEncoding } from '../encoding/account.ts';
import { contextSlot, withContext, type RpcContext } from '../context.ts';
import { INTERNAL_ERROR, RpcError, invalidParams, invalidRequest } from '../errors.ts';
import {
  ACCOUNT_ENCODINGS,
  address,
  arrayOf,
  bool,
  commitment,
  commitmentConfig,
  config,
  dataSlice,
  oneOf,
  optional,
  required,
  u64,
} from '../params.ts';
import { accountFilters, matchesFilters } from '../filters.ts';
import { method } from './method.ts';
import { TOKEN_PROGRAM_ID } from '../../runtime/programs/token/state.ts';
import { SYSVAR_IDS } from '../../runtime/sysvars.ts';

export const MAX_MULTIPLE_ACCOUNTS = 100;
export const NUM_LARGEST_ACCOUNTS = 20;

const accountConfig = config({ commitment, encoding: oneOf(ACCOUNT_ENCODINGS), dataSlice, minContextSlot: u64 });

export const getAccountInfo = method([required('pubkey', address), optional('config', accountConfig)], ([key, cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const account = ctx.chain.getAccount(key, c);
  const readAccount = (a: Address) => ctx.chain.getAccount(a, c);
  return withContext(slot, account ? encodeAccount(key, account, { encoding: cfg.encoding as AccountEncoding, dataSlice: cfg.dataSlice, readAccount }) : null);
});

export const getBalance = method([required('pubkey', address), optional('config', commitmentConfig)], ([key, cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  return withContext(slot, ctx.chain.getAccount(key, c)?.lamports ?? 0);
});

export const getMultipleAccounts = method([required('pubkeys', arrayOf(address, MAX_MULTIPLE_ACCOUNTS)), optional('config', accountConfig)], ([keys, cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const encoding = (cfg.encoding ?? 'base64') as AccountEncoding;
  return withContext(
    slot,
    keys.map((k) => {
      const a = ctx.chain.getAccount(k, c);
      return a ? encodeAccount(k, a, { encoding, dataSlice: cfg.dataSlice, readAccount: (m) => ctx.chain.getAccount(m, c) }) : null;
    }),
  );
});

const programAccountsConfig = config({ commitment, encoding: oneOf(ACCOUNT_ENCODINGS), dataSlice, minContextSlot: u64, filters: accountFilters, withContext: bool });

export const getProgramAccounts = method([required('programId', address), optional('config', programAccountsConfig)], ([program, cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const filters = cfg.filters ?? [];
  const out: Array<{ pubkey: Address; account: ReturnType<typeof encodeAccount> }> = [];
  const readAccount = (a: Address) => ctx.chain.getAccount(a, c);
  // Agave's get_parsed_token_accounts: under jsonParsed, token accounts that do not parse are left out.
  const parsedTokens = program === TOKEN_PROGRAM_ID && (cfg.encoding === 'jsonParsed' || cfg.encoding === 'json');
  for (const [key, account] of ctx.chain.bankAt(c).entries()) {
    if (account.owner !== program || !matchesFilters(account, filters)) continue;
    const ui = encodeAccount(key, account, { encoding: cfg.encoding as AccountEncoding, dataSlice: cfg.dataSlice, readAccount });
    if (parsedTokens && Array.isArray(ui.data)) continue;
    out.push({ pubkey: key, account: ui });
  }
  return cfg.withContext ? withContext(slot, out) : out;
});

export const getMinimumBalanceForRentExemption = method([required('dataLength', u64), optional('config', commitmentConfig)], ([len], ctx) => {
  if (len > MAX_PERMITTED_DATA_LENGTH) throw invalidRequest(`Invalid request: data length ${len} exceeds the maximum of ${MAX_PERMITTED_DATA_LENGTH} bytes`);
  return minimumBalanceForRentExemption(ctx.chain.genesis.rent, len);
});

/** The non-circulating set at a commitment (node-core/ledger/non-circulating.ts). */
export function nonCirculatingAccounts(ctx: RpcContext, c: Commitment = 'finalized'): Address[] {
  return nonCirculatingAccountsOf(ctx.chain.bankAt(c), ctx.chain.genesis);
}

/**
 * The 20 largest accounts of the bank, as Agave's Bank::get_largest_accounts counts them: every
 * account, the sysvars and builtin program accounts included, by lamports and then by address
 * bytes, both descending; `circulating` / `nonCirculating` filter by the set getSupply uses.
 */
export const getLargestAccounts = method([optional('config', config({ commitment, filter: oneOf(['circulating', 'nonCirculating'] as const), minContextSlot: u64 }))], ([cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const nonCirculating = new Set(nonCirculatingAccounts(ctx, c));
  const bank = ctx.chain.bankAt(c);
  const candidates: Array<[Address, number]> = [];
  const consider = (key: Address, lamports: number) => {
    if (lamports === 0) return;
    if (cfg.filter === 'circulating' && nonCirculating.has(key)) return;
    if (cfg.filter === 'nonCirculating' && !nonCirculating.has(key)) return;
    candidates.push([key, lamports]);
  };
  for (const [key, account] of bank.entries()) consider(key, account.lamports);
  // Sysvars are rendered from the bank, not stored in it.
  for (const id of SYSVAR_IDS) if (!bank.get(id)) consider(id, ctx.chain.getAccount(id, c)?.lamports ?? 0);
  return withContext(slot, largestFirst(candidates, NUM_LARGEST_ACCOUNTS).map(([address, lamports]) => ({ address, lamports })));
});

/** The `n` entries with the most lamports, ties by address bytes, both descending (Agave's heap order). */
export function largestFirst(entries: Array<[Address, number]>, n: number): Array<[Address, number]> {
  if (entries.length === 0) return [];
  // Only entries at or above the n-th largest balance can place; their addresses are decoded once.
  const threshold = entries.map((e) => e[1]).sort((a, b) => b - a)[Math.min(n, entries.length) - 1]!;
  const placed = entries.filter((e) => e[1] >= threshold).map((e) => ({ e, bytes: Buffer.from(addressToBytes(e[0])) }));
  placed.sort((x, y) => y.e[1] - x.e[1] || Buffer.compare(y.bytes, x.bytes));
  return placed.slice(0, n).map((p) => p.e);
}

export const getSupply = method([optional('config', config({ commitment, excludeNonCirculatingAccountsList: bool, minContextSlot: u64 }))], ([cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const nonCirculatingList = nonCirculatingAccounts(ctx, c);
  const nonCirculating = nonCirculatingLamports(ctx.chain.bankAt(c), nonCirculatingList);
  const total = ctx.chain.capitalizationAt(c);
  return withContext(slot, {
    total,
    circulating: total - nonCirculating,
    nonCirculating,
    nonCirculatingAccounts: cfg.excludeNonCirculatingAccountsList ? [] : nonCirculatingList,
  });
});

/**
 * The faucet signs a system transfer to the recipient and submits it without preflight, as Agave's
 * requestAirdrop does: a transfer that will fail (1 lamport to a new account, a read-only recipient)
 * still answers its signature and lands failed, fee charged. Only a transaction that could never enter
 * a block (the faucet cannot pay the fee) is refused.
 */
export const requestAirdrop = method([required('pubkey', address), required('lamports', u64), optional('config', commitmentConfig)], async ([to, lamports], ctx) => {
  if (lamports === 0) throw invalidParams('Invalid params: lamports: an airdrop must be more than 0 lamports');
  // Signed on a blockhash of the chain after a snapshot, revert or reset in progress (the rest is synchronous).
  await ctx.chain.whenOpen();
  const { blockhash } = ctx.chain.latestBlockhash('processed');
  const faucet = ctx.faucet.address;
  const tx = signTransaction(compileMessage(faucet, [systemTransferInstruction(faucet, to, lamports)], blockhash), [ctx.faucet]);
  try {
    ctx.chain.simulate(tx, 'processed');
  } catch (e) {
    if (e instanceof TransactionError) throw new RpcError(INTERNAL_ERROR, `airdrop request failed: ${e.message}`);
    throw e;
  }
  ctx.chain.submit(tx);
  return tx.id;
});

