/**
 * The EVM space through ethers v6, as a dApp uses it: chain id, transfers and receipts, blocks
 * (no empty ones, isFinalized turning true), a Solidity contract deployed through the chunked path,
 * calls, events (getLogs, filters, WebSocket subscriptions) and each error an Ethereum client expects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Contract, ContractFactory, JsonRpcProvider, Wallet, WebSocketProvider, parseEther, type TransactionReceipt } from 'ethers';
import { deriveEvmKeys } from '../../node-core/keys/evm-keys.ts';
import { compileFixture, LONG_NOTE } from '../helpers/evm.ts';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';

const WORDS = 'test test test test test test test test test test test junk';
const counter = compileFixture('Counter.sol', 'Counter');

describe('EVM space with ethers v6', () => {
  let node: TestNode;
  let provider: JsonRpcProvider;
  let alice: Wallet;
  let bob: Wallet;

  before(async () => {
    node = await startTestNode({ mnemonic: WORDS });
    provider = new JsonRpcProvider(node.evmRpcUrl, undefined, { pollingInterval: 50, cacheTimeout: -1 });
    const [a, b] = deriveEvmKeys(WORDS, 2);
    alice = new Wallet(Buffer.from(a!.privateKey).toString('hex'), provider);
    bob = new Wallet(Buffer.from(b!.privateKey).toString('hex'), provider);
  });
  after(async () => {
    provider.destroy();
    await node.stop();
  });

  test('network: chain id 5705 (devnet) and the Anvil-style dev accounts', async () => {
    assert.equal((await provider.getNetwork()).chainId, 5705n);
    assert.equal(alice.address, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    const accounts = await provider.send('eth_accounts', []);
    assert.equal(accounts.length, 10);
    assert.equal(accounts[0], alice.address.toLowerCase());
    // 100,000 native tokens each (lamports scaled by 10^9).
    assert.equal(await provider.getBalance(alice.address), parseEther('100000'));
  });

  test('a transfer: exact balances, receipt, block fields, no empty blocks, isFinalized turning true', async () => {
    const before = await provider.getBalance(bob.address);
    const heightBefore = await provider.getBlockNumber();
    const tx = await alice.sendTransaction({ to: bob.address, value: parseEther('1.5') });
    const receipt = (await tx.wait())!;
    assert.equal(receipt.status, 1);
    assert.equal(receipt.gasUsed, 21000n);
    assert.equal(receipt.index, 0);
    assert.equal(await provider.getBalance(bob.address), before + parseEther('1.5'));

    const block = (await provider.getBlock(receipt.blockNumber))!;
    assert.equal(block.number, heightBefore + 1, 'the block number moves by one per block with EVM transactions');
    assert.deepEqual(block.transactions, [tx.hash]);
    assert.equal(block.hash, receipt.blockHash);
    assert.equal(block.baseFeePerGas, 1_000_000_000n);
    assert.equal(block.gasUsed, 21000n);
    assert.ok(block.timestamp > 1_700_000_000);
    const raw = await provider.send('eth_getBlockByNumber', [`0x${receipt.blockNumber.toString(16)}`, false]);
    for (const field of ['difficulty', 'extraData', 'gasLimit', 'gasUsed', 'hash', 'logsBloom', 'miner', 'mixHash', 'nonce', 'number', 'parentHash', 'receiptsRoot', 'sha3Uncles', 'size', 'stateRoot', 'timestamp', 'totalDifficulty', 'transactionsRoot', 'uncles']) {
      assert.ok(field in raw, field);
    }
    assert.equal(typeof raw.isFinalized, 'boolean');
    assert.notEqual(raw.stateRoot, raw.parentHash);
    assert.equal(raw.parentHash, (await provider.getBlock(receipt.blockNumber - 1))!.hash);

    // Idle slots make no EVM blocks.
    const slot = node.chain.confirmedSlot;
    await waitFor(() => node.chain.confirmedSlot >= slot + 5, { what: 'five more slots' });
    assert.equal(await provider.getBlockNumber(), receipt.blockNumber);
    await waitFor(async () => (await provider.send('eth_getBlockByNumber', [raw.number, false])).isFinalized === true, { what: 'isFinalized' });
  });

  let deployed: Contract;
  let deployReceipt: TransactionReceipt;

  test('a Solidity contract deployed through the chunked path, then called', async () => {
    const factory = new ContractFactory(counter.abi as never, counter.bytecode, alice);
    const deployTx = await factory.getDeployTransaction(LONG_NOTE);
    assert.ok((deployTx.data as string).length / 2 > 1232, 'the deployment does not fit one native packet');
    const contract = await factory.deploy(LONG_NOTE);
    deployReceipt = (await contract.deploymentTransaction()!.wait())!;
    assert.equal(deployReceipt.status, 1);
    deployed = contract as Contract;
    const address = await deployed.getAddress();
    assert.equal(deployReceipt.contractAddress, address);
    assert.ok((await provider.getCode(address)).length > 100);
    assert.equal(await deployed.getFunction('note')(), LONG_NOTE);

    const r = await (await deployed.getFunction('add')(5)).wait();
    assert.equal(r.status, 1);
    assert.equal(await deployed.getFunction('count')(), 5n);
    const [number, , chainId] = await deployed.getFunction('blockInfo')();
    assert.equal(chainId, 5705n);
    assert.equal(number, BigInt(await provider.getBlockNumber()));
    // Storage slot 0 holds count.
    assert.equal(BigInt(await provider.getStorage(address, 0)), 5n);
    // State at an older block: count was 0 right after deployment.
    assert.equal(await deployed.getFunction('count')({ blockTag: deployReceipt.blockNumber }), 0n);
    assert.equal(BigInt(await provider.getStorage(address, 0, deployReceipt.blockNumber)), 0n);
  });

  test('events: receipt logs, getLogs by address and topic, a polling filter and a WebSocket subscription', async () => {
    const address = await deployed.getAddress();
    const ws = new WebSocketProvider(node.evmRpcUrl.replace('http', 'ws'));
    const seen: bigint[] = [];
    await deployed.connect(new Wallet(alice.privateKey, ws)).on('Incremented', (_by: string, count: bigint) => void seen.push(count));
    const filterId = await provider.send('eth_newFilter', [{ address, fromBlock: `0x${deployReceipt.blockNumber.toString(16)}`, topics: [deployed.interface.getEvent('Incremented')!.topicHash] }]);
    const headsId = await provider.send('eth_newBlockFilter', []);

    // The same call twice at one block (a call asked for twice is kept in the block's result cache), then a new answer once the state moves.
    const count = deployed.getFunction('count');
    assert.equal(await count(), 5n);
    assert.equal(await count(), 5n);
    const r = (await (await deployed.getFunction('increment')()).wait())!;
    assert.equal(await count(), 6n);
    assert.equal(await count({ blockTag: r.blockNumber - 1 }), 5n);
    // The block's receipts, by number and by hash (geth takes a 32-byte hex string as a hash).
    const byNumber = await provider.send('eth_getBlockReceipts', [`0x${r.blockNumber.toString(16)}`]);
    assert.deepEqual(await provider.send('eth_getBlockReceipts', [r.blockHash]), byNumber);
    assert.deepEqual(await provider.send('eth_getBlockReceipts', [{ blockHash: r.blockHash }]), byNumber);
    assert.ok(byNumber.some((x: { transactionHash: string }) => x.transactionHash === r.hash));
    assert.equal(await provider.send('eth_getBlockReceipts', [`0x${'00'.repeat(32)}`]), null);
    assert.equal(r.logs.length, 1);
    const parsed = deployed.interface.parseLog(r.logs[0]!)!;
    assert.equal(parsed.name, 'Incremented');
    assert.equal(parsed.args[0], alice.address);
    assert.equal(parsed.args[1], 6n);

    const logs = await provider.getLogs({ address, fromBlock: deployReceipt.blockNumber, toBlock: 'latest', topics: [deployed.interface.getEvent('Incremented')!.topicHash] });
    assert.deepEqual(logs.map((l) => deployed.interface.parseLog(l)!.args[1]), [5n, 6n]);
    const byOther = await provider.getLogs({ address, fromBlock: 0, topics: [null, `0x${'0'.repeat(24)}${bob.address.slice(2).toLowerCase()}`] });
    assert.equal(byOther.length, 0);

    const changes = await provider.send('eth_getFilterChanges', [filterId]);
    assert.equal(changes.length, 1);
    assert.equal(changes[0].transactionHash, r.hash);
    assert.deepEqual(await provider.send('eth_getFilterChanges', [filterId]), []);
    assert.ok((await provider.send('eth_getFilterChanges', [headsId])).includes(r.blockHash));
    assert.equal((await provider.send('eth_getFilterLogs', [filterId])).length, 2);
    assert.equal(await provider.send('eth_uninstallFilter', [filterId]), true);
    await assert.rejects(provider.send('eth_getFilterChanges', [filterId]), /filter not found/);

    await waitFor(() => seen.includes(6n), { what: 'the WebSocket event' });
    await ws.destroy();
  });

  test('errors as Ethereum clients expect them, with nothing changed', async () => {
    const balance = await provider.getBalance(alice.address);
    const nonce = await provider.getTransactionCount(alice.address);

    // execution reverted, with the data: a custom error and a require message.
    await assert.rejects(deployed.getFunction('add').staticCall(5000), (e: any) => {
      assert.equal(e.code, 'CALL_EXCEPTION');
      assert.equal(e.revert?.name, 'TooBig');
      assert.deepEqual(e.revert?.args.map((x: bigint) => x), [5000n, 1000n]);
      return true;
    });
    await assert.rejects(deployed.getFunction('add').estimateGas(13), (e: any) => e.code === 'CALL_EXCEPTION' && e.reason === 'unlucky number');
    const raw = await rpc(node.evmRpcUrl, 'eth_call', [{ to: await deployed.getAddress(), data: deployed.interface.encodeFunctionData('add', [13]) }, 'latest']);
    assert.equal(raw.error.code, 3);
    assert.equal(raw.error.message, 'execution reverted: unlucky number');
    assert.match(raw.error.data, /^0x08c379a0/);

    // nonce too low
    await assert.rejects(alice.sendTransaction({ to: bob.address, value: 1n, nonce: nonce - 1 }), (e: any) => e.code === 'NONCE_EXPIRED');
    // insufficient funds
    const poor = Wallet.createRandom(provider);
    await assert.rejects(poor.sendTransaction({ to: bob.address, value: 1n, gasLimit: 21000, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n, nonce: 0, chainId: 5705n }), (e: any) => e.code === 'INSUFFICIENT_FUNDS');
    // intrinsic gas too low
    await assert.rejects(alice.sendTransaction({ to: bob.address, value: 1n, gasLimit: 20_000 }), /intrinsic gas too low/);
    // replacement underpriced: a queued transaction (a nonce gap) replaced at the same price
    const gapNonce = nonce + 5;
    const queued = await alice.signTransaction(await alice.populateTransaction({ to: bob.address, value: 1n, nonce: gapNonce, gasLimit: 21000, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }));
    await provider.send('eth_sendRawTransaction', [queued]);
    const same = await alice.signTransaction(await alice.populateTransaction({ to: bob.address, value: 2n, nonce: gapNonce, gasLimit: 21000, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }));
    await assert.rejects(provider.send('eth_sendRawTransaction', [same]), (e: any) => e.code === 'REPLACEMENT_UNDERPRICED');
    // a fee cap under the base fee (ethers reports every estimateGas failure as CALL_EXCEPTION, so the gas is given)
    await assert.rejects(alice.sendTransaction({ to: bob.address, value: 1n, gasLimit: 21000, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n }), /max fee per gas less than block base fee/);
    // wrong chain id, and a transaction without replay protection
    const otherChain = new Wallet(alice.privateKey);
    const foreign = await otherChain.signTransaction({ to: bob.address, value: 1n, nonce, gasLimit: 21000, gasPrice: 2_000_000_000n, chainId: 1n });
    await assert.rejects(provider.send('eth_sendRawTransaction', [foreign]), /invalid chain id/);
    const foreignTyped = await otherChain.signTransaction({ to: bob.address, value: 1n, nonce, gasLimit: 21000, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n, chainId: 1n, type: 2 });
    await assert.rejects(provider.send('eth_sendRawTransaction', [foreignTyped]), /invalid chain id: have 1, want 5705/);
    // a garbled transaction
    await assert.rejects(provider.send('eth_sendRawTransaction', ['0x02deadbeef']), /rlp/);

    assert.equal(await provider.getTransactionCount(alice.address), nonce);
    assert.equal(await provider.getBalance(alice.address), balance);
  });

  test('a nonce gap closes: queued transactions run in order once the missing one arrives', async () => {
    const nonce = await provider.getTransactionCount(alice.address, 'pending');
    // nonce+5 is queued from the previous test; send nonce .. nonce+4.
    const sent = [];
    for (let i = 0; i < 5; i++) sent.push(await alice.sendTransaction({ to: bob.address, value: 1n, nonce: nonce + i }));
    for (const tx of sent) assert.equal((await tx.wait())!.status, 1);
    await waitFor(async () => (await provider.getTransactionCount(alice.address)) === nonce + 6, { what: 'the queued transaction' });
  });

  test('eth_sendTransaction from an unlocked dev account (JsonRpcSigner)', async () => {
    const signer = await provider.getSigner(1);
    assert.equal(await signer.getAddress(), bob.address);
    const before = await provider.getBalance(alice.address);
    const receipt = (await (await signer.sendTransaction({ to: alice.address, value: 12345n })).wait())!;
    assert.equal(receipt.status, 1);
    assert.equal(await provider.getBalance(alice.address), before + 12345n);
    await assert.rejects(provider.send('eth_sendTransaction', [{ from: Wallet.createRandom().address, to: bob.address, value: '0x1' }]), /unknown account/);
  });

  test('legacy, EIP-2930 and EIP-1559 transactions', async () => {
    const to = Wallet.createRandom().address;
    for (const type of [0, 1, 2]) {
      const receipt = (await (await alice.sendTransaction({ to, value: 1000n, type, ...(type === 1 ? { accessList: [{ address: to, storageKeys: [] }] } : {}) })).wait())!;
      assert.equal(receipt.status, 1);
      assert.equal(receipt.type, type);
      const tx = await provider.send('eth_getTransactionByHash', [receipt.hash]);
      assert.equal(tx.type, `0x${type}`);
      assert.equal(tx.chainId, '0x1649');
    }
    assert.equal(await provider.getBalance(to), 3000n);
  });

  test('a slot holds at most the block gas limit: the rest waits for the next block', async () => {
    // Contract-creation code that only expands memory to 2,784,000 bytes: about 15.1M gas, cheap to run.
    const burner = '0x6001622a7ae05200';
    const nonce = await provider.getTransactionCount(alice.address, 'pending');
    const raws = [];
    for (let i = 0; i < 20; i++) raws.push(await alice.signTransaction(await alice.populateTransaction({ data: burner, nonce: nonce + i, gasLimit: 16_000_000, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n })));
    // One batch request: the node takes them all at once, into one slot while there is room.
    const response = await fetch(node.evmRpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(raws.map((r, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [r] }))) });
    const answers = (await response.json()) as Array<{ result: string; error?: unknown }>;
    assert.ok(answers.every((a) => a.result), JSON.stringify(answers.find((a) => a.error)));
    // Polled rather than provider.waitForTransaction: that one reads the block number before the
    // receipt and then waits for a further block, which a chain without empty blocks may never make.
    const receipts = await Promise.all(answers.map((a) => waitFor(() => provider.getTransactionReceipt(a.result), { what: 'a receipt' })));
    assert.ok(receipts[0]!.gasUsed > 15_000_000n, `each uses ${receipts[0]!.gasUsed} gas`);
    const perBlock = new Map<number, bigint>();
    for (const r of receipts) perBlock.set(r!.blockNumber, (perBlock.get(r!.blockNumber) ?? 0n) + r!.gasUsed);
    assert.ok(perBlock.size >= 2, 'the transactions span more than one block');
    for (const [n, gas] of perBlock) {
      assert.ok(gas <= 300_000_000n, `block ${n} used ${gas} gas`);
      assert.equal((await provider.getBlock(n))!.gasUsed, gas);
    }
  });

  test('fee methods report real figures', async () => {
    const fee = await provider.getFeeData();
    assert.ok(fee.gasPrice! >= 1_000_000_000n);
    assert.ok(fee.maxFeePerGas! >= 1_000_000_000n);
    const history = await provider.send('eth_feeHistory', ['0x4', 'latest', [25, 75]]);
    assert.equal(history.baseFeePerGas.length, history.gasUsedRatio.length + 1);
    assert.equal(history.reward.length, history.gasUsedRatio.length);
    assert.ok(history.gasUsedRatio.some((r: number) => r > 0));
  });
});
