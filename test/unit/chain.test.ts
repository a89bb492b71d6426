import { refused } from '../helpers/refused.ts';
import { openChain, writeGenesis } from '../../node-core/ledger/open-chain.ts';
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ByteWriter } from '../../node-core/common/bytes.ts';
import { INCINERATOR_ID, SYSTEM_PROGRAM_ID, addressToBytes, type Address } from '../../node-core/common/pubkey.ts';
import { keypairFromSeed, type Keypair } from '../../node-core/keys/keypair.ts';
import type { Bank } from '../../node-core/ledger/bank.ts';
import { MAX_PROCESSING_AGE } from '../../node-core/ledger/blockhash-queue.ts';
import { Chain } from '../../node-core/ledger/chain.ts';
import { blockhashOf } from '../../node-core/ledger/slot-commit.ts';
import { normalizeCommitment } from '../../node-core/ledger/commitment.ts';
import { durableNonceOf } from '../../node-core/ledger/durable-nonce.ts';
import { createGenesis, genesisHashOf, LAMPORTS_PER_SOL } from '../../node-core/ledger/genesis.ts';
import { DEFAULT_FEE_RATE_GOVERNOR } from '../../node-core/ledger/genesis-config.ts';
import { nextLamportsPerSignature } from '../../node-core/ledger/fees.ts';
import { minimumBalanceForRentExemption, type Account } from '../../node-core/runtime/account.ts';
import { TransactionError } from '../../node-core/runtime/errors.ts';
import { builtinPrograms } from '../../node-core/runtime/programs/index.ts';
import { durableNonceFromBlockhash, decodeNonceState, nonceAccountData, NONCE_ACCOUNT_LENGTH } from '../../node-core/runtime/programs/nonce-account.ts';
import { SYSVAR_RECENT_BLOCKHASHES_ID, SYSVAR_RENT_ID } from '../../node-core/runtime/sysvars.ts';
import { MemoryStore } from '../../node-core/store/memory-store.ts';
import type { Store } from '../../node-core/store/store.ts';
import { buildTransaction, compileMessage, setComputeUnitLimitIx, setComputeUnitPriceIx, signMessage, transferIx, type InstructionSpec } from '../helpers/tx-builder.ts';

const FEE = 5000;
const RENT_EXEMPT_0 = 890_880;
const ROOT_DEPTH = 3;

// One genesis for the file (its keypair files live in a temp dir); each test gets its own store and chain.
const ledgerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-chain-test-'));
after(() => fs.rmSync(ledgerDir, { recursive: true, force: true }));
const { config: GENESIS, keys: KEYS } = createGenesis({
  ledger: ledgerDir,
  mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
  slotMs: 400,
  slotsPerEpoch: 432_000,
  devAccountLamports: 100 * LAMPORTS_PER_SOL,
});
const GENESIS_HASH = genesisHashOf(GENESIS);
const GENESIS_TOTAL = GENESIS.accounts.reduce((n, a) => n + a.lamports, 0);
const dev = KEYS.devAccounts;

/** A Chain over the store, as start.ts opens one. */
const chainFromStore = (store: Store, rootDepth = ROOT_DEPTH) =>
  openChain({ store, genesis: GENESIS, genesisHash: GENESIS_HASH, programs: builtinPrograms, slotMs: 400, rootDepth });

async function newChain(rootDepth = ROOT_DEPTH): Promise<{ chain: Chain; store: MemoryStore }> {
  const store = new MemoryStore();
  await writeGenesis(store, GENESIS, GENESIS_HASH);
  return { chain: await chainFromStore(store, rootDepth), store };
}

async function seal(chain: Chain, n = 1): Promise<Bank> {
  let bank!: Bank;
  for (let i = 0; i < n; i++) {
    bank = chain.sealWorkingBank();
    await chain.flushed();
  }
  return bank;
}

const kp = (n: number): Keypair => keypairFromSeed(new Uint8Array(32).fill(n));
const blockhashOfChain = (chain: Chain) => chain.latestBlockhash('processed').blockhash;
const transfer = (chain: Chain, from: Keypair, to: Address, lamports: number, extra: InstructionSpec[] = []) =>
  buildTransaction(from, [...extra, transferIx(from.address, to, lamports)], blockhashOfChain(chain));
const balance = (chain: Chain, a: Address, c: 'processed' | 'confirmed' | 'finalized' = 'processed') => chain.getAccount(a, c)?.lamports ?? null;


