/**
 * SPL Token and Associated Token Account, differentially: every transaction runs on LiteSVM (the
 * real on-chain programs, in-process) and on this node's executor, and the two must agree on the
 * result (error index and value), the bytes, lamports and owner of every account involved, the
 * inner instructions (program, accounts, data, stack height) and the return data. Logs and compute
 * units are not compared: LiteSVM ships the newer p-token build, whose logs and costs differ from
 * the SPL Token 3.x program this node emulates (see token-program.test.ts for those).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import bs58 from 'bs58';
import { LiteSVM, type FailedTransactionMetadata, type TransactionMetadata } from 'litesvm';
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import * as T from '@solana-program/token';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import { BPF_LOADER_2_ID, SYSTEM_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { DEFAULT_RENT } from '../../node-core/ledger/genesis-config.ts';
import { minimumBalanceForRentExemption, type Account } from '../../node-core/runtime/account.ts';
import { builtinProgramAccount, type ExecutedTransaction } from '../../node-core/runtime/executor.ts';
import { ASSOCIATED_TOKEN_PROGRAM_ID, MINT_LEN, NATIVE_MINT, TOKEN_PROGRAM_ID, nativeMintData } from '../../node-core/runtime/programs/token/state.ts';
import { SYSVAR_IDS, type Sysvars } from '../../node-core/runtime/sysvars.ts';
import { parseTransaction } from '../../node-core/runtime/wire.ts';
import { executeOnMap } from '../helpers/map-executor.ts';
import { engineTransactionError } from '../../node-core/runtime/sbf/engine-errors.ts';


const FUNDS = 1_000_000_000_000n;

/** One world, two runtimes. */
class Twin {
  readonly svm = new LiteSVM().withNativeMints();
  readonly accounts = new Map<string, Account>();
  readonly sysvars: Sysvars = {
    clock: { slot: 1, epochStartTimestamp: 0, epoch: 0, leaderScheduleEpoch: 1, unixTimestamp: 1_700_000_000 },
    rent: DEFAULT_RENT,
    epochSchedule: { slotsPerEpoch: 432_000, leaderScheduleSlotOffset: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
    recentBlockhashes: [{ blockhash: '11111111111111111111111111111111', lamportsPerSignature: 5000 }],
    slotHashes: [],
    lamportsPerSignature: 5000,
  };
  constructor() {
    this.accounts.set(SYSTEM_PROGRAM_ID, builtinProgramAccount('system_program'));
    for (const id of [TOKEN_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID]) this.accounts.set(id, { lamports: 1, data: new Uint8Array(0), owner: BPF_LOADER_2_ID, executable: true, rentEpoch: 0 });
    this.accounts.set(NATIVE_MINT, { lamports: minimumBalanceForRentExemption(DEFAULT_RENT, MINT_LEN), data: nativeMintData(), owner: TOKEN_PROGRAM_ID, executable: false, rentEpoch: 0 });
  }

  fund(a: Address): void {
    this.svm.airdrop(a, lamports(FUNDS));
    this.accounts.set(a, { lamports: Number(FUNDS), data: new Uint8Array(0), owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: 0 });
  }

  /** Runs `ixs` on both; asserts they agree; returns this node's result. */
  async run(payer: KeyPairSigner, ixs: Instruction[], expectErr: string | null = null): Promise<ExecutedTransaction> {
    const message = pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => this.svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
      (m) => appendTransactionMessageInstructions(ixs, m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const raw = this.svm.sendTransaction(signed);
    this.svm.expireBlockhash();
    const tx = parseTransaction(new Uint8Array(Buffer.from(getBase64EncodedWireTransaction(signed), 'base64')));
    const ours = executeOnMap(tx, this.accounts, this.sysvars);

    const failed = 'err' in raw && typeof (raw as FailedTransactionMetadata).err === 'function';
    const theirErr = failed ? engineTransactionError((raw as FailedTransactionMetadata).err()) : null;
    const meta: TransactionMetadata = failed ? (raw as FailedTransactionMetadata).meta() : (raw as TransactionMetadata);
    const what = `${tx.id}: ${ours.logs.join(' | ')}`;
    assert.deepEqual(ours.err, theirErr, what);
    assert.deepEqual(ours.err === null ? null : JSON.stringify(ours.err), expectErr, `expected ${expectErr}: ${what}`);
    // Accounts: every key of the transaction, as both runtimes now hold it.
    for (const key of tx.message.accountKeys) {
      if (SYSVAR_IDS.has(key)) continue;
      const theirs = this.svm.getAccount(address(key));
      const mine = this.accounts.get(key);
      if (!theirs.exists) {
        assert.ok(!mine || mine.lamports === 0, `${key} exists only here: ${what}`);
        continue;
      }
      assert.ok(mine, `${key} missing here: ${what}`);
      if (theirs.executable) continue;
      assert.equal(mine.lamports, Number(theirs.lamports), `${key} lamports: ${what}`);
      assert.equal(mine.owner, theirs.programAddress, `${key} owner: ${what}`);
      assert.deepEqual(Buffer.from(mine.data).toString('hex'), Buffer.from(theirs.data).toString('hex'), `${key} data: ${what}`);
    }
    // Inner instructions (LiteSVM lists an empty group for each top-level instruction without any).
    const theirInner = meta
      .innerInstructions()
      .map((group, index) => ({
        index,
        instructions: group.map((i) => {
          const c = i.instruction();
          return { programIdIndex: c.programIdIndex(), accounts: [...c.accounts()], data: Buffer.from(c.data()).toString('hex'), stackHeight: i.stackHeight() };
        }),
      }))
      .filter((g) => g.instructions.length > 0);
    const ourInner = ours.innerInstructions.map((g) => ({
      index: g.index,
      instructions: g.instructions.map((i) => ({ programIdIndex: i.programIdIndex, accounts: i.accounts, data: Buffer.from(i.data).toString('hex'), stackHeight: i.stackHeight })),
    }));
    assert.deepEqual(ourInner, theirInner, `inner instructions: ${what}`);
    const rd = meta.returnData();
    const theirReturn = rd.data().length ? { programId: bs58.encode(rd.programId()), data: Buffer.from(rd.data()).toString('hex') } : null;
    const ourReturn = ours.returnData ? { programId: ours.returnData.programId, data: Buffer.from(ours.returnData.data).toString('hex') } : null;
    assert.deepEqual(ourReturn, theirReturn, `return data: ${what}`);
    return ours;
  }
}



const custom = (index: number, code: number) => JSON.stringify({ InstructionError: [index, { Custom: code }] });
const builtin = (index: number, name: string) => JSON.stringify({ InstructionError: [index, name] });

async function ata(owner: Address, mint: Address): Promise<Address> {
  return (await T.findAssociatedTokenPda({ owner, mint, tokenProgram: T.TOKEN_PROGRAM_ADDRESS }))[0];
}

describe('SPL Token and ATA against the real programs (LiteSVM)', () => {
  it('mints, accounts, transfers, delegates, freezes, burns, closes: same state and errors', async () => {
    const w = new Twin();
    const payer = await generateKeyPairSigner();
    w.fund(payer.address);
    const mint = await generateKeyPairSigner();
    const other = await generateKeyPairSigner();
    const [alice, bob, carol] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
    const mintRent = lamports(BigInt(minimumBalanceForRentExemption(DEFAULT_RENT, 82)));
    await w.run(payer, [
      getCreateAccountInstruction({ payer, newAccount: mint, lamports: mintRent, space: 82, programAddress: T.TOKEN_PROGRAM_ADDRESS }),
      T.getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: payer.address, freezeAuthority: payer.address }),
    ]);
    // InitializeMint with the rent sysvar, and a second mint for the mismatch cases.
    await w.run(payer, [
      getCreateAccountInstruction({ payer, newAccount: other, lamports: mintRent, space: 82, programAddress: T.TOKEN_PROGRAM_ADDRESS }),
      T.getInitializeMintInstruction({ mint: other.address, decimals: 2, mintAuthority: payer.address }),
    ]);
    // Initializing twice: AlreadyInUse (6).
    await w.run(payer, [T.getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: payer.address })], custom(0, 6));

    const a = await ata(alice.address, mint.address);
    const b = await ata(bob.address, mint.address);
    await w.run(payer, [await T.getCreateAssociatedTokenInstructionAsync({ payer, owner: alice.address, mint: mint.address })]);
    await w.run(payer, [await T.getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: bob.address, mint: mint.address })]);
    await w.run(payer, [await T.getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: bob.address, mint: mint.address })]);
    await w.run(payer, [await T.getCreateAssociatedTokenInstructionAsync({ payer, owner: bob.address, mint: mint.address })], builtin(0, 'IllegalOwner'));

    await w.run(payer, [T.getMintToInstruction({ mint: mint.address, token: a, mintAuthority: payer, amount: 1_000_000n })]);
    await w.run(payer, [T.getMintToCheckedInstruction({ mint: mint.address, token: a, mintAuthority: payer, amount: 5n, decimals: 6 })]);
    await w.run(payer, [T.getMintToCheckedInstruction({ mint: mint.address, token: a, mintAuthority: payer, amount: 5n, decimals: 7 })], custom(0, 18));
    w.fund(alice.address);
    await w.run(alice, [T.getTransferInstruction({ source: a, destination: b, authority: alice, amount: 100n })]);
    await w.run(alice, [T.getTransferCheckedInstruction({ source: a, mint: mint.address, destination: b, authority: alice, amount: 50n, decimals: 6 })]);
    await w.run(alice, [T.getTransferInstruction({ source: a, destination: a, authority: alice, amount: 7n })]);
    await w.run(alice, [T.getTransferInstruction({ source: a, destination: b, authority: alice, amount: 0n })]);
    // Failures with the program's codes: insufficient funds, wrong decimals, wrong owner, wrong mint.
    await w.run(alice, [T.getTransferInstruction({ source: a, destination: b, authority: alice, amount: 10_000_000n })], custom(0, 1));
    await w.run(alice, [T.getTransferCheckedInstruction({ source: a, mint: mint.address, destination: b, authority: alice, amount: 1n, decimals: 9 })], custom(0, 18));
    await w.run(payer, [T.getTransferInstruction({ source: a, destination: b, authority: payer, amount: 1n })], custom(0, 4));
    const o = await ata(alice.address, other.address);
    await w.run(payer, [await T.getCreateAssociatedTokenInstructionAsync({ payer, owner: alice.address, mint: other.address })]);
    await w.run(alice, [T.getTransferInstruction({ source: a, destination: o, authority: alice, amount: 1n })], custom(0, 3));
    await w.run(alice, [T.getTransferCheckedInstruction({ source: a, mint: other.address, destination: b, authority: alice, amount: 1n, decimals: 2 })], custom(0, 3));

    // Delegation: approve, spend part as the delegate, over-spend, revoke.
    await w.run(alice, [T.getApproveInstruction({ source: a, delegate: carol.address, owner: alice, amount: 30n })]);
    w.fund(carol.address);
    await w.run(carol, [T.getTransferInstruction({ source: a, destination: b, authority: carol, amount: 20n })]);
    await w.run(carol, [T.getTransferInstruction({ source: a, destination: b, authority: carol, amount: 11n })], custom(0, 1));
    await w.run(carol, [T.getTransferInstruction({ source: a, destination: b, authority: carol, amount: 10n })]);
    await w.run(alice, [T.getApproveCheckedInstruction({ source: a, mint: mint.address, delegate: carol.address, owner: alice, amount: 5n, decimals: 6 })]);
    await w.run(carol, [T.getBurnInstruction({ account: a, mint: mint.address, authority: carol, amount: 2n })]);
    await w.run(alice, [T.getRevokeInstruction({ source: a, owner: alice })]);
    await w.run(carol, [T.getTransferInstruction({ source: a, destination: b, authority: carol, amount: 1n })], custom(0, 4));

    // Freeze and thaw.
    await w.run(payer, [T.getFreezeAccountInstruction({ account: b, mint: mint.address, owner: payer })]);
    await w.run(alice, [T.getTransferInstruction({ source: a, destination: b, authority: alice, amount: 1n })], custom(0, 17));
    await w.run(payer, [T.getFreezeAccountInstruction({ account: b, mint: mint.address, owner: payer })], custom(0, 13));
    await w.run(payer, [T.getThawAccountInstruction({ account: b, mint: mint.address, owner: payer })]);
    await w.run(payer, [T.getFreezeAccountInstruction({ account: o, mint: other.address, owner: payer })], custom(0, 16));

    // Burn, then close: a balance refuses to close (11); an emptied account closes to its owner.
    await w.run(alice, [T.getBurnInstruction({ account: a, mint: mint.address, authority: alice, amount: 10n })]);
    await w.run(alice, [T.getBurnCheckedInstruction({ account: a, mint: mint.address, authority: alice, amount: 10n, decimals: 6 })]);
    await w.run(alice, [T.getCloseAccountInstruction({ account: a, destination: alice.address, owner: alice })], custom(0, 11));
    w.fund(bob.address);
    await w.run(bob, [T.getSetAuthorityInstruction({ owned: b, owner: bob, authorityType: T.AuthorityType.CloseAccount, newAuthority: carol.address })]);
    await w.run(bob, [T.getTransferInstruction({ source: b, destination: a, authority: bob, amount: 180n })]);
    await w.run(bob, [T.getCloseAccountInstruction({ account: b, destination: bob.address, owner: bob })], custom(0, 4));
    await w.run(carol, [T.getCloseAccountInstruction({ account: b, destination: carol.address, owner: carol })]);

    // Authorities: owner change, freeze authority removed, supply fixed.
    await w.run(alice, [T.getSetAuthorityInstruction({ owned: o, owner: alice, authorityType: T.AuthorityType.AccountOwner, newAuthority: bob.address })]);
    await w.run(alice, [T.getSetAuthorityInstruction({ owned: o, owner: alice, authorityType: T.AuthorityType.MintTokens, newAuthority: bob.address })], custom(0, 15));
    await w.run(alice, [T.getSetAuthorityInstruction({ owned: o, owner: alice, authorityType: T.AuthorityType.CloseAccount, newAuthority: bob.address })], custom(0, 4));
    await w.run(payer, [T.getSetAuthorityInstruction({ owned: mint.address, owner: payer, authorityType: T.AuthorityType.FreezeAccount, newAuthority: null })]);
    await w.run(payer, [T.getSetAuthorityInstruction({ owned: mint.address, owner: payer, authorityType: T.AuthorityType.MintTokens, newAuthority: null })]);
    await w.run(payer, [T.getMintToInstruction({ mint: mint.address, token: a, mintAuthority: payer, amount: 1n })], custom(0, 5));

    // Read-only helpers with return data.
    await w.run(payer, [T.getGetAccountDataSizeInstruction({ mint: mint.address })]);
    await w.run(payer, [T.getAmountToUiAmountInstruction({ mint: mint.address, amount: 1_234_500n })]);
    await w.run(payer, [T.getUiAmountToAmountInstruction({ mint: mint.address, uiAmount: '1.5' })]);
    await w.run(payer, [T.getUiAmountToAmountInstruction({ mint: mint.address, uiAmount: '1.0000001' })], builtin(0, 'InvalidArgument'));
    await w.run(payer, [T.getGetAccountDataSizeInstruction({ mint: a })], custom(0, 2));
  });

  it('accounts made by hand (InitializeAccount 1/2/3), multisig authorities and wrapped SOL', async () => {
    const w = new Twin();
    const payer = await generateKeyPairSigner();
    w.fund(payer.address);
    const mint = await generateKeyPairSigner();
    const ms = await generateKeyPairSigner();
    const signers = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
    const rent = (n: number) => lamports(BigInt(minimumBalanceForRentExemption(DEFAULT_RENT, n)));
    await w.run(payer, [
      getCreateAccountInstruction({ payer, newAccount: ms, lamports: rent(355), space: 355, programAddress: T.TOKEN_PROGRAM_ADDRESS }),
      T.getInitializeMultisigInstruction({ multisig: ms.address, m: 2, signers: signers.map((s) => s.address) }),
    ]);
    await w.run(payer, [
      getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent(82), space: 82, programAddress: T.TOKEN_PROGRAM_ADDRESS }),
      T.getInitializeMint2Instruction({ mint: mint.address, decimals: 0, mintAuthority: ms.address }),
    ]);
    const accs = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
    const create = (k: KeyPairSigner, lamportsFor = rent(165)) =>
      getCreateAccountInstruction({ payer, newAccount: k, lamports: lamportsFor, space: 165, programAddress: T.TOKEN_PROGRAM_ADDRESS });
    await w.run(payer, [create(accs[0]!), T.getInitializeAccountInstruction({ account: accs[0]!.address, mint: mint.address, owner: payer.address })]);
    await w.run(payer, [create(accs[1]!), T.getInitializeAccount2Instruction({ account: accs[1]!.address, mint: mint.address, owner: ms.address })]);
    await w.run(payer, [create(accs[2]!), T.getInitializeAccount3Instruction({ account: accs[2]!.address, mint: mint.address, owner: payer.address })]);
    // Below rent exemption: NotRentExempt (0).
    await w.run(payer, [create(accs[3]!, lamports(1_000_000n)), T.getInitializeAccount3Instruction({ account: accs[3]!.address, mint: mint.address, owner: payer.address })], custom(1, 0));

    // Mint with 2 of 3 multisig signers; one signer is not enough.
    const msMint = (who: KeyPairSigner[]) => T.getMintToInstruction({ mint: mint.address, token: accs[1]!.address, mintAuthority: ms.address, amount: 10n, multiSigners: who });
    await w.run(payer, [msMint([signers[0]!, signers[2]!])]);
    await w.run(payer, [msMint([signers[1]!])], builtin(0, 'MissingRequiredSignature'));
    const spend = (who: KeyPairSigner[]) =>
      T.getTransferInstruction({ source: accs[1]!.address, destination: accs[2]!.address, authority: ms.address, amount: 4n, multiSigners: who });
    await w.run(payer, [spend([signers[1]!, signers[2]!])]);
    // A multisig signer listed without signing fails the instruction, even when two others signed.
    const unsigned = spend([signers[0]!, signers[1]!]);
    const withUnsigned = { ...unsigned, accounts: [...unsigned.accounts, { address: signers[2]!.address, role: AccountRole.READONLY }] };
    await w.run(payer, [withUnsigned], builtin(0, 'MissingRequiredSignature'));

    // Wrapped SOL: an ATA of the native mint, lamports in, SyncNative, transfer, close.
    const native = address(NATIVE_MINT);
    const wsol = await ata(payer.address, native);
    await w.run(payer, [await T.getCreateAssociatedTokenInstructionAsync({ payer, owner: payer.address, mint: native })]);
    await w.run(payer, [getTransferSolInstruction({ source: payer, destination: wsol, amount: 5_000_000n }), T.getSyncNativeInstruction({ account: wsol })]);
    const bobWsol = await ata(signers[0]!.address, native);
    await w.run(payer, [await T.getCreateAssociatedTokenInstructionAsync({ payer, owner: signers[0]!.address, mint: native })]);
    await w.run(payer, [T.getTransferCheckedInstruction({ source: wsol, mint: native, destination: bobWsol, authority: payer, amount: 1_000_000n, decimals: 9 })]);
    await w.run(payer, [T.getSyncNativeInstruction({ account: accs[2]!.address })], custom(0, 19));
    await w.run(payer, [T.getMintToInstruction({ mint: native, token: wsol, mintAuthority: payer, amount: 1n })], custom(0, 10));
    await w.run(payer, [T.getCloseAccountInstruction({ account: wsol, destination: payer.address, owner: payer })]);
  });

  it('RecoverNested moves tokens out of an ATA owned by an ATA', async () => {
    const w = new Twin();
    const payer = await generateKeyPairSigner();
    w.fund(payer.address);
    const [ownerMint, nestedMint] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const rent = lamports(BigInt(minimumBalanceForRentExemption(DEFAULT_RENT, 82)));
    for (const m of [ownerMint, nestedMint]) {
      await w.run(payer, [
        getCreateAccountInstruction({ payer, newAccount: m, lamports: rent, space: 82, programAddress: T.TOKEN_PROGRAM_ADDRESS }),
        T.getInitializeMint2Instruction({ mint: m.address, decimals: 3, mintAuthority: payer.address }),
      ]);
    }
    const ownerAta = await ata(payer.address, ownerMint.address);
    await w.run(payer, [await T.getCreateAssociatedTokenInstructionAsync({ payer, owner: payer.address, mint: ownerMint.address })]);
    const nested = await ata(ownerAta, nestedMint.address);
    await w.run(payer, [await T.getCreateAssociatedTokenInstructionAsync({ payer, owner: ownerAta, mint: nestedMint.address })]);
    await w.run(payer, [T.getMintToInstruction({ mint: nestedMint.address, token: nested, mintAuthority: payer, amount: 77n })]);
    await w.run(payer, [await T.getCreateAssociatedTokenInstructionAsync({ payer, owner: payer.address, mint: nestedMint.address })]);
    await w.run(payer, [await T.getRecoverNestedAssociatedTokenInstructionAsync({ walletAddress: payer, ownerTokenMintAddress: ownerMint.address, nestedTokenMintAddress: nestedMint.address })]);
  });
});
