/**
 * The SPL Token methods, with Agave's checks and messages (rpc.rs): getTokenAccountBalance,
 * getTokenSupply, getTokenLargestAccounts, getTokenAccountsByOwner, getTokenAccountsByDelegate.
 * Amounts come as UiTokenAmount with the mint's decimals; under jsonParsed, token accounts whose
 * mint cannot be read are left out. Token-2022 does not run on this node and is refused by name.
 */
import { addressToBytes, type Address } from '../../common/pubkey.ts';
import type { Account } from '../../runtime/account.ts';
import { uiTokenAmount } from '../../runtime/programs/token/amount.ts';
import { ACCOUNT_LEN, NATIVE_MINT, NATIVE_MINT_DECIMALS, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, unpackAccount, unpackMint } from '../../runtime/programs/token/state.ts';
import { contextSlot, withContext, type RpcContext } from '../context.ts';
import { encodeAccount, type AccountEncoding, type UiAccount } from '../encoding/account.ts';
import { invalidParams } from '../errors.ts';
import { matchesFilters, type AccountFilter } from '../filters.ts';
import { ACCOUNT_ENCODINGS, address, commitment, commitmentConfig, config, dataSlice, fail, oneOf, optional, required, u64, type Parse, type ParamValues } from '../params.ts';
import { NUM_LARGEST_ACCOUNTS } from './accounts.ts';
import { method } from './method.ts';

const notTokenAccount = () => invalidParams('Invalid param: not a Token account');
const notTokenMint = () => invalidParams('Invalid param: not a Token mint');
const token2022 = () => invalidParams(`Invalid param: Token-2022 is not available on this node; only SPL Token (${TOKEN_PROGRAM_ID}) is`);

type Reader = (a: Address) => Account | null;

function reader(ctx: RpcContext, c: Parameters<RpcContext['chain']['getAccount']>[1]): Reader {
  return (a) => ctx.chain.getAccount(a, c);
}

/** get_mint_owner_and_additional_data: the mint account's owner and decimals (the native mint needs no account). */
function mintInfo(read: Reader, mint: Address): { owner: Address; decimals: number } {
  if (mint === NATIVE_MINT) return { owner: TOKEN_PROGRAM_ID, decimals: NATIVE_MINT_DECIMALS };
  const account = read(mint);
  if (!account) throw invalidParams('Invalid param: could not find mint');
  try {
    return { owner: account.owner, decimals: unpackMint(account.data).decimals };
  } catch {
    throw invalidParams('Invalid param: mint could not be unpacked');
  }
}

/** A mint of the token program, else Agave's "not a Token mint" (or the Token-2022 refusal). */
function tokenMint(read: Reader, mint: Address): number {
  const { owner, decimals } = mintInfo(read, mint);
  if (owner === TOKEN_2022_PROGRAM_ID) throw token2022();
  if (owner !== TOKEN_PROGRAM_ID) throw notTokenMint();
  return decimals;
}

