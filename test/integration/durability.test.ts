/**
 * Durability of the ledger: kill -9 at random moments while transfers are in flight, a clean Ctrl-C,
 * --reset, --limit-ledger-size purging, and how many bytes an idle slot costs on disk.
 * The kill and Ctrl-C tests run the real command (bin/isthmus.js) as a child process.
 */
import { prng } from '../helpers/prng.ts';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { Connection, Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { deriveDevKeypairs } from '../../node-core/keys/mnemonic.ts';
import { freePorts, killLeftovers, runIsthmus, runToExit, waitForRpc, type NodeProcess } from '../helpers/cli-process.ts';
import { rpc, startTestNode, tempLedger, waitFor } from '../helpers/node.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const WORDS = 'test test test test test test test test test test test junk';

after(killLeftovers);

async function call(url: string, method: string, params?: unknown): Promise<Json> {
  const r = await rpc(url, method, params);
  if (r.error) throw new Error(`${method} ${JSON.stringify(params)}: ${JSON.stringify(r.error)}`);
  return r.result;
}

function transfer(from: Keypair, to: PublicKey, lamports: number, recentBlockhash: string): Transaction {
  const tx = new Transaction({ recentBlockhash, feePayer: from.publicKey }).add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports }));
  tx.sign(from);
  return tx;
}

async function waitFinalized(url: string, signatures: string[]): Promise<void> {
  await waitFor(
    async () => {
      const { value } = await call(url, 'getSignatureStatuses', [signatures]);
      return value.every((s: Json) => s?.confirmationStatus === 'finalized');
    },
    { what: `finalization of ${signatures.length} transfers`, timeoutMs: 15_000 },
  );
}


function dirBytes(dir: string): { apparent: number; allocated: number } {
  let apparent = 0;
  let allocated = 0;
  for (const name of fs.readdirSync(dir)) {
    const st = fs.statSync(path.join(dir, name));
    if (st.isDirectory()) {
      const sub = dirBytes(path.join(dir, name));
      apparent += sub.apparent;
      allocated += sub.allocated;
    } else {
      apparent += st.size;
      allocated += st.blocks * 512;
    }
  }
  return { apparent, allocated };
}

