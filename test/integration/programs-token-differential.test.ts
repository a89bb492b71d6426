/**
 * A differential test of the node's builtin Token program (TokenkegQ…) against the real SPL Token 3.5.0
 * (test/fixtures/sbf/spl_token-3.5.0.so) put at another address with --bpf-program, on one node, driven
 * by @solana/web3.js and @solana/spl-token (whose instruction builders take the program id). The same
 * instruction sequence, successes and failures, is sent to both; after every step the mint and token
 * accounts of both runs are read in one getMultipleAccounts (one slot) and compared byte for byte — SPL
 * Token's layouts hold no program id, and a token account's only run-dependent field is its mint's
 * address (bytes 0..32), checked to be its own mint — and every error is the same InstructionError
 * (instruction index and Custom code), with nothing changed but the fee.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import {
  ACCOUNT_SIZE,
  MINT_SIZE,
  TOKEN_PROGRAM_ID,
  createApproveInstruction,
  createBurnInstruction,
  createCloseAccountInstruction,
  createFreezeAccountInstruction,
  createInitializeAccount3Instruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  createRevokeInstruction,
  createThawAccountInstruction,
  createTransferInstruction,
} from '@solana/spl-token';
import { loadBpfProgram } from '../../node-core/node/program-flags.ts';
import { ROOT } from '../helpers/cli-process.ts';
import { startTestNode, waitFor, type TestNode } from '../helpers/node.ts';

const SPL_TOKEN_SO = path.join(ROOT, 'test/fixtures/sbf/spl_token-3.5.0.so');
const DEPLOYED_TOKEN = Keypair.generate().publicKey;

let node: TestNode;
let conn: Connection;
let payer: Keypair;

/** One run of the sequence: its own mint and token accounts, the same authorities as the other run. */
interface Run {
  name: string;
  programId: PublicKey;
  mint: Keypair;
  a: Keypair;
  b: Keypair;
}

// The authorities and owners are shared, so the accounts' bytes can be equal across the two runs.
const mintAuthority = Keypair.generate();
const freezeAuthority = Keypair.generate();
const ownerA = Keypair.generate();
const ownerB = Keypair.generate();
const delegate = Keypair.generate();
const stranger = Keypair.generate();

const runs: Run[] = [
  { name: 'builtin Token', programId: TOKEN_PROGRAM_ID, mint: Keypair.generate(), a: Keypair.generate(), b: Keypair.generate() },
  { name: 'SPL Token 3.5.0 deployed', programId: DEPLOYED_TOKEN, mint: Keypair.generate(), a: Keypair.generate(), b: Keypair.generate() },
];

interface Outcome {
  err: unknown;
  fee: number;
  logs: string[];
}

async function send(instructions: TransactionInstruction[], signers: Keypair[]): Promise<Outcome> {
  const { blockhash } = await conn.getLatestBlockhash('confirmed');
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...instructions);
  tx.sign(payer, ...signers.filter((s) => !s.publicKey.equals(payer.publicKey)));
  const signature = await conn.sendRawTransaction(tx.serialize(), { skipPreflight: true });
  const got = (await waitFor(() => conn.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }), { what: `transaction ${signature}`, timeoutMs: 60_000 }))!;
  return { err: got.meta!.err, fee: got.meta!.fee, logs: got.meta!.logMessages ?? [] };
}

/** The run's mint and token accounts, both runs read in one call (one slot). */
async function snapshot(): Promise<Array<{ mint: Buffer | null; a: Buffer | null; b: Buffer | null; owners: string[]; lamports: number[] }>> {
  const keys = runs.flatMap((r) => [r.mint.publicKey, r.a.publicKey, r.b.publicKey]);
  const infos = await conn.getMultipleAccountsInfo(keys, 'confirmed');
  return runs.map((_, i) => {
    const [mint, a, b] = infos.slice(i * 3, i * 3 + 3);
    return {
      mint: mint?.data ?? null,
      a: a?.data ?? null,
      b: b?.data ?? null,
      owners: [mint, a, b].map((x) => x?.owner.toBase58() ?? 'none'),
      lamports: [mint, a, b].map((x) => x?.lamports ?? 0),
    };
  });
}

