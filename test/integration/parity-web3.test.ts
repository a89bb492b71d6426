/**
 * Things that work against solana-test-validator and must work the same here, driven as a new user
 * would with @solana/web3.js v1 (and @solana/kit where it reads integers exactly): Agave's u64::MAX
 * rent epoch, the signature-verification precompiles, a durable nonce used right after it is made,
 * getLargestAccounts, and solana-test-validator's --account / --account-dir.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import {
  Connection,
  Ed25519Program,
  Keypair,
  LAMPORTS_PER_SOL,
  NONCE_ACCOUNT_LENGTH,
  PublicKey,
  Secp256k1Program,
  SystemProgram,
  SYSVAR_CLOCK_PUBKEY,
  Transaction,
  TransactionInstruction,
  sendAndConfirmTransaction,
  type Signer,
} from '@solana/web3.js';
import { address, createSolanaRpc } from '@solana/kit';
import WebSocket from 'ws';
import { keccak256 } from '../../node-core/common/hash.ts';
import { loadAccountFile } from '../../node-core/ledger/account-files.ts';
import { rpc, startTestNode, tempLedger, waitFor, type TestNode } from '../helpers/node.ts';
import { freePorts, killLeftovers, runIsthmus, runToExit } from '../helpers/cli-process.ts';
import { closeConnectionSocket } from '../helpers/web3-connection.ts';

const U64_MAX = '18446744073709551615';
const NATIVE_LOADER = 'NativeLoader1111111111111111111111111111111';
const ED25519 = 'Ed25519SigVerify111111111111111111111111111';
const SECP256K1 = 'KeccakSecp256k11111111111111111111111111111';
const SECP256R1 = 'Secp256r1SigVerify1111111111111111111111111';
const secp256k1 = createRequire(import.meta.url)('secp256k1') as {
  ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
  publicKeyCreate(key: Uint8Array, compressed?: boolean): Uint8Array;
};

let node: TestNode;
let conn: Connection;
let dev: Keypair[];

const send = (tx: Transaction, signers: Signer[]) => sendAndConfirmTransaction(conn, tx, signers, { commitment: 'confirmed' });

before(async () => {
  node = await startTestNode();
  conn = new Connection(node.rpcUrl, { commitment: 'confirmed', wsEndpoint: node.pubsubUrl });
  dev = node.keys.devAccounts.map((k) => Keypair.fromSecretKey(k.secretKey));
});

after(async () => {
  killLeftovers();
  if (conn) await closeConnectionSocket(conn);
  await node?.stop();
});

/** An Ed25519 signature with Node's crypto, from a web3.js keypair. */
function ed25519Sign(signer: Keypair, message: Buffer): Buffer {
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(signer.secretKey.subarray(0, 32))]);
  return crypto.sign(null, message, crypto.createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }));
}

