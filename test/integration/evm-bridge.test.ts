/**
 * The bridge both ways with exact balances on both sides: `isthmus evm transfer-to-evm` (the CLI,
 * over RPC) into the EVM space, the transferToNative precompile out of it, the bad cases (not whole
 * lamports, zero value, a missing recipient: a clear revert, nothing moved), and the value
 * conservation check after every kind of move.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Connection, Keypair as SolanaKeypair, PublicKey } from '@solana/web3.js';
import { Contract, JsonRpcProvider, Wallet, parseEther, type TransactionReceipt } from 'ethers';
import { BRIDGE_ADDRESS, EVM_PROGRAM_ID, EVM_STATE_ID } from '../../node-core/evm/constants.ts';
import { encodeEvmInstruction } from '../../node-core/evm/instruction.ts';
import { deriveEvmKeys } from '../../node-core/keys/evm-keys.ts';
import { writeKeypairFile } from '../../node-core/keys/keypair.ts';
import { compileMessage, signTransaction } from '../../node-core/runtime/message-builder.ts';
import { runToExit } from '../helpers/cli-process.ts';
import { checkValueConservation } from '../helpers/conservation.ts';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';

const WORDS = 'test test test test test test test test test test test junk';
const BRIDGE_ABI = ['function transferToNative(bytes32 native_recipient) payable'];
const FEE = 5000;

describe('the bridge between the spaces', () => {
  let node: TestNode;
  let provider: JsonRpcProvider;
  let connection: Connection;
  let alice: Wallet;
  let keyFile: string;
  let bridge: Contract;

  before(async () => {
    node = await startTestNode({ mnemonic: WORDS });
    provider = new JsonRpcProvider(node.evmRpcUrl, undefined, { pollingInterval: 50, cacheTimeout: -1 });
    connection = new Connection(node.rpcUrl, { commitment: 'confirmed', wsEndpoint: node.pubsubUrl });
    alice = new Wallet(Buffer.from(deriveEvmKeys(WORDS, 1)[0]!.privateKey).toString('hex'), provider);
    keyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-key-')), 'id.json');
    writeKeypairFile(keyFile, node.keys.devAccounts[0]!);
    bridge = new Contract(BRIDGE_ADDRESS, BRIDGE_ABI, alice);
    await checkValueConservation(node);
  });
  after(async () => {
    provider.destroy();
    await closeConnectionSocket(connection);
    await node.stop();
  });

  const nativeBalance = (address: string) => connection.getBalance(new PublicKey(address), 'confirmed');

  test('native → EVM with the CLI: exact balances, and the deposit is a transaction in an EVM block', async () => {
    const signer = node.keys.devAccounts[0]!.address;
    const receiver = Wallet.createRandom().address;
    const before = await nativeBalance(signer);
    const heightBefore = await provider.getBlockNumber();
    const r = await runToExit(['evm', 'transfer-to-evm', '--keypair', keyFile, '--url', node.rpcUrl, receiver, '1.5']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0]!, new RegExp(`^Loading signer key pair from ${keyFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const signature = /^Transaction signature = (\w+)$/.exec(lines[1]!)![1]!;

    assert.equal(await nativeBalance(signer), before - 1_500_000_000 - FEE);
    await waitFor(async () => (await provider.getBalance(receiver)) === parseEther('1.5'), { what: 'the EVM balance' });
    // The account was handed back to the System program.
    assert.equal((await connection.getAccountInfo(new PublicKey(signer)))!.owner.toBase58(), '11111111111111111111111111111111');

    const native = await connection.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    const logged = native!.meta!.logMessages!.map((l) => /^Program log: EVM transaction (0x[0-9a-f]{64})$/.exec(l)?.[1]).find(Boolean)!;
    const deposit = await waitFor(() => provider.send('eth_getTransactionByHash', [logged]), { what: 'the deposit transaction' });
    assert.equal(deposit.from, BRIDGE_ADDRESS);
    assert.equal(deposit.to, receiver.toLowerCase());
    assert.equal(BigInt(deposit.value), parseEther('1.5'));
    assert.equal(deposit.nativeSignature, signature);
    const receipt = await provider.getTransactionReceipt(logged);
    assert.equal(receipt!.status, 1);
    assert.ok(receipt!.blockNumber > heightBefore);
    // ethers reads the deposit like any transaction.
    const tx = await provider.getTransaction(logged);
    assert.equal(tx!.value, parseEther('1.5'));
    await checkValueConservation(node);
  });

  test('native → EVM in lamports', async () => {
    const receiver = Wallet.createRandom().address.toLowerCase();
    const r = await runToExit(['evm', 'transfer-to-evm', '--lamports', '-k', keyFile, '-u', node.rpcUrl, receiver, '7']);
    assert.equal(r.code, 0, r.stderr);
    await waitFor(async () => (await provider.getBalance(receiver)) === 7_000_000_000n, { what: '7 lamports as wei' });
    assert.equal((await rpc(node.rpcUrl, 'eth_getBalance', [receiver, 'latest'])).result, '0x1a13b8600');
  });

  test('the CLI refuses bad input before sending anything', async () => {
    const before = await nativeBalance(node.keys.devAccounts[0]!.address);
    const cases: Array<[string[], number, RegExp]> = [
      [['0x123', '1'], 2, /EVM_ADDRESS must be 0x and 40 hex digits/],
      [['0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92267', '1'], 2, /bad EIP-55 checksum/],
      [[alice.address, '1.0000000001'], 2, /at most 9 decimals/],
      [['--lamports', alice.address, '1.5'], 2, /whole number of lamports/],
      [[alice.address, '0'], 2, /greater than zero/],
      [[alice.address], 2, /takes <EVM_ADDRESS> <AMOUNT>/],
      [['--keypair', '/nonexistent/id.json', alice.address, '1'], 1, /cannot read keypair file/],
      [['--keypair', keyFile, '--url', node.rpcUrl, alice.address, '10000000'], 1, /Transaction simulation failed|insufficient/i],
    ];
    for (const [args, code, pattern] of cases) {
      const r = await runToExit(['evm', 'transfer-to-evm', ...(args.includes('--url') ? [] : ['--url', node.rpcUrl]), ...args]);
      assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, pattern);
    }
    assert.equal(await nativeBalance(node.keys.devAccounts[0]!.address), before);
    const help = await runToExit(['evm', 'transfer-to-evm', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /isthmus evm transfer-to-evm \[OPTIONS\] <EVM_ADDRESS> <AMOUNT>/);
  });

  test('EVM → native with transferToNative: exact balances on both sides', async () => {
    const recipient = SolanaKeypair.generate().publicKey;
    const word = `0x${Buffer.from(recipient.toBytes()).toString('hex')}`;
    const evmBefore = await provider.getBalance(alice.address);
    const tx = await bridge.getFunction('transferToNative')(word, { value: parseEther('2') });
    const receipt: TransactionReceipt = (await tx.wait())!;
    assert.equal(receipt.status, 1);
    assert.equal(await nativeBalance(recipient.toBase58()), 2_000_000_000);
    assert.equal(await provider.getBalance(alice.address), evmBefore - parseEther('2') - receipt.gasUsed * receipt.gasPrice);
    assert.equal(await provider.getBalance(BRIDGE_ADDRESS), 0n, 'the value left the EVM space');
    const native = await connection.getTransaction((await provider.send('eth_getTransactionReceipt', [tx.hash])).nativeSignature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    assert.ok(native!.meta!.logMessages!.includes(`Program log: transferToNative: 2000000000 lamports to ${recipient.toBase58()}`));
    await checkValueConservation(node);
  });

  test('bad withdrawals revert clearly and move nothing', async () => {
    const recipient = SolanaKeypair.generate().publicKey;
    const word = `0x${Buffer.from(recipient.toBytes()).toString('hex')}`;
    // Caught before sending, with the reason.
    await assert.rejects(bridge.getFunction('transferToNative').estimateGas(word, { value: 1_500_000_001n }), (e: any) => /not a whole number of lamports/.test(e.reason ?? e.message));
    await assert.rejects(bridge.getFunction('transferToNative').staticCall(word, { value: 0n }), (e: any) => /carries no value/.test(e.reason ?? e.message));

    // Sent anyway: mined with status 0; only the gas is paid.
    const before = await provider.getBalance(alice.address);
    const tx = await bridge.getFunction('transferToNative')(word, { value: 1_500_000_001n, gasLimit: 100_000 });
    await assert.rejects(tx.wait(), (e: any) => e.code === 'CALL_EXCEPTION');
    const receipt = (await provider.getTransactionReceipt(tx.hash))!;
    assert.equal(receipt.status, 0);
    assert.equal(await provider.getBalance(alice.address), before - receipt.gasUsed * receipt.gasPrice);
    assert.equal(await nativeBalance(recipient.toBase58()), 0);
    const raw = await provider.send('eth_getTransactionReceipt', [tx.hash]);
    assert.match(Buffer.from(raw.revertReason.slice(2 + 8 + 128), 'hex').toString(), /not a whole number of lamports/);

    // A native transaction that does not carry the recipient: the precompile cannot credit it.
    const signed = await alice.signTransaction(await alice.populateTransaction({ to: BRIDGE_ADDRESS, data: bridge.interface.encodeFunctionData('transferToNative', [word]), value: parseEther('1'), gasLimit: 100_000 }));
    const relayer = node.keys.evmRelayer;
    const wrapped = signTransaction(
      compileMessage(relayer.address, [{ programId: EVM_PROGRAM_ID, accounts: [{ key: EVM_STATE_ID, writable: true }, { key: relayer.address, signer: true, writable: true }], data: encodeEvmInstruction({ kind: 'transaction', raw: Buffer.from(signed.slice(2), 'hex') }) }], node.chain.latestBlockhash('processed').blockhash),
      [relayer],
    );
    const sig = await connection.sendRawTransaction(wrapped.wire);
    await waitFor(async () => (await connection.getSignatureStatus(sig)).value?.confirmationStatus === 'confirmed', { what: 'the native transaction' });
    const hash = (await connection.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }))!.meta!.logMessages!.map((l) => /EVM transaction (0x\w+)/.exec(l)?.[1]).find(Boolean)!;
    const missing = await waitFor(() => provider.send('eth_getTransactionReceipt', [hash]), { what: 'the receipt' });
    assert.equal(missing.status, '0x0');
    assert.match(Buffer.from(missing.revertReason.slice(2 + 8 + 128), 'hex').toString(), /was not passed to the native transaction/);
    assert.equal(await nativeBalance(recipient.toBase58()), 0);
    await checkValueConservation(node);
  });

  test('value is conserved after every kind of move', async () => {
    const { SystemProgram, Transaction, sendAndConfirmTransaction, Keypair: K } = await import('@solana/web3.js');
    // A native transfer (half its fee burned).
    const payer = K.fromSecretKey(node.keys.devAccounts[1]!.secretKey);
    await sendAndConfirmTransaction(connection, new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: K.generate().publicKey, lamports: 5_000_000 })), [payer]);
    await checkValueConservation(node);
    // An EVM transfer paying a priority fee (it stays in the EVM space, with the block's miner).
    const tipped = await (await alice.sendTransaction({ to: Wallet.createRandom().address, value: 123n, maxPriorityFeePerGas: 1_500_000_001n, maxFeePerGas: 5_000_000_000n })).wait();
    assert.equal(tipped!.gasPrice, 2_500_000_001n);
    await checkValueConservation(node);
    // A deployment through the chunked path (a storage account is created, then closed).
    const { ContractFactory } = await import('ethers');
    const { compileFixture, LONG_NOTE } = await import('../helpers/evm.ts');
    const counter = compileFixture('Counter.sol', 'Counter');
    const contract = await new ContractFactory(counter.abi as never, counter.bytecode, alice).deploy(LONG_NOTE, { value: 5_000_000_000n });
    await contract.deploymentTransaction()!.wait();
    await checkValueConservation(node);
    // A reverted call (mined, gas paid).
    const failed = await contract.getFunction('add')(13, { gasLimit: 100_000 });
    await assert.rejects(failed.wait());
    await checkValueConservation(node);
    // A native transaction whose EVM transaction is invalid (a stale nonce): only the native fee is paid.
    const stale = await alice.signTransaction(await alice.populateTransaction({ to: alice.address, value: 1n, nonce: 0, gasLimit: 21000 }));
    const relayer = node.keys.evmRelayer;
    const wrapped = signTransaction(
      compileMessage(relayer.address, [{ programId: EVM_PROGRAM_ID, accounts: [{ key: EVM_STATE_ID, writable: true }, { key: relayer.address, signer: true, writable: true }], data: encodeEvmInstruction({ kind: 'transaction', raw: Buffer.from(stale.slice(2), 'hex') }) }], node.chain.latestBlockhash('processed').blockhash),
      [relayer],
    );
    const sig = await connection.sendRawTransaction(wrapped.wire, { skipPreflight: true });
    const status = await waitFor(async () => (await connection.getSignatureStatus(sig)).value, { what: 'the failed native transaction' });
    assert.deepEqual(status!.err, { InstructionError: [0, 'InvalidArgument'] });
    await checkValueConservation(node);
  });
});
