/**
 * SPL Token and Associated Token Account against a real node, driven by @solana/spl-token (on
 * web3.js v1) exactly as an application would: mints, ATAs, transfers, delegation, freezing,
 * burning, closing, authorities, multisig and wrapped SOL, the program's error codes, and what the
 * node records and serves about them (logs, inner instructions, token balances, jsonParsed, the
 * token RPC methods in every encoding, PubSub).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram, Transaction, sendAndConfirmTransaction, type Signer, type TokenBalance } from '@solana/web3.js';
import * as spl from '@solana/spl-token';
import bs58 from 'bs58';
import { decompress } from 'fzstd';
import WebSocket from 'ws';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';

const TOKEN = spl.TOKEN_PROGRAM_ID.toBase58();
const ATA_PROGRAM = spl.ASSOCIATED_TOKEN_PROGRAM_ID.toBase58();
const TOKEN_2022 = spl.TOKEN_2022_PROGRAM_ID.toBase58();

let node: TestNode;
let conn: Connection;
let payer: Keypair;

/** The error a failing spl-token call rejects with: its message and logs. */
async function failure(p: Promise<unknown>): Promise<{ message: string; logs: string[] }> {
  try {
    await p;
  } catch (e) {
    const err = e as { message: string; logs?: string[]; getLogs?: unknown };
    return { message: err.message, logs: err.logs ?? [] };
  }
  assert.fail('expected the transaction to fail');
}

async function call(method: string, params: unknown[]): Promise<any> {
  const res = await rpc(node.rpcUrl, method, params);
  if (res.error) return res;
  return res.result;
}

before(async () => {
  node = await startTestNode();
  conn = new Connection(node.rpcUrl, { commitment: 'confirmed', wsEndpoint: node.pubsubUrl });
  payer = Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey);
});

after(async () => {
  if (conn) await closeConnectionSocket(conn);
  await node?.stop();
});