describe('rentEpoch: u64::MAX for rent-exempt accounts, exact in the JSON', () => {
  it('getAccountInfo, getMultipleAccounts and simulateTransaction accounts carry 18446744073709551615', async () => {
    const payer = dev[0]!;
    const fresh = Keypair.generate();
    await send(new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: fresh.publicKey, lamports: LAMPORTS_PER_SOL })), [payer]);
    const info = await conn.getAccountInfo(fresh.publicKey);
    // web3.js's deep comparison as a test written against solana-test-validator does it.
    assert.deepEqual(info, { data: Buffer.alloc(0), executable: false, lamports: LAMPORTS_PER_SOL, owner: SystemProgram.programId, rentEpoch: 18446744073709551615, space: 0 });
    const [a, b] = await conn.getMultipleAccountsInfo([fresh.publicKey, payer.publicKey]);
    assert.equal(a!.rentEpoch, 18446744073709551615);
    assert.equal(b!.rentEpoch, 18446744073709551615, 'a genesis account that is rent-exempt');

    // The exact digits, not 18446744073709552000.
    const raw = await (await fetch(node.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAccountInfo', params: [fresh.publicKey.toBase58(), { encoding: 'base64', commitment: 'confirmed' }] }) })).text();
    assert.match(raw, new RegExp(`"rentEpoch":${U64_MAX}[,}]`));

    const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: fresh.publicKey, lamports: 1 }));
    tx.feePayer = payer.publicKey;
    tx.recentBlockhash = (await conn.getLatestBlockhash()).blockhash;
    tx.sign(payer);
    const sim = await conn.simulateTransaction(tx.compileMessage(), [payer], [fresh.publicKey]);
    assert.equal(sim.value.err, null);
    assert.deepEqual(sim.value.accounts![0], { data: ['', 'base64'], executable: false, lamports: LAMPORTS_PER_SOL + 1, owner: SystemProgram.programId.toBase58(), rentEpoch: 18446744073709551615, space: 0 });

    // @solana/kit parses big integers exactly.
    const kit = createSolanaRpc(node.rpcUrl);
    const kitInfo = await kit.getAccountInfo(address(fresh.publicKey.toBase58()), { commitment: 'confirmed', encoding: 'base64' }).send();
    assert.equal((kitInfo.value as unknown as { rentEpoch: bigint }).rentEpoch, 18446744073709551615n);
    // A sysvar is rent-exempt too; a builtin program account (1 lamport) is not, and keeps 0.
    assert.equal((await conn.getAccountInfo(SYSVAR_CLOCK_PUBKEY))!.rentEpoch, 18446744073709551615);
    assert.equal((await conn.getAccountInfo(SystemProgram.programId))!.rentEpoch, 0);
  });

  it('accountSubscribe notifications carry the exact digits too', async () => {
    const payer = dev[1]!;
    const target = Keypair.generate();
    const ws = new WebSocket(node.pubsubUrl);
    await new Promise((r) => ws.once('open', r));
    const texts: string[] = [];
    ws.on('message', (d) => texts.push(d.toString()));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'accountSubscribe', params: [target.publicKey.toBase58(), { commitment: 'confirmed', encoding: 'base64' }] }));
    await waitFor(() => texts.length > 0, { what: 'the subscription id' });
    await send(new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: target.publicKey, lamports: LAMPORTS_PER_SOL })), [payer]);
    const note = await waitFor(() => texts.find((t) => t.includes('accountNotification')), { what: 'an account notification' });
    assert.ok(note!.includes(`"rentEpoch":${U64_MAX}`), note);
    ws.close();
  });
});

describe('the BPF loaders', () => {
  it("their accounts exist as Agave's builtins: executable, native loader, 1 lamport, the builtin's name as data", async () => {
    for (const [id, name] of [
      ['BPFLoader1111111111111111111111111111111111', 'solana_bpf_loader_deprecated_program'],
      ['BPFLoader2111111111111111111111111111111111', 'solana_bpf_loader_program'],
      ['BPFLoaderUpgradeab1e11111111111111111111111', 'solana_bpf_loader_upgradeable_program'],
    ]) {
      const info = await conn.getAccountInfo(new PublicKey(id!));
      assert.ok(info, id);
      assert.deepEqual({ ...info, owner: info.owner.toBase58() }, { data: Buffer.from(name!), executable: true, lamports: 1, owner: NATIVE_LOADER, rentEpoch: 0, space: name!.length });
    }
  });
});

