/**
 * PubSub over a raw WebSocket: every subscribe shape and its notification, commitment timing,
 * unsubscribe, bad input, vote subscriptions with and without the flag, a closed connection freeing
 * its subscriptions, the heartbeat, and a slow reader being disconnected.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  NONCE_ACCOUNT_LENGTH,
  PublicKey,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { decompress } from 'fzstd';
import WebSocket from 'ws';
import { startPubsubEndpoint, type PubsubEndpoint } from '../../node-core/node/endpoints.ts';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';

const SYSTEM = '11111111111111111111111111111111';

interface Notification {
  method: string;
  params: { result: any; subscription: number };
  at: number;
}

/** A raw JSON-RPC client: requests by id, and every notification kept in order of arrival. */
class Client {
  readonly notifications: Notification[] = [];
  private readonly pending = new Map<number, { resolve: (r: any) => void; reject: (e: Error) => void }>();
  private readonly waiters = new Set<() => void>();
  private nextId = 1;
  closed = false;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data));
      if (Array.isArray(msg) || 'id' in msg) {
        const id = Array.isArray(msg) ? msg[0]?.id : msg.id;
        const done = this.pending.get(id);
        this.pending.delete(id);
        done?.resolve(msg);
      } else {
        this.notifications.push({ ...msg, at: performance.now() });
        for (const w of this.waiters) w();
      }
    });
    ws.on('close', () => {
      this.closed = true;
      for (const w of this.waiters) w();
      for (const p of this.pending.values()) p.reject(new Error('connection closed before the response'));
      this.pending.clear();
    });
  }

  static open(url: string, options?: WebSocket.ClientOptions): Promise<Client> {
    const ws = new WebSocket(url, options);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new Client(ws)));
      ws.once('error', reject);
    });
  }

  /** Sends raw text; resolves with the response carrying `id`. */
  raw(text: string, id: unknown = null): Promise<any> {
    return new Promise((resolve, reject) => {
      this.pending.set(id as number, { resolve, reject });
      this.ws.send(text);
    });
  }

  request(method: string, params?: unknown): Promise<any> {
    const id = this.nextId++;
    return this.raw(JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }), id);
  }

  async subscribe(method: string, params?: unknown): Promise<number> {
    const r = await this.request(method, params);
    assert.equal(r.error, undefined, `${method} failed: ${JSON.stringify(r.error)}`);
    assert.ok(Number.isSafeInteger(r.result) && r.result >= 0, `subscription id ${r.result}`);
    return r.result;
  }

  /** The first notification of `sub` (not yet taken) matching `pred`; it is taken. */
  next(sub: number, pred: (result: any) => boolean = () => true, timeoutMs = 8000): Promise<Notification> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const i = this.notifications.findIndex((n) => n.params.subscription === sub && pred(n.params.result));
        if (i >= 0) {
          const [n] = this.notifications.splice(i, 1);
          cleanup();
          resolve(n!);
        } else if (this.closed) {
          cleanup();
          reject(new Error(`connection closed while waiting on subscription ${sub}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no notification for subscription ${sub} within ${timeoutMs} ms`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  of(sub: number): Notification[] {
    return this.notifications.filter((n) => n.params.subscription === sub);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let node: TestNode;
let http: Connection;
let dev: Keypair[];
let client: Client;
const rootedAt = new Map<number, number>();

/** Signs a transaction; returns its signature and wire bytes without sending it. */
async function sign(payer: Keypair, ixs: TransactionInstruction[], extra: Keypair[] = []) {
  const { blockhash } = await http.getLatestBlockhash('confirmed');
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...ixs);
  tx.sign(payer, ...extra);
  return { sig: bs58.encode(tx.signature!), wire: tx.serialize({ requireAllSignatures: true }) };
}

async function statusOf(sig: string, level: 'processed' | 'confirmed' | 'finalized' = 'processed') {
  const rank = { processed: 0, confirmed: 1, finalized: 2 };
  return waitFor(
    async () => {
      const s = (await http.getSignatureStatuses([sig])).value[0];
      return s && rank[s.confirmationStatus ?? 'processed'] >= rank[level] ? s : null;
    },
    { what: `${sig} ${level}` },
  );
}

/** Sends (no preflight) and waits until processed; returns signature and slot. */
async function send(payer: Keypair, ixs: TransactionInstruction[], extra: Keypair[] = []) {
  const { sig, wire } = await sign(payer, ixs, extra);
  await http.sendRawTransaction(wire, { skipPreflight: true });
  const status = await statusOf(sig);
  return { sig, slot: status!.slot, err: status!.err };
}

const transfer = (from: Keypair, to: PublicKey, lamports: number) => SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports });

before(async () => {
  node = await startTestNode({ enableVoteSubscription: true, rootDepth: 4 });
  node.chain.on('rooted', (banks) => {
    for (const b of banks) rootedAt.set(b.slot, performance.now());
  });
  http = new Connection(node.rpcUrl, 'confirmed');
  dev = node.keys.devAccounts.map((k) => Keypair.fromSecretKey(k.secretKey));
  client = await Client.open(node.pubsubUrl);
});

after(async () => {
  await client?.close();
  await node?.stop();
});

describe('node progress subscriptions', () => {
  it('slotSubscribe: {slot, parent, root} for each new slot', async () => {
    const id = await client.subscribe('slotSubscribe', []);
    const a = (await client.next(id)).params.result;
    const b = (await client.next(id)).params.result;
    assert.deepEqual(Object.keys(a).sort(), ['parent', 'root', 'slot']);
    assert.equal(b.slot, a.slot + 1);
    assert.equal(b.parent, a.slot);
    assert.ok(a.root <= a.slot);
    assert.equal((await client.request('slotUnsubscribe', [id])).result, true);
  });

  it('rootSubscribe: the rooted slot, a plain number, in order', async () => {
    const id = await client.subscribe('rootSubscribe');
    const a = (await client.next(id)).params;
    const b = (await client.next(id)).params;
    assert.equal(typeof a.result, 'number');
    assert.equal(b.result, a.result + 1);
    assert.ok(node.chain.rootSlot >= b.result);
    assert.equal((await client.request('rootUnsubscribe', [id])).result, true);
  });

  it('slotsUpdatesSubscribe: createdBank, completed, frozen with stats, optimisticConfirmation, root', async () => {
    const id = await client.subscribe('slotsUpdatesSubscribe', []);
    const created = (await client.next(id, (r) => r.type === 'createdBank')).params.result;
    const slot = created.slot;
    assert.equal(created.parent, slot - 1);
    assert.equal(typeof created.timestamp, 'number');
    const forSlot = (type: string) => client.next(id, (r) => r.type === type && r.slot === slot);
    await forSlot('completed');
    const frozen = (await forSlot('frozen')).params.result;
    assert.deepEqual(Object.keys(frozen.stats).sort(), ['maxTransactionsPerEntry', 'numFailedTransactions', 'numSuccessfulTransactions', 'numTransactionEntries']);
    await forSlot('optimisticConfirmation');
    const root = (await forSlot('root')).params.result;
    assert.ok(root.timestamp >= created.timestamp);
    assert.equal((await client.request('slotsUpdatesUnsubscribe', [id])).result, true);
  });

  it('voteSubscribe with the flag: one vote per confirmed slot, RpcVote shape', async () => {
    const id = await client.subscribe('voteSubscribe');
    const vote = (await client.next(id)).params.result;
    assert.deepEqual(Object.keys(vote).sort(), ['hash', 'signature', 'slots', 'timestamp', 'votePubkey']);
    assert.equal(vote.votePubkey, node.genesis.voteAccount);
    assert.equal(vote.slots.length, 1);
    assert.ok(vote.slots[0] <= node.chain.confirmedSlot);
    assert.equal(bs58.decode(vote.hash).length, 32);
    const block = await http.getBlock(vote.slots[0], { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    assert.equal(vote.hash, block!.blockhash);
    assert.equal(vote.timestamp, block!.blockTime);
    // The signature is the validator's Vote transaction, the first of the next block.
    const next = await waitFor(() => http.getBlock(vote.slots[0] + 1, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }).catch(() => null), { what: 'the next block' });
    assert.equal(vote.signature, next!.transactions[0]!.transaction.signatures[0]);
    assert.equal((await client.request('voteUnsubscribe', [id])).result, true);
  });
});

describe('account and program subscriptions', () => {
  it('accountSubscribe at processed, confirmed and finalized: each when the change reaches its level', async () => {
    const to = Keypair.generate().publicKey;
    const ids = {
      processed: await client.subscribe('accountSubscribe', [to.toBase58(), { commitment: 'processed', encoding: 'base64' }]),
      confirmed: await client.subscribe('accountSubscribe', [to.toBase58(), { commitment: 'confirmed', encoding: 'base64' }]),
      finalized: await client.subscribe('accountSubscribe', [to.toBase58(), { commitment: 'finalized', encoding: 'base64' }]),
      // The 1.5 names map onto the same levels.
      max: await client.subscribe('accountSubscribe', [to.toBase58(), { commitment: 'max', encoding: 'base64' }]),
      defaulted: await client.subscribe('accountSubscribe', [to.toBase58(), { encoding: 'base64' }]),
    };
    const { slot } = await send(dev[0]!, [transfer(dev[0]!, to, 1_234_567)]);

    const processed = await client.next(ids.processed);
    const confirmed = await client.next(ids.confirmed);
    const defaulted = await client.next(ids.defaulted);
    const finalized = await client.next(ids.finalized);
    const max = await client.next(ids.max);
    for (const n of [processed, confirmed, finalized, max, defaulted]) {
      assert.equal(n.method, 'accountNotification');
      assert.equal(n.params.result.context.slot, slot);
      // A rent-exempt account: Agave's u64::MAX rent epoch (2 ** 64 once JSON.parse has read the exact digits).
      assert.deepEqual(n.params.result.value, { lamports: 1_234_567, data: ['', 'base64'], owner: SYSTEM, executable: false, rentEpoch: 2 ** 64, space: 0 });
    }
    assert.ok(processed.at <= confirmed.at && confirmed.at <= finalized.at);
    // finalized: only once the slot is rooted.
    assert.ok(rootedAt.has(slot), 'slot rooted');
    assert.ok(finalized.at >= rootedAt.get(slot)!, 'finalized notification came after rooting');
    assert.ok(confirmed.at < rootedAt.get(slot)!, 'confirmed notification came before rooting');
    for (const id of Object.values(ids)) assert.equal((await client.request('accountUnsubscribe', [id])).result, true);
  });

  it('accountSubscribe encodings: binary (default), base58, base64, base64+zstd, jsonParsed, dataSlice', async () => {
    const payer = dev[1]!;
    const nonce = Keypair.generate();
    const rent = await http.getMinimumBalanceForRentExemption(NONCE_ACCOUNT_LENGTH);
    const key = nonce.publicKey.toBase58();
    const sub = (config: object) => client.subscribe('accountSubscribe', [key, { commitment: 'confirmed', ...config }]);
    const ids = {
      binary: await client.subscribe('accountSubscribe', [key]),
      base58: await sub({ encoding: 'base58' }),
      base64: await sub({ encoding: 'base64' }),
      zstd: await sub({ encoding: 'base64+zstd' }),
      parsed: await sub({ encoding: 'jsonParsed' }),
      sliced: await sub({ encoding: 'base64', dataSlice: { offset: 8, length: 32 } }),
    };
    await send(payer, SystemProgram.createNonceAccount({ fromPubkey: payer.publicKey, noncePubkey: nonce.publicKey, authorizedPubkey: payer.publicKey, lamports: rent }).instructions, [nonce]);
    const data = (await http.getAccountInfo(nonce.publicKey, 'processed'))!.data;
    assert.equal(data.length, NONCE_ACCOUNT_LENGTH);

    const value = async (id: number) => (await client.next(id)).params.result.value;
    assert.equal((await value(ids.binary)).data, bs58.encode(data));
    assert.deepEqual((await value(ids.base58)).data, [bs58.encode(data), 'base58']);
    assert.deepEqual((await value(ids.base64)).data, [data.toString('base64'), 'base64']);
    const zstd = (await value(ids.zstd)).data;
    assert.equal(zstd[1], 'base64+zstd');
    assert.deepEqual(Buffer.from(decompress(Buffer.from(zstd[0], 'base64'))), data);
    const parsed = await value(ids.parsed);
    assert.equal(parsed.data.program, 'nonce');
    assert.equal(parsed.data.parsed.type, 'initialized');
    assert.equal(parsed.data.parsed.info.authority, payer.publicKey.toBase58());
    assert.equal(parsed.space, NONCE_ACCOUNT_LENGTH);
    const sliced = await value(ids.sliced);
    assert.deepEqual(sliced.data, [data.subarray(8, 40).toString('base64'), 'base64']);
    assert.equal(sliced.space, NONCE_ACCOUNT_LENGTH);
    for (const id of Object.values(ids)) assert.equal((await client.request('accountUnsubscribe', [id])).result, true);
  });

  it('a closed account is reported with 0 lamports, the system owner and no data', async () => {
    const kp = Keypair.generate();
    const id = await client.subscribe('accountSubscribe', [kp.publicKey.toBase58(), { commitment: 'confirmed', encoding: 'base64' }]);
    await send(dev[2]!, [transfer(dev[2]!, kp.publicKey, 1_000_000)]);
    assert.equal((await client.next(id)).params.result.value.lamports, 1_000_000);
    const fee = 5000;
    const { slot } = await send(kp, [transfer(kp, dev[2]!.publicKey, 1_000_000 - fee)]);
    const closed = (await client.next(id)).params.result;
    assert.equal(closed.context.slot, slot);
    assert.deepEqual(closed.value, { lamports: 0, data: ['', 'base64'], owner: SYSTEM, executable: false, rentEpoch: 0, space: 0 });
    await client.request('accountUnsubscribe', [id]);
  });

  it('processed subscriptions also hear the fee deposit made as the slot is sealed', async () => {
    const identity = node.genesis.identity;
    const id = await client.subscribe('accountSubscribe', [identity, { commitment: 'processed', encoding: 'base64' }]);
    const { slot } = await send(dev[8]!, [transfer(dev[8]!, Keypair.generate().publicKey, LAMPORTS_PER_SOL / 100)]);
    // The seal deposits half of the slot's fees (the validator's vote's and the transfer's) as a Fee reward.
    const block = await waitFor(async () => (await rpc(node.rpcUrl, 'getBlock', [slot, { commitment: 'confirmed', transactionDetails: 'none', rewards: true }])).result, { what: 'the block' });
    const deposit = block.rewards.find((r: { rewardType: string; pubkey: string }) => r.rewardType === 'Fee' && r.pubkey === identity);
    assert.equal(deposit.lamports, 5000);
    const n = (await client.next(id, (r) => r.context.slot === slot && r.value.lamports === deposit.postBalance)).params.result;
    assert.equal(n.value.lamports, deposit.postBalance);
    assert.equal((await client.request('accountUnsubscribe', [id])).result, true);
  });

  it('programSubscribe with getProgramAccounts filters (dataSize, memcmp), {pubkey, account} values', async () => {
    const owner = Keypair.generate().publicKey;
    const payer = dev[3]!;
    const sub = (config: object) => client.subscribe('programSubscribe', [owner.toBase58(), { commitment: 'confirmed', encoding: 'base64', ...config }]);
    const ids = {
      all: await sub({}),
      size16: await sub({ filters: [{ dataSize: 16 }] }),
      size17: await sub({ filters: [{ dataSize: 17 }] }),
      memcmpZero: await sub({ filters: [{ memcmp: { offset: 4, bytes: bs58.encode(new Uint8Array(4)) } }, { dataSize: 16 }] }),
      memcmpOne: await sub({ filters: [{ memcmp: { offset: 0, bytes: bs58.encode(new Uint8Array([1])) } }] }),
      processed: await sub({ commitment: 'processed' }),
    };
    const created = Keypair.generate();
    const { slot } = await send(
      payer,
      [SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: created.publicKey, lamports: LAMPORTS_PER_SOL / 100, space: 16, programId: owner })],
      [created],
    );
    for (const id of [ids.all, ids.size16, ids.memcmpZero, ids.processed]) {
      const n = await client.next(id);
      assert.equal(n.method, 'programNotification');
      assert.equal(n.params.result.context.slot, slot);
      assert.deepEqual(n.params.result.value, {
        pubkey: created.publicKey.toBase58(),
        account: { lamports: LAMPORTS_PER_SOL / 100, data: [Buffer.alloc(16).toString('base64'), 'base64'], owner: owner.toBase58(), executable: false, rentEpoch: 2 ** 64, space: 16 },
      });
    }
    // A later slot's notifications have arrived by now; the filtered-out subscriptions heard nothing.
    await statusOf((await send(payer, [transfer(payer, owner, 1)])).sig, 'confirmed');
    await sleep(100);
    assert.equal(client.of(ids.size17).length, 0);
    assert.equal(client.of(ids.memcmpOne).length, 0);

    const tooMany = await client.request('programSubscribe', [owner.toBase58(), { filters: [{ dataSize: 1 }, { dataSize: 1 }, { dataSize: 1 }, { dataSize: 1 }, { dataSize: 1 }] }]);
    assert.deepEqual(tooMany.error, { code: -32602, message: 'Too many filters provided; max 4' });
    for (const id of Object.values(ids)) assert.equal((await client.request('programUnsubscribe', [id])).result, true);
  });
});

