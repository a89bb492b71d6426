/** A transaction's token balances (Agave's collect_token_balances): which accounts count and what each reports. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateKeypair } from '../../node-core/keys/keypair.ts';
import type { Account } from '../../node-core/runtime/account.ts';
import { ACCOUNT_LEN, MINT_LEN, NATIVE_MINT, TOKEN_PROGRAM_ID, packAccount, packMint, type TokenAccount } from '../../node-core/runtime/programs/token/state.ts';
import { collectTokenBalances } from '../../node-core/runtime/token-balances.ts';

const address = () => generateKeypair().address;
const mint = address();
const owner = address();

function tokenAccount(fields: Partial<TokenAccount> = {}): Account {
  const data = new Uint8Array(ACCOUNT_LEN);
  packAccount({ mint, owner, amount: 1_234_500n, delegate: null, state: 'initialized', isNative: null, delegatedAmount: 0n, closeAuthority: null, ...fields }, data);
  return { lamports: 2_039_280, data, owner: TOKEN_PROGRAM_ID, executable: false, rentEpoch: 0 };
}

function mintAccount(decimals: number): Account {
  const data = new Uint8Array(MINT_LEN);
  packMint({ mintAuthority: owner, supply: 10n ** 12n, decimals, isInitialized: true, freezeAuthority: null }, data);
  return { lamports: 1_461_600, data, owner: TOKEN_PROGRAM_ID, executable: false, rentEpoch: 0 };
}

const plain: Account = { lamports: 1e9, data: new Uint8Array(0), owner: '11111111111111111111111111111111', executable: false, rentEpoch: 0 };
const readMint = (decimals: number) => (a: string) => (a === mint ? mintAccount(decimals) : null);

test('an initialized or frozen token account reports its mint, owner and amount at the mint\'s decimals', () => {
  const keys = [address(), address(), address()];
  const out = collectTokenBalances(keys, [plain, tokenAccount(), tokenAccount({ state: 'frozen', amount: 7n })], () => false, readMint(4));
  assert.deepEqual(out, [
    { accountIndex: 1, mint, owner, programId: TOKEN_PROGRAM_ID, uiTokenAmount: { amount: '1234500', decimals: 4, uiAmount: 123.45, uiAmountString: '123.45' } },
    { accountIndex: 2, mint, owner, programId: TOKEN_PROGRAM_ID, uiTokenAmount: { amount: '7', decimals: 4, uiAmount: 0.0007, uiAmountString: '0.0007' } },
  ]);
});

test('the mint is read from the transaction\'s own accounts first', () => {
  const keys = [mint, address()];
  const out = collectTokenBalances(keys, [mintAccount(2), tokenAccount()], () => false, () => assert.fail('read outside the transaction'));
  assert.equal(out.length, 1);
  assert.equal(out[0]!.uiTokenAmount.uiAmountString, '12345');
});

test('skipped: an uninitialized account, one whose option tag or state Account::unpack refuses, a program id, an unknown mint', () => {
  const keys = [address(), address(), address(), address(), address()];
  const badDelegateTag = tokenAccount();
  badDelegateTag.data[72] = 2;
  const badCloseTag = tokenAccount();
  badCloseTag.data[131] = 1;
  const badState = tokenAccount();
  badState.data[108] = 3;
  const accounts = [tokenAccount({ state: 'uninitialized' }), badDelegateTag, badCloseTag, badState, tokenAccount()];
  assert.deepEqual(collectTokenBalances(keys, accounts, () => false, readMint(0)).map((b) => b.accountIndex), [4]);
  assert.deepEqual(collectTokenBalances(keys, accounts, (i) => i === 4, readMint(0)), []);
  assert.deepEqual(collectTokenBalances(keys, accounts, () => false, () => null), []);
  assert.equal(collectTokenBalances([address()], [tokenAccount({ mint: NATIVE_MINT })], () => false, () => null)[0]!.uiTokenAmount.decimals, 9);
});