describe('signature-verification precompiles', () => {
  it('the program accounts exist as Agave has them: executable, native loader, 1 lamport, no data', async () => {
    for (const id of [ED25519, SECP256K1, SECP256R1]) {
      const info = await conn.getAccountInfo(new PublicKey(id));
      assert.ok(info, id);
      assert.deepEqual({ ...info, owner: info.owner.toBase58() }, { data: Buffer.alloc(0), executable: true, lamports: 1, owner: NATIVE_LOADER, rentEpoch: 0, space: 0 });
    }
  });

  it('Ed25519Program.createInstructionWithPublicKey lands; a wrong signature fails with InvalidSignature (Custom 2)', async () => {
    const payer = dev[2]!;
    const signer = Keypair.generate();
    const message = Buffer.from('signed off-chain');
    const signature = ed25519Sign(signer, message);
    const ix = Ed25519Program.createInstructionWithPublicKey({ publicKey: signer.publicKey.toBytes(), message, signature });
    const quote = new Transaction({ feePayer: payer.publicKey, ...(await conn.getLatestBlockhash()) }).add(ix);
    assert.equal((await conn.getFeeForMessage(quote.compileMessage())).value, 10_000, 'the precompile signature is charged too');
    const sig = await send(new Transaction().add(ix), [payer]);
    const landed = await conn.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    assert.equal(landed!.meta!.err, null);
    // Two signatures paid (the transaction's and the precompile's), no compute units, no log lines.
    assert.equal(landed!.meta!.fee, 10_000);
    assert.equal(landed!.meta!.computeUnitsConsumed, 0);
    assert.deepEqual(landed!.meta!.logMessages, []);

    const forged = Buffer.from(signature);
    forged[10] ^= 1;
    const bad = new Transaction().add(Ed25519Program.createInstructionWithPublicKey({ publicKey: signer.publicKey.toBytes(), message, signature: forged }));
    bad.feePayer = payer.publicKey;
    const sim = await conn.simulateTransaction(bad, [payer]);
    assert.deepEqual(sim.value.err, { InstructionError: [0, { Custom: 2 }] });
    await assert.rejects(send(bad, [payer]), /custom program error: 0x2/);
  });

  it('Secp256k1Program.createInstructionWithEthAddress lands; a wrong address fails (Custom 2)', async () => {
    const payer = dev[3]!;
    const privateKey = crypto.randomBytes(32);
    privateKey[0] = 1;
    const message = Buffer.from('an Ethereum-style signature');
    const { signature, recid } = secp256k1.ecdsaSign(keccak256(message), privateKey);
    const ethAddress = Secp256k1Program.publicKeyToEthAddress(secp256k1.publicKeyCreate(privateKey, false).subarray(1));
    const ix = Secp256k1Program.createInstructionWithEthAddress({ ethAddress, message, signature: Buffer.from(signature), recoveryId: recid });
    const sig = await send(new Transaction().add(ix), [payer]);
    assert.equal((await conn.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }))!.meta!.err, null);

    const wrong = Buffer.from(ethAddress);
    wrong[0] ^= 1;
    const bad = new Transaction().add(Secp256k1Program.createInstructionWithEthAddress({ ethAddress: wrong, message, signature: Buffer.from(signature), recoveryId: recid }));
    bad.feePayer = payer.publicKey;
    assert.deepEqual((await conn.simulateTransaction(bad, [payer])).value.err, { InstructionError: [0, { Custom: 2 }] });
    const badRecovery = new Transaction().add(Secp256k1Program.createInstructionWithEthAddress({ ethAddress, message, signature: Buffer.from(signature), recoveryId: 5 }));
    badRecovery.feePayer = payer.publicKey;
    assert.deepEqual((await conn.simulateTransaction(badRecovery, [payer])).value.err, { InstructionError: [0, { Custom: 1 }] });
  });

  it('a Secp256r1 (P-256) instruction in Agave\'s layout lands, after a transfer in the same transaction', async () => {
    const payer = dev[4]!;
    const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const y = Buffer.from(jwk.y!, 'base64url');
    const key = Buffer.concat([Buffer.of(2 + (y[31]! & 1)), Buffer.from(jwk.x!, 'base64url')]);
    const message = Buffer.from('a passkey signature');
    const n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
    const raw = crypto.sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    let s = BigInt('0x' + raw.subarray(32).toString('hex'));
    if (s > n / 2n) s = n - s; // Agave takes low-S signatures only
    const signature = Buffer.concat([raw.subarray(0, 32), Buffer.from(s.toString(16).padStart(64, '0'), 'hex')]);
    const data = Buffer.alloc(16 + 33 + 64 + message.length);
    data[0] = 1;
    // Offsets point into instruction 1 (this one) by index, not u16::MAX.
    [16 + 33, 1, 16, 1, 16 + 33 + 64, message.length, 1].forEach((v, i) => data.writeUInt16LE(v, 2 + 2 * i));
    key.copy(data, 16);
    signature.copy(data, 16 + 33);
    message.copy(data, 16 + 33 + 64);
    const to = Keypair.generate();
    const tx = new Transaction()
      .add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to.publicKey, lamports: LAMPORTS_PER_SOL }))
      .add(new TransactionInstruction({ programId: new PublicKey(SECP256R1), keys: [], data }));
    await send(tx, [payer]);
    assert.equal(await conn.getBalance(to.publicKey), LAMPORTS_PER_SOL);
  });
});