/** Both runs hold the same bytes; each token account names its own run's mint; each account is owned by its run's program. */
async function assertSameState(step: string): Promise<void> {
  const [x, y] = await snapshot();
  assert.deepEqual(x!.mint, y!.mint, `${step}: mint bytes`);
  for (const k of ['a', 'b'] as const) {
    const bx = x![k];
    const by = y![k];
    assert.equal(bx === null, by === null, `${step}: token account ${k} exists in both runs or in neither`);
    if (bx && by) {
      assert.ok(bx.subarray(0, 32).equals(runs[0]!.mint.publicKey.toBuffer()), `${step}: ${k} names the builtin run's mint`);
      assert.ok(by.subarray(0, 32).equals(runs[1]!.mint.publicKey.toBuffer()), `${step}: ${k} names the deployed run's mint`);
      assert.ok(bx.subarray(32).equals(by.subarray(32)), `${step}: token account ${k} bytes 32..165`);
    }
  }
  assert.deepEqual(x!.lamports, y!.lamports, `${step}: lamports`);
  runs.forEach((r, i) => {
    const owners = [x, y][i]!.owners;
    for (const o of owners) if (o !== 'none') assert.equal(o, r.programId.toBase58(), `${step}: ${r.name} owns its accounts`);
  });
}

/**
 * Sends the step to both runs; the results must agree (both succeed, or the same error), and the
 * state must be the same afterwards. Returns the shared error.
 */
async function step(name: string, build: (r: Run) => { ixs: TransactionInstruction[]; signers: Keypair[] }): Promise<unknown> {
  const outcomes: Outcome[] = [];
  for (const r of runs) {
    const { ixs, signers } = build(r);
    outcomes.push(await send(ixs, signers));
  }
  const [builtin, deployed] = outcomes;
  assert.deepEqual(builtin!.err, deployed!.err, `${name}: builtin ${JSON.stringify(builtin!.err)} vs deployed ${JSON.stringify(deployed!.err)}\n${deployed!.logs.join('\n')}`);
  assert.equal(builtin!.fee, deployed!.fee, `${name}: the same fee`);
  await assertSameState(name);
  return builtin!.err;
}

const custom = (index: number, code: number) => ({ InstructionError: [index, { Custom: code }] });

before(async () => {
  node = await startTestNode({ slotMs: 40, programs: [loadBpfProgram(DEPLOYED_TOKEN.toBase58(), SPL_TOKEN_SO)] });
  conn = new Connection(node.rpcUrl, 'confirmed');
  payer = Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey);
});

after(async () => {
  await node?.stop();
});

