/**
 * Store.getBlockStatuses on a real node's ledger (compact own votes, an EVM transaction sent with
 * ethers, a native transfer and a failed one sent with web3.js, slots without a block after a time
 * travel): the same headers and statuses getBlockSlots, getBlockHeader and getBlock give, and so the
 * same blockhash queue and status cache recentChainState builds at start and after a revert.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Connection, Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { JsonRpcProvider, Wallet } from 'ethers';
import { EVM_PROGRAM_ID } from '../../node-core/evm/constants.ts';
import { recentChainState } from '../../node-core/ledger/open-chain.ts';
import type { BlockStatuses, Store } from '../../node-core/store/store.ts';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';

/** What recentChainState derived before from getBlockSlots, getBlockHeader and getBlock. */
async function derived(store: Store, start: number, end: number, statusesFrom: number): Promise<BlockStatuses[]> {
  const out: BlockStatuses[] = [];
  for (const slot of await store.getBlockSlots(start, end, Number.MAX_SAFE_INTEGER)) {
    const header = (await store.getBlockHeader(slot))!;
    const block = slot < statusesFrom ? null : (await store.getBlock(slot))!;
    out.push({ header, statuses: block && block.transactions.map((t, index) => [t.signature, index, t.meta.err]) });
  }
  return out;
}

describe('getBlockStatuses on a real node', () => {
  let node: TestNode;
  const sigs: { evm?: string; transfer?: string; failed?: string } = {};
  let skippedFrom = 0;

  before(async () => {
    node = await startTestNode();
    const connection = new Connection(node.rpcUrl, 'confirmed');
    const payer = Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey);
    const send = async (lamports: number) => {
      const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports }));
      tx.recentBlockhash = (await connection.getLatestBlockhash()).blockhash;
      tx.feePayer = payer.publicKey;
      tx.sign(payer);
      return connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    };
    sigs.transfer = await send(1_000_000_000);
    // More lamports than the payer has: it fails in its block, fee charged.
    sigs.failed = await send(Number.MAX_SAFE_INTEGER);
    const provider = new JsonRpcProvider(node.evmRpcUrl, undefined, { pollingInterval: 50, cacheTimeout: -1 });
    const wallet = new Wallet(Buffer.from(node.keys.evmDevAccounts[0]!.privateKey).toString('hex'), provider);
    const receipt = await (await wallet.sendTransaction({ to: node.keys.evmDevAccounts[1]!.address, value: 10n ** 15n })).wait();
    provider.destroy();
    assert.equal(receipt?.status, 1);
    for (const s of [sigs.transfer, sigs.failed]) await waitFor(async () => (await connection.getSignatureStatuses([s!])).value[0]?.confirmationStatus, { what: `status of ${s}` });
    // Slots without a block: time travel skips 40 slots.
    skippedFrom = node.chain.confirmedSlot + 1;
    await rpc(node.rpcUrl, 'surfnet_timeTravel', [{ absoluteSlot: node.chain.processedSlot + 40 }]);
    const after = node.chain.processedSlot + 3;
    await waitFor(() => node.chain.confirmedSlot > after, { what: 'slots after the time travel' });
  });
  after(async () => {
    await node.stop();
  });

  test('equals what getBlockHeader and getBlock give, and recentChainState builds the same queue and cache', async () => {
    const store = node.chain.store;
    const meta = (await store.readMeta())!;
    // Only slots at or below the newest stored one are read, so later commits change nothing compared.
    const all = await store.getBlockStatuses(0, meta.slot, 0);
    assert.deepEqual(all, await derived(store, 0, meta.slot, 0));
    for (const from of [meta.slot - 20, Math.floor(meta.slot / 2)]) assert.deepEqual(await store.getBlockStatuses(1, meta.slot, from), await derived(store, 1, meta.slot, from));

    const statuses = new Map(all.flatMap((b) => (b.statuses ?? []).map(([sig, index, err]) => [sig, { slot: b.header.slot, index, err }] as const)));
    assert.equal(statuses.get(sigs.transfer!)?.err, null);
    assert.deepEqual(statuses.get(sigs.failed!)?.err, { InstructionError: [0, { Custom: 1 }] });
    const blocks = await Promise.all(all.map((b) => store.getBlock(b.header.slot)));
    const evmTx = blocks.flatMap((b) => b!.transactions).find((t) => t.accountKeys.includes(EVM_PROGRAM_ID));
    assert.ok(evmTx && statuses.has(evmTx.signature), 'the EVM transaction is among the statuses');
    // Votes: one per block after the first, stored compactly (only the key rebuilds them: the store reads them through it).
    assert.ok(blocks.filter((b) => b!.transactions[0]?.accountKeys.includes('Vote111111111111111111111111111111111111111')).length > 10);
    const slots = all.map((b) => b.header.slot);
    assert.ok(slots.some((s, i) => i > 0 && s >= skippedFrom && s - slots[i - 1]! > 1), 'slots without a block are in the range');

    // recentChainState over the same ledger: the headers and statuses the old reads gave.
    const recent = await recentChainState(store, node.genesis, meta);
    const from = Math.max(0, meta.slot - 511);
    const expected = await derived(store, from, meta.slot, meta.slot - 299);
    assert.deepEqual(recent.recentHeaders, expected.map((b) => b.header));
    assert.deepEqual(recent.recentStatuses, expected.flatMap((b) => (b.statuses ?? []).map(([sig, index, err]) => [sig, { slot: b.header.slot, index, err }])));
  });
});
