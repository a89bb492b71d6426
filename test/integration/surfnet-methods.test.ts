/**
 * Surfpool's cheatcodes on the native port with @solana/web3.js and @solana/spl-token against a real
 * node: setAccount and setTokenAccount (getSupply following the lamports), pause and resume (no slot
 * while paused; an edit waits in the working bank), time travel by slot, timestamp and epoch
 * (forward only, the EVM's block time moving with the Clock, epochs turning), bad input refused with
 * nothing changed, and `verify-ledger` holding after it all.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import * as spl from '@solana/spl-token';
import { Connection, Keypair, SYSVAR_CLOCK_PUBKEY } from '@solana/web3.js';
import { EVM_STATE_ID } from '../../node-core/evm/constants.ts';
import { verifyLedger } from '../../node-core/node/verify-ledger.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';
import { rpc, startTestNode, tempLedger, waitFor, type TestNode } from '../helpers/node.ts';

const SLOTS_PER_EPOCH = 32;

describe('Surfpool cheatcodes with web3.js', () => {
  let node: TestNode;
  let ledger: string;
  let conn: Connection;
  let payer: Keypair;
  /** A cheatcode through web3.js's own request path; throws the JSON-RPC error. */
  const cheat = async (method: string, params: unknown[]): Promise<any> => {
    const res = await (conn as any)._rpcRequest(method, params);
    if (res.error) throw Object.assign(new Error(res.error.message), { code: res.error.code });
    return res.result;
  };

  before(async () => {
    ledger = tempLedger();
    node = await startTestNode({ ledger, slotsPerEpoch: SLOTS_PER_EPOCH });
    conn = new Connection(node.rpcUrl, { commitment: 'confirmed', wsEndpoint: node.pubsubUrl });
    payer = Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey);
  });
  after(async () => {
    if (conn) await closeConnectionSocket(conn);
    await node?.stop();
    fs.rmSync(ledger, { recursive: true, force: true });
  });

  test('pause: no slot while paused, an edit waits in the working bank with getSupply following it; resume: it lands', async () => {
    assert.equal((await rpc(node.rpcUrl, 'isthmus_getNodeInfo')).result.clockPaused, false);
    const info = await cheat('surfnet_pauseClock', []);
    assert.equal(typeof info.absoluteSlot, 'number');
    assert.equal((await rpc(node.rpcUrl, 'isthmus_getNodeInfo')).result.clockPaused, true);
    const target = Keypair.generate().publicKey;
    const slot = await conn.getSlot('processed');
    const supply = (await conn.getSupply({ commitment: 'processed' })).value.total;
    const answer = await cheat('surfnet_setAccount', [target.toBase58(), { lamports: 5_000_000_000, data: 'deadbeef', owner: spl.TOKEN_PROGRAM_ID.toBase58() }]);
    assert.deepEqual(answer.value, null);
    assert.equal(answer.context.slot, slot);
    assert.equal((await conn.getSupply({ commitment: 'processed' })).value.total, supply + 5_000_000_000);
    assert.equal(await conn.getBalance(target, 'processed'), 5_000_000_000);
    assert.equal(await conn.getBalance(target, 'confirmed'), 0);
    // Six slot times pass without a slot (a negative check: a busy machine only makes it easier).
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await conn.getSlot('processed'), slot);
    await cheat('surfnet_resumeClock', []);
    assert.equal((await rpc(node.rpcUrl, 'isthmus_getNodeInfo')).result.clockPaused, false);
    await waitFor(async () => (await conn.getBalance(target, 'confirmed')) === 5_000_000_000, { what: 'the edit in a confirmed slot' });
    const account = (await conn.getAccountInfo(target))!;
    assert.equal(Buffer.from(account.data).toString('hex'), 'deadbeef');
    assert.ok(account.owner.equals(spl.TOKEN_PROGRAM_ID));
    assert.ok((await conn.getSlot('processed')) > slot);
  });

  test('setAccount with the clock running: durable at once; malformed data and protected accounts refused, nothing changed', async () => {
    const target = Keypair.generate().publicKey;
    await cheat('surfnet_setAccount', [target.toBase58(), { lamports: 1_000_000, data: '0x0102', executable: false, rentEpoch: 0 }]);
    assert.equal(await conn.getBalance(target, 'confirmed'), 1_000_000);
    const before = node.chain.supply();
    await assert.rejects(cheat('surfnet_setAccount', [target.toBase58(), { lamports: 9, data: 'zz' }]), (e: any) => e.code === -32602 && /Invalid hex data/.test(e.message));
    await assert.rejects(cheat('surfnet_setAccount', [target.toBase58(), { owner: 'not-a-key' }]), (e: any) => e.code === -32602);
    await assert.rejects(cheat('surfnet_setAccount', [EVM_STATE_ID, { lamports: 1 }]), (e: any) => e.code === -32602 && /anvil_setBalance/.test(e.message));
    assert.equal(node.chain.supply().adjusted, before.adjusted);
    const account = (await conn.getAccountInfo(target, 'processed'))!;
    assert.equal(account.lamports, 1_000_000);
    assert.equal(Buffer.from(account.data).toString('hex'), '0102');
  });

  test('setTokenAccount: the owner\'s associated token account, created rent-exempt, with the amount and delegate set', async () => {
    const mint = await spl.createMint(conn, payer, payer.publicKey, null, 6);
    const owner = Keypair.generate().publicKey;
    const delegate = Keypair.generate().publicKey;
    await cheat('surfnet_setTokenAccount', [owner.toBase58(), mint.toBase58(), { amount: 1_000_000, delegate: delegate.toBase58(), delegatedAmount: 5 }]);
    const ata = spl.getAssociatedTokenAddressSync(mint, owner);
    const account = await spl.getAccount(conn, ata, 'confirmed');
    assert.equal(account.amount, 1_000_000n);
    assert.ok(account.owner.equals(owner));
    assert.ok(account.delegate!.equals(delegate));
    assert.equal(account.delegatedAmount, 5n);
    assert.equal((await conn.getTokenAccountBalance(ata)).value.uiAmount, 1);
    await cheat('surfnet_setTokenAccount', [owner.toBase58(), mint.toBase58(), { amount: 7, delegate: 'null' }]);
    const again = await spl.getAccount(conn, ata, 'confirmed');
    assert.equal(again.amount, 7n);
    assert.equal(again.delegate, null);
    const notMint = Keypair.generate().publicKey;
    await assert.rejects(cheat('surfnet_setTokenAccount', [owner.toBase58(), notMint.toBase58(), { amount: 1 }]), (e: any) => e.code === -32602 && /not a mint/.test(e.message));
  });

  test('timeTravel: to a slot, a timestamp and an epoch, forward only; the Clock and the EVM blocks move together', async () => {
    // The genesis stake earns from its third epoch on (warm-up): once it has, a jump over epochs pays too.
    await waitFor(() => node.chain.supply().minted > 0, { what: 'the first inflation rewards', timeoutMs: 30_000 });
    const minted = node.chain.supply().minted;
    const epoch = (await conn.getEpochInfo('processed')).epoch;
    const byEpoch = await cheat('surfnet_timeTravel', [{ absoluteEpoch: epoch + 2 }]);
    assert.equal(byEpoch.epoch, epoch + 2);
    assert.equal(byEpoch.slotIndex, 0);
    // The epoch turned: its rewards were minted.
    assert.ok(node.chain.supply().minted > minted, `minted ${node.chain.supply().minted} > ${minted}`);

    const start = await conn.getSlot('processed');
    const bySlot = await cheat('surfnet_timeTravel', [{ absoluteSlot: start + 1000 }]);
    assert.equal(bySlot.absoluteSlot, start + 1000);
    assert.equal(bySlot.epoch, Math.floor((start + 1000) / SLOTS_PER_EPOCH));

    const clockTime = async () => (await conn.getParsedAccountInfo(SYSVAR_CLOCK_PUBKEY, 'processed')).value!.data as any;
    const targetMs = ((await clockTime()).parsed.info.unixTimestamp + 86_400) * 1000;
    await cheat('surfnet_timeTravel', [{ absoluteTimestamp: targetMs }]);
    assert.ok((await clockTime()).parsed.info.unixTimestamp >= targetMs / 1000);
    // The EVM block sealed from here on carries the Clock's time.
    await rpc(node.evmRpcUrl, 'evm_mine', []);
    const block = (await rpc(node.evmRpcUrl, 'eth_getBlockByNumber', ['latest', false])).result;
    assert.ok(Number(block.timestamp) >= targetMs / 1000, `${Number(block.timestamp)} >= ${targetMs / 1000}`);
    assert.equal((await rpc(node.rpcUrl, 'getBlockTime', [Number(block.nativeSlot)])).result, Number(block.timestamp));

    const now = await conn.getSlot('processed');
    await assert.rejects(cheat('surfnet_timeTravel', [{ absoluteSlot: 1 }]), (e: any) => e.code === -32602 && /forward only/.test(e.message));
    await assert.rejects(cheat('surfnet_timeTravel', [{ absoluteTimestamp: 1000 }]), (e: any) => e.code === -32602 && /forward only/.test(e.message));
    await assert.rejects(cheat('surfnet_timeTravel', [{ absoluteEpoch: 0 }]), (e: any) => e.code === -32602 && /forward only/.test(e.message));
    // Refused travel moved nothing: the clock only went on by its own slots.
    assert.ok((await conn.getSlot('processed')) < now + 100);
  });

  test('verify-ledger holds after the edits and the jumps', async () => {
    await closeConnectionSocket(conn);
    await node.close();
    const result = await verifyLedger(ledger);
    assert.deepEqual(result.violations, []);
  });
});