function totalLamports(bank: Bank): number {
  let n = 0;
  for (const [, a] of bank.entries()) n += a.lamports;
  return n;
}

describe('commitment', () => {
  test('processed → confirmed after seal and commit → finalized rootDepth slots later', async () => {
    const { chain } = await newChain();
    const x = kp(1).address;
    assert.deepEqual([chain.processedSlot, chain.confirmedSlot, chain.rootSlot], [1, 0, 0]);
    assert.equal(chain.processTransaction(transfer(chain, dev[0]!, x, LAMPORTS_PER_SOL)).err, null);
    assert.deepEqual([balance(chain, x, 'processed'), balance(chain, x, 'confirmed'), balance(chain, x, 'finalized')], [LAMPORTS_PER_SOL, null, null]);

    const sealed = chain.sealWorkingBank();
    assert.equal(sealed.slot, 1);
    assert.equal(chain.processedSlot, 2);
    assert.equal(chain.confirmedSlot, 0, 'confirmed only once the store has the slot');
    assert.equal(balance(chain, x, 'processed'), LAMPORTS_PER_SOL, 'the next working bank sees its parent');
    await chain.flushed();
    assert.deepEqual([chain.processedSlot, chain.confirmedSlot, chain.rootSlot], [2, 1, 0]);
    assert.deepEqual([balance(chain, x, 'confirmed'), balance(chain, x, 'finalized')], [LAMPORTS_PER_SOL, null]);

    for (let s = 2; s <= 1 + ROOT_DEPTH; s++) {
      await seal(chain);
      assert.equal(chain.confirmedSlot, s);
      assert.equal(chain.rootSlot, Math.max(0, s - ROOT_DEPTH));
      assert.equal(balance(chain, x, 'finalized'), s - ROOT_DEPTH >= 1 ? LAMPORTS_PER_SOL : null, `finalized at confirmed slot ${s}`);
    }
    assert.equal(chain.rootSlot, 1);
    assert.deepEqual([chain.slotAt('processed'), chain.slotAt('confirmed'), chain.slotAt('finalized')], [2 + ROOT_DEPTH, 1 + ROOT_DEPTH, 1]);
    await chain.stop();
  });

  test('each commitment reads its own bank while changes pile up', async () => {
    const { chain } = await newChain();
    const x = kp(2).address;
    const history: number[] = [];
    for (let i = 1; i <= ROOT_DEPTH + 3; i++) {
      chain.processTransaction(transfer(chain, dev[0]!, x, RENT_EXEMPT_0 * i));
      history.push(RENT_EXEMPT_0 * ((i * (i + 1)) / 2));
      await seal(chain);
      const confirmed = chain.confirmedSlot;
      assert.equal(balance(chain, x, 'confirmed'), history[confirmed - 1]);
      const root = chain.rootSlot;
      assert.equal(balance(chain, x, 'finalized'), root === 0 ? null : history[root - 1]);
    }
    await chain.stop();
  });

  test('an account closed to zero disappears at every level in turn', async () => {
    const { chain } = await newChain(1);
    const temp = kp(3);
    chain.processTransaction(transfer(chain, dev[0]!, temp.address, RENT_EXEMPT_0 + FEE));
    await seal(chain, 2);
    assert.equal(balance(chain, temp.address, 'finalized'), RENT_EXEMPT_0 + FEE);
    // Pays its own fee and sends the rest away: zero lamports left.
    assert.equal(chain.processTransaction(transfer(chain, temp, dev[0]!.address, RENT_EXEMPT_0)).err, null);
    assert.equal(chain.getAccount(temp.address, 'processed'), null);
    assert.equal(balance(chain, temp.address, 'confirmed'), RENT_EXEMPT_0 + FEE);
    await seal(chain);
    assert.equal(chain.getAccount(temp.address, 'confirmed'), null);
    await seal(chain);
    assert.equal(chain.getAccount(temp.address, 'finalized'), null);
    assert.ok(![...chain.bankAt('finalized').entries()].some(([k]) => k === temp.address));
    await chain.stop();
  });

  test('normalizeCommitment accepts the old names', () => {
    assert.equal(normalizeCommitment('recent'), 'processed');
    assert.equal(normalizeCommitment('single'), 'confirmed');
    assert.equal(normalizeCommitment('singleGossip'), 'confirmed');
    assert.equal(normalizeCommitment('max'), 'finalized');
    assert.equal(normalizeCommitment('root'), 'finalized');
    assert.equal(normalizeCommitment(undefined, 'confirmed'), 'confirmed');
    assert.equal(normalizeCommitment('bogus'), null);
  });
});

