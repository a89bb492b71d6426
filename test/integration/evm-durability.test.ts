/**
 * The EVM space survives kill -9: blocks, receipts, contract state and the state trie (past state
 * still readable) come back with every rooted slot, in-flight transactions land whole or not at
 * all, and after a restart the chain goes on from where it stopped (nonces, block numbers, value
 * conserved). The kill runs the real command (bin/isthmus.js) as a child process.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ContractFactory, JsonRpcProvider, Wallet, parseEther, type Contract } from 'ethers';
import { deriveEvmKeys } from '../../node-core/keys/evm-keys.ts';
import { freePorts, killLeftovers, runIsthmus, waitForRpc, type NodeProcess } from '../helpers/cli-process.ts';
import { checkValueConservation } from '../helpers/conservation.ts';
import { compileFixture } from '../helpers/evm.ts';
import { startTestNode, tempLedger, waitFor } from '../helpers/node.ts';
import { prng } from '../helpers/prng.ts';

const WORDS = 'test test test test test test test test test test test junk';
const counter = compileFixture('Counter.sol', 'Counter');

after(killLeftovers);

describe('EVM space durability', () => {
  test('kill -9 at random moments: rooted EVM blocks, receipts and state survive; in-flight transactions land whole or not at all', async (t) => {
    const seed = Number(process.env.ISTHMUS_DURABILITY_SEED ?? Date.now() % 1_000_000);
    t.diagnostic(`seed ${seed} (set ISTHMUS_DURABILITY_SEED to repeat)`);
    const random = prng(seed);
    const ledger = tempLedger();
    const [rpcPort, wsPort, evmPort] = await freePorts(3);
    const url = `http://127.0.0.1:${evmPort}`;
    const keys = deriveEvmKeys(WORDS, 4).map((k) => Buffer.from(k.privateKey).toString('hex'));
    const finalBlocks = new Map<number, string>();
    const finalReceipts = new Map<string, number>();
    let counterAddress = '';
    let finalCount = 0n;
    let proc: NodeProcess | null = null;
    const ROUNDS = 3;
    for (let round = 0; round <= ROUNDS; round++) {
      proc = runIsthmus(['start', '--ledger', ledger, '--rpc-port', String(rpcPort), '--rpc-pubsub-port', String(wsPort), '--evm-rpc-port', String(evmPort), '--slot-ms', '50', '--root-depth', '4', '--quiet', ...(round === 0 ? ['--mnemonic', WORDS] : [])]);
      await waitForRpc(`http://127.0.0.1:${rpcPort}`, proc.child);
      const provider = new JsonRpcProvider(url, 5705, { pollingInterval: 50, staticNetwork: true, cacheTimeout: -1 });
      const alice = new Wallet(keys[0]!, provider);
      try {
        if (round > 0) {
          for (const [number, hash] of finalBlocks) assert.equal((await provider.getBlock(number))?.hash, hash, `block ${number}`);
          for (const [hash, number] of finalReceipts) {
            const r = await provider.getTransactionReceipt(hash);
            assert.equal(r?.blockNumber, number, `receipt ${hash}`);
            assert.equal(r?.status, 1);
          }
          const count = (await provider.call({ to: counterAddress, data: '0x06661abd' })) as string;
          assert.ok(BigInt(count) >= finalCount, `count ${BigInt(count)} fell below the rooted ${finalCount}`);
          // Past state through the persisted trie.
          const [first] = [...finalBlocks.keys()].sort((a, b) => a - b);
          assert.ok((await provider.getBalance(alice.address, first)) > 0n);
          // A transaction whose receipt exists is in its block; one without one left no trace (nonce).
          const nonce = await provider.getTransactionCount(alice.address, 'latest');
          assert.equal(await provider.getTransactionCount(alice.address, 'pending'), nonce, 'the pool is empty after a restart');
        }
        if (round === ROUNDS) break;
        if (round === 0) {
          const c = (await new ContractFactory(counter.abi as never, counter.bytecode, alice).deploy('durable')) as Contract;
          await c.deploymentTransaction()!.wait();
          counterAddress = await c.getAddress();
        }
        // Rooted work: transfers from several senders and counter writes, waited until final.
        const hashes: string[] = [];
        for (let i = 1; i < 4; i++) {
          const tx = await new Wallet(keys[i]!, provider).sendTransaction({ to: Wallet.createRandom().address, value: parseEther('0.001') });
          hashes.push(tx.hash);
        }
        const inc = await alice.sendTransaction({ to: counterAddress, data: '0xd09de08a' });
        hashes.push(inc.hash);
        for (const h of hashes) {
          const r = (await waitFor(() => provider.getTransactionReceipt(h), { what: 'a receipt' }))!;
          finalReceipts.set(h, r.blockNumber);
        }
        const last = Math.max(...finalReceipts.values());
        await waitFor(async () => (await provider.send('eth_getBlockByNumber', [`0x${last.toString(16)}`, false])).isFinalized, { what: 'finality' });
        for (const n of new Set(finalReceipts.values())) finalBlocks.set(n, (await provider.getBlock(n))!.hash!);
        finalCount = BigInt((await provider.call({ to: counterAddress, data: '0x06661abd' })) as string);

        // In flight when the kill comes.
        const burst = 5 + Math.floor(random() * 20);
        const sends = [];
        for (let i = 0; i < burst; i++) sends.push(alice.sendTransaction({ to: counterAddress, data: '0xd09de08a', gasLimit: 100_000 }).catch(() => null));
        await new Promise((r) => setTimeout(r, random() * 300));
      } finally {
        provider.destroy();
        proc.child.kill('SIGKILL');
        await new Promise((r) => proc!.child.once('exit', r));
      }
    }
  });

  test('a clean restart in-process: value conserved, block numbers and nonces go on', async () => {
    const ledger = tempLedger();
    let node = await startTestNode({ ledger, mnemonic: WORDS });
    const key = Buffer.from(deriveEvmKeys(WORDS, 1)[0]!.privateKey).toString('hex');
    let provider = new JsonRpcProvider(node.evmRpcUrl, undefined, { pollingInterval: 50, cacheTimeout: -1 });
    let receipt = (await (await new Wallet(key, provider).sendTransaction({ to: Wallet.createRandom().address, value: 1n })).wait())!;
    await checkValueConservation(node);
    const stateRoot = (await provider.getBlock(receipt.blockNumber))!.stateRoot;
    provider.destroy();
    await node.close();
    node = await startTestNode({ ledger });
    provider = new JsonRpcProvider(node.evmRpcUrl, undefined, { pollingInterval: 50, cacheTimeout: -1 });
    await checkValueConservation(node);
    assert.equal((await provider.getBlock(receipt.blockNumber))!.stateRoot, stateRoot);
    const next = (await (await new Wallet(key, provider).sendTransaction({ to: Wallet.createRandom().address, value: 1n })).wait())!;
    assert.equal(next.blockNumber, receipt.blockNumber + 1);
    assert.equal((await provider.getTransaction(next.hash))!.nonce, 1);
    await checkValueConservation(node);
    receipt = next;
    provider.destroy();
    await node.stop();
  });
});