describe('builtin Token vs SPL Token 3.5.0 deployed elsewhere: the same bytes and the same errors', () => {
  it('runs the same sequence against both programs', async () => {
    const mintRent = await conn.getMinimumBalanceForRentExemption(MINT_SIZE);
    const accountRent = await conn.getMinimumBalanceForRentExemption(ACCOUNT_SIZE);

    // The deployed program is invocable from the first slots (--bpf-program deploys at slot 0).
    const deployedLogs = (await send([createInitializeMint2Instruction(Keypair.generate().publicKey, 0, mintAuthority.publicKey, null, DEPLOYED_TOKEN)], [])).logs;
    assert.ok(deployedLogs.includes('Program log: Instruction: InitializeMint2'), `the real SPL Token ran: ${deployedLogs.join('\n')}`);

    assert.equal(
      await step('createAccount + InitializeMint2', (r) => ({
        ixs: [
          SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: r.mint.publicKey, lamports: mintRent, space: MINT_SIZE, programId: r.programId }),
          createInitializeMint2Instruction(r.mint.publicKey, 6, mintAuthority.publicKey, freezeAuthority.publicKey, r.programId),
        ],
        signers: [r.mint],
      })),
      null,
    );

    // InitializeMint2 again: AlreadyInUse (6).
    assert.deepEqual(await step('InitializeMint2 twice', (r) => ({ ixs: [createInitializeMint2Instruction(r.mint.publicKey, 6, mintAuthority.publicKey, null, r.programId)], signers: [] })), custom(0, 6));

    assert.equal(
      await step('createAccount + InitializeAccount3 ×2', (r) => ({
        ixs: [
          SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: r.a.publicKey, lamports: accountRent, space: ACCOUNT_SIZE, programId: r.programId }),
          createInitializeAccount3Instruction(r.a.publicKey, r.mint.publicKey, ownerA.publicKey, r.programId),
          SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: r.b.publicKey, lamports: accountRent, space: ACCOUNT_SIZE, programId: r.programId }),
          createInitializeAccount3Instruction(r.b.publicKey, r.mint.publicKey, ownerB.publicKey, r.programId),
        ],
        signers: [r.a, r.b],
      })),
      null,
    );

    assert.equal(await step('MintTo 1,000,000', (r) => ({ ixs: [createMintToInstruction(r.mint.publicKey, r.a.publicKey, mintAuthority.publicKey, 1_000_000, [], r.programId)], signers: [mintAuthority] })), null);
    // MintTo signed by someone else: OwnerMismatch (4).
    assert.deepEqual(await step('MintTo by a stranger', (r) => ({ ixs: [createMintToInstruction(r.mint.publicKey, r.a.publicKey, stranger.publicKey, 5, [], r.programId)], signers: [stranger] })), custom(0, 4));

    assert.equal(await step('Transfer 300,000 a → b', (r) => ({ ixs: [createTransferInstruction(r.a.publicKey, r.b.publicKey, ownerA.publicKey, 300_000, [], r.programId)], signers: [ownerA] })), null);
    assert.equal(await step('Approve 200,000 to the delegate', (r) => ({ ixs: [createApproveInstruction(r.a.publicKey, delegate.publicKey, ownerA.publicKey, 200_000, [], r.programId)], signers: [ownerA] })), null);
    assert.equal(await step('Transfer 150,000 by the delegate', (r) => ({ ixs: [createTransferInstruction(r.a.publicKey, r.b.publicKey, delegate.publicKey, 150_000, [], r.programId)], signers: [delegate] })), null);
    // Past the delegated amount (50,000 left): InsufficientFunds (1).
    assert.deepEqual(await step('Transfer past the delegated amount', (r) => ({ ixs: [createTransferInstruction(r.a.publicKey, r.b.publicKey, delegate.publicKey, 60_000, [], r.programId)], signers: [delegate] })), custom(0, 1));
    assert.equal(await step('Burn 100,000', (r) => ({ ixs: [createBurnInstruction(r.a.publicKey, r.mint.publicKey, ownerA.publicKey, 100_000, [], r.programId)], signers: [ownerA] })), null);
    assert.deepEqual(await step('Transfer over the balance', (r) => ({ ixs: [createTransferInstruction(r.a.publicKey, r.b.publicKey, ownerA.publicKey, 10_000_000, [], r.programId)], signers: [ownerA] })), custom(0, 1));
    // Signed by the other account's owner: OwnerMismatch (4).
    assert.deepEqual(await step('Transfer by the wrong owner', (r) => ({ ixs: [createTransferInstruction(r.a.publicKey, r.b.publicKey, ownerB.publicKey, 1, [], r.programId)], signers: [ownerB] })), custom(0, 4));
    // A good transfer then a bad one in one transaction: the error names instruction 1, the first is undone.
    assert.deepEqual(
      await step('Transfer then Transfer over the balance, one transaction', (r) => ({
        ixs: [createTransferInstruction(r.a.publicKey, r.b.publicKey, ownerA.publicKey, 1_000, [], r.programId), createTransferInstruction(r.b.publicKey, r.a.publicKey, ownerB.publicKey, 999_999_999, [], r.programId)],
        signers: [ownerA, ownerB],
      })),
      custom(1, 1),
    );
    assert.equal(await step('Revoke', (r) => ({ ixs: [createRevokeInstruction(r.a.publicKey, ownerA.publicKey, [], r.programId)], signers: [ownerA] })), null);

    assert.equal(await step('FreezeAccount b', (r) => ({ ixs: [createFreezeAccountInstruction(r.b.publicKey, r.mint.publicKey, freezeAuthority.publicKey, [], r.programId)], signers: [freezeAuthority] })), null);
    // From a frozen account: AccountFrozen (17).
    assert.deepEqual(await step('Transfer from the frozen account', (r) => ({ ixs: [createTransferInstruction(r.b.publicKey, r.a.publicKey, ownerB.publicKey, 1, [], r.programId)], signers: [ownerB] })), custom(0, 17));
    // Thawed by the wrong authority: OwnerMismatch (4); then by the freeze authority.
    assert.deepEqual(await step('ThawAccount by the mint authority', (r) => ({ ixs: [createThawAccountInstruction(r.b.publicKey, r.mint.publicKey, mintAuthority.publicKey, [], r.programId)], signers: [mintAuthority] })), custom(0, 4));
    assert.equal(await step('ThawAccount b', (r) => ({ ixs: [createThawAccountInstruction(r.b.publicKey, r.mint.publicKey, freezeAuthority.publicKey, [], r.programId)], signers: [freezeAuthority] })), null);

    // Closing an account that holds tokens: NonNativeHasBalance (11).
    assert.deepEqual(await step('CloseAccount with a balance', (r) => ({ ixs: [createCloseAccountInstruction(r.b.publicKey, payer.publicKey, ownerB.publicKey, [], r.programId)], signers: [ownerB] })), custom(0, 11));
    const bAmount = Number((await snapshot())[0]!.b!.readBigUInt64LE(64));
    assert.equal(bAmount, 450_000);
    assert.equal(
      await step('Transfer b\'s balance back, CloseAccount b', (r) => ({
        ixs: [createTransferInstruction(r.b.publicKey, r.a.publicKey, ownerB.publicKey, bAmount, [], r.programId), createCloseAccountInstruction(r.b.publicKey, payer.publicKey, ownerB.publicKey, [], r.programId)],
        signers: [ownerB],
      })),
      null,
    );
    const [final] = await snapshot();
    assert.equal(final!.b, null, 'the closed account is gone');
    assert.equal(Number(final!.a!.readBigUInt64LE(64)), 900_000);
    assert.equal(Number(final!.mint!.readBigUInt64LE(36)), 900_000, 'the supply after the burn');
  });

  it('a transaction invoking the deployed SPL Token costs the same fee as one invoking the builtin, paid by a payer of its own', async () => {
    const lonely = Keypair.generate();
    assert.equal((await send([SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: lonely.publicKey, lamports: LAMPORTS_PER_SOL })], [])).err, null);
    const before = await conn.getBalance(lonely.publicKey, 'confirmed');
    const { blockhash } = await conn.getLatestBlockhash('confirmed');
    // Empty data: SPL Token's InvalidInstruction (12) from both.
    const errs: unknown[] = [];
    for (const programId of [TOKEN_PROGRAM_ID, DEPLOYED_TOKEN]) {
      const tx = new Transaction({ feePayer: lonely.publicKey, recentBlockhash: blockhash }).add({ programId, keys: [], data: Buffer.alloc(0) });
      tx.sign(lonely);
      const sig = await conn.sendRawTransaction(tx.serialize(), { skipPreflight: true });
      const got = (await waitFor(() => conn.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }), { what: sig, timeoutMs: 60_000 }))!;
      errs.push(got.meta!.err);
    }
    assert.deepEqual(errs, [custom(0, 12), custom(0, 12)]);
    assert.equal(await conn.getBalance(lonely.publicKey, 'confirmed'), before - 2 * 5000);
  });
});