describe('blockhashes', () => {
  test('a blockhash is usable through lastValidBlockHeight, then BlockhashNotFound', async () => {
    const { chain } = await newChain();
    const genesisHash = chain.latestBlockhash().blockhash;
    const { lastValidBlockHeight } = chain.latestBlockhash();
    assert.equal(lastValidBlockHeight, MAX_PROCESSING_AGE);
    const a = buildTransaction(dev[0]!, [transferIx(dev[0]!.address, dev[1]!.address, 1)], genesisHash);
    const b = buildTransaction(dev[0]!, [transferIx(dev[0]!.address, dev[1]!.address, 2)], genesisHash);
    const c = buildTransaction(dev[0]!, [transferIx(dev[0]!.address, dev[1]!.address, 3)], genesisHash);
    chain.processTransaction(a);
    for (let i = 0; i < MAX_PROCESSING_AGE - 1; i++) chain.sealWorkingBank();
    await chain.flushed();
    assert.equal(chain.processedSlot, lastValidBlockHeight);
    assert.equal(chain.isBlockhashValid(genesisHash, 'processed'), true);
    assert.equal(chain.processTransaction(b).err, null, 'still valid at the last valid block height');
    chain.sealWorkingBank();
    await chain.flushed();
    assert.equal(chain.processedSlot, lastValidBlockHeight + 1);
    assert.equal(chain.isBlockhashValid(genesisHash, 'processed'), false);
    assert.equal(refused(() => chain.processTransaction(c)), 'BlockhashNotFound');
    assert.equal(refused(() => chain.simulate(c, 'processed')), 'BlockhashNotFound');
    // A duplicate whose blockhash expired is refused for the blockhash first, as Agave's check_age runs before the status cache.
    assert.equal(refused(() => chain.processTransaction(a)), 'BlockhashNotFound');
    await chain.stop();
  });

  test('an unknown blockhash: BlockhashNotFound, and nothing is recorded', async () => {
    const { chain } = await newChain();
    const t = buildTransaction(dev[0]!, [transferIx(dev[0]!.address, dev[1]!.address, 1)], KEYS.identity.address);
    assert.equal(refused(() => chain.processTransaction(t)), 'BlockhashNotFound');
    assert.equal(chain.signatureStatus(t.id), undefined);
    assert.equal(chain.bankAt('processed').transactions.length, 0);
    await chain.stop();
  });

  test('each sealed block chains to its parent’s blockhash', async () => {
    const { chain, store } = await newChain();
    chain.processTransaction(transfer(chain, dev[0]!, dev[1]!.address, 7));
    await seal(chain, 3);
    for (let slot = 1; slot <= 3; slot++) {
      const block = (await store.getBlock(slot))!;
      const parent = (await store.getBlock(slot - 1))!;
      assert.equal(block.parentSlot, slot - 1);
      assert.equal(block.previousBlockhash, parent.blockhash);
      assert.equal(block.blockhash, blockhashOf(parent.blockhash, slot, block.transactions));
      assert.equal(block.blockHeight, slot);
    }
    await chain.stop();
  });
});

