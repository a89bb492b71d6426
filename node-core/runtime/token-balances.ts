/**
 * preTokenBalances / postTokenBalances of a transaction's meta (Agave's collect_token_balances):
 * one entry per loaded account that is an initialized SPL Token account whose mint's decimals are
 * known (the native mint is 9; other mints are read from the same state). Program ids are skipped.
 */
import type { Address } from '../common/pubkey.ts';
import type { Account } from './account.ts';
import { uiTokenAmount, type UiTokenAmount } from './programs/token/amount.ts';
import { NATIVE_MINT, NATIVE_MINT_DECIMALS, TOKEN_PROGRAM_ID, tokenBalanceFields } from './programs/token/state.ts';

export interface TokenBalance {
  accountIndex: number;
  mint: Address;
  uiTokenAmount: UiTokenAmount;
  owner: Address;
  programId: Address;
}

/** The decimals of an initialized mint account, or null. */
export function mintDecimals(mint: Address, account: Account | null): number | null {
  if (mint === NATIVE_MINT) return NATIVE_MINT_DECIMALS;
  if (!account || account.owner !== TOKEN_PROGRAM_ID || account.data.length !== 82 || account.data[45] !== 1) return null;
  return account.data[44]!;
}

/** No token balances: one frozen array shared by every transaction without any (the banks keep them until rooted). */
export const NO_TOKEN_BALANCES: TokenBalance[] = Object.freeze([]) as unknown as TokenBalance[];

/**
 * `accounts[i]` is the state of `keys[i]`; `read` finds mints outside the transaction. `isProgram`
 * marks the keys the transaction calls as programs.
 */
export function collectTokenBalances(
  keys: readonly Address[],
  accounts: readonly Account[],
  isProgram: (index: number) => boolean,
  read: (address: Address) => Account | null,
): TokenBalance[] {
  let out: TokenBalance[] | null = null;
  let decimalsByMint: Map<Address, number | null> | null = null;
  for (let i = 0; i < keys.length; i++) {
    const a = accounts[i]!;
    if (a.owner !== TOKEN_PROGRAM_ID || isProgram(i)) continue;
    const token = tokenBalanceFields(a.data);
    if (token === null) continue;
    const mint = token.mint;
    decimalsByMint ??= new Map();
    let decimals = decimalsByMint.get(mint);
    if (decimals === undefined) {
      const at = keys.indexOf(mint);
      decimals = mintDecimals(mint, at >= 0 ? accounts[at]! : read(mint));
      decimalsByMint.set(mint, decimals);
    }
    if (decimals === null) continue;
    (out ??= []).push({ accountIndex: i, mint, uiTokenAmount: uiTokenAmount(token.amount, decimals), owner: token.owner, programId: TOKEN_PROGRAM_ID });
  }
  return out ?? NO_TOKEN_BALANCES;
}
