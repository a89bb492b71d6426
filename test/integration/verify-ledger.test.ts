/**
 * `isthmus verify-ledger` on a real ledger: after native, token, EVM and bridge transfers both ways it
 * holds (exit 0); a ledger tampered with through the store is reported (exit 1); a ledger a node runs
 * on is refused (exit 2), and so is a folder that is not a ledger.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import * as spl from '@solana/spl-token';
import { Connection, Keypair as SolanaKeypair, PublicKey, sendAndConfirmTransaction, SystemProgram, Transaction } from '@solana/web3.js';
import { Contract, JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { BRIDGE_ADDRESS, EVM_STATE_ID } from '../../node-core/evm/constants.ts';
import { depositInstructions } from '../../node-core/evm/deposit.ts';
import { ACCOUNT_TABLE, decodeAccountRecord, encodeAccountRecord } from '../../node-core/evm/records.ts';
import { deriveEvmKeys } from '../../node-core/keys/evm-keys.ts';
import { verifyLedger } from '../../node-core/node/verify-ledger.ts';
import { compileMessage, signTransaction } from '../../node-core/runtime/message-builder.ts';
import { openLedgerStore } from '../../node-core/node/open-ledger.ts';
import { runToExit } from '../helpers/cli-process.ts';
import { startTestNode, tempLedger, waitFor, type TestNode } from '../helpers/node.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';

const WORDS = 'test test test test test test test test test test test junk';

/** Copies a ledger folder (the checks below tamper with their own copy). */
function copyLedger(from: string): string {
  const to = tempLedger();
  fs.cpSync(from, to, { recursive: true });
  fs.rmSync(`${to}/ledger.lock`, { force: true });
  return to;
}

/** Rewrites the last stored slot with `change` applied to its accounts or EVM records (the meta kept as it was). */
async function tamper(ledger: string, change: { native?: [string, number]; evm?: [string, bigint] }): Promise<void> {
  const store = await openLedgerStore(ledger);
  try {
    const meta = (await store.readMeta())!;
    const block = (await store.getBlock(meta.slot))!;
    const accounts: Array<[string, any]> = [];
    for await (const [address, account] of store.loadAccounts()) {
      if (change.native && address === change.native[0]) accounts.push([address, { ...account, lamports: account.lamports + change.native[1] }]);
    }
    const extras = [];
    if (change.evm) {
      const record = decodeAccountRecord((await store.getExtra(ACCOUNT_TABLE, change.evm[0])) as Uint8Array);
      extras.push({ table: ACCOUNT_TABLE, key: change.evm[0], value: encodeAccountRecord({ ...record, balance: record.balance + change.evm[1] }) });
    }
    await store.commitSlot({ block, accounts, meta, extras });
  } finally {
    await store.close();
  }
}

