/**
 * requestAirdrop as the faucet builds it: one System transfer signed by the faucet, which pays the fee
 * and comes first, sent without preflight as Agave sends it: a transfer that will fail still answers
 * its signature and lands failed, fee charged; one that could never enter a block is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import bs58 from 'bs58';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const SYSTEM = '11111111111111111111111111111111';
const FEE = 5000;

let node: TestNode;
let faucet: string;

async function result(method: string, params?: unknown): Promise<Json> {
  const r = await rpc(node.rpcUrl, method, params);
  assert.equal(r.error, undefined, `${method} failed: ${JSON.stringify(r.error)}`);
  return r.result;
}

/** The confirmed transaction of an airdrop, once it is there. */
async function airdropped(to: string, lamports: number): Promise<Json> {
  const signature: string = await result('requestAirdrop', [to, lamports]);
  return waitFor(() => result('getTransaction', [signature, { commitment: 'confirmed', encoding: 'json' }]), { what: `airdrop ${signature}` });
}

/** web3.js's transfer data, an encoder independent of the node's. */
const transferData = (lamports: number) => bs58.encode(SystemProgram.transfer({ fromPubkey: PublicKey.default, toPubkey: PublicKey.default, lamports }).data);

before(async () => {
  node = await startTestNode();
  faucet = node.keys.faucet.address;
});

after(() => node?.stop());

describe('requestAirdrop', () => {
  it('sends a System transfer from the faucet, payer first', async () => {
    const to = Keypair.generate().publicKey.toBase58();
    const tx = await airdropped(to, 3_000_000);
    assert.equal(tx.meta.err, null);
    assert.deepEqual(tx.transaction.message.accountKeys, [faucet, to, SYSTEM]);
    assert.deepEqual(tx.transaction.message.header, { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 });
    assert.deepEqual(
      tx.transaction.message.instructions.map((ix: Json) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: ix.data })),
      [{ programIdIndex: 2, accounts: [0, 1], data: transferData(3_000_000) }],
    );
    assert.equal(tx.meta.fee, FEE);
    assert.deepEqual([tx.meta.preBalances[0] - tx.meta.postBalances[0], tx.meta.postBalances[1] - tx.meta.preBalances[1]], [3_000_000 + FEE, 3_000_000]);
  });

  it('airdrops to the faucet itself: one key, and the fee is all it costs', async () => {
    const tx = await airdropped(faucet, 7_000_000);
    assert.equal(tx.meta.err, null);
    assert.deepEqual(tx.transaction.message.accountKeys, [faucet, SYSTEM]);
    assert.deepEqual(
      tx.transaction.message.instructions.map((ix: Json) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: ix.data })),
      [{ programIdIndex: 1, accounts: [0, 0], data: transferData(7_000_000) }],
    );
    assert.equal(tx.meta.preBalances[0] - tx.meta.postBalances[0], FEE);
  });

  it('an airdrop that will fail answers its signature and lands failed, the fee charged (as Agave: no preflight)', async () => {
    // 1 lamport to a new account: below rent exemption (web3.js's own getTransaction tests airdrop 1 lamport).
    const fresh = Keypair.generate().publicKey.toBase58();
    const tiny = await airdropped(fresh, 1);
    assert.deepEqual(tiny.meta.err, { InsufficientFundsForRent: { account_index: 1 } });
    assert.equal(tiny.meta.preBalances[0] - tiny.meta.postBalances[0], FEE);
    assert.equal((await result('getBalance', [fresh, { commitment: 'confirmed' }])).value, 0);
    // Accounts that cannot take lamports: the program and sysvar ids are read-only in any transaction.
    for (const to of [SYSTEM, 'Vote111111111111111111111111111111111111111', 'SysvarC1ock11111111111111111111111111111111']) {
      const tx = await airdropped(to, 1_000_000);
      assert.deepEqual(tx.meta.err, { InstructionError: [0, 'ReadonlyLamportChange'] }, to);
      assert.equal(tx.meta.preBalances[0] - tx.meta.postBalances[0], FEE, to);
    }
  });
});