describe('kill -9 and restart', () => {
  test('everything rooted survives SIGKILL at random moments; in-flight transfers land whole or not at all', async (t) => {
    const seed = Number(process.env.ISTHMUS_DURABILITY_SEED ?? Date.now() % 1_000_000);
    t.diagnostic(`seed ${seed} (set ISTHMUS_DURABILITY_SEED to repeat)`);
    const random = prng(seed);
    const ledger = tempLedger();
    const [rpcPort, wsPort] = await freePorts(2);
    const url = `http://127.0.0.1:${rpcPort}`;
    const args = (extra: string[] = []) => [
      'start', '--ledger', ledger, '--rpc-port', String(rpcPort), '--evm-rpc-port', '0', '--rpc-pubsub-port', String(wsPort),
      '--slot-ms', '50', '--root-depth', '4', '--quiet', ...extra,
    ];
    const dev = deriveDevKeypairs(WORDS, 10).map((k) => Keypair.fromSecretKey(k.secretKey));
    const devAddresses = dev.map((k) => k.publicKey.toBase58());
    const mnemonicFile = path.join(ledger, 'dev-accounts-mnemonic.txt');

    // What must survive every restart.
    const rootedTxs = new Map<string, number>(); // signature → slot
    const rootedBlocks = new Map<number, string>(); // slot → blockhash
    const balances = new Map<string, number>(); // finalized, for accounts the in-flight transfers never touch
    let genesisHash = '';
    let lastConfirmedSeen = 0;
    let inflight: { sigs: Map<string, number>; sender: string; senderBefore: number; recipient: string } | null = null;
    let proc: NodeProcess | null = null;
    let lastRooted: { signature: string; wire: string; recipient: string } | null = null;

    const ROUNDS = 4;
    try {
      for (let round = 0; round <= ROUNDS; round++) {
        proc = runIsthmus(args(round === 0 ? ['--mnemonic', WORDS] : []));
        await waitForRpc(url, proc.child);
        const conn = new Connection(url, 'finalized');

        if (round === 0) {
          genesisHash = await call(url, 'getGenesisHash');
        } else {
          // ---- what the restart must have kept ----
          assert.equal(await call(url, 'getGenesisHash'), genesisHash, 'genesis hash');
          assert.equal(fs.readFileSync(mnemonicFile, 'utf8').trim(), WORDS);
          const devInfos = (await call(url, 'getMultipleAccounts', [devAddresses, { encoding: 'base64' }])).value;
          assert.ok(devInfos.every((a: Json) => a && a.owner === SystemProgram.programId.toBase58() && a.lamports > 0), 'dev accounts exist');
          const slots = await rpc(url, 'getSlot', [{ commitment: 'finalized' }]).then((r) => r.result as number);
          assert.ok(slots >= lastConfirmedSeen, `finalized slot ${slots} fell below the confirmed slot ${lastConfirmedSeen} seen before the kill`);
          const processed = await call(url, 'getSlot', [{ commitment: 'processed' }]);
          assert.ok(processed > lastConfirmedSeen, `the slot count restarted: ${processed} <= ${lastConfirmedSeen}`);
          // No torn or missing slot: every slot from genesis to the root has its block.
          const blocks = await call(url, 'getBlocks', [0, slots]);
          assert.equal(blocks.length, slots + 1, 'a slot is missing after the restart');
          for (const [slot, hash] of rootedBlocks) {
            const block = await call(url, 'getBlock', [slot, { transactionDetails: 'signatures', rewards: false }]);
            assert.equal(block?.blockhash, hash, `block ${slot}`);
          }
          for (const [sig, slot] of rootedTxs) {
            const tx = await call(url, 'getTransaction', [sig]);
            assert.equal(tx?.slot, slot, `transaction ${sig}`);
            assert.equal(tx.meta.err, null);
          }
          const st = (await call(url, 'getSignatureStatuses', [[...rootedTxs.keys()], { searchTransactionHistory: true }])).value;
          assert.ok(st.every((s: Json) => s?.confirmationStatus === 'finalized' && s.err === null), 'statuses of rooted transfers');
          for (const [addr, lamports] of balances) {
            assert.equal((await call(url, 'getBalance', [addr])).value, lamports, `balance of ${addr}`);
          }
          // In-flight transfers: each landed whole (debit, credit, fee) or not at all.
          if (inflight) {
            let debited = 0;
            let credited = 0;
            let landed = 0;
            for (const [sig, amount] of inflight.sigs) {
              const tx = await call(url, 'getTransaction', [sig]);
              if (!tx) continue;
              landed++;
              assert.equal(tx.meta.err, null);
              debited += amount + tx.meta.fee;
              credited += amount;
            }
            t.diagnostic(`round ${round}: ${landed} of ${inflight.sigs.size} in-flight transfers were in the ledger`);
            assert.equal((await call(url, 'getBalance', [inflight.sender])).value, inflight.senderBefore - debited, 'in-flight sender');
            assert.equal((await call(url, 'getBalance', [inflight.recipient])).value, credited, 'in-flight recipient');
            // From now on they are part of what must survive.
            balances.set(inflight.recipient, credited);
          }
          // Replay protection survives the restart: a rooted transfer sent again is refused, and
          // with preflight skipped the bank drops it.
          if (lastRooted) {
            const again = await rpc(url, 'sendTransaction', [lastRooted.wire, { encoding: 'base64' }]);
            assert.equal(again.error?.code, -32002, JSON.stringify(again));
            assert.equal(again.error.data.err, 'AlreadyProcessed');
            await call(url, 'sendTransaction', [lastRooted.wire, { encoding: 'base64', skipPreflight: true }]);
            const now = await call(url, 'getSlot', [{ commitment: 'processed' }]);
            await waitFor(async () => (await call(url, 'getSlot', [{ commitment: 'confirmed' }])) > now + 1, { what: 'two more slots' });
            assert.equal((await call(url, 'getBalance', [lastRooted.recipient, { commitment: 'confirmed' }])).value, balances.get(lastRooted.recipient));
            assert.equal((await call(url, 'getTransaction', [lastRooted.signature, { commitment: 'confirmed' }])).slot, rootedTxs.get(lastRooted.signature));
          }
        }

        // ---- new transfers work, and are rooted ----
        const recipient = Keypair.generate();
        const { blockhash } = await conn.getLatestBlockhash('finalized');
        const sigs: string[] = [];
        let lastWire = '';
        for (let i = 0; i < 3; i++) {
          const wire = transfer(dev[0]!, recipient.publicKey, 1_000_000 + i, blockhash).serialize();
          lastWire = wire.toString('base64');
          sigs.push(await conn.sendRawTransaction(wire));
        }
        await waitFinalized(url, sigs);
        for (const sig of sigs) {
          const tx = await call(url, 'getTransaction', [sig]);
          rootedTxs.set(sig, tx.slot);
          rootedBlocks.set(tx.slot, (await call(url, 'getBlock', [tx.slot, { transactionDetails: 'none', rewards: false }])).blockhash);
        }
        const root = await call(url, 'getSlot', [{ commitment: 'finalized' }]);
        rootedBlocks.set(root, (await call(url, 'getBlock', [root, { transactionDetails: 'none', rewards: false }])).blockhash);
        for (const addr of [devAddresses[0]!, recipient.publicKey.toBase58()]) balances.set(addr, (await call(url, 'getBalance', [addr])).value);
        lastRooted = { signature: sigs[2]!, wire: lastWire, recipient: recipient.publicKey.toBase58() };
        lastConfirmedSeen = Math.max(lastConfirmedSeen, await call(url, 'getSlot', [{ commitment: 'confirmed' }]));

        if (round === ROUNDS) {
          // The last start ends cleanly.
          proc.child.kill('SIGINT');
          assert.deepEqual(await proc.exited, { code: 0, signal: null });
          break;
        }

        // ---- more transfers in flight, then SIGKILL at a random moment ----
        const sender = dev[1 + (round % 9)]!;
        const inflightRecipient = Keypair.generate();
        inflight = {
          sigs: new Map(),
          sender: sender.publicKey.toBase58(),
          senderBefore: (await call(url, 'getBalance', [sender.publicKey.toBase58()])).value,
          recipient: inflightRecipient.publicKey.toBase58(),
        };
        const current = inflight;
        let sending = true;
        const fresh = (await conn.getLatestBlockhash('processed')).blockhash;
        const loop = (async () => {
          for (let k = 0; sending; k++) {
            const amount = 1_000_000 + k;
            const tx = transfer(sender, inflightRecipient.publicKey, amount, fresh);
            current.sigs.set(bs58.encode(tx.signature!), amount);
            // Not awaited one by one: several requests are on the wire when the kill comes.
            conn.sendRawTransaction(tx.serialize(), { skipPreflight: k % 2 === 0 }).catch(() => {});
            if (k % 4 === 3) {
              try {
                lastConfirmedSeen = Math.max(lastConfirmedSeen, await call(url, 'getSlot', [{ commitment: 'confirmed' }]));
              } catch {
                /* killed */
              }
            }
            await new Promise((r) => setTimeout(r, 2));
          }
        })();
        const delay = Math.floor(random() * 400);
        t.diagnostic(`round ${round}: SIGKILL after ${delay} ms of in-flight transfers`);
        await new Promise((r) => setTimeout(r, delay));
        proc.child.kill('SIGKILL');
        assert.equal((await proc.exited).signal, 'SIGKILL');
        sending = false;
        await loop;
        // Anything the kill cut off is simply not there; the sender's debit is checked on restart.
        balances.delete(inflight.sender);
      }
    } finally {
      if (proc && proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
      fs.rmSync(ledger, { recursive: true, force: true });
    }
  });
});

describe('Ctrl-C and --reset', () => {
  test('SIGINT stops cleanly with exit code 0, and the restart has every slot up to the last one printed', async () => {
    const ledger = tempLedger();
    try {
      const first = runIsthmus(['start', '--ledger', ledger, '--rpc-port', '0', '--slot-ms', '50', '--root-depth', '4', '--mnemonic', WORDS]);
      const [, url] = await first.waitForOutput(/JSON RPC URL:\s+(\S+)/);
      const [, printedGenesis] = await first.waitForOutput(/Genesis hash:\s+(\S+)/);
      await first.waitForOutput(/Press Ctrl-C to stop/);
      // A transfer that is confirmed but not yet rooted when the stop comes.
      const dev = Keypair.fromSecretKey(deriveDevKeypairs(WORDS, 1)[0]!.secretKey);
      const to = Keypair.generate();
      const bh = (await call(url!, 'getLatestBlockhash', [{ commitment: 'processed' }])).value.blockhash;
      const sig = await call(url!, 'sendTransaction', [transfer(dev, to.publicKey, 4_242_000, bh).serialize().toString('base64'), { encoding: 'base64', preflightCommitment: 'processed' }]);
      await waitFor(async () => (await call(url!, 'getSignatureStatuses', [[sig]])).value[0]?.confirmationStatus === 'confirmed', { what: 'confirmation' });
      first.child.kill('SIGINT');
      assert.deepEqual(await first.exited, { code: 0, signal: null }, first.stderr());
      assert.equal(first.stderr(), '');
      const m = first.stdout().match(/Stopped at slot (\d+)/);
      assert.ok(m, first.stdout());
      const last = Number(m[1]);

      const [port] = await freePorts(1);
      const second = runIsthmus(['start', '--ledger', ledger, '--rpc-port', String(port), '--evm-rpc-port', '0', '--rpc-pubsub-port', '0', '--slot-ms', '50', '--root-depth', '4', '--quiet']);
      try {
        const url2 = `http://127.0.0.1:${port}`;
        await waitForRpc(url2, second.child);
        assert.equal(await call(url2, 'getGenesisHash'), printedGenesis);
        assert.ok((await call(url2, 'getSlot', [{ commitment: 'processed' }])) > last);
        // Everything stored was final at the restart.
        assert.ok((await call(url2, 'getSlot', [{ commitment: 'finalized' }])) >= last);
        const blocks = await call(url2, 'getBlocks', [0, last]);
        assert.deepEqual(blocks, Array.from({ length: last + 1 }, (_, i) => i));
        assert.equal((await call(url2, 'getBlock', [last, { transactionDetails: 'none' }])).parentSlot, last - 1);
        const tx = await call(url2, 'getTransaction', [sig]);
        assert.ok(tx && tx.slot <= last, 'the confirmed transfer survived');
        assert.equal((await call(url2, 'getBalance', [to.publicKey.toBase58()])).value, 4_242_000);
      } finally {
        second.child.kill('SIGINT');
        assert.equal((await second.exited).code, 0, second.stderr());
      }
    } finally {
      fs.rmSync(ledger, { recursive: true, force: true });
    }
  });

  test('a node whose output pipe was closed (its parent gone) still stops cleanly and keeps its ledger', async () => {
    const ledger = tempLedger();
    try {
      const first = runIsthmus(['start', '--ledger', ledger, '--rpc-port', '0', '--slot-ms', '50', '--root-depth', '4']);
      const [, url] = await first.waitForOutput(/JSON RPC URL:\s+(\S+)/);
      await first.waitForOutput(/Press Ctrl-C to stop/);
      const slot = await call(url!, 'getSlot', [{ commitment: 'finalized' }]);
      // Closing the reading end: the node's next write to stdout fails with EPIPE.
      const closed = new Promise((r) => first.child.stdout!.once('close', r));
      first.child.stdout!.destroy();
      await closed;
      first.child.kill('SIGINT');
      assert.deepEqual(await first.exited, { code: 0, signal: null }, first.stderr());
      assert.doesNotMatch(first.stderr(), /EPIPE|Error/);

      const second = runIsthmus(['start', '--ledger', ledger, '--rpc-port', '0', '--slot-ms', '50', '--root-depth', '4']);
      try {
        const [, url2] = await second.waitForOutput(/JSON RPC URL:\s+(\S+)/);
        assert.ok((await call(url2!, 'getSlot', [{ commitment: 'finalized' }])) >= slot);
      } finally {
        second.child.kill('SIGINT');
        assert.equal((await second.exited).code, 0, second.stderr());
      }
    } finally {
      fs.rmSync(ledger, { recursive: true, force: true });
    }
  });

  test('--reset starts a new genesis; --reset of a folder that is not an Isthmus ledger is refused', async () => {
    const ledger = tempLedger();
    const foreign = tempLedger();
    try {
      const hashOf = async (extra: string[]) => {
        const p = runIsthmus(['start', '--ledger', ledger, '--rpc-port', '0', '--slot-ms', '50', ...extra]);
        const [, hash] = await p.waitForOutput(/Genesis hash:\s+(\S+)/);
        const [, url] = p.stdout().match(/JSON RPC URL:\s+(\S+)/)!;
        assert.equal(await call(url!, 'getGenesisHash'), hash);
        const ledgerLine = p.stdout().match(/Ledger:\s+(.*)/)![1]!;
        p.child.kill('SIGINT');
        assert.equal((await p.exited).code, 0);
        return { hash: hash!, isNew: ledgerLine.includes('(new)') };
      };
      const a = await hashOf([]);
      const b = await hashOf([]);
      const c = await hashOf(['--reset']);
      assert.equal(a.isNew, true);
      assert.equal(b.hash, a.hash, 'a plain restart keeps the genesis');
      assert.equal(b.isNew, false);
      assert.notEqual(c.hash, a.hash, '--reset makes a new genesis');
      assert.equal(c.isNew, true);

      fs.writeFileSync(path.join(foreign, 'thesis.txt'), 'do not delete');
      for (const extra of [['--reset'], []]) {
        const r = await runToExit(['start', '--ledger', foreign, '--rpc-port', '0', ...extra]);
        assert.notEqual(r.code, 0);
        assert.ok(r.stderr.includes(foreign), r.stderr);
        assert.match(r.stderr, /not an Isthmus ledger/);
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      }
      assert.equal(fs.readFileSync(path.join(foreign, 'thesis.txt'), 'utf8'), 'do not delete');
      assert.deepEqual(fs.readdirSync(foreign), ['thesis.txt']);
    } finally {
      fs.rmSync(ledger, { recursive: true, force: true });
      fs.rmSync(foreign, { recursive: true, force: true });
    }
  });
});

describe('ledger size', () => {
  test('--limit-ledger-size 1000: old slots are purged and reported as cleaned up (-32001)', async () => {
    const node = await startTestNode({ limitLedgerSize: 1000, slotMs: 60_000 });
    try {
      const url = node.rpcUrl;
      // A transfer in slot 1, which will be purged.
      const dev = Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey);
      const to = Keypair.generate();
      const bh = (await call(url, 'getLatestBlockhash', [{ commitment: 'processed' }])).value.blockhash;
      const sig = await call(url, 'sendTransaction', [transfer(dev, to.publicKey, 1_000_000, bh).serialize().toString('base64'), { encoding: 'base64', preflightCommitment: 'processed' }]);
      await waitFor(async () => (await call(url, 'getSignatureStatuses', [[sig]])).value[0] !== null, { what: 'the transfer' });
      const txSlot = node.chain.processedSlot;
      assert.equal(await call(url, 'minimumLedgerSlot'), 0);
      assert.equal(await call(url, 'getFirstAvailableBlock'), 0);

      while (node.chain.processedSlot <= 1150) node.chain.sealWorkingBank();
      await node.chain.flushed();
      // Purging runs every 100 slots and keeps the newest 1000: at slot 1100 everything below 101 goes.
      const first = await waitFor(async () => {
        const s = await call(url, 'minimumLedgerSlot');
        return s >= 101 ? s : null;
      }, { what: 'the purge' });
      assert.equal(first, 101);
      assert.equal(await call(url, 'getFirstAvailableBlock'), first);
      for (const method of ['getBlock', 'getConfirmedBlock']) {
        const r = await rpc(url, method, [txSlot]);
        assert.equal(r.error?.code, -32001, JSON.stringify(r));
        assert.equal(r.error.message, `Block ${txSlot} cleaned up, does not exist on node. First available block: ${first}`);
      }
      assert.equal((await rpc(url, 'getBlock', [first - 1])).error?.code, -32001);
      assert.equal((await call(url, 'getBlock', [first])).parentSlot, first - 1);
      assert.equal((await rpc(url, 'getBlockTime', [txSlot])).error?.code, -32001);
      assert.equal((await call(url, 'getBlocks', [0, first + 2])).join(), [first, first + 1, first + 2].join());
      assert.equal(await call(url, 'getTransaction', [sig]), null);
      assert.deepEqual(await call(url, 'getSignaturesForAddress', [to.publicKey.toBase58()]), []);
      // Account state is not history: the balance stays.
      assert.equal((await call(url, 'getBalance', [to.publicKey.toBase58()])).value, 1_000_000);
    } finally {
      await node.stop();
    }
  });

  // An idle slot still holds the validator's vote (as on Agave); the store keeps it compactly beside the
  // block's header (lmdb-own-votes.ts) and rebuilds it on read: about 100 bytes a slot, ~22 MB a day at 400 ms.
  test('an idle slot (its block holds only the validator\'s vote) costs under 115 bytes of disk', async (t) => {
    const node = await startTestNode({ slotMs: 60_000 });
    try {
      const store = path.join(node.ledger, 'store');
      for (let i = 0; i < 50; i++) node.chain.sealWorkingBank();
      await node.chain.flushed();
      const before = dirBytes(store);
      const SLOTS = 2000;
      for (let i = 0; i < SLOTS; i++) {
        node.chain.sealWorkingBank();
        // Let commits go out as they would with a running clock, rather than 2000 at once.
        if (i % 100 === 99) await node.chain.flushed();
      }
      await node.chain.flushed();
      const after = dirBytes(store);
      const perSlot = (after.apparent - before.apparent) / SLOTS;
      const allocatedPerSlot = (after.allocated - before.allocated) / SLOTS;
      t.diagnostic(`idle ledger growth: ${perSlot.toFixed(1)} bytes/slot (file size), ${allocatedPerSlot.toFixed(1)} bytes/slot (allocated) over ${SLOTS} slots`);
      assert.ok(perSlot < 115, `${perSlot} bytes per idle slot`);
      assert.ok(allocatedPerSlot < 115, `${allocatedPerSlot} allocated bytes per idle slot`);
    } finally {
      await node.stop();
    }
  });
});