export const getTokenAccountBalance = method([required('pubkey', address), optional('config', commitmentConfig)], ([key, cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const read = reader(ctx, c);
  const account = read(key);
  if (!account) throw invalidParams('Invalid param: could not find account');
  if (account.owner === TOKEN_2022_PROGRAM_ID) throw token2022();
  if (account.owner !== TOKEN_PROGRAM_ID) throw notTokenAccount();
  let token;
  try {
    token = unpackAccount(account.data);
  } catch {
    throw notTokenAccount();
  }
  return withContext(slot, uiTokenAmount(token.amount, mintInfo(read, token.mint).decimals));
});

export const getTokenSupply = method([required('pubkey', address), optional('config', commitmentConfig)], ([key, cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const account = ctx.chain.getAccount(key, c);
  if (!account) throw invalidParams('Invalid param: could not find account');
  if (account.owner === TOKEN_2022_PROGRAM_ID) throw token2022();
  if (account.owner !== TOKEN_PROGRAM_ID) throw notTokenMint();
  let mint;
  try {
    mint = unpackMint(account.data);
  } catch {
    throw invalidParams('Invalid param: mint could not be unpacked');
  }
  return withContext(slot, uiTokenAmount(mint.supply, mint.decimals));
});

/** Token accounts of the bank matching `filters` (dataSize 165 implied). */
function* tokenAccounts(ctx: RpcContext, c: Parameters<RpcContext['chain']['bankAt']>[0], filters: AccountFilter[]): Iterable<[Address, Account]> {
  for (const entry of ctx.chain.bankAt(c).entries()) {
    const a = entry[1];
    if (a.owner === TOKEN_PROGRAM_ID && a.data.length === ACCOUNT_LEN && matchesFilters(a, filters)) yield entry;
  }
}

export const getTokenLargestAccounts = method([required('pubkey', address), optional('config', commitmentConfig)], ([mint, cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const decimals = tokenMint(reader(ctx, c), mint);
  const filters: AccountFilter[] = [{ memcmp: { offset: 0, bytes: addressToBytes(mint) } }];
  const all: Array<{ address: Address; key: Uint8Array; amount: bigint }> = [];
  for (const [address, account] of tokenAccounts(ctx, c, filters)) {
    let amount = 0n;
    try {
      amount = unpackAccount(account.data).amount;
    } catch {
      // As Agave: an account that does not unpack counts as holding nothing.
    }
    all.push({ address, key: addressToBytes(address), amount });
  }
  // Agave keeps a min-heap of (amount, pubkey): largest first, ties by the larger key.
  all.sort((x, y) => (x.amount !== y.amount ? (y.amount > x.amount ? 1 : -1) : Buffer.compare(y.key, x.key)));
  return withContext(
    slot,
    all.slice(0, NUM_LARGEST_ACCOUNTS).map((e) => ({ address: e.address, ...uiTokenAmount(e.amount, decimals) })),
  );
});

type TokenAccountsFilter = { mint: Address } | { programId: Address };

const tokenAccountsFilter: Parse<TokenAccountsFilter, { mint: Address } | { programId: Address }> = (v, name) => {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const f = v as Record<string, unknown>;
    if (f.mint !== undefined) return { mint: address(f.mint, `${name}.mint`) };
    if (f.programId !== undefined) return { programId: address(f.programId, `${name}.programId`) };
  }
  return fail(name, '{"mint": <pubkey>} or {"programId": <pubkey>}', v);
};

const accountsConfig = config({ commitment, encoding: oneOf(ACCOUNT_ENCODINGS), dataSlice, minContextSlot: u64 });

/** get_token_program_id_and_mint: the mint filter's check, or the program id's. */
function mintFilter(read: Reader, filter: TokenAccountsFilter): AccountFilter[] {
  if ('mint' in filter) {
    tokenMint(read, filter.mint);
    return [{ memcmp: { offset: 0, bytes: addressToBytes(filter.mint) } }];
  }
  if (filter.programId === TOKEN_2022_PROGRAM_ID) throw token2022();
  if (filter.programId !== TOKEN_PROGRAM_ID) throw invalidParams('Invalid param: unrecognized Token program id');
  return [];
}

const tokenAccountsParams = [required('pubkey', address), required('filter', tokenAccountsFilter), optional('config', accountsConfig)] as const;

function tokenAccountsBy([key, filter, cfg = {}]: ParamValues<typeof tokenAccountsParams>, ctx: RpcContext, by: (key: Address) => AccountFilter) {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const read = reader(ctx, c);
  const filters = [by(key), ...mintFilter(read, filter)];
  const encoding = cfg.encoding as AccountEncoding | undefined;
  const parsed = encoding === 'jsonParsed' || encoding === 'json';
  const out: Array<{ pubkey: Address; account: UiAccount }> = [];
  for (const [pubkey, account] of tokenAccounts(ctx, c, filters)) {
    const ui = encodeAccount(pubkey, account, { encoding, dataSlice: cfg.dataSlice, readAccount: read });
    // get_parsed_token_accounts: accounts that do not parse (no readable mint) are left out.
    if (parsed && Array.isArray(ui.data)) continue;
    out.push({ pubkey, account: ui });
  }
  return withContext(slot, out);
}

export const getTokenAccountsByOwner = method(tokenAccountsParams, (args, ctx) =>
  tokenAccountsBy(args, ctx, (owner) => ({ memcmp: { offset: 32, bytes: addressToBytes(owner) } })),
);

export const getTokenAccountsByDelegate = method(tokenAccountsParams, (args, ctx) =>
  // COption<Pubkey>: the Some tag, then the delegate.
  tokenAccountsBy(args, ctx, (delegate) => {
    const bytes = new Uint8Array(36);
    bytes[0] = 1;
    bytes.set(addressToBytes(delegate), 4);
    return { memcmp: { offset: 72, bytes } };
  }),
);
