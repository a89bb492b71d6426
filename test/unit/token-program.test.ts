/**
 * SPL Token pieces: the account layouts against @solana/spl-token's own codecs, amounts as text,
 * program-derived addresses against web3.js, instruction decoding against spl-token's encoders,
 * the logs and compute units the program reports, and the jsonParsed shapes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Keypair, PublicKey } from '@solana/web3.js';
import * as spl from '@solana/spl-token';
import { findProgramAddress, isOnCurve } from '../../node-core/common/pda.ts';
import { SYSTEM_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { amountToUiAmountString, amountToUiAmountStringTrimmed, uiAmountToAmount, uiTokenAmount } from '../../node-core/runtime/programs/token/amount.ts';
import { decodeTokenInstruction, encodeTokenInstruction, instructionLogName, type TokenInstruction } from '../../node-core/runtime/programs/token/instruction.ts';
import { decodeAssociatedTokenInstruction, encodeAssociatedTokenInstruction } from '../../node-core/runtime/programs/associated-token.ts';
import {
  ACCOUNT_LEN,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  MINT_LEN,
  MULTISIG_LEN,
  TOKEN_PROGRAM_ID,
  packAccount,
  packMint,
  packMultisig,
  unpackAccount,
  unpackAccountUnchecked,
  unpackMint,
  unpackMultisig,
} from '../../node-core/runtime/programs/token/state.ts';
import { parseAssociatedTokenInstruction, parseTokenAccountData, parseTokenInstruction } from '../../node-core/rpc/encoding/parsed/token.ts';
import { InstructionError } from '../../node-core/runtime/errors.ts';

const key = () => Keypair.generate().publicKey;
const b58 = (k: PublicKey) => k.toBase58();

describe('account layouts', () => {
  test('a token account packs as spl-token\'s AccountLayout reads it, and back', () => {
    const [mint, owner, delegate, close] = [key(), key(), key(), key()];
    const data = new Uint8Array(ACCOUNT_LEN);
    packAccount({ mint: b58(mint), owner: b58(owner), amount: 12345678901234n, delegate: b58(delegate), state: 'frozen', isNative: 2039280n, delegatedAmount: 77n, closeAuthority: b58(close) }, data);
    const theirs = spl.AccountLayout.decode(Buffer.from(data));
    assert.equal(theirs.mint.toBase58(), b58(mint));
    assert.equal(theirs.owner.toBase58(), b58(owner));
    assert.equal(theirs.amount, 12345678901234n);
    assert.equal(theirs.delegateOption, 1);
    assert.equal(theirs.delegate.toBase58(), b58(delegate));
    assert.equal(theirs.state, spl.AccountState.Frozen);
    assert.equal(theirs.isNativeOption, 1);
    assert.equal(theirs.isNative, 2039280n);
    assert.equal(theirs.delegatedAmount, 77n);
    assert.equal(theirs.closeAuthority.toBase58(), b58(close));
    const encoded = Buffer.alloc(ACCOUNT_LEN);
    spl.AccountLayout.encode({ ...theirs, isNativeOption: 0, isNative: 0n, closeAuthorityOption: 0, closeAuthority: PublicKey.default }, encoded);
    const ours = unpackAccount(new Uint8Array(encoded));
    assert.equal(ours.isNative, null);
    assert.equal(ours.closeAuthority, null);
    assert.equal(ours.delegate, b58(delegate));
  });

  test('mint and multisig match MintLayout and MultisigLayout', () => {
    const authority = key();
    const mint = new Uint8Array(MINT_LEN);
    packMint({ mintAuthority: b58(authority), supply: 5n, decimals: 9, isInitialized: true, freezeAuthority: null }, mint);
    const m = spl.MintLayout.decode(Buffer.from(mint));
    assert.deepEqual([m.mintAuthorityOption, m.mintAuthority.toBase58(), m.supply, m.decimals, m.isInitialized, m.freezeAuthorityOption], [1, b58(authority), 5n, 9, true, 0]);
    const signers = [key(), key(), key()];
    const ms = new Uint8Array(MULTISIG_LEN);
    packMultisig({ m: 2, n: 3, isInitialized: true, signers: [...signers.map(b58), ...Array(8).fill(SYSTEM_PROGRAM_ID)] }, ms);
    const decoded = spl.MultisigLayout.decode(Buffer.from(ms));
    assert.deepEqual([decoded.m, decoded.n, decoded.isInitialized, decoded.signer1.toBase58(), decoded.signer3.toBase58()], [2, 3, true, b58(signers[0]!), b58(signers[2]!)]);
    assert.deepEqual(unpackMultisig(ms).signers.slice(0, 3), signers.map(b58));
  });

  test('bad tags, states and lengths are InvalidAccountData; uninitialized is UninitializedAccount', () => {
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as InstructionError).value;
      }
      return null;
    };
    assert.equal(err(() => unpackAccount(new Uint8Array(ACCOUNT_LEN))), 'UninitializedAccount');
    assert.equal(err(() => unpackAccount(new Uint8Array(ACCOUNT_LEN + 1))), 'InvalidAccountData');
    const badState = new Uint8Array(ACCOUNT_LEN);
    badState[108] = 3;
    assert.equal(err(() => unpackAccountUnchecked(badState)), 'InvalidAccountData');
    const badTag = new Uint8Array(ACCOUNT_LEN);
    badTag[108] = 1;
    badTag[72] = 2;
    assert.equal(err(() => unpackAccount(badTag)), 'InvalidAccountData');
    const badBool = new Uint8Array(MINT_LEN);
    badBool[45] = 2;
    assert.equal(err(() => unpackMint(badBool)), 'InvalidAccountData');
    assert.equal(err(() => unpackMint(new Uint8Array(MINT_LEN))), 'UninitializedAccount');
  });
});

describe('amounts', () => {
  test('as text, padded and trimmed', () => {
    assert.equal(amountToUiAmountString(1n, 9), '0.000000001');
    assert.equal(amountToUiAmountString(1_500_000n, 6), '1.500000');
    assert.equal(amountToUiAmountStringTrimmed(1_500_000n, 6), '1.5');
    assert.equal(amountToUiAmountStringTrimmed(2_000_000n, 6), '2');
    assert.equal(amountToUiAmountStringTrimmed(10n, 0), '10');
    assert.equal(amountToUiAmountStringTrimmed(0n, 3), '0');
    assert.deepEqual(uiTokenAmount(42n, 2), { uiAmount: 0.42, decimals: 2, amount: '42', uiAmountString: '0.42' });
    assert.equal(uiTokenAmount(1n, 20).uiAmount, null);
  });

  test('from text, refusing what the program refuses', () => {
    assert.equal(uiAmountToAmount('1.5', 6), 1_500_000n);
    assert.equal(uiAmountToAmount('.5', 1), 5n);
    assert.equal(uiAmountToAmount('7', 0), 7n);
    assert.equal(uiAmountToAmount('1.50000', 2), 150n);
    assert.equal(uiAmountToAmount('18446744073709551615', 0), 18446744073709551615n);
    for (const bad of ['', '.', '1.2.3', '1.001', '-1', 'abc', '18446744073709551616', '1e3']) assert.equal(uiAmountToAmount(bad, 2), null, bad);
  });
});

describe('program derived addresses', () => {
  test('ATAs and on-curve checks agree with web3.js', () => {
    for (let i = 0; i < 20; i++) {
      const [owner, mint] = [key(), key()];
      const ours = findProgramAddress([owner.toBytes(), new PublicKey(TOKEN_PROGRAM_ID).toBytes(), mint.toBytes()], ASSOCIATED_TOKEN_PROGRAM_ID);
      const [theirs, bump] = PublicKey.findProgramAddressSync([owner.toBytes(), new PublicKey(TOKEN_PROGRAM_ID).toBytes(), mint.toBytes()], new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID));
      assert.equal(ours.address, theirs.toBase58());
      assert.equal(ours.bump, bump);
      assert.equal(ours.attempts, 256 - bump);
      assert.equal(ours.address, b58(spl.getAssociatedTokenAddressSync(mint, owner, true)));
      assert.equal(isOnCurve(owner.toBytes()), true);
      assert.equal(isOnCurve(theirs.toBytes()), PublicKey.isOnCurve(theirs.toBytes()));
    }
  });
});

describe('instructions', () => {
  const [a, b, c] = [key(), key(), key()];
  test('decoded as spl-token encodes them', () => {
    const data = (ix: { data: Buffer }) => new Uint8Array(ix.data);
    assert.deepEqual(decodeTokenInstruction(data(spl.createTransferInstruction(a, b, c, 99n))), { type: 'transfer', amount: 99n });
    assert.deepEqual(decodeTokenInstruction(data(spl.createTransferCheckedInstruction(a, b, c, key(), 5n, 3))), { type: 'transferChecked', amount: 5n, decimals: 3 });
    assert.deepEqual(decodeTokenInstruction(data(spl.createInitializeMint2Instruction(a, 6, b, c))), { type: 'initializeMint2', decimals: 6, mintAuthority: b58(b), freezeAuthority: b58(c) });
    assert.deepEqual(decodeTokenInstruction(data(spl.createInitializeMintInstruction(a, 0, b, null))), { type: 'initializeMint', decimals: 0, mintAuthority: b58(b), freezeAuthority: null });
    assert.deepEqual(decodeTokenInstruction(data(spl.createSetAuthorityInstruction(a, b, spl.AuthorityType.CloseAccount, null))), { type: 'setAuthority', authorityType: 'closeAccount', newAuthority: null });
    assert.deepEqual(decodeTokenInstruction(data(spl.createInitializeAccount3Instruction(a, b, c))), { type: 'initializeAccount3', owner: b58(c) });
    assert.deepEqual(decodeTokenInstruction(data(spl.createUiAmountToAmountInstruction(a, '1.25'))), { type: 'uiAmountToAmount', uiAmount: '1.25' });
    assert.deepEqual(decodeTokenInstruction(data(spl.createSyncNativeInstruction(a))), { type: 'syncNative' });
    // Short data, an unknown tag or authority type, and invalid UTF-8 are InvalidInstruction.
    for (const bad of [[], [3, 1, 2], [25], [38], [6, 4, 0], [24, 0xff], [0, 6]]) assert.equal(decodeTokenInstruction(Uint8Array.from(bad)), null, JSON.stringify(bad));
    assert.equal(instructionLogName('transferChecked'), 'TransferChecked');
  });

  test('encoded as spl-token encodes them, and decoded back', () => {
    const d = key();
    const cases: Array<[TokenInstruction, { data: Buffer } | number[]]> = [
      [{ type: 'initializeMint', decimals: 0, mintAuthority: b58(b), freezeAuthority: null }, spl.createInitializeMintInstruction(a, 0, b, null)],
      [{ type: 'initializeMint2', decimals: 6, mintAuthority: b58(b), freezeAuthority: b58(c) }, spl.createInitializeMint2Instruction(a, 6, b, c)],
      [{ type: 'initializeAccount' }, spl.createInitializeAccountInstruction(a, b, c)],
      [{ type: 'initializeMultisig', m: 2 }, spl.createInitializeMultisigInstruction(a, [b, c], 2)],
      [{ type: 'transfer', amount: 2n ** 64n - 1n }, spl.createTransferInstruction(a, b, c, 2n ** 64n - 1n)],
      [{ type: 'approve', amount: 5n }, spl.createApproveInstruction(a, b, c, 5n)],
      [{ type: 'revoke' }, spl.createRevokeInstruction(a, b)],
      [{ type: 'setAuthority', authorityType: 'mintTokens', newAuthority: b58(c) }, spl.createSetAuthorityInstruction(a, b, spl.AuthorityType.MintTokens, c)],
      [{ type: 'setAuthority', authorityType: 'closeAccount', newAuthority: null }, spl.createSetAuthorityInstruction(a, b, spl.AuthorityType.CloseAccount, null)],
      [{ type: 'mintTo', amount: 7n }, spl.createMintToInstruction(a, b, c, 7n)],
      [{ type: 'burn', amount: 8n }, spl.createBurnInstruction(a, b, c, 8n)],
      [{ type: 'closeAccount' }, spl.createCloseAccountInstruction(a, b, c)],
      [{ type: 'freezeAccount' }, spl.createFreezeAccountInstruction(a, b, c)],
      [{ type: 'thawAccount' }, spl.createThawAccountInstruction(a, b, c)],
      [{ type: 'transferChecked', amount: 5n, decimals: 3 }, spl.createTransferCheckedInstruction(a, b, c, d, 5n, 3)],
      [{ type: 'approveChecked', amount: 6n, decimals: 4 }, spl.createApproveCheckedInstruction(a, b, c, d, 6n, 4)],
      [{ type: 'mintToChecked', amount: 7n, decimals: 5 }, spl.createMintToCheckedInstruction(a, b, c, 7n, 5)],
      [{ type: 'burnChecked', amount: 8n, decimals: 6 }, spl.createBurnCheckedInstruction(a, b, c, 8n, 6)],
      [{ type: 'initializeAccount2', owner: b58(c) }, spl.createInitializeAccount2Instruction(a, b, c)],
      [{ type: 'syncNative' }, spl.createSyncNativeInstruction(a)],
      [{ type: 'initializeAccount3', owner: b58(c) }, spl.createInitializeAccount3Instruction(a, b, c)],
      // spl-token (JS) writes neither InitializeMultisig2 nor GetAccountDataSize: their bytes as the Rust crate packs them.
      [{ type: 'initializeMultisig2', m: 3 }, [19, 3]],
      [{ type: 'getAccountDataSize' }, [21]],
      [{ type: 'initializeImmutableOwner' }, spl.createInitializeImmutableOwnerInstruction(a, spl.TOKEN_PROGRAM_ID)],
      [{ type: 'amountToUiAmount', amount: 12n }, spl.createAmountToUiAmountInstruction(a, 12n)],
      [{ type: 'uiAmountToAmount', uiAmount: '1.25' }, spl.createUiAmountToAmountInstruction(a, '1.25')],
    ];
    for (const [ix, theirs] of cases) {
      const bytes = Array.isArray(theirs) ? Buffer.from(theirs) : theirs.data;
      assert.deepEqual(Buffer.from(encodeTokenInstruction(ix)), bytes, ix.type);
      assert.deepEqual(decodeTokenInstruction(new Uint8Array(bytes)), ix, ix.type);
    }
    // The extension types the ATA program asks about (Token-2022's; SPL Token ignores them).
    const withExtensions = encodeTokenInstruction({ type: 'getAccountDataSize', extensionTypes: [7, 0x0102] });
    assert.deepEqual([...withExtensions], [21, 7, 0, 2, 1]);
    assert.deepEqual(decodeTokenInstruction(withExtensions), { type: 'getAccountDataSize' });
  });

  test('associated token instructions: encoded as spl-token encodes them, and decoded back', () => {
    const [ata, mint, owner] = [key(), key(), key()];
    const cases = [
      ['CreateIdempotent', spl.createAssociatedTokenAccountIdempotentInstruction(a, ata, owner, mint)],
      ['RecoverNested', spl.createRecoverNestedInstruction(ata, mint, b, c, mint, owner)],
    ] as const;
    for (const [ix, theirs] of cases) {
      assert.deepEqual(Buffer.from(encodeAssociatedTokenInstruction(ix)), theirs.data, ix);
      assert.equal(decodeAssociatedTokenInstruction(new Uint8Array(theirs.data)), ix);
    }
    // spl-token writes the original Create as empty data; the tag is the same instruction.
    assert.equal(decodeAssociatedTokenInstruction(new Uint8Array(spl.createAssociatedTokenAccountInstruction(a, ata, owner, mint).data)), 'Create');
    assert.deepEqual([...encodeAssociatedTokenInstruction('Create')], [0]);
    assert.equal(decodeAssociatedTokenInstruction(Uint8Array.of(0)), 'Create');
    for (const bad of [[3], [0, 0], [1, 1]]) assert.equal(decodeAssociatedTokenInstruction(Uint8Array.from(bad)), null, JSON.stringify(bad));
  });

  test('parsed as Agave shows them, multisig signers included', () => {
    const signers = [key(), key()];
    const transfer = spl.createTransferInstruction(a, b, c, 10n, signers);
    assert.deepEqual(parseTokenInstruction(new Uint8Array(transfer.data), transfer.keys.map((k) => b58(k.pubkey))), {
      type: 'transfer',
      info: { source: b58(a), destination: b58(b), amount: '10', multisigAuthority: b58(c), signers: signers.map(b58) },
    });
    const setAuth = spl.createSetAuthorityInstruction(a, b, spl.AuthorityType.MintTokens, c);
    assert.deepEqual(parseTokenInstruction(new Uint8Array(setAuth.data), setAuth.keys.map((k) => b58(k.pubkey))), {
      type: 'setAuthority',
      info: { mint: b58(a), authorityType: 'mintTokens', newAuthority: b58(c), authority: b58(b) },
    });
    // Too few accounts: not parsable.
    assert.equal(parseTokenInstruction(new Uint8Array(transfer.data), [b58(a)]), null);
    const ata = spl.createAssociatedTokenAccountIdempotentInstruction(a, b, c, key());
    const keys = ata.keys.map((k) => b58(k.pubkey));
    assert.deepEqual(parseAssociatedTokenInstruction(new Uint8Array(ata.data), keys), {
      type: 'createIdempotent',
      info: { source: keys[0], account: keys[1], wallet: keys[2], mint: keys[3], systemProgram: keys[4], tokenProgram: keys[5] },
    });
    assert.equal(parseAssociatedTokenInstruction(Uint8Array.of(3), keys), null);
    assert.equal(parseAssociatedTokenInstruction(Uint8Array.of(1, 0), keys), null);
  });

  test('a token account parses with its mint\'s decimals, and not without it', () => {
    const [mint, owner, delegate] = [key(), key(), key()];
    const data = new Uint8Array(ACCOUNT_LEN);
    packAccount({ mint: b58(mint), owner: b58(owner), amount: 1500n, delegate: b58(delegate), state: 'initialized', isNative: null, delegatedAmount: 500n, closeAuthority: null }, data);
    const mintData = new Uint8Array(MINT_LEN);
    packMint({ mintAuthority: null, supply: 1500n, decimals: 3, isInitialized: true, freezeAuthority: null }, mintData);
    const account = { lamports: 1, data, owner: TOKEN_PROGRAM_ID, executable: false, rentEpoch: 0 };
    const mintAccount = { ...account, data: mintData };
    assert.deepEqual(parseTokenAccountData(account, (k) => (k === b58(mint) ? mintAccount : null)), {
      program: 'spl-token',
      parsed: {
        type: 'account',
        info: {
          mint: b58(mint),
          owner: b58(owner),
          tokenAmount: { uiAmount: 1.5, decimals: 3, amount: '1500', uiAmountString: '1.5' },
          delegate: b58(delegate),
          state: 'initialized',
          isNative: false,
          delegatedAmount: { uiAmount: 0.5, decimals: 3, amount: '500', uiAmountString: '0.5' },
        },
      },
      space: 165,
    });
    assert.equal(parseTokenAccountData(account, () => null), null);
    assert.equal(parseTokenAccountData({ ...account, owner: SYSTEM_PROGRAM_ID }, () => mintAccount), null);
  });
});