describe('duplicates', () => {
  test('the same transaction twice: AlreadyProcessed, in its slot and later ones', async () => {
    const { chain } = await newChain();
    const t = transfer(chain, dev[0]!, dev[1]!.address, 1);
    chain.processTransaction(t);
    assert.equal(refused(() => chain.processTransaction(t)), 'AlreadyProcessed');
    assert.equal(refused(() => chain.simulate(t, 'processed')), 'AlreadyProcessed');
    await seal(chain, 5);
    assert.equal(refused(() => chain.processTransaction(t)), 'AlreadyProcessed');
    assert.deepEqual(chain.signatureStatus(t.id), { slot: 1, index: 0, err: null });
    await chain.stop();
  });

  test('a failed transaction was processed too', async () => {
    const { chain } = await newChain();
    const t = transfer(chain, dev[0]!, kp(4).address, 10); // below rent exemption
    assert.deepEqual(chain.processTransaction(t).err, { InsufficientFundsForRent: { account_index: 1 } });
    assert.equal(refused(() => chain.processTransaction(t)), 'AlreadyProcessed');
    await chain.stop();
  });

  test('a refused transaction is not remembered: it can land once it can pay', async () => {
    const { chain } = await newChain();
    const poor = kp(5);
    const t = transfer(chain, poor, dev[0]!.address, 1);
    assert.equal(refused(() => chain.processTransaction(t)), 'AccountNotFound');
    chain.processTransaction(transfer(chain, dev[0]!, poor.address, RENT_EXEMPT_0 + 10 * FEE));
    assert.equal(chain.processTransaction(t).err, null);
    await chain.stop();
  });

  test('submit() queues each signature once and the next seal drains the queue', async () => {
    const { chain } = await newChain();
    const received: string[] = [];
    chain.on('received', (sig) => received.push(sig));
    const t = transfer(chain, dev[0]!, dev[1]!.address, 1);
    chain.submit(t);
    chain.submit(t);
    assert.deepEqual(received, [t.id]);
    const bank = await seal(chain);
    assert.deepEqual(bank.transactions.map((x) => x.signature), [t.id]);
    await chain.stop();
  });
});

describe('fees', () => {
  test('half burned, half credited to the identity as a Fee reward in the block', async () => {
    const { chain, store } = await newChain();
    const identity = GENESIS.identity;
    const identityBefore = balance(chain, identity)!;
    const supplyBefore = chain.supply();
    const fees = [
      chain.processTransaction(transfer(chain, dev[0]!, dev[1]!.address, 1)).fee,
      chain.processTransaction(transfer(chain, dev[1]!, dev[2]!.address, 1)).fee,
      // 1 micro-lamport × 200k units = 0.2 lamports → a 1-lamport priority fee: 5001 in all.
      chain.processTransaction(transfer(chain, dev[2]!, dev[3]!.address, 1, [setComputeUnitPriceIx(1)])).fee,
      // A failed transaction pays too.
      chain.processTransaction(transfer(chain, dev[3]!, kp(6).address, 1)).fee,
    ];
    assert.deepEqual(fees, [FEE, FEE, FEE + 1, FEE]);
    const collected = 4 * FEE + 1;
    const burn = Math.floor(collected / 2);
    const deposit = collected - burn;
    assert.equal(balance(chain, identity), identityBefore, 'fees are distributed when the slot is sealed');
    const bank = await seal(chain);
    assert.equal(bank.feesCollected, collected);
    const reward = { pubkey: identity, lamports: deposit, postBalance: identityBefore + deposit, rewardType: 'Fee', commission: null };
    assert.deepEqual(bank.rewards, [reward]);
    assert.deepEqual((await store.getBlock(bank.slot))!.rewards, [reward]);
    assert.equal(balance(chain, identity, 'confirmed'), identityBefore + deposit);
    assert.deepEqual(chain.supply(), { total: supplyBefore.total - burn, burned: supplyBefore.burned + burn, minted: 0, adjusted: 0 });
    assert.equal((await store.readMeta())!.burned, burn);
    assert.equal((await store.readMeta())!.totalSupply, supplyBefore.total - burn);
    // A slot without fees has no rewards.
    assert.deepEqual((await seal(chain)).rewards, []);
    await chain.stop();
  });

  test('the identity paying fees gets its own share back', async () => {
    const { chain } = await newChain();
    const identity = KEYS.identity;
    const before = balance(chain, identity.address)!;
    chain.processTransaction(transfer(chain, identity, dev[0]!.address, 1));
    await seal(chain);
    assert.equal(balance(chain, identity.address), before - 1 - FEE + FEE / 2);
    await chain.stop();
  });
});