describe('isthmus verify-ledger', () => {
  const ledger = tempLedger();
  let node: TestNode;
  let connection: Connection;
  let provider: JsonRpcProvider;
  let alice: Wallet;
  const copies: string[] = [];
  let stopped = false;
  const stopNode = async () => {
    if (!stopped) await node.stop();
    stopped = true;
  };

  before(async () => {
    node = await startTestNode({ ledger, mnemonic: WORDS });
    connection = new Connection(node.rpcUrl, { commitment: 'confirmed', wsEndpoint: node.pubsubUrl });
    provider = new JsonRpcProvider(node.evmRpcUrl, undefined, { pollingInterval: 50, cacheTimeout: -1 });
    alice = new Wallet(Buffer.from(deriveEvmKeys(WORDS, 1)[0]!.privateKey).toString('hex'), provider);
  });
  after(async () => {
    provider.destroy();
    await closeConnectionSocket(connection);
    await stopNode();
    for (const dir of [ledger, ...copies]) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a node running on the ledger: refused with exit 2, saying why', async () => {
    const r = await runToExit(['verify-ledger', '--ledger', ledger]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /in use by another node \(pid \d+\).*verify-ledger reads a ledger only while no node runs on it/);
  });

  test('after native, token, EVM and bridge transfers both ways: value is conserved (exit 0)', async () => {
    const payer = SolanaKeypair.fromSecretKey(node.keys.devAccounts[1]!.secretKey);
    // Native.
    await sendAndConfirmTransaction(connection, new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: SolanaKeypair.generate().publicKey, lamports: 5_000_000 })), [payer]);
    // Tokens: a mint, two accounts (rent moved into them), a mint-to and a transfer.
    const mint = await spl.createMint(connection, payer, payer.publicKey, null, 6);
    const from = await spl.createAssociatedTokenAccount(connection, payer, mint, payer.publicKey);
    const to = await spl.createAssociatedTokenAccount(connection, payer, mint, SolanaKeypair.generate().publicKey);
    await spl.mintTo(connection, payer, mint, from, payer, 1_000_000n);
    await spl.transfer(connection, payer, from, to, payer, 250_000n);
    // EVM.
    await (await alice.sendTransaction({ to: Wallet.createRandom().address, value: parseEther('0.25') })).wait();
    // Native → EVM (a deposit), then EVM → native (transferToNative).
    const depositor = node.keys.devAccounts[2]!;
    const receiver = Wallet.createRandom().address;
    const deposit = signTransaction(compileMessage(depositor.address, depositInstructions(depositor.address, receiver, 3_000_000_000n), (await connection.getLatestBlockhash()).blockhash), [depositor]);
    await connection.sendRawTransaction(deposit.wire);
    await waitFor(async () => (await provider.getBalance(receiver)) === parseEther('3'), { what: 'the deposit in the EVM space' });
    const recipient = SolanaKeypair.generate().publicKey;
    const bridge = new Contract(BRIDGE_ADDRESS, ['function transferToNative(bytes32 native_recipient) payable'], alice);
    const withdrawal = await (await bridge.getFunction('transferToNative')(`0x${Buffer.from(recipient.toBytes()).toString('hex')}`, { value: parseEther('2') })).wait();
    assert.equal(withdrawal!.status, 1);
    assert.equal(await connection.getBalance(recipient), 2_000_000_000);
    const evmStateAtConfirmed = (await connection.getAccountInfo(new PublicKey(EVM_STATE_ID)))!.lamports;
    await stopNode();

    const result = await verifyLedger(ledger);
    assert.deepEqual(result.violations, []);
    const b = result.books;
    assert.ok(b.burned > 0n && b.evmAccounts > 10, JSON.stringify(b, (_, v) => (typeof v === 'bigint' ? String(v) : v)));
    // The stored slot is at or after the one the transfers were read at; nothing moved the backing since.
    assert.equal(b.evmStateLamports, BigInt(evmStateAtConfirmed));
    const r = await runToExit(['verify-ledger', '--ledger', ledger]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /value is conserved/);
    assert.match(r.stdout, new RegExp(`native lamports \\+ burned = genesis supply \\+ minted \\+ adjusted: (\\d+) = \\1`));
  });

  test('accounts put in place at start over the ledger (--account) are on the books as adjusted: still conserved', async () => {
    const before = (await verifyLedger(ledger)).books;
    const added = SolanaKeypair.generate().publicKey.toBase58();
    const again = await startTestNode({ ledger, mnemonic: WORDS, accounts: [{ address: added, account: { lamports: 7 * 1_000_000_000, data: new Uint8Array(3), owner: '11111111111111111111111111111111', executable: false, rentEpoch: 0 } }] });
    try {
      await waitFor(async () => (await new Connection(again.rpcUrl).getBalance(new PublicKey(added), 'finalized')) === 7_000_000_000, { what: 'the account at finalized', timeoutMs: 30_000 });
    } finally {
      await again.stop();
    }
    const after = await verifyLedger(ledger);
    assert.deepEqual(after.violations, []);
    assert.equal(after.books.adjusted - before.adjusted, 7_000_000_000n);
  });

  test('a native account\'s lamports changed through the store: reported, exit 1', async () => {
    const copy = copyLedger(ledger);
    copies.push(copy);
    await tamper(copy, { native: [node.keys.devAccounts[3]!.address, 15_000] });
    const result = await verifyLedger(copy);
    assert.deepEqual(result.violations.map((v) => [v.equation, v.left - v.right]), [
      ['native lamports + burned = genesis supply + minted + adjusted', 15_000n],
      ['native lamports = recorded total supply', 15_000n],
    ]);
    const r = await runToExit(['verify-ledger', '--ledger', copy]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /VALUE IS NOT CONSERVED \(2 of the books disagree\)/);
    assert.match(r.stdout, /native lamports = recorded total supply: \d+ ≠ \d+ \(left − right = 15000\)/);
  });

  test('the EVM state account\'s lamports or an EVM balance changed: the backing is reported', async () => {
    const copy = copyLedger(ledger);
    copies.push(copy);
    await tamper(copy, { evm: [alice.address.toLowerCase(), -1n] });
    const evmOnly = await verifyLedger(copy);
    assert.deepEqual(evmOnly.violations.map((v) => [v.equation.split(' =')[0], v.left - v.right]), [['EVM balances (wei)', -1n]]);

    const other = copyLedger(ledger);
    copies.push(other);
    await tamper(other, { native: [EVM_STATE_ID, -7] });
    const backing = await verifyLedger(other);
    assert.deepEqual(backing.violations.map((v) => v.left - v.right), [-7n, -7n, 7n * 1_000_000_000n]);
  });

  test('usage errors and folders that are not ledgers: exit 2', async () => {
    const notALedger = tempLedger();
    copies.push(notALedger);
    fs.writeFileSync(`${notALedger}/x`, '');
    for (const [args, pattern] of [
      [['verify-ledger', '--ledger', notALedger], /is not an Isthmus ledger/],
      [['verify-ledger', '--ledger', `${notALedger}/missing`], /does not exist/],
      [['verify-ledger', '--bogus'], /Unknown option '--bogus'/],
      [['verify-ledger', '--ledger'], /argument missing|needs a value/i],
      [['verify-ledger', 'extra'], /Unexpected argument 'extra'|positional/i],
    ] as Array<[string[], RegExp]>) {
      const r = await runToExit(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, pattern, args.join(' '));
    }
    const help = await runToExit(['verify-ledger', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /isthmus verify-ledger \[--ledger DIR\]/);
  });
});
