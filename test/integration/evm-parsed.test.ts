/**
 * The node parses what it carries, read by real clients against a real node: a bridge deposit and EVM
 * transactions sent with ethers (a transfer, transferToNative, a deployment through the chunked path,
 * a revert) as @solana/web3.js getParsedTransaction, @solana/kit getTransaction / getBlock /
 * blockNotifications see them under jsonParsed, and the decoded revert reason and transferToNative
 * recipient on the Ethereum side.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Connection, Keypair, PublicKey, sendAndConfirmTransaction, Transaction, TransactionInstruction, type ParsedInstruction } from '@solana/web3.js';
import { address, createSolanaRpc, createSolanaRpcSubscriptions_UNSTABLE, signature as kitSignature } from '@solana/kit';
import { Contract, ContractFactory, Transaction as EthTransaction, JsonRpcProvider, Wallet, getBytes, parseEther } from 'ethers';
import { BRIDGE_ADDRESS, EVM_PROGRAM_ID, EVM_STATE_ID } from '../../node-core/evm/constants.ts';
import { depositInstructions } from '../../node-core/evm/deposit.ts';
import { deriveEvmKeys } from '../../node-core/keys/evm-keys.ts';
import { compileFixture, LONG_NOTE } from '../helpers/evm.ts';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';

const WORDS = 'test test test test test test test test test test test junk';
const counter = compileFixture('Counter.sol', 'Counter');
const q = (v: bigint) => `0x${v.toString(16)}`;

describe('jsonParsed EVM instructions and decoded EVM fields, with real clients', () => {
  let node: TestNode;
  let connection: Connection;
  let kit: ReturnType<typeof createSolanaRpc>;
  let provider: JsonRpcProvider;
  let alice: Wallet;
  let relayer: string;

  before(async () => {
    node = await startTestNode({ mnemonic: WORDS });
    connection = new Connection(node.rpcUrl, { commitment: 'confirmed', wsEndpoint: node.pubsubUrl });
    kit = createSolanaRpc(node.rpcUrl);
    provider = new JsonRpcProvider(node.evmRpcUrl, undefined, { pollingInterval: 50, cacheTimeout: -1 });
    alice = new Wallet(Buffer.from(deriveEvmKeys(WORDS, 1)[0]!.privateKey).toString('hex'), provider);
    relayer = node.keys.evmRelayer.address;
  });
  after(async () => {
    provider.destroy();
    await closeConnectionSocket(connection);
    await node.stop();
  });

  /** The native transaction that carried an EVM transaction, as web3.js parses it. */
  async function parsedCarrier(evmHash: string) {
    const receipt = await waitFor(() => provider.send('eth_getTransactionReceipt', [evmHash]), { what: 'the receipt' });
    const parsed = await waitFor(() => connection.getParsedTransaction(receipt.nativeSignature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }), { what: 'the native transaction' });
    return { receipt, parsed: parsed!, evm: parsed!.transaction.message.instructions.filter((i) => i.programId.toBase58() === EVM_PROGRAM_ID) as ParsedInstruction[] };
  }

  test('a bridge deposit: web3.js and kit read swapNativeToEvm and freeOwnership with their accounts', async () => {
    const payer = Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey);
    const receiver = Wallet.createRandom().address.toLowerCase();
    const tx = new Transaction();
    for (const s of depositInstructions(payer.publicKey.toBase58(), receiver, 1_250_000_000n)) {
      tx.add(new TransactionInstruction({ programId: new PublicKey(s.programId), keys: s.accounts!.map((a) => ({ pubkey: new PublicKey(a.key), isSigner: !!a.signer, isWritable: !!a.writable })), data: Buffer.from(s.data!) }));
    }
    const sig = await sendAndConfirmTransaction(connection, tx, [payer], { commitment: 'confirmed' });
    const me = payer.publicKey.toBase58();

    const parsed = (await connection.getParsedTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }))!;
    const [assign, swap, free] = parsed.transaction.message.instructions as ParsedInstruction[];
    assert.deepEqual(assign!.parsed, { type: 'assign', info: { account: me, owner: EVM_PROGRAM_ID } });
    assert.equal(swap!.program, 'evm');
    assert.equal(swap!.programId.toBase58(), EVM_PROGRAM_ID);
    assert.deepEqual(swap!.parsed, { type: 'swapNativeToEvm', info: { evmStateAccount: EVM_STATE_ID, fromNativeAccount: me, toEvmAccount: receiver, lamports: 1_250_000_000 } });
    assert.deepEqual(free!.parsed, { type: 'freeOwnership', info: { evmStateAccount: EVM_STATE_ID, nativeAccount: me } });

    const viaKit = await kit.getTransaction(kitSignature(sig), { commitment: 'confirmed', encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
    const kitSwap = viaKit!.transaction.message.instructions[1] as { program: string; programId: string; parsed: { type: string; info: Record<string, unknown> }; stackHeight: number | null };
    assert.equal(kitSwap.program, 'evm');
    assert.equal(kitSwap.programId, EVM_PROGRAM_ID);
    assert.equal(kitSwap.parsed.type, 'swapNativeToEvm');
    assert.equal(kitSwap.parsed.info.toEvmAccount, receiver);

    // The block parses it the same way (kit's getBlock, full transactions under jsonParsed).
    const block = await kit.getBlock(viaKit!.slot, { commitment: 'confirmed', encoding: 'jsonParsed', transactionDetails: 'full', maxSupportedTransactionVersion: 0, rewards: false }).send();
    const inBlock = block!.transactions.find((t) => t.transaction.signatures[0] === sig)!;
    assert.deepEqual(inBlock.transaction.message.instructions[1], kitSwap);
  });

  test('an ethers transfer: evmTransaction carries the decoded transaction; blockNotifications parse it too', async () => {
    // blockSubscribe is behind Agave's --rpc-pubsub-enable-block-subscription, so kit types it as unstable.
    const subs = createSolanaRpcSubscriptions_UNSTABLE(node.pubsubUrl);
    const abort = new AbortController();
    const notifications = await subs
      .blockNotifications({ mentionsAccountOrProgram: address(EVM_PROGRAM_ID) }, { commitment: 'confirmed', encoding: 'jsonParsed', maxSupportedTransactionVersion: 0, transactionDetails: 'full', showRewards: false })
      .subscribe({ abortSignal: abort.signal });
    // Kit delivers only what arrives while someone iterates: collect from now on.
    const seen: Array<{ program: string; parsed: { type: string; info: { transaction: { hash: string } } } }> = [];
    const collecting = (async () => {
      for await (const n of notifications) {
        for (const t of n.value.block?.transactions ?? []) seen.push(...(t.transaction.message.instructions as never[]));
      }
    })().catch(() => undefined);
    try {
      const to = Wallet.createRandom().address;
      const sent = await alice.sendTransaction({ to, value: parseEther('0.5'), maxPriorityFeePerGas: 3n, maxFeePerGas: 4_000_000_000n });
      const { evm } = await parsedCarrier(sent.hash);
      assert.equal(evm.length, 1);
      assert.equal(evm[0]!.program, 'evm');
      const { type, info } = evm[0]!.parsed as { type: string; info: { evmStateAccount: string; relayerAccount: string; transaction: Record<string, unknown> } };
      assert.equal(type, 'evmTransaction');
      assert.equal(info.evmStateAccount, EVM_STATE_ID);
      assert.equal(info.relayerAccount, relayer);
      const byHash = await provider.send('eth_getTransactionByHash', [sent.hash]);
      assert.deepEqual(
        { hash: info.transaction.hash, from: info.transaction.from, to: info.transaction.to, nonce: info.transaction.nonce, value: info.transaction.value, gas: info.transaction.gas, type: info.transaction.type, maxFeePerGas: info.transaction.maxFeePerGas, maxPriorityFeePerGas: info.transaction.maxPriorityFeePerGas },
        { hash: sent.hash, from: alice.address.toLowerCase(), to: to.toLowerCase(), nonce: q(BigInt(sent.nonce)), value: q(parseEther('0.5')), gas: q(sent.gasLimit), type: '0x2', maxFeePerGas: q(4_000_000_000n), maxPriorityFeePerGas: '0x3' },
      );
      // The same fields eth_getTransactionByHash gives, without the block's.
      for (const k of ['hash', 'from', 'to', 'nonce', 'value', 'gas', 'input', 'r', 's', 'v', 'chainId', 'accessList']) assert.deepEqual(info.transaction[k], byHash[k], k);

      const pushed = await waitFor(() => seen.find((ix) => ix.program === 'evm' && ix.parsed.info.transaction?.hash === sent.hash), { what: 'the block notification' });
      assert.equal(pushed!.parsed.type, 'evmTransaction');
    } finally {
      abort.abort();
      await collecting;
    }
  });

  test('transferToNative: the native recipient and lamports, parsed and on the Ethereum transaction', async () => {
    const recipient = Keypair.generate().publicKey;
    const bridge = new Contract(BRIDGE_ADDRESS, ['function transferToNative(bytes32 native_recipient) payable'], alice);
    const sent = await bridge.getFunction('transferToNative')(`0x${Buffer.from(recipient.toBytes()).toString('hex')}`, { value: parseEther('3') });
    const { evm } = await parsedCarrier(sent.hash);
    const carried = (evm[0]!.parsed as { info: { transaction: { transferToNative: unknown; to: string } } }).info.transaction;
    assert.equal(carried.to, BRIDGE_ADDRESS);
    assert.deepEqual(carried.transferToNative, { nativeRecipient: recipient.toBase58(), lamports: q(3_000_000_000n) });
    assert.deepEqual((await provider.send('eth_getTransactionByHash', [sent.hash])).transferToNative, carried.transferToNative);
    assert.equal(await connection.getBalance(recipient, 'confirmed'), 3_000_000_000);
  });

  test('a deployment through the chunked path: allocate, write and execute parsed with the storage account', async () => {
    const deployed = await new ContractFactory(counter.abi as never, counter.bytecode, alice).deploy(LONG_NOTE);
    const hash = deployed.deploymentTransaction()!.hash;
    const { evm, receipt } = await parsedCarrier(hash);
    assert.equal(receipt.status, '0x1');
    // The receipt names the native transaction that executed it: the last of the flow.
    const execute = evm[0]!.parsed as { type: string; info: { evmStateAccount: string; storageAccount: string; relayerAccount: string } };
    assert.equal(execute.type, 'evmBigTransactionExecute');
    assert.equal(execute.info.evmStateAccount, EVM_STATE_ID);
    assert.equal(execute.info.relayerAccount, relayer);
    // The storage account's history holds the allocation and the writes before it.
    const history = await connection.getSignaturesForAddress(new PublicKey(execute.info.storageAccount), undefined, 'confirmed');
    const kinds: string[] = [];
    let written = 0;
    for (const { signature } of history.reverse()) {
      const t = (await connection.getParsedTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }))!;
      for (const ix of t.transaction.message.instructions as ParsedInstruction[]) {
        if (ix.programId.toBase58() !== EVM_PROGRAM_ID) continue;
        const p = ix.parsed as { type: string; info: { storageAccount: string; size?: number; offset?: number; data?: string } };
        assert.equal(p.info.storageAccount, execute.info.storageAccount);
        kinds.push(p.type);
        if (p.type === 'evmBigTransactionWrite') {
          assert.equal(p.info.offset, written);
          written += Buffer.from(p.info.data!, 'base64').length;
        }
      }
    }
    assert.equal(kinds[0], 'evmBigTransactionAllocate');
    assert.equal(kinds.at(-1), 'evmBigTransactionExecute');
    assert.ok(kinds.filter((k) => k === 'evmBigTransactionWrite').length >= 2, kinds.join());
    // The chunks written add up to the signed deployment.
    assert.equal(written, getBytes(EthTransaction.from(deployed.deploymentTransaction()!).serialized).length);
  });

  test('a reverted call: the receipt carries revertReasonText beside Besu\'s revertReason, in every receipt method', async () => {
    const deployed = await new ContractFactory(counter.abi as never, counter.bytecode, alice).deploy('short');
    await deployed.waitForDeployment();
    const failed = await deployed.getFunction('add')(13, { gasLimit: 100_000 });
    await assert.rejects(failed.wait(), (e: { code?: string }) => e.code === 'CALL_EXCEPTION');
    const receipt = await provider.send('eth_getTransactionReceipt', [failed.hash]);
    assert.equal(receipt.status, '0x0');
    assert.equal(receipt.revertReasonText, 'unlucky number');
    assert.equal(receipt.revertReason, deployed.interface.encodeErrorResult('Error', ['unlucky number']));
    const inBlock = (await provider.send('eth_getBlockReceipts', [receipt.blockNumber])).find((r: { transactionHash: string }) => r.transactionHash === failed.hash);
    assert.equal(inBlock.revertReasonText, 'unlucky number');
    const page = (await rpc(node.evmRpcUrl, 'ots_searchTransactionsBefore', [alice.address, 0, 5])).result;
    assert.equal(page.receipts.find((r: { transactionHash: string }) => r.transactionHash === failed.hash).revertReasonText, 'unlucky number');
    // eth_call words the same decoder's text in its error.
    const call = await rpc(node.evmRpcUrl, 'eth_call', [{ from: alice.address, to: await deployed.getAddress(), data: deployed.interface.encodeFunctionData('add', [13]) }, 'latest']);
    assert.equal(call.error.message, `execution reverted: ${receipt.revertReasonText}`);
    // A custom error has no text: only the raw data.
    const custom = await deployed.getFunction('add')(5000, { gasLimit: 100_000 });
    await assert.rejects(custom.wait());
    const customReceipt = await provider.send('eth_getTransactionReceipt', [custom.hash]);
    assert.equal(customReceipt.revertReason, deployed.interface.encodeErrorResult('TooBig', [5000, 1000]));
    assert.ok(!('revertReasonText' in customReceipt));
  });
});