describe('value conservation', () => {
  test('every lamport is in an account or burned, across many transactions including failed ones', async () => {
    const { chain } = await newChain();
    let seed = 99;
    const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const people = [...dev, ...Array.from({ length: 6 }, (_, i) => kp(40 + i))];
    const outcomes = { ok: 0, failed: 0, refused: 0 };
    for (let slot = 0; slot < 12; slot++) {
      for (let i = 0; i < 25; i++) {
        const from = people[Math.floor(random() * people.length)]!;
        const to = people[Math.floor(random() * people.length)]!;
        if (from === to) continue;
        const kind = random();
        // Mostly fine transfers; some below rent exemption, some more than the sender has, some with a priority fee.
        const lamports = kind < 0.15 ? 1 + Math.floor(random() * 1000) : kind < 0.25 ? 500 * LAMPORTS_PER_SOL : RENT_EXEMPT_0 + Math.floor(random() * LAMPORTS_PER_SOL);
        const extra = random() < 0.2 ? [setComputeUnitLimitIx(10_000), setComputeUnitPriceIx(Math.floor(random() * 5_000_000))] : [];
        const t = transfer(chain, from, to.address, lamports, extra);
        try {
          const r = chain.processTransaction(t);
          if (r.err) outcomes.failed++;
          else outcomes.ok++;
          const pre = r.preBalances.reduce((a, b) => a + b, 0);
          const post = r.postBalances.reduce((a, b) => a + b, 0);
          assert.equal(post, pre - r.fee, 'a transaction only moves lamports, minus its fee');
        } catch (e) {
          assert.ok(e instanceof TransactionError);
          outcomes.refused++;
        }
      }
      const working = chain.bankAt('processed');
      assert.equal(totalLamports(working) + chain.supply().burned + working.feesCollected, GENESIS_TOTAL, `pending fees at slot ${working.slot}`);
      await seal(chain);
      const sealed = chain.bankAt('confirmed');
      assert.equal(totalLamports(sealed) + chain.supply().burned, GENESIS_TOTAL, `after sealing slot ${sealed.slot}`);
      assert.equal(totalLamports(sealed), chain.supply().total);
    }
    assert.ok(outcomes.ok > 100 && outcomes.failed > 10 && outcomes.refused > 0, JSON.stringify(outcomes));
    assert.ok(chain.supply().burned > 0);
    // The folded, rooted state agrees too.
    await seal(chain, ROOT_DEPTH);
    assert.equal(totalLamports(chain.bankAt('finalized')) + chain.supply().burned, GENESIS_TOTAL);
    await chain.stop();
  });
});

describe('events', () => {
  test('slot, transaction, sealed, confirmed, rooted — in order', async () => {
    const { chain } = await newChain(2);
    const events: string[] = [];
    chain.on('slot', (e) => events.push(`slot ${e.slot} parent ${e.parent} root ${e.root}`));
    chain.on('transaction', (e) => events.push(`transaction ${e.slot} ${e.transaction.signature === t.id}`));
    chain.on('sealed', (b) => events.push(`sealed ${b.slot}`));
    chain.on('confirmed', (b) => events.push(`confirmed ${b.slot}`));
    chain.on('rooted', (banks) => events.push(`rooted ${banks.map((b) => b.slot).join(',')}`));
    const t = transfer(chain, dev[0]!, dev[1]!.address, 1);
    chain.processTransaction(t);
    await seal(chain, 4);
    assert.deepEqual(events, [
      'transaction 1 true',
      'sealed 1',
      'slot 2 parent 1 root 0',
      'confirmed 1',
      'sealed 2',
      'slot 3 parent 2 root 0',
      'confirmed 2',
      'sealed 3',
      'slot 4 parent 3 root 0',
      'confirmed 3',
      'rooted 1',
      'sealed 4',
      'slot 5 parent 4 root 1',
      'confirmed 4',
      'rooted 2',
    ]);
    await chain.stop();
  });

  test('a transaction event carries what it wrote', async () => {
    const { chain } = await newChain();
    let writes: Array<[Address, Account]> = [];
    chain.on('transaction', (e) => (writes = e.writes));
    const x = kp(7).address;
    chain.processTransaction(transfer(chain, dev[0]!, x, RENT_EXEMPT_0));
    assert.deepEqual(writes.map(([k]) => k).sort(), [dev[0]!.address, x].sort());
    assert.equal(new Map(writes).get(x)!.lamports, RENT_EXEMPT_0);
    await chain.stop();
  });
});