describe('transaction subscriptions', () => {
  it('logsSubscribe: all, allWithVotes, mentions; {signature, err, logs}', async () => {
    const to = Keypair.generate().publicKey;
    const ids = {
      all: await client.subscribe('logsSubscribe', ['all']),
      withVotes: await client.subscribe('logsSubscribe', ['allWithVotes', { commitment: 'processed' }]),
      mentions: await client.subscribe('logsSubscribe', [{ mentions: [to.toBase58()] }, { commitment: 'finalized' }]),
      other: await client.subscribe('logsSubscribe', [{ mentions: [Keypair.generate().publicKey.toBase58()] }]),
    };
    const { sig, slot } = await send(dev[4]!, [transfer(dev[4]!, to, 5_000_000)]);
    const expected = { signature: sig, err: null, logs: [`Program ${SYSTEM} invoke [1]`, `Program ${SYSTEM} success`] };
    for (const id of [ids.all, ids.withVotes, ids.mentions]) {
      const n = await client.next(id, (r) => r.value.signature === sig);
      assert.equal(n.method, 'logsNotification');
      assert.deepEqual(n.params.result, { context: { slot }, value: expected });
    }
    assert.equal(client.of(ids.other).length, 0);
    const two = await client.request('logsSubscribe', [{ mentions: [to.toBase58(), SYSTEM] }]);
    assert.deepEqual(two.error, { code: -32602, message: 'Invalid Request: Only 1 address supported' });
    const bad = await client.request('logsSubscribe', ['everything']);
    assert.equal(bad.error.code, -32602);
    assert.match(bad.error.message, /filter/);
    for (const id of Object.values(ids)) assert.equal((await client.request('logsUnsubscribe', [id])).result, true);
  });

  it('signatureSubscribe: receivedSignature, then one {err} at the commitment, then cancelled', async () => {
    const payer = dev[5]!;
    const { sig, wire } = await sign(payer, [transfer(payer, Keypair.generate().publicKey, LAMPORTS_PER_SOL / 100)]);
    const id = await client.subscribe('signatureSubscribe', [sig, { commitment: 'finalized', enableReceivedNotification: true }]);
    const confirmedId = await client.subscribe('signatureSubscribe', [sig]);
    await http.sendRawTransaction(wire, { skipPreflight: true });
    const received = (await client.next(id)).params.result;
    assert.equal(received.value, 'receivedSignature');
    const confirmed = (await client.next(confirmedId)).params.result;
    assert.deepEqual(confirmed.value, { err: null });
    const final = (await client.next(id)).params.result;
    assert.deepEqual(final.value, { err: null });
    assert.equal(final.context.slot, confirmed.context.slot);
    assert.ok(node.chain.rootSlot >= final.context.slot);
    // Cancelled by itself: unsubscribing now is an unknown id.
    assert.deepEqual((await client.request('signatureUnsubscribe', [id])).error, { code: -32602, message: 'Invalid subscription id.' });
    assert.deepEqual((await client.request('signatureUnsubscribe', [confirmedId])).error, { code: -32602, message: 'Invalid subscription id.' });

    // Already finalized when subscribing: notified at once.
    const late = await client.subscribe('signatureSubscribe', [sig, { commitment: 'finalized' }]);
    assert.deepEqual((await client.next(late, () => true, 1000)).params.result, { context: { slot: final.context.slot }, value: { err: null } });
  });

  it('signatureSubscribe reports a failed transaction with its error', async () => {
    const poor = Keypair.generate();
    await send(dev[5]!, [transfer(dev[5]!, poor.publicKey, 1_000_000)]);
    const { sig, wire } = await sign(poor, [transfer(poor, dev[5]!.publicKey, 10 * LAMPORTS_PER_SOL)]);
    const id = await client.subscribe('signatureSubscribe', [sig, { commitment: 'processed' }]);
    const logs = await client.subscribe('logsSubscribe', [{ mentions: [poor.publicKey.toBase58()] }, { commitment: 'processed' }]);
    await http.sendRawTransaction(wire, { skipPreflight: true });
    const n = (await client.next(id)).params.result;
    assert.deepEqual(n.value, { err: { InstructionError: [0, { Custom: 1 }] } });
    const l = (await client.next(logs, (r) => r.value.signature === sig)).params.result;
    assert.deepEqual(l.value.err, { InstructionError: [0, { Custom: 1 }] });
    assert.ok(l.value.logs.some((line: string) => line.includes('failed')));
    await client.request('logsUnsubscribe', [logs]);
  });

  it('blockSubscribe: all and mentionsAccountOrProgram, getBlock shape, confirmed or finalized only', async () => {
    const to = Keypair.generate().publicKey;
    const all = await client.subscribe('blockSubscribe', ['all', { encoding: 'json', transactionDetails: 'signatures', showRewards: true }]);
    const mentions = await client.subscribe('blockSubscribe', [{ mentionsAccountOrProgram: to.toBase58() }, { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    const { sig, slot } = await send(dev[6]!, [transfer(dev[6]!, to, 7_000_000)]);
    const n = (await client.next(all, (r) => r.value.slot === slot)).params.result;
    assert.equal(n.context.slot, slot);
    assert.equal(n.value.err, null);
    const stored = (await rpc(node.rpcUrl, 'getBlock', [slot, { commitment: 'confirmed', encoding: 'json', transactionDetails: 'signatures', rewards: true }])).result;
    assert.equal(n.value.block.blockhash, stored!.blockhash);
    assert.equal(n.value.block.previousBlockhash, stored!.previousBlockhash);
    assert.equal(n.value.block.parentSlot, stored!.parentSlot);
    assert.deepEqual(n.value.block.signatures, stored!.signatures);
    assert.ok(n.value.block.signatures.includes(sig));
    assert.deepEqual(n.value.block.rewards, stored!.rewards);
    assert.equal(n.value.block.blockTime, stored!.blockTime);
    assert.equal(n.value.block.blockHeight, slot);

    const m = (await client.next(mentions)).params.result;
    assert.equal(m.value.slot, slot);
    assert.ok(node.chain.rootSlot >= slot);
    assert.deepEqual(m.value.block.transactions.map((t: any) => t.transaction.signatures[0]), [sig]);
    assert.equal(m.value.block.transactions[0].version, 'legacy');
    assert.equal(m.value.block.rewards, undefined);
    // Slots that do not mention the key send nothing.
    assert.equal(client.of(mentions).length, 0);

    const processed = await client.request('blockSubscribe', ['all', { commitment: 'processed' }]);
    assert.deepEqual(processed.error, { code: -32602, message: 'Method does not support commitment below `confirmed`' });
    assert.equal((await client.request('blockUnsubscribe', [all])).result, true);
    assert.equal((await client.request('blockUnsubscribe', [mentions])).result, true);
  });
});

describe('requests and errors', () => {
  it('unsubscribe: true once, then an unknown id; bad ids are -32602', async () => {
    const id = await client.subscribe('rootSubscribe');
    const r = await client.request('rootUnsubscribe', [id]);
    assert.equal(r.jsonrpc, '2.0');
    assert.equal(r.result, true);
    assert.deepEqual((await client.request('rootUnsubscribe', [id])).error, { code: -32602, message: 'Invalid subscription id.' });
    assert.equal((await client.request('rootUnsubscribe', ['0'])).error.code, -32602);
    assert.equal((await client.request('rootUnsubscribe', [])).error.code, -32602);
    // Another connection's subscription is not this connection's to cancel.
    const other = await Client.open(node.pubsubUrl);
    const theirs = await other.subscribe('slotSubscribe');
    assert.deepEqual((await client.request('slotUnsubscribe', [theirs])).error, { code: -32602, message: 'Invalid subscription id.' });
    await other.close();
  });

  it('bad params name the parameter; bad JSON, unknown methods and invalid requests are errors; the connection stays open', async () => {
    const badKey = await client.request('accountSubscribe', ['not-a-key']);
    assert.equal(badKey.error.code, -32602);
    assert.match(badKey.error.message, /pubkey/);
    const badCommitment = await client.request('accountSubscribe', [SYSTEM, { commitment: 'soon' }]);
    assert.equal(badCommitment.error.code, -32602);
    assert.match(badCommitment.error.message, /config\.commitment/);
    const badEncoding = await client.request('programSubscribe', [SYSTEM, { encoding: 'hex' }]);
    assert.match(badEncoding.error.message, /config\.encoding/);
    const badSig = await client.request('signatureSubscribe', ['abc']);
    assert.match(badSig.error.message, /signature/);
    const extra = await client.request('slotSubscribe', [1]);
    assert.equal(extra.error.code, -32602);

    assert.deepEqual(await client.raw('{"jsonrpc":"2.0","id":', null), { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    assert.deepEqual((await client.request('noSuchSubscribe', [])).error, { code: -32601, message: 'Method not found' });
    assert.equal((await client.raw('{"jsonrpc":"2.0","id":77}', 77)).error.code, -32600);
    // web3.js's keep-alive: a notification, answered with nothing.
    client.ws.send('{"jsonrpc":"2.0","method":"ping"}');
    // A batch works too.
    const batch = await client.raw(JSON.stringify([{ jsonrpc: '2.0', id: 901, method: 'slotSubscribe' }]), 901);
    assert.ok(Number.isInteger(batch[0].result));
    assert.equal((await client.request('slotUnsubscribe', [batch[0].result])).result, true);
    // Still open and serving.
    assert.equal(client.closed, false);
    const id = await client.subscribe('slotSubscribe');
    await client.next(id);
    await client.request('slotUnsubscribe', [id]);
  });
});

describe('connections', () => {
  let server: PubsubEndpoint;
  let url: string;
  const log: string[] = [];

  before(async () => {
    // A second server on the same chain, to read its counts and use small bounds.
    server = await startPubsubEndpoint({
      chain: node.chain,
      port: 0,
      host: '127.0.0.1',
      enableVoteSubscription: false,
      limits: { pingIntervalMs: 200, highWaterBytes: 16 * 1024, maxQueuedMessages: 2_000, maxQueuedBytes: 4 << 20 },
      log: (line) => log.push(line),
    });
    url = `ws://127.0.0.1:${server.port}`;
  });

  after(() => server.close());

  it('voteSubscribe without the flag is an error naming the flag', async () => {
    const c = await Client.open(url);
    const r = await c.request('voteSubscribe');
    assert.equal(r.error.code, -32601);
    assert.match(r.error.message, /--rpc-pubsub-enable-vote-subscription/);
    assert.equal((await c.request('voteUnsubscribe', [0])).error.code, -32601);
    assert.ok(Number.isInteger((await c.request('slotSubscribe')).result));
    await c.close();
  });

  it('a closed connection frees all its subscriptions', async () => {
    await waitFor(() => server.subscriptionCount === 0, { what: 'no subscriptions' });
    const c = await Client.open(url);
    const key = Keypair.generate().publicKey.toBase58();
    await c.subscribe('slotSubscribe');
    await c.subscribe('accountSubscribe', [key, { commitment: 'processed' }]);
    await c.subscribe('accountSubscribe', [key, { commitment: 'finalized' }]);
    await c.subscribe('programSubscribe', [SYSTEM]);
    await c.subscribe('logsSubscribe', [{ mentions: [key] }]);
    await c.subscribe('signatureSubscribe', [bs58.encode(new Uint8Array(64).fill(7))]);
    await c.subscribe('blockSubscribe', ['all']);
    assert.equal(server.subscriptionCount, 7);
    assert.equal(server.connectionCount, 1);
    await c.close();
    await waitFor(() => server.subscriptionCount === 0 && server.connectionCount === 0, { what: 'subscriptions freed' });
  });

  it('the heartbeat terminates a peer that does not answer pings, and keeps one that does', async () => {
    const mute = await Client.open(url, { autoPong: false });
    const live = await Client.open(url);
    await mute.subscribe('rootSubscribe');
    await waitFor(() => mute.closed, { what: 'mute peer dropped', timeoutMs: 3000 });
    assert.equal(live.closed, false);
    assert.ok(log.some((l) => l.includes('no answer to the last ping')));
    await waitFor(() => server.subscriptionCount === 0, { what: 'subscriptions freed' });
    await live.close();
  });

  it('a slow reader is disconnected with a logged reason and never slows the chain', async () => {
    // Its own server: a reader that stops reading cannot answer pings either, and the fast
    // heartbeat above would drop it first.
    const slowLog: string[] = [];
    const own = await startPubsubEndpoint({
      chain: node.chain,
      port: 0,
      host: '127.0.0.1',
      enableVoteSubscription: false,
      limits: { highWaterBytes: 16 * 1024, maxQueuedMessages: 5_000, maxQueuedBytes: 4 << 20 },
      log: (line) => slowLog.push(line),
    });
    try {
      const slow = await Client.open(`ws://127.0.0.1:${own.port}`);
      const fine = await Client.open(`ws://127.0.0.1:${own.port}`);
      const fineSub = await fine.subscribe('slotSubscribe');
      // 3,000 subscriptions to one account, silent until it changes (slot subscriptions would notify
      // while they are being made, and a busy test process could be dropped before it stops reading).
      const watched = Keypair.generate().publicKey.toBase58();
      const params = [watched, { commitment: 'processed', encoding: 'base64' }];
      for (let i = 0; i < 6; i++) await Promise.all(Array.from({ length: 500 }, () => slow.request('accountSubscribe', params)));
      assert.equal(own.subscriptionCount, 3_001);
      slow.ws.pause();
      const before = node.chain.processedSlot;
      const t0 = Date.now();
      // Every airdrop to it: 3,000 notifications (~0.6 MB) the paused reader does not take.
      let airdrops = 0;
      await waitFor(
        async () => {
          if (own.slowReaderDisconnects === 1) return true;
          // A new amount each time: the same airdrop twice in one slot would be one transaction.
          const airdrop = await rpc(node.rpcUrl, 'requestAirdrop', [watched, LAMPORTS_PER_SOL + ++airdrops]);
          assert.ok(airdrop.result, JSON.stringify(airdrop.error));
          const signature = airdrop.result;
          await waitFor(async () => (await rpc(node.rpcUrl, 'getSignatureStatuses', [[signature]])).result.value[0], { what: 'airdrop processed' });
          return own.slowReaderDisconnects === 1;
        },
        { what: 'slow reader dropped', timeoutMs: 60_000 },
      );
      const slots = node.chain.processedSlot - before;
      const expected = (Date.now() - t0) / node.chain.slotMs;
      assert.ok(slots >= expected * 0.5, `chain kept its pace: ${slots} slots in ${Date.now() - t0} ms`);
      assert.ok(slowLog.some((l) => /disconnecting .*: slow reader: \d+ notifications/.test(l)), slowLog.join('\n'));
      assert.equal(own.subscriptionCount, 1);
      // The other client still hears every slot.
      const a = (await fine.next(fineSub, () => true)).params.result.slot;
      fine.notifications.length = 0;
      const b = (await fine.next(fineSub)).params.result.slot;
      assert.ok(b > a);
      slow.ws.terminate();
      await fine.close();
    } finally {
      await own.close();
    }
  });
});