describe('SPL Token with @solana/spl-token', () => {
  let mint: PublicKey;
  let alice: Keypair;
  let bob: Keypair;
  let aliceAta: PublicKey;
  let bobAta: PublicKey;
  let createAtaSig: string;

  before(async () => {
    mint = await spl.createMint(conn, payer, payer.publicKey, payer.publicKey, 6);
    alice = Keypair.generate();
    bob = Keypair.generate();
    aliceAta = spl.getAssociatedTokenAddressSync(mint, alice.publicKey);
    bobAta = spl.getAssociatedTokenAddressSync(mint, bob.publicKey);
    const tx = new Transaction().add(spl.createAssociatedTokenAccountInstruction(payer.publicKey, aliceAta, alice.publicKey, mint));
    createAtaSig = await sendAndConfirmTransaction(conn, tx, [payer]);
    await spl.createAssociatedTokenAccountIdempotent(conn, payer, mint, bob.publicKey);
    await spl.mintTo(conn, payer, mint, aliceAta, payer, 1_000_000n);
    await sendAndConfirmTransaction(conn, new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: alice.publicKey, lamports: LAMPORTS_PER_SOL })), [payer]);
  });

  it('the mint and accounts read back with spl-token\'s own layouts', async () => {
    const m = await spl.getMint(conn, mint);
    assert.equal(m.decimals, 6);
    assert.equal(m.supply, 1_000_000n);
    assert.equal(m.mintAuthority!.toBase58(), payer.publicKey.toBase58());
    assert.equal(m.isInitialized, true);
    const a = await spl.getAccount(conn, aliceAta);
    assert.equal(a.owner.toBase58(), alice.publicKey.toBase58());
    assert.equal(a.mint.toBase58(), mint.toBase58());
    assert.equal(a.amount, 1_000_000n);
    assert.equal(a.isInitialized, true);
    assert.equal(a.isFrozen, false);
  });

  it('creating an ATA runs the System and Token programs as inner instructions (stack height 2)', async () => {
    const tx = await conn.getTransaction(createAtaSig, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
    const logs = tx!.meta!.logMessages!;
    assert.deepEqual(
      logs.filter((l) => l.includes('invoke') || l.startsWith('Program log:')),
      [
        `Program ${ATA_PROGRAM} invoke [1]`,
        'Program log: Create',
        `Program ${TOKEN} invoke [2]`,
        'Program log: Instruction: GetAccountDataSize',
        `Program 11111111111111111111111111111111 invoke [2]`,
        'Program log: Initialize the associated token account',
        `Program ${TOKEN} invoke [2]`,
        'Program log: Instruction: InitializeImmutableOwner',
        'Program log: Please upgrade to SPL Token 2022 for immutable owner support',
        `Program ${TOKEN} invoke [2]`,
        'Program log: Instruction: InitializeAccount3',
      ],
    );
    assert.ok(logs.includes(`Program return: ${TOKEN} pQAAAAAAAAA=`), logs.join('\n'));
    const inner = tx!.meta!.innerInstructions!;
    assert.equal(inner.length, 1);
    assert.equal(inner[0]!.index, 0);
    const keys = tx!.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    assert.deepEqual(
      inner[0]!.instructions.map((i) => [keys[i.programIdIndex], (i as unknown as { stackHeight: number }).stackHeight]),
      [[TOKEN, 2], ['11111111111111111111111111111111', 2], [TOKEN, 2], [TOKEN, 2]],
    );
    // jsonParsed: the top-level ATA instruction and the inner ones, parsed.
    const parsed = await conn.getParsedTransaction(createAtaSig, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
    const top = parsed!.transaction.message.instructions[0] as any;
    assert.equal(top.program, 'spl-associated-token-account');
    assert.deepEqual(top.parsed, {
      type: 'create',
      info: { source: payer.publicKey.toBase58(), account: aliceAta.toBase58(), wallet: alice.publicKey.toBase58(), mint: mint.toBase58(), systemProgram: '11111111111111111111111111111111', tokenProgram: TOKEN },
    });
    const innerParsed = parsed!.meta!.innerInstructions![0]!.instructions as any[];
    assert.deepEqual(innerParsed.map((i) => `${i.program}:${i.parsed.type}`), [
      'spl-token:getAccountDataSize',
      'system:createAccount',
      'spl-token:initializeImmutableOwner',
      'spl-token:initializeAccount3',
    ]);
    assert.deepEqual(innerParsed[0].parsed.info, { mint: mint.toBase58(), extensionTypes: ['immutableOwner'] });
    assert.equal(innerParsed[1].parsed.info.space, 165);
    assert.equal(innerParsed[1].parsed.info.owner, TOKEN);
    assert.equal(innerParsed[3].stackHeight, 2);
    assert.deepEqual(innerParsed[3].parsed.info, { account: aliceAta.toBase58(), mint: mint.toBase58(), owner: alice.publicKey.toBase58() });
  });

  it('transfer and transferChecked: logs, compute units, token balances and the parsed instruction', async () => {
    const sig = await spl.transfer(conn, alice, aliceAta, bobAta, alice, 250_000n);
    const tx = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
    assert.deepEqual(tx!.meta!.logMessages, [
      `Program ${TOKEN} invoke [1]`,
      'Program log: Instruction: Transfer',
      `Program ${TOKEN} consumed 4644 of 200000 compute units`,
      `Program ${TOKEN} success`,
    ]);
    assert.equal(tx!.meta!.computeUnitsConsumed, 4644);
    const keys = tx!.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    const balances = (list: TokenBalance[] | null | undefined) =>
      Object.fromEntries(list!.map((b) => [keys[b.accountIndex], [b.uiTokenAmount.amount, b.uiTokenAmount.uiAmountString, b.owner, b.mint, b.programId]]));
    assert.deepEqual(balances(tx!.meta!.preTokenBalances), {
      [aliceAta.toBase58()]: ['1000000', '1', alice.publicKey.toBase58(), mint.toBase58(), TOKEN],
      [bobAta.toBase58()]: ['0', '0', bob.publicKey.toBase58(), mint.toBase58(), TOKEN],
    });
    assert.deepEqual(balances(tx!.meta!.postTokenBalances), {
      [aliceAta.toBase58()]: ['750000', '0.75', alice.publicKey.toBase58(), mint.toBase58(), TOKEN],
      [bobAta.toBase58()]: ['250000', '0.25', bob.publicKey.toBase58(), mint.toBase58(), TOKEN],
    });
    const post = tx!.meta!.postTokenBalances!.find((b) => keys[b.accountIndex] === bobAta.toBase58())!;
    assert.deepEqual(post.uiTokenAmount, { uiAmount: 0.25, decimals: 6, amount: '250000', uiAmountString: '0.25' });

    const checked = await spl.transferChecked(conn, alice, aliceAta, mint, bobAta, alice, 1_500n, 6);
    const parsed = await conn.getParsedTransaction(checked, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
    const ix = parsed!.transaction.message.instructions[0] as any;
    assert.equal(ix.program, 'spl-token');
    assert.deepEqual(ix.parsed, {
      type: 'transferChecked',
      info: {
        source: aliceAta.toBase58(),
        mint: mint.toBase58(),
        destination: bobAta.toBase58(),
        tokenAmount: { uiAmount: 0.0015, decimals: 6, amount: '1500', uiAmountString: '0.0015' },
        authority: alice.publicKey.toBase58(),
      },
    });
    assert.equal((await spl.getAccount(conn, bobAta)).amount, 251_500n);
  });

  it('failures carry the program\'s custom codes and its error log', async () => {
    const insufficient = await failure(spl.transfer(conn, alice, aliceAta, bobAta, alice, 10_000_000n));
    assert.match(insufficient.message, /custom program error: 0x1\b/);
    assert.ok(insufficient.logs.includes('Program log: Error: insufficient funds'), insufficient.logs.join('\n'));
    const wrongOwner = await failure(spl.transfer(conn, payer, aliceAta, bobAta, payer, 1n));
    assert.match(wrongOwner.message, /custom program error: 0x4\b/);
    assert.ok(wrongOwner.logs.includes('Program log: Error: owner does not match'));
    const decimals = await failure(spl.transferChecked(conn, alice, aliceAta, mint, bobAta, alice, 1n, 9));
    assert.match(decimals.message, /custom program error: 0x12\b/);
    const other = await spl.createMint(conn, payer, payer.publicKey, null, 0);
    const otherAta = await spl.createAssociatedTokenAccount(conn, payer, other, alice.publicKey);
    const mismatch = await failure(spl.transfer(conn, alice, aliceAta, otherAta, alice, 1n));
    assert.match(mismatch.message, /custom program error: 0x3\b/);
    const cannotFreeze = await failure(spl.freezeAccount(conn, payer, otherAta, other, payer));
    assert.match(cannotFreeze.message, /custom program error: 0x10\b/);
    // A failed transaction's meta: the fee taken, token balances unchanged.
    const status = await conn.getSignaturesForAddress(aliceAta, { limit: 1 });
    assert.ok(status.length > 0);
  });

  it('approve, a delegated transfer, revoke; freeze and thaw; burn; close', async () => {
    const carol = Keypair.generate();
    await sendAndConfirmTransaction(conn, new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: carol.publicKey, lamports: LAMPORTS_PER_SOL })), [payer]);
    await spl.approve(conn, alice, aliceAta, carol.publicKey, alice, 5_000n);
    let a = await spl.getAccount(conn, aliceAta);
    assert.equal(a.delegate!.toBase58(), carol.publicKey.toBase58());
    assert.equal(a.delegatedAmount, 5_000n);
    const byDelegate = await call('getTokenAccountsByDelegate', [carol.publicKey.toBase58(), { programId: TOKEN }, { encoding: 'jsonParsed', commitment: 'confirmed' }]);
    assert.deepEqual(byDelegate.value.map((v: any) => v.pubkey), [aliceAta.toBase58()]);
    assert.deepEqual(byDelegate.value[0].account.data.parsed.info.delegatedAmount, { uiAmount: 0.005, decimals: 6, amount: '5000', uiAmountString: '0.005' });
    await spl.transfer(conn, carol, aliceAta, bobAta, carol, 3_000n);
    assert.equal((await spl.getAccount(conn, aliceAta)).delegatedAmount, 2_000n);
    await spl.revoke(conn, alice, aliceAta, alice);
    a = await spl.getAccount(conn, aliceAta);
    assert.equal(a.delegate, null);
    const noLonger = await failure(spl.transfer(conn, carol, aliceAta, bobAta, carol, 1n));
    assert.match(noLonger.message, /custom program error: 0x4\b/);

    await spl.freezeAccount(conn, payer, bobAta, mint, payer);
    assert.equal((await spl.getAccount(conn, bobAta)).isFrozen, true);
    const frozen = await failure(spl.transfer(conn, alice, aliceAta, bobAta, alice, 1n));
    assert.match(frozen.message, /custom program error: 0x11\b/);
    assert.ok(frozen.logs.includes('Program log: Error: Account is frozen'));
    await spl.thawAccount(conn, payer, bobAta, mint, payer);
    assert.equal((await spl.getAccount(conn, bobAta)).isFrozen, false);

    const supplyBefore = (await spl.getMint(conn, mint)).supply;
    await spl.burn(conn, alice, aliceAta, mint, alice, 1_000n);
    await spl.burnChecked(conn, alice, aliceAta, mint, alice, 500n, 6);
    assert.equal((await spl.getMint(conn, mint)).supply, supplyBefore - 1_500n);

    // Close: refused with a balance (11), then emptied and closed, its rent back to the owner.
    const closing = await spl.createAccount(conn, payer, mint, carol.publicKey, Keypair.generate());
    await spl.mintTo(conn, payer, mint, closing, payer, 10n);
    const hasBalance = await failure(spl.closeAccount(conn, carol, closing, carol.publicKey, carol));
    assert.match(hasBalance.message, /custom program error: 0xb\b/);
    await spl.burn(conn, carol, closing, mint, carol, 10n);
    const rent = (await conn.getAccountInfo(closing))!.lamports;
    const before = await conn.getBalance(carol.publicKey);
    await spl.closeAccount(conn, carol, closing, carol.publicKey, carol);
    assert.equal(await conn.getAccountInfo(closing), null);
    assert.equal(await conn.getBalance(carol.publicKey), before + rent - 5000);
  });

  it('set authority: a new account owner, a fixed supply', async () => {
    const fixed = await spl.createMint(conn, payer, payer.publicKey, null, 2);
    const acct = await spl.createAssociatedTokenAccount(conn, payer, fixed, payer.publicKey);
    await spl.mintTo(conn, payer, fixed, acct, payer, 100n);
    await spl.setAuthority(conn, payer, acct, payer, spl.AuthorityType.AccountOwner, alice.publicKey);
    assert.equal((await spl.getAccount(conn, acct)).owner.toBase58(), alice.publicKey.toBase58());
    await spl.setAuthority(conn, payer, fixed, payer, spl.AuthorityType.MintTokens, null);
    assert.equal((await spl.getMint(conn, fixed)).mintAuthority, null);
    const fixedSupply = await failure(spl.mintTo(conn, payer, fixed, acct, payer, 1n));
    assert.match(fixedSupply.message, /custom program error: 0x5\b/);
  });

  it('a 2-of-3 multisig mint authority', async () => {
    const signers = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
    const multisig = await spl.createMultisig(conn, payer, signers.map((s) => s.publicKey), 2);
    const info = await spl.getMultisig(conn, multisig);
    assert.equal(info.m, 2);
    assert.equal(info.n, 3);
    assert.equal(info.signer3.toBase58(), signers[2]!.publicKey.toBase58());
    const msMint = await spl.createMint(conn, payer, multisig, null, 0);
    const dest = await spl.createAssociatedTokenAccount(conn, payer, msMint, bob.publicKey);
    await spl.mintTo(conn, payer, msMint, dest, multisig, 7n, [signers[0]!, signers[2]!]);
    assert.equal((await spl.getAccount(conn, dest)).amount, 7n);
    const oneSigner = await failure(spl.mintTo(conn, payer, msMint, dest, multisig, 1n, [signers[1]!]));
    assert.match(oneSigner.message, /missing required signature/);
    const parsed = await conn.getParsedAccountInfo(multisig);
    assert.deepEqual((parsed.value!.data as any).parsed, {
      type: 'multisig',
      info: { numRequiredSigners: 2, numValidSigners: 3, isInitialized: true, signers: signers.map((s) => s.publicKey.toBase58()) },
    });
  });

  it('wrapped SOL: wrap, sync native, unwrap by closing', async () => {
    const owner = Keypair.generate();
    await sendAndConfirmTransaction(conn, new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: owner.publicKey, lamports: 3 * LAMPORTS_PER_SOL })), [payer]);
    const wsol = await spl.createWrappedNativeAccount(conn, owner, owner.publicKey, LAMPORTS_PER_SOL);
    let account = await spl.getAccount(conn, wsol);
    assert.equal(account.isNative, true);
    assert.equal(account.amount, BigInt(LAMPORTS_PER_SOL));
    await sendAndConfirmTransaction(conn, new Transaction().add(SystemProgram.transfer({ fromPubkey: owner.publicKey, toPubkey: wsol, lamports: 5_000_000 })), [owner]);
    assert.equal((await spl.getAccount(conn, wsol)).amount, BigInt(LAMPORTS_PER_SOL));
    await spl.syncNative(conn, owner, wsol);
    account = await spl.getAccount(conn, wsol);
    assert.equal(account.amount, BigInt(LAMPORTS_PER_SOL + 5_000_000));
    const balance = await conn.getTokenAccountBalance(wsol);
    assert.equal(balance.value.decimals, 9);
    assert.equal(balance.value.uiAmountString, '1.005');
    const parsed = (await conn.getParsedAccountInfo(wsol)).value!.data as any;
    assert.equal(parsed.parsed.info.isNative, true);
    assert.equal(parsed.parsed.info.rentExemptReserve.amount, String(await conn.getMinimumBalanceForRentExemption(165)));
    const notNative = await failure(spl.syncNative(conn, owner, aliceAta));
    assert.match(notNative.message, /custom program error: 0x13\b/);
    const before = await conn.getBalance(owner.publicKey);
    const lamportsHeld = (await conn.getAccountInfo(wsol))!.lamports;
    await spl.closeAccount(conn, owner, wsol, owner.publicKey, owner);
    assert.equal(await conn.getBalance(owner.publicKey), before + lamportsHeld - 5000);
  });

  it('amountToUiAmount and uiAmountToAmount through simulation return data', async () => {
    assert.equal(await spl.amountToUiAmount(conn, payer, mint, 1_234_500n), '1.2345');
    assert.equal(await spl.uiAmountToAmount(conn, payer, mint, '2.5'), 2_500_000n);
  });
});