describe('durable nonces right after creation', () => {
  it('create and initialize at confirmed, getNonce, then advance with the nonce as blockhash at once', async () => {
    const payer = dev[5]!;
    const rent = await conn.getMinimumBalanceForRentExemption(NONCE_ACCOUNT_LENGTH);
    for (let round = 0; round < 3; round++) {
      const nonceAccount = Keypair.generate();
      await sendAndConfirmTransaction(
        conn,
        new Transaction().add(...SystemProgram.createNonceAccount({ fromPubkey: payer.publicKey, noncePubkey: nonceAccount.publicKey, authorizedPubkey: payer.publicKey, lamports: rent }).instructions),
        [payer, nonceAccount],
        { commitment: 'confirmed' },
      );
      const nonce = await conn.getNonce(nonceAccount.publicKey, 'confirmed');
      assert.ok(nonce);
      // Agave's durable nonce is a hash of the bank's blockhash, never a blockhash itself.
      assert.equal(await conn.isBlockhashValid(nonce.nonce, { commitment: 'processed' }).then((r) => r.value), false);
      const to = Keypair.generate();
      const tx = new Transaction({ feePayer: payer.publicKey, nonceInfo: { nonce: nonce.nonce, nonceInstruction: SystemProgram.nonceAdvance({ noncePubkey: nonceAccount.publicKey, authorizedPubkey: payer.publicKey }) } }).add(
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to.publicKey, lamports: LAMPORTS_PER_SOL }),
      );
      tx.sign(payer);
      const sig = await conn.sendRawTransaction(tx.serialize(), { preflightCommitment: 'confirmed' });
      const status = await waitFor(async () => (await conn.getSignatureStatuses([sig])).value[0], { what: 'the durable transaction' });
      assert.equal(status!.err, null);
      const advanced = await waitFor(async () => {
        const n = await conn.getNonce(nonceAccount.publicKey, 'confirmed');
        return n && n.nonce !== nonce.nonce ? n : null;
      }, { what: 'the nonce to advance' });
      assert.notEqual(advanced!.nonce, nonce.nonce);
    }
  });
});

describe('getLargestAccounts', () => {
  it('20 accounts, largest first, with the circulating and nonCirculating filters', async () => {
    const all = (await conn.getLargestAccounts()).value;
    assert.equal(all.length, 20);
    for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.lamports >= all[i]!.lamports, 'sorted');
    const supply = (await conn.getSupply()).value;
    const nonCirculating = (await conn.getLargestAccounts({ filter: 'nonCirculating' })).value;
    assert.deepEqual(
      nonCirculating.map((a) => a.address.toBase58()).sort(),
      supply.nonCirculatingAccounts.map((a) => a.toBase58()).sort(),
    );
    const circulating = (await conn.getLargestAccounts({ filter: 'circulating' })).value;
    assert.equal(circulating.length, 20);
    const excluded = new Set(supply.nonCirculatingAccounts.map((a) => a.toBase58()));
    assert.ok(circulating.every((a) => !excluded.has(a.address.toBase58())));
    const bad = await rpc(node.rpcUrl, 'getLargestAccounts', [{ filter: 'everything' }]);
    assert.equal(bad.error.code, -32602);
  });
});