describe('restart', () => {
  test('a chain rebuilt from the store continues the slots, balances, supply and duplicate check', async () => {
    const { chain, store } = await newChain();
    const x = kp(8).address;
    const first = transfer(chain, dev[0]!, x, 2 * LAMPORTS_PER_SOL);
    chain.processTransaction(first);
    await seal(chain, 2);
    const oldBlockhash = blockhashOfChain(chain);
    chain.processTransaction(transfer(chain, dev[1]!, x, LAMPORTS_PER_SOL));
    await seal(chain);
    await chain.stop();
    const lastSlot = chain.confirmedSlot;
    const balances = new Map([...chain.bankAt('confirmed').entries()].map(([k, a]) => [k, a.lamports]));
    const supply = chain.supply();
    const count = chain.totalTransactionCount;
    const latest = chain.latestBlockhash('confirmed');

    const again = await chainFromStore(store);
    assert.equal(again.processedSlot, lastSlot + 1);
    assert.equal(again.confirmedSlot, lastSlot);
    assert.equal(again.rootSlot, lastSlot);
    assert.deepEqual(new Map([...again.bankAt('finalized').entries()].map(([k, a]) => [k, a.lamports])), balances);
    assert.equal(balance(again, x, 'finalized'), 3 * LAMPORTS_PER_SOL);
    assert.deepEqual(again.supply(), supply);
    assert.equal(again.totalTransactionCount, count);
    assert.equal(again.latestBlockhash('processed').blockhash, latest.blockhash);
    assert.equal(again.latestBlockhash('processed').lastValidBlockHeight, latest.lastValidBlockHeight);
    assert.equal(refused(() => again.processTransaction(first)), 'AlreadyProcessed');
    assert.equal(again.signatureStatus(first.id)?.slot, 1);
    // A blockhash from before the restart is still good.
    assert.equal(again.processTransaction(buildTransaction(dev[2]!, [transferIx(dev[2]!.address, x, 5)], oldBlockhash)).err, null);
    const next = await seal(again);
    assert.equal(next.slot, lastSlot + 1);
    assert.equal((await store.getBlock(next.slot))!.previousBlockhash, latest.blockhash);
    assert.equal(balance(again, x, 'confirmed'), 3 * LAMPORTS_PER_SOL + 5);
    assert.equal(totalLamports(again.bankAt('confirmed')) + again.supply().burned, GENESIS_TOTAL);
    await again.stop();
  });
});

describe('simulation', () => {
  test('simulate changes nothing and reads the bank of its commitment', async () => {
    const { chain } = await newChain();
    const fresh = kp(9);
    chain.processTransaction(transfer(chain, dev[0]!, fresh.address, 3 * RENT_EXEMPT_0));
    const spend = transfer(chain, fresh, dev[0]!.address, RENT_EXEMPT_0);
    assert.equal(chain.simulate(spend, 'processed').err, null);
    assert.equal(refused(() => chain.simulate(spend, 'finalized')), 'AccountNotFound');
    assert.equal(balance(chain, fresh.address), 3 * RENT_EXEMPT_0);
    assert.equal(chain.signatureStatus(spend.id), undefined);
    assert.equal(chain.processTransaction(spend).err, null, 'simulating did not mark it processed');
    await chain.stop();
  });
});

