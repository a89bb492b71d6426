/**
 * A revert to one of the newest snapshots takes the chain's recent state (blockhash queue, status
 * cache) as read when the snapshot was taken; a revert to an older one reads it again. Either way,
 * with web3.js against a real node: a transaction from before the snapshot still has its status in the
 * status cache (no history search), its blockhash is still valid, and a second send of it is refused
 * as already processed, while the discarded transaction is gone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction, sendAndConfirmTransaction } from '@solana/web3.js';
import { rpc, startTestNode, type TestNode } from '../helpers/node.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';

describe('the recent chain state after a revert, kept from the snapshot or read again', () => {
  let node: TestNode;
  let connection: Connection;
  let payer: Keypair;

  before(async () => {
    // Slow slots: the early transaction's blockhash and status must not age out however busy the machine.
    node = await startTestNode({ slotMs: 1500 });
    connection = new Connection(node.rpcUrl, { commitment: 'confirmed', wsEndpoint: node.pubsubUrl });
    payer = Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey);
  });
  after(async () => {
    await closeConnectionSocket(connection);
    await node.stop();
  });

  const transfer = (lamports: number) => new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports }));

  /** A transfer after the snapshot, then the revert: the transfer is gone. */
  async function revertDiscarding(snapshotId: unknown): Promise<void> {
    const discarded = await sendAndConfirmTransaction(connection, transfer(LAMPORTS_PER_SOL / 100), [payer]);
    assert.equal((await rpc(node.rpcUrl, 'isthmus_revert', [snapshotId])).error, undefined);
    assert.deepEqual((await connection.getSignatureStatuses([discarded])).value, [null]);
  }

  test('the newest snapshot (state kept) and one older than the kept few (state read again) give the same answers', async () => {
    // A transaction before every snapshot: its status and blockhash must survive both reverts.
    // Six snapshots: the newest four keep their recent state, the oldest does not.
    const early = transfer(LAMPORTS_PER_SOL / 10);
    const earlySig = await sendAndConfirmTransaction(connection, early, [payer]);
    const earlyStatus = (await connection.getSignatureStatuses([earlySig])).value[0];
    assert.ok(earlyStatus);
    const ids: unknown[] = [];
    for (let i = 0; i < 6; i++) ids.push((await rpc(node.rpcUrl, 'isthmus_snapshot', [`s${i}`])).result.id);

    for (const id of [ids[5], ids[0]]) {
      await revertDiscarding(id);
      // Read from the status cache, not the history.
      const status = (await connection.getSignatureStatuses([earlySig])).value[0];
      assert.equal(status?.slot, earlyStatus.slot, `the early transaction's status after the revert to ${String(id)}`);
      assert.equal(await connection.isBlockhashValid(early.recentBlockhash!, { commitment: 'processed' }).then((r) => r.value), true);
      // Sent again: refused as already processed (the status cache knows it), nothing changes.
      const again = await rpc(node.rpcUrl, 'sendTransaction', [early.serialize().toString('base64'), { encoding: 'base64' }]);
      assert.match(again.error?.message ?? '', /already been processed|AlreadyProcessed/i, JSON.stringify(again));
    }
  });
});