describe('token RPC methods', () => {
  let mint: PublicKey;
  let holder: Keypair;
  let accounts: PublicKey[];
  let uninitialized: Keypair;

  before(async () => {
    mint = await spl.createMint(conn, payer, payer.publicKey, null, 3);
    holder = Keypair.generate();
    accounts = [];
    for (const amount of [500n, 2_000n, 1_000n]) {
      const acct = await spl.createAccount(conn, payer, mint, holder.publicKey, Keypair.generate());
      await spl.mintTo(conn, payer, mint, acct, payer, amount);
      accounts.push(acct);
    }
    // A token-program account that was never initialized: no mint, so jsonParsed leaves it out.
    uninitialized = Keypair.generate();
    const rent = await conn.getMinimumBalanceForRentExemption(165);
    await sendAndConfirmTransaction(
      conn,
      new Transaction().add(SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: uninitialized.publicKey, lamports: rent, space: 165, programId: spl.TOKEN_PROGRAM_ID })),
      [payer, uninitialized] as Signer[],
    );
  });

  it('getTokenAccountBalance and getTokenSupply', async () => {
    const bal = await call('getTokenAccountBalance', [accounts[1]!.toBase58(), { commitment: 'confirmed' }]);
    assert.deepEqual(bal.value, { uiAmount: 2, decimals: 3, amount: '2000', uiAmountString: '2' });
    assert.equal(typeof bal.context.slot, 'number');
    const supply = await call('getTokenSupply', [mint.toBase58(), { commitment: 'confirmed' }]);
    assert.deepEqual(supply.value, { uiAmount: 3.5, decimals: 3, amount: '3500', uiAmountString: '3.5' });
    const viaWeb3 = await conn.getTokenSupply(mint);
    assert.equal(viaWeb3.value.amount, '3500');
  });

  it('getTokenLargestAccounts, largest first', async () => {
    const largest = await call('getTokenLargestAccounts', [mint.toBase58(), { commitment: 'confirmed' }]);
    assert.deepEqual(largest.value, [
      { address: accounts[1]!.toBase58(), uiAmount: 2, decimals: 3, amount: '2000', uiAmountString: '2' },
      { address: accounts[2]!.toBase58(), uiAmount: 1, decimals: 3, amount: '1000', uiAmountString: '1' },
      { address: accounts[0]!.toBase58(), uiAmount: 0.5, decimals: 3, amount: '500', uiAmountString: '0.5' },
    ]);
    const viaWeb3 = await conn.getTokenLargestAccounts(mint);
    assert.equal(viaWeb3.value.length, 3);
  });

  it('getTokenAccountsByOwner in every encoding, by mint and by program', async () => {
    const owner = holder.publicKey.toBase58();
    const sorted = (v: any[]) => v.map((x) => x.pubkey).sort();
    const expected = accounts.map((a) => a.toBase58()).sort();
    const base64 = await call('getTokenAccountsByOwner', [owner, { mint: mint.toBase58() }, { encoding: 'base64', commitment: 'confirmed' }]);
    assert.deepEqual(sorted(base64.value), expected);
    const raw = Buffer.from(base64.value[0].account.data[0], 'base64');
    assert.equal(raw.length, 165);
    assert.equal(bs58.encode(raw.subarray(32, 64)), owner);
    const zstd = await call('getTokenAccountsByOwner', [owner, { programId: TOKEN }, { encoding: 'base64+zstd', commitment: 'confirmed' }]);
    assert.deepEqual(sorted(zstd.value), expected);
    assert.equal(zstd.value[0].account.data[1], 'base64+zstd');
    assert.equal(decompress(Buffer.from(zstd.value[0].account.data[0], 'base64')).length, 165);
    // base58 cannot carry 165 bytes; a dataSlice makes it fit.
    const b58 = await call('getTokenAccountsByOwner', [owner, { programId: TOKEN }, { encoding: 'base58', commitment: 'confirmed' }]);
    assert.equal(b58.error.code, -32600);
    assert.match(b58.error.message, /base 58/);
    const sliced = await call('getTokenAccountsByOwner', [owner, { programId: TOKEN }, { encoding: 'base58', dataSlice: { offset: 64, length: 8 }, commitment: 'confirmed' }]);
    const amounts = sliced.value.map((v: any) => Buffer.from(bs58.decode(v.account.data[0])).readBigUInt64LE(0)).sort((x: bigint, y: bigint) => (x < y ? -1 : 1));
    assert.deepEqual(amounts, [500n, 1000n, 2000n]);
    const parsed = await call('getTokenAccountsByOwner', [owner, { mint: mint.toBase58() }, { encoding: 'jsonParsed', commitment: 'confirmed' }]);
    const first = parsed.value.find((v: any) => v.pubkey === accounts[0]!.toBase58());
    assert.deepEqual(first.account.data, {
      program: 'spl-token',
      parsed: {
        type: 'account',
        info: { mint: mint.toBase58(), owner, tokenAmount: { uiAmount: 0.5, decimals: 3, amount: '500', uiAmountString: '0.5' }, state: 'initialized', isNative: false },
      },
      space: 165,
    });
    assert.equal(first.account.owner, TOKEN);
    const viaWeb3 = await conn.getParsedTokenAccountsByOwner(holder.publicKey, { mint });
    assert.equal(viaWeb3.value.length, 3);
    // Without an encoding Agave answers legacy base-58 (binary), which cannot carry a token account.
    const binary = await call('getTokenAccountsByOwner', [owner, { programId: TOKEN }, { commitment: 'confirmed' }]);
    assert.equal(binary.error.code, -32600);
    const json = await call('getTokenAccountsByOwner', [owner, { programId: TOKEN }, { encoding: 'json', commitment: 'confirmed' }]);
    assert.equal(json.value[0].account.data.program, 'spl-token');
    const none = await call('getTokenAccountsByOwner', [Keypair.generate().publicKey.toBase58(), { programId: TOKEN }, { encoding: 'base64' }]);
    assert.deepEqual(none.value, []);
  });

  it('jsonParsed leaves out token accounts that do not parse; other encodings keep them', async () => {
    // The uninitialized account's owner field is all zeros: the System program's address.
    const zeroOwner = '11111111111111111111111111111111';
    const b64 = await call('getTokenAccountsByOwner', [zeroOwner, { programId: TOKEN }, { encoding: 'base64', commitment: 'confirmed' }]);
    assert.ok(b64.value.some((v: any) => v.pubkey === uninitialized.publicKey.toBase58()));
    const parsed = await call('getTokenAccountsByOwner', [zeroOwner, { programId: TOKEN }, { encoding: 'jsonParsed', commitment: 'confirmed' }]);
    assert.ok(!parsed.value.some((v: any) => v.pubkey === uninitialized.publicKey.toBase58()));
    const gpaParsed = await call('getProgramAccounts', [TOKEN, { encoding: 'jsonParsed', commitment: 'confirmed', filters: [{ dataSize: 165 }] }]);
    const gpaKeys = gpaParsed.map((v: any) => v.pubkey);
    assert.ok(!gpaKeys.includes(uninitialized.publicKey.toBase58()));
    assert.ok(gpaKeys.includes(accounts[0]!.toBase58()));
    const gpaRaw = await call('getProgramAccounts', [TOKEN, { encoding: 'base64', commitment: 'confirmed', filters: [{ dataSize: 165 }] }]);
    assert.ok(gpaRaw.some((v: any) => v.pubkey === uninitialized.publicKey.toBase58()));
    // getAccountInfo falls back to base64 for it, and parses the mint.
    const info = await call('getAccountInfo', [uninitialized.publicKey.toBase58(), { encoding: 'jsonParsed', commitment: 'confirmed' }]);
    assert.equal(info.value.data[1], 'base64');
    const mintInfo = await call('getAccountInfo', [mint.toBase58(), { encoding: 'jsonParsed', commitment: 'confirmed' }]);
    assert.deepEqual(mintInfo.value.data, {
      program: 'spl-token',
      parsed: { type: 'mint', info: { mintAuthority: payer.publicKey.toBase58(), supply: '3500', decimals: 3, isInitialized: true, freezeAuthority: null } },
      space: 82,
    });
  });

  it('simulateTransaction reports return data and, when asked, the parsed inner instructions', async () => {
    const wallet = Keypair.generate().publicKey;
    const tx = new Transaction().add(spl.createAssociatedTokenAccountInstruction(payer.publicKey, spl.getAssociatedTokenAddressSync(mint, wallet), wallet, mint));
    tx.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
    tx.feePayer = payer.publicKey;
    tx.sign(payer);
    const encoded = tx.serialize().toString('base64');
    const sim = await call('simulateTransaction', [encoded, { encoding: 'base64', commitment: 'confirmed', innerInstructions: true }]);
    assert.equal(sim.value.err, null);
    assert.deepEqual(sim.value.innerInstructions[0].instructions.map((i: any) => `${i.program}:${i.parsed.type}:${i.stackHeight}`), [
      'spl-token:getAccountDataSize:2',
      'system:createAccount:2',
      'spl-token:initializeImmutableOwner:2',
      'spl-token:initializeAccount3:2',
    ]);
    const plain = await call('simulateTransaction', [encoded, { encoding: 'base64', commitment: 'confirmed' }]);
    assert.equal(plain.value.innerInstructions, null);
    const ui = new Transaction().add(spl.createAmountToUiAmountInstruction(mint, 1234n));
    ui.recentBlockhash = tx.recentBlockhash;
    ui.feePayer = payer.publicKey;
    ui.sign(payer);
    const ret = await call('simulateTransaction', [ui.serialize().toString('base64'), { encoding: 'base64', commitment: 'confirmed' }]);
    assert.deepEqual(ret.value.returnData, { programId: TOKEN, data: [Buffer.from('1.234').toString('base64'), 'base64'] });
  });

  it('wrong accounts get Agave\'s errors', async () => {
    const err = async (method: string, params: unknown[]) => (await rpc(node.rpcUrl, method, params)).error;
    const stranger = Keypair.generate().publicKey.toBase58();
    assert.deepEqual(await err('getTokenAccountBalance', [stranger]), { code: -32602, message: 'Invalid param: could not find account' });
    assert.deepEqual(await err('getTokenAccountBalance', [payer.publicKey.toBase58()]), { code: -32602, message: 'Invalid param: not a Token account' });
    assert.deepEqual(await err('getTokenAccountBalance', [mint.toBase58()]), { code: -32602, message: 'Invalid param: not a Token account' });
    assert.deepEqual(await err('getTokenSupply', [payer.publicKey.toBase58()]), { code: -32602, message: 'Invalid param: not a Token mint' });
    assert.deepEqual(await err('getTokenSupply', [accounts[0]!.toBase58()]), { code: -32602, message: 'Invalid param: mint could not be unpacked' });
    assert.deepEqual(await err('getTokenLargestAccounts', [stranger]), { code: -32602, message: 'Invalid param: could not find mint' });
    assert.deepEqual(await err('getTokenAccountsByOwner', [stranger, { programId: stranger }]), { code: -32602, message: 'Invalid param: unrecognized Token program id' });
    assert.match((await err('getTokenAccountsByOwner', [stranger, { programId: TOKEN_2022 }])).message, /Token-2022 is not available on this node/);
    assert.equal((await err('getTokenAccountsByOwner', [stranger, {}])).code, -32602);
    assert.equal((await err('getTokenAccountsByOwner', [stranger])).code, -32602);
  });

  it('PubSub: jsonParsed account notifications, and programSubscribe leaves out what does not parse', async () => {
    const ws = new WebSocket(node.pubsubUrl);
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    const messages: any[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(String(d))));
    const subscribe = async (id: number, method: string, params: unknown[]) => {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      return (await waitFor(() => messages.find((m) => m.id === id), { what: `${method} response` })).result as number;
    };
    const accountSub = await subscribe(1, 'accountSubscribe', [accounts[0]!.toBase58(), { encoding: 'jsonParsed', commitment: 'processed' }]);
    const programSub = await subscribe(2, 'programSubscribe', [TOKEN, { encoding: 'jsonParsed', commitment: 'processed' }]);
    // Touch the uninitialized account (lamports in) and the token account (a mint to it).
    await sendAndConfirmTransaction(conn, new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: uninitialized.publicKey, lamports: 1000 })), [payer]);
    await spl.mintTo(conn, payer, mint, accounts[0]!, payer, 1n);
    const accountNote = await waitFor(() => messages.find((m) => m.params?.subscription === accountSub), { what: 'account notification' });
    assert.equal(accountNote.params.result.value.data.parsed.info.tokenAmount.amount, '501');
    const programNotes = await waitFor(() => {
      const notes = messages.filter((m) => m.params?.subscription === programSub);
      return notes.some((n) => n.params.result.value.pubkey === accounts[0]!.toBase58()) ? notes : null;
    }, { what: 'program notification' });
    assert.ok(!programNotes!.some((n: any) => n.params.result.value.pubkey === uninitialized.publicKey.toBase58()));
    ws.close();
  });
});