describe('durable nonces', () => {
  const NONCE_RESERVE = minimumBalanceForRentExemption(GENESIS.rent, NONCE_ACCOUNT_LENGTH);
  const createNonce = (payer: Keypair, nonce: Keypair, authority: Address): InstructionSpec[] => [
    {
      programId: SYSTEM_PROGRAM_ID,
      accounts: [{ key: payer.address, signer: true, writable: true }, { key: nonce.address, signer: true, writable: true }],
      data: new ByteWriter(52).u32(0).u64(NONCE_RESERVE).u64(NONCE_ACCOUNT_LENGTH).bytes(addressToBytes(SYSTEM_PROGRAM_ID)).finish(),
    },
    {
      programId: SYSTEM_PROGRAM_ID,
      accounts: [{ key: nonce.address, writable: true }, { key: SYSVAR_RECENT_BLOCKHASHES_ID }, { key: SYSVAR_RENT_ID }],
      data: new ByteWriter(36).u32(6).bytes(addressToBytes(authority)).finish(),
    },
  ];
  const advance = (nonce: Address, authority: Address, signer = true): InstructionSpec => ({
    programId: SYSTEM_PROGRAM_ID,
    accounts: [{ key: nonce, writable: true }, { key: SYSVAR_RECENT_BLOCKHASHES_ID }, { key: authority, signer }],
    data: [4, 0, 0, 0],
  });
  const storedNonce = (chain: Chain, nonce: Address) => {
    const s = decodeNonceState(chain.getAccount(nonce, 'processed')!.data);
    assert.equal(s?.state, 'initialized');
    return s!.state === 'initialized' ? s!.data.blockhash : '';
  };

  test('a durable transaction lands after its blockhash expired; a failed one still advances the nonce', async () => {
    const { chain } = await newChain();
    const payer = dev[0]!;
    const nonce = kp(10);
    assert.equal(chain.processTransaction(buildTransaction(payer, createNonce(payer, nonce, payer.address), blockhashOfChain(chain), [nonce])).err, null);
    await seal(chain);
    const value = storedNonce(chain, nonce.address);
    // Expire every blockhash the nonce could match.
    for (let i = 0; i < MAX_PROCESSING_AGE + 1; i++) chain.sealWorkingBank();
    await chain.flushed();
    assert.equal(chain.isBlockhashValid(value, 'processed'), false);

    const to = kp(11).address;
    const failing = buildTransaction(payer, [advance(nonce.address, payer.address), transferIx(payer.address, to, 1)], value);
    const before = balance(chain, payer.address)!;
    assert.deepEqual(failing.message.accountKeys.indexOf(to), 2);
    assert.deepEqual(chain.processTransaction(failing).err, { InsufficientFundsForRent: { account_index: 2 } });
    assert.equal(balance(chain, payer.address), before - FEE);
    const advanced = storedNonce(chain, nonce.address);
    assert.notEqual(advanced, value);
    // Agave's durable nonce: the hash of the running bank's newest blockhash, never a blockhash itself.
    assert.equal(advanced, durableNonceFromBlockhash(chain.latestBlockhash('processed').blockhash));

    // The old nonce is spent: the same message can't be replayed with it.
    const replay = buildTransaction(payer, [advance(nonce.address, payer.address), transferIx(payer.address, to, RENT_EXEMPT_0)], value);
    assert.equal(refused(() => chain.processTransaction(replay)), 'BlockhashNotFound');
    await seal(chain);
    const ok = buildTransaction(payer, [advance(nonce.address, payer.address), transferIx(payer.address, to, RENT_EXEMPT_0)], advanced);
    // `advanced` is also still a recent blockhash; make it old enough to need the nonce.
    for (let i = 0; i < MAX_PROCESSING_AGE + 1; i++) chain.sealWorkingBank();
    await chain.flushed();
    assert.equal(chain.processTransaction(ok).err, null);
    assert.equal(balance(chain, to), RENT_EXEMPT_0);
    await chain.stop();
  });

  test('durableNonceOf: the advance must be first, writable, and signed by the nonce authority', () => {
    const authority = kp(20);
    const other = kp(21);
    const nonce = kp(22).address;
    const value = kp(23).address; // any 32 bytes serve as the stored blockhash
    const accounts = new Map<Address, Account>([
      [nonce, { lamports: 1_500_000, data: nonceAccountData({ version: 'current', state: 'initialized', data: { authority: authority.address, blockhash: value, lamportsPerSignature: FEE } }), owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: 0 }],
    ]);
    const read = (a: Address) => accounts.get(a) ?? null;
    const durable = (payer: Keypair, ixs: InstructionSpec[], blockhash = value): Address | null => durableNonceOf(buildTransaction(payer, ixs, blockhash), read);

    assert.equal(durable(authority, [advance(nonce, authority.address)]), nonce);
    assert.equal(durable(other, [advance(nonce, authority.address)], kp(24).address), null, 'blockhash is not the stored nonce');
    assert.equal(durable(other, [transferIx(other.address, INCINERATOR_ID, 1), advance(nonce, authority.address)]), null, 'not the first instruction');
    assert.equal(durable(other, [advance(nonce, other.address)]), null, 'signed by someone other than the authority');
    // The authority listed but not signing.
    const unsigned = compileMessage(other.address, [advance(nonce, authority.address, false)], value);
    assert.equal(durableNonceOf(signMessage(unsigned, [other]), read), null, 'authority does not sign');
    // The nonce account read-only.
    const readonly = compileMessage(authority.address, [{ ...advance(nonce, authority.address), accounts: [{ key: nonce }, { key: SYSVAR_RECENT_BLOCKHASHES_ID }, { key: authority.address, signer: true }] }], value);
    assert.equal(durableNonceOf(signMessage(readonly, [authority]), read), null, 'nonce account not writable');
    // Not a nonce account.
    assert.equal(durable(authority, [advance(authority.address, authority.address)]), null);
  });
});