describe('--account and --account-dir', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-accounts-'));
  const owner = Keypair.generate().publicKey.toBase58();
  /** An account file as `solana account --output json` writes it. */
  function accountFile(name: string, pubkey: string, lamports: number, bytes: Buffer): string {
    const file = path.join(dir, name);
    const json = `{"pubkey":"${pubkey}","account":{"lamports":${lamports},"data":["${bytes.toString('base64')}","base64"],"owner":"${owner}","executable":false,"rentEpoch":${U64_MAX},"space":${bytes.length}}}`;
    fs.writeFileSync(file, json);
    return file;
  }
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  /** The genesis supply plus what was put in outside transactions: capitalization + burned − minted, read from one bank. */
  const bookedSupply = (node: TestNode) => {
    const bank = node.chain.bankAt('finalized');
    return bank.capitalization + bank.burnedTotal - bank.mintedTotal;
  };

  it('applied at genesis and over an existing ledger, readable at every commitment at once', async () => {
    const ledger = tempLedger();
    const first = Keypair.generate().publicKey.toBase58();
    const firstFile = accountFile('first.json', first, 5 * LAMPORTS_PER_SOL, Buffer.from('fixture one'));
    let n = await startTestNode({ ledger, accounts: [loadAccountFile('-', firstFile)] });
    const c1 = new Connection(n.rpcUrl, 'finalized');
    const got = await c1.getAccountInfo(new PublicKey(first));
    assert.deepEqual({ ...got, owner: got!.owner.toBase58() }, { data: Buffer.from('fixture one'), executable: false, lamports: 5 * LAMPORTS_PER_SOL, owner, rentEpoch: 18446744073709551615, space: 11 });
    const bookedBefore = bookedSupply(n);
    // A young chain's largest accounts reach down to the sysvars (SlotHashes holds 0.14 SOL), as on Agave.
    const largest = (await c1.getLargestAccounts()).value;
    assert.equal(largest.length, 20);
    assert.ok(largest.some((a) => a.address.toBase58() === 'SysvarS1otHashes111111111111111111111111111'), largest.map((a) => `${a.address.toBase58()} ${a.lamports}`).join('\n'));
    await n.stop();

    // The same ledger again, with a second account at an address given on the command line and the first one changed.
    const second = Keypair.generate().publicKey.toBase58();
    const secondFile = accountFile('second.json', Keypair.generate().publicKey.toBase58(), 2 * LAMPORTS_PER_SOL, Buffer.alloc(3, 7));
    const changed = accountFile('first-changed.json', first, 6 * LAMPORTS_PER_SOL, Buffer.from('fixture 1b'));
    n = await startTestNode({ ledger, accounts: [loadAccountFile(second, secondFile), loadAccountFile('-', changed)] });
    try {
      const c2 = new Connection(n.rpcUrl, 'finalized');
      assert.equal((await c2.getAccountInfo(new PublicKey(second)))!.lamports, 2 * LAMPORTS_PER_SOL);
      assert.deepEqual((await c2.getAccountInfo(new PublicKey(first)))!.data, Buffer.from('fixture 1b'));
      // The supply follows the lamports the files added (fees burned meanwhile are on the books too).
      assert.equal(bookedSupply(n), bookedBefore + 3 * LAMPORTS_PER_SOL);
      // Stored with the next slot: still there after another restart without the flags.
      await waitFor(async () => (await c2.getSlot('confirmed')) > 2, { what: 'a confirmed slot' });
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await n.stop();
    }
    // A file may close any account, the Ed25519 program's too (as on a ledger made before it existed) ...
    const gone = path.join(dir, 'no-ed25519.json');
    fs.writeFileSync(gone, `{"pubkey":"${ED25519}","account":{"lamports":0,"data":["","base64"],"owner":"${NATIVE_LOADER}","executable":true,"rentEpoch":0,"space":0}}`);
    n = await startTestNode({ ledger, accounts: [loadAccountFile('-', gone)] });
    try {
      const c3 = new Connection(n.rpcUrl, 'finalized');
      assert.equal((await c3.getAccountInfo(new PublicKey(second)))!.lamports, 2 * LAMPORTS_PER_SOL, 'kept without the flags');
      assert.equal(await c3.getAccountInfo(new PublicKey(ED25519)), null);
      await waitFor(async () => (await c3.getSlot('confirmed')) > 2, { what: 'a confirmed slot' });
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await n.stop();
    }
    // ... and a start without it puts the missing precompile account back.
    n = await startTestNode({ ledger });
    try {
      const c4 = new Connection(n.rpcUrl, 'finalized');
      const ed = await c4.getAccountInfo(new PublicKey(ED25519));
      assert.deepEqual(ed && { ...ed, owner: ed.owner.toBase58() }, { data: Buffer.alloc(0), executable: true, lamports: 1, owner: NATIVE_LOADER, rentEpoch: 0, space: 0 });
    } finally {
      await n.stop();
      fs.rmSync(ledger, { recursive: true, force: true });
    }
  });

  it('the isthmus command: --account ADDRESS FILE, --account - FILE, --account-dir DIR; a bad file exits 2 naming it', async () => {
    const sub = fs.mkdtempSync(path.join(dir, 'dir-'));
    const inDir = Keypair.generate().publicKey.toBase58();
    fs.writeFileSync(path.join(sub, 'a.json'), fs.readFileSync(accountFile('for-dir.json', inDir, 3 * LAMPORTS_PER_SOL, Buffer.from('in a dir'))));
    const pinned = Keypair.generate().publicKey.toBase58();
    const own = Keypair.generate().publicKey.toBase58();
    const pinnedFile = accountFile('pinned.json', Keypair.generate().publicKey.toBase58(), LAMPORTS_PER_SOL, Buffer.alloc(0));
    const ownFile = accountFile('own.json', own, LAMPORTS_PER_SOL + 1, Buffer.alloc(0));
    const ledger = tempLedger();
    const [rpcPort, pubsubPort, evmPort] = await freePorts(3);
    const p = runIsthmus(['start', '--ledger', ledger, '--rpc-port', String(rpcPort), '--rpc-pubsub-port', String(pubsubPort), '--evm-rpc-port', String(evmPort), '--slot-ms', '50',
      '--account', pinned, pinnedFile, '--account', '-', ownFile, '--account-dir', sub]);
    try {
      await p.waitForOutput(/JSON RPC URL/);
      const c = new Connection(`http://127.0.0.1:${rpcPort}`, 'confirmed');
      assert.equal(await c.getBalance(new PublicKey(pinned)), LAMPORTS_PER_SOL);
      assert.equal(await c.getBalance(new PublicKey(own)), LAMPORTS_PER_SOL + 1);
      assert.deepEqual((await c.getAccountInfo(new PublicKey(inDir)))!.data, Buffer.from('in a dir'));
    } finally {
      p.child.kill('SIGINT');
      await p.exited;
      fs.rmSync(ledger, { recursive: true, force: true });
    }

    const broken = path.join(dir, 'broken.json');
    fs.writeFileSync(broken, '{"pubkey": "not a key", "account": {}}');
    const unused = tempLedger();
    const r = await runToExit(['start', '--ledger', unused, '--account', '-', broken]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`account file ${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: pubkey is not a base-58 public key`));
    const missing = await runToExit(['start', '--ledger', unused, '--account', pinned]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--account needs ADDRESS and FILE/);
    assert.deepEqual(fs.readdirSync(unused), [], 'nothing was made');
    fs.rmSync(unused, { recursive: true, force: true });
  });
});