describe('fee-rate governor', () => {
  const g = DEFAULT_FEE_RATE_GOVERNOR;
  test('an idle or light chain stays at the minimum', () => {
    assert.equal(nextLamportsPerSignature(g, 5000, 0), 5000);
    assert.equal(nextLamportsPerSignature(g, 5000, 10_000), 5000, 'half the target signatures: desired = 5000');
  });

  test('steps 5% of the target toward the desired rate, clamped', () => {
    assert.equal(nextLamportsPerSignature(g, 5000, 20_000), 5500);
    assert.equal(nextLamportsPerSignature(g, 10_000, 20_000), 10_000, 'at the target it stays');
    assert.equal(nextLamportsPerSignature(g, 10_000, 0), 9500);
    assert.equal(nextLamportsPerSignature(g, 5200, 0), 5000, 'never below the minimum');
    assert.equal(nextLamportsPerSignature(g, 99_800, 10_000_000), 100_000, 'never above the maximum');
    assert.equal(nextLamportsPerSignature(g, 5000, 20_500), 5500, 'desired 10,250: one step');
  });

  test('a sequence of busy slots climbs, idle slots come back down', () => {
    let lps = 5000;
    for (let i = 0; i < 20; i++) lps = nextLamportsPerSignature(g, lps, 40_000);
    assert.equal(lps, 15_000);
    for (let i = 0; i < 30; i++) lps = nextLamportsPerSignature(g, lps, 0);
    assert.equal(lps, 5000);
  });

  test('no target: the target rate', () => {
    assert.equal(nextLamportsPerSignature({ ...g, targetSignaturesPerSlot: 0 }, 5000, 123), g.targetLamportsPerSignature);
  });

  test('sealed slots apply it', async () => {
    const { chain } = await newChain();
    await seal(chain, 3);
    assert.equal(chain.currentLamportsPerSignature(), 5000);
    assert.equal(chain.latestBlockhash().lamportsPerSignature, 5000);
    await chain.stop();
  });
});

describe('transaction records', () => {
  test('stored transactions carry meta, memo and the statuses point at them', async () => {
    const { chain, store } = await newChain();
    const memoIx: InstructionSpec = { programId: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', accounts: [{ key: dev[0]!.address, signer: true }], data: new TextEncoder().encode('hi') };
    const t = transfer(chain, dev[0]!, dev[1]!.address, 42, [memoIx]);
    const bad = transfer(chain, dev[1]!, kp(12).address, 3);
    chain.processTransaction(t);
    chain.processTransaction(bad);
    const bank = await seal(chain);
    const located = (await store.getTransaction(t.id))!;
    assert.equal(located.slot, bank.slot);
    assert.equal(located.index, 0);
    assert.equal(located.transaction.memo, '[2] hi');
    assert.equal(located.transaction.meta.fee, FEE);
    assert.equal(located.transaction.meta.err, null);
    assert.deepEqual(located.transaction.wire, t.wire);
    assert.deepEqual(chain.signatureStatus(bad.id), { slot: bank.slot, index: 1, err: { InsufficientFundsForRent: { account_index: 1 } } });
    assert.equal((await store.getSignatureLocation(bad.id))!.index, 1);
    assert.equal(chain.totalTransactionCount, 2);
    assert.equal((await store.readMeta())!.transactionCount, 2);
    await chain.stop();
  });
});

describe('performance samples', () => {
  test("an idle chain's sample counts only the validator's votes, none of them as non-vote transactions", async (t) => {
    t.mock.timers.enable({ apis: ['setInterval', 'setTimeout', 'Date'], now: Date.now() });
    const store = new MemoryStore();
    await writeGenesis(store, GENESIS, GENESIS_HASH);
    const chain = await openChain({
      store,
      genesis: GENESIS,
      genesisHash: GENESIS_HASH,
      programs: builtinPrograms,
      slotMs: 400,
      rootDepth: ROOT_DEPTH,
      voter: { identity: KEYS.identity, voteAccount: GENESIS.voteAccount },
    });
    chain.start();
    await seal(chain, 3);
    const before = chain.totalTransactionCount;
    t.mock.timers.tick(60_000);
    const [sample] = chain.performanceSamples(1);
    assert.ok(sample, 'a sample after 60 s');
    assert.ok(before >= 4, `the first bank's vote and one per sealed slot: ${before}`);
    assert.equal(sample.numNonVoteTransactions, 0);
    assert.equal(sample.numTransactions, chain.totalTransactionCount - 1, 'every vote but the first bank’s, which came before the counting began');
    t.mock.timers.reset();
    await chain.stop();
  });
});
