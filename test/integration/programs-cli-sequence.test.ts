/**
 * The Solana CLI's program transactions, built by hand with @solana/web3.js v1 as cli/src/program.rs
 * builds them (solana-labs/solana 1.x): `solana program deploy` — a buffer created with System
 * createAccount + InitializeBuffer in one transaction, Write transactions whose chunk fills a packet
 * (calculate_max_chunk_size: PACKET_DATA_SIZE minus a baseline Write transaction, minus 1), then the
 * program account created and DeployWithMaxDataLen in one transaction with max_data_len twice the
 * program; `solana program extend` (ExtendProgram); `solana program set-upgrade-authority
 * --new-upgrade-authority-signer` (SetAuthorityChecked); and the loader-v2 deploy Agave refuses. Each
 * bad case gets Agave's error and changes nothing but the fee.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Connection,
  Keypair,
  PublicKey,
  SYSVAR_CLOCK_PUBKEY,
  SYSVAR_RENT_PUBKEY,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  type AccountMeta,
} from '@solana/web3.js';
import { startTestNode, waitFor, type TestNode } from '../helpers/node.ts';
import { fixture } from '../helpers/sbf-deploy.ts';

const LOADER = new PublicKey('BPFLoaderUpgradeab1e11111111111111111111111');
const LOADER_V2 = new PublicKey('BPFLoader2111111111111111111111111111111111');
const PACKET_DATA_SIZE = 1232;

let node: TestNode;
let conn: Connection;
/** The CLI's default keypair: fee payer and upgrade authority. */
let payer: Keypair;

before(async () => {
  node = await startTestNode({ slotMs: 40 });
  conn = new Connection(node.rpcUrl, 'confirmed');
  payer = Keypair.fromSecretKey(node.keys.devAccounts[0]!.secretKey);
});

after(async () => {
  await node?.stop();
});

const programDataOf = (program: PublicKey) => PublicKey.findProgramAddressSync([program.toBuffer()], LOADER)[0];

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: number | bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};

// UpgradeableLoaderInstruction, bincode: a u32 tag, then the fields.
const ix = {
  initializeBuffer: (buffer: PublicKey, authority: PublicKey) =>
    new TransactionInstruction({ programId: LOADER, keys: [{ pubkey: buffer, isSigner: false, isWritable: true }, { pubkey: authority, isSigner: false, isWritable: false }], data: u32(0) }),
  write: (buffer: PublicKey, authority: PublicKey, offset: number, bytes: Uint8Array) =>
    new TransactionInstruction({
      programId: LOADER,
      keys: [{ pubkey: buffer, isSigner: false, isWritable: true }, { pubkey: authority, isSigner: true, isWritable: false }],
      data: Buffer.concat([u32(1), u32(offset), u64(bytes.length), bytes]),
    }),
  deployWithMaxDataLen: (payer: PublicKey, program: PublicKey, buffer: PublicKey, authority: PublicKey, maxDataLen: number) =>
    new TransactionInstruction({
      programId: LOADER,
      keys: [
        { pubkey: payer, isSigner: true, isWritable: true },
        { pubkey: programDataOf(program), isSigner: false, isWritable: true },
        { pubkey: program, isSigner: false, isWritable: true },
        { pubkey: buffer, isSigner: false, isWritable: true },
        { pubkey: SYSVAR_RENT_PUBKEY, isSigner: false, isWritable: false },
        { pubkey: SYSVAR_CLOCK_PUBKEY, isSigner: false, isWritable: false },
        { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
        { pubkey: authority, isSigner: true, isWritable: false },
      ],
      data: Buffer.concat([u32(2), u64(maxDataLen)]),
    }),
  extendProgram: (program: PublicKey, payer: PublicKey, additionalBytes: number) =>
    new TransactionInstruction({
      programId: LOADER,
      keys: [
        { pubkey: programDataOf(program), isSigner: false, isWritable: true },
        { pubkey: program, isSigner: false, isWritable: true },
        { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
        { pubkey: payer, isSigner: true, isWritable: true },
      ],
      data: Buffer.concat([u32(6), u32(additionalBytes)]),
    }),
  setAuthorityChecked: (program: PublicKey, current: PublicKey, next: PublicKey, nextSigns = true) =>
    new TransactionInstruction({
      programId: LOADER,
      keys: [
        { pubkey: programDataOf(program), isSigner: false, isWritable: true },
        { pubkey: current, isSigner: true, isWritable: false },
        { pubkey: next, isSigner: nextSigns, isWritable: false },
      ],
      data: u32(7),
    }),
};

interface Sent {
  signature: string;
  slot: number;
  err: any;
  fee: number;
  logs: string[];
}

async function sign(instructions: TransactionInstruction[], signers: Keypair[]): Promise<Transaction> {
  const { blockhash } = await conn.getLatestBlockhash('confirmed');
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...instructions);
  tx.sign(payer, ...signers.filter((s) => !s.publicKey.equals(payer.publicKey)));
  return tx;
}

async function confirmed(signature: string): Promise<Sent> {
  const got = (await waitFor(() => conn.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }), { what: `transaction ${signature}`, timeoutMs: 60_000 }))!;
  return { signature, slot: got.slot, err: got.meta!.err, fee: got.meta!.fee, logs: got.meta!.logMessages ?? [] };
}

async function send(instructions: TransactionInstruction[], signers: Keypair[] = []): Promise<Sent> {
  const tx = await sign(instructions, signers);
  return confirmed(await conn.sendRawTransaction(tx.serialize(), { skipPreflight: true }));
}

/** Waits until the confirmed bank is past `slot`: a deployment made in `slot` runs from the next one. */
const slotPassed = (slot: number) => waitFor(async () => (await conn.getSlot('confirmed')) > slot, { what: `slot ${slot} to pass` });

/** The payer's balance and the accounts' bytes and lamports, read in one call (one slot). */
async function state(...accounts: PublicKey[]) {
  const infos = await conn.getMultipleAccountsInfo([payer.publicKey, ...accounts], 'confirmed');
  return { payer: infos[0]!.lamports, accounts: infos.slice(1).map((a) => (a ? { lamports: a.lamports, data: Buffer.from(a.data), owner: a.owner.toBase58(), executable: a.executable } : null)) };
}

/** The CLI's chunk size: what a packet holds beside a baseline Write transaction with no bytes, less 1 for the length's shortvec. */
async function maxChunkSize(buffer: PublicKey, authority: Keypair): Promise<number> {
  const baseline = await sign([ix.write(buffer, authority.publicKey, 0, new Uint8Array(0))], [authority]);
  return PACKET_DATA_SIZE - baseline.serialize().length - 1;
}

/** `solana program deploy PROGRAM.so --program-id KEYPAIR`, transaction for transaction. */
async function cliDeploy(elf: Uint8Array, program: Keypair, authority: Keypair): Promise<{ deploy: Sent; buffer: PublicKey; chunk: number; writes: number }> {
  const buffer = Keypair.generate();
  const bufferLen = 37 + elf.length;
  const created = await send(
    [SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: buffer.publicKey, lamports: await conn.getMinimumBalanceForRentExemption(bufferLen), space: bufferLen, programId: LOADER }), ix.initializeBuffer(buffer.publicKey, authority.publicKey)],
    [buffer],
  );
  assert.equal(created.err, null, created.logs.join('\n'));

  const chunk = await maxChunkSize(buffer.publicKey, authority);
  const signatures: string[] = [];
  for (let offset = 0; offset < elf.length; offset += chunk) {
    const tx = await sign([ix.write(buffer.publicKey, authority.publicKey, offset, elf.subarray(offset, offset + chunk))], [authority]);
    assert.ok(tx.serialize().length <= PACKET_DATA_SIZE);
    signatures.push(await conn.sendRawTransaction(tx.serialize(), { skipPreflight: true }));
  }
  for (const s of signatures) {
    const w = await confirmed(s);
    assert.equal(w.err, null, w.logs.join('\n'));
  }

  const deploy = await send(
    [
      SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: program.publicKey, lamports: await conn.getMinimumBalanceForRentExemption(36), space: 36, programId: LOADER }),
      ix.deployWithMaxDataLen(payer.publicKey, program.publicKey, buffer.publicKey, authority.publicKey, elf.length * 2),
    ],
    [program, authority],
  );
  return { deploy, buffer: buffer.publicKey, chunk, writes: signatures.length };
}

async function invokeHello(program: PublicKey): Promise<Sent> {
  return send([new TransactionInstruction({ programId: program, keys: [], data: Buffer.alloc(0) })]);
}

describe("the Solana CLI's program transactions, with web3.js v1", () => {
  const hello = fixture('hello_solana_program.so');
  const program = Keypair.generate();
  let authority: Keypair;

  it('program deploy: buffer, packet-sized Writes, DeployWithMaxDataLen at twice the length; the program runs from the next slot', async () => {
    authority = payer;
    const { deploy, buffer, chunk, writes } = await cliDeploy(hello, program, authority);
    assert.equal(deploy.err, null, deploy.logs.join('\n'));
    assert.ok(chunk > 1000, `a packet holds ${chunk} bytes of program per Write with one signer`);
    assert.equal(writes, Math.ceil(hello.length / chunk));

    const pd = programDataOf(program.publicKey);
    const s = await state(program.publicKey, pd, buffer);
    const [p, data, buf] = s.accounts;
    assert.deepEqual(p, { lamports: await conn.getMinimumBalanceForRentExemption(36), data: Buffer.concat([u32(2), pd.toBuffer()]), owner: LOADER.toBase58(), executable: true });
    assert.equal(data!.owner, LOADER.toBase58());
    assert.equal(data!.data.length, 45 + 2 * hello.length, 'max_data_len is twice the program');
    assert.equal(data!.lamports, await conn.getMinimumBalanceForRentExemption(45 + 2 * hello.length));
    assert.deepEqual(data!.data.subarray(0, 45), Buffer.concat([u32(3), u64(deploy.slot), Buffer.from([1]), authority.publicKey.toBuffer()]));
    assert.ok(data!.data.subarray(45, 45 + hello.length).equals(hello));
    assert.ok(data!.data.subarray(45 + hello.length).every((b) => b === 0), 'the room to grow is zeros');
    assert.equal(buf, null, 'the buffer is consumed, its lamports back to the payer');

    await slotPassed(deploy.slot);
    const r = await invokeHello(program.publicKey);
    assert.equal(r.err, null, r.logs.join('\n'));
    assert.ok(r.logs.includes('Program log: Hello, Solana!'));
    assert.ok(r.logs.includes(`Program log: Our program's Program ID: ${program.publicKey.toBase58()}`));
  });

  it("program extend: ExtendProgram by 10,240 bytes pays the rent, rewrites the deployment slot; too few bytes is Agave's error", async () => {
    const pd = programDataOf(program.publicKey);
    for (const [additional, error, log] of [
      [0, 'InvalidInstructionData', 'Additional bytes must be greater than 0'],
      [1000, 'InvalidArgument', 'ExtendProgram requires a minimum of 10240 additional bytes or to extend to maximum size, but only 1000 were requested'],
    ] as const) {
      const before = await state(pd);
      const r = await send([ix.extendProgram(program.publicKey, payer.publicKey, additional)]);
      assert.deepEqual(r.err, { InstructionError: [0, error] }, r.logs.join('\n'));
      assert.ok(r.logs.includes(log), r.logs.join('\n'));
      const after = await state(pd);
      assert.deepEqual(after.accounts, before.accounts, `ExtendProgram(${additional}) changed the programdata`);
      assert.equal(after.payer, before.payer - r.fee);
    }

    const before = await state(pd);
    const oldLen = before.accounts[0]!.data.length;
    const r = await send([ix.extendProgram(program.publicKey, payer.publicKey, 10_240)]);
    assert.equal(r.err, null, r.logs.join('\n'));
    const after = await state(pd);
    const data = after.accounts[0]!;
    assert.equal(data.data.length, oldLen + 10_240);
    const rent = await conn.getMinimumBalanceForRentExemption(oldLen + 10_240);
    assert.equal(data.lamports, rent);
    assert.equal(after.payer, before.payer - r.fee - (rent - before.accounts[0]!.lamports), 'the payer paid the fee and the new rent');
    assert.equal(data.data.readBigUInt64LE(4), BigInt(r.slot), 'the deployment slot is the extension\'s');
    assert.ok(data.data.subarray(45, 45 + hello.length).equals(hello));
    await slotPassed(r.slot);
    const ran = await invokeHello(program.publicKey);
    assert.equal(ran.err, null, ran.logs.join('\n'));
    assert.ok(ran.logs.includes('Program log: Hello, Solana!'));
  });

  it('set-upgrade-authority --new-upgrade-authority-signer: SetAuthorityChecked needs the new authority to sign', async () => {
    const pd = programDataOf(program.publicKey);
    const next = Keypair.generate();

    const before = await state(pd);
    const unsigned = await send([ix.setAuthorityChecked(program.publicKey, authority.publicKey, next.publicKey, false)]);
    assert.deepEqual(unsigned.err, { InstructionError: [0, 'MissingRequiredSignature'] }, unsigned.logs.join('\n'));
    assert.ok(unsigned.logs.includes('New authority did not sign'), unsigned.logs.join('\n'));
    let after = await state(pd);
    assert.deepEqual(after.accounts, before.accounts);
    assert.equal(after.payer, before.payer - unsigned.fee);

    const impostor = Keypair.generate();
    const wrong = await send([ix.setAuthorityChecked(program.publicKey, impostor.publicKey, next.publicKey)], [impostor, next]);
    assert.deepEqual(wrong.err, { InstructionError: [0, 'IncorrectAuthority'] }, wrong.logs.join('\n'));
    assert.ok(wrong.logs.includes('Incorrect upgrade authority provided'), wrong.logs.join('\n'));
    after = await state(pd);
    assert.deepEqual(after.accounts, before.accounts);

    const ok = await send([ix.setAuthorityChecked(program.publicKey, authority.publicKey, next.publicKey)], [next]);
    assert.equal(ok.err, null, ok.logs.join('\n'));
    assert.ok(ok.logs.includes(`New authority ${next.publicKey.toBase58()}`), ok.logs.join('\n'));
    after = await state(pd);
    const data = after.accounts[0]!.data;
    assert.deepEqual(data.subarray(12, 45), Buffer.concat([Buffer.from([1]), next.publicKey.toBuffer()]));
    assert.ok(data.subarray(0, 12).equals(before.accounts[0]!.data.subarray(0, 12)), 'the deployment slot is kept');
    assert.ok(data.subarray(45).equals(before.accounts[0]!.data.subarray(45)), 'the program is kept');

    // The old authority can no longer extend the chain of authority.
    const stale = await send([ix.setAuthorityChecked(program.publicKey, authority.publicKey, Keypair.generate().publicKey, false)]);
    assert.deepEqual(stale.err, { InstructionError: [0, 'IncorrectAuthority'] }, stale.logs.join('\n'));
  });

  it('a deploy with BPF Loader 2 (the old `--use-deprecated-loader` sequence) is refused as Agave refuses it; only the System createAccount stands', async () => {
    const noop = fixture('noop.so');
    const account = Keypair.generate();
    const created = await send(
      [SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: account.publicKey, lamports: await conn.getMinimumBalanceForRentExemption(noop.length), space: noop.length, programId: LOADER_V2 })],
      [account],
    );
    assert.equal(created.err, null, created.logs.join('\n'));
    const before = await state(account.publicKey);

    // LoaderInstruction::Write { offset, bytes } and Finalize, signed by the program account, as the old CLI sent them.
    const write = new TransactionInstruction({ programId: LOADER_V2, keys: [{ pubkey: account.publicKey, isSigner: true, isWritable: true }], data: Buffer.concat([u32(0), u32(0), u64(512), noop.subarray(0, 512)]) });
    const finalize = new TransactionInstruction({
      programId: LOADER_V2,
      keys: [{ pubkey: account.publicKey, isSigner: true, isWritable: true }, { pubkey: SYSVAR_RENT_PUBKEY, isSigner: false, isWritable: false }] as AccountMeta[],
      data: u32(1),
    });
    let paid = 0;
    for (const [what, instruction] of [['Write', write], ['Finalize', finalize]] as const) {
      const r = await send([instruction], [account]);
      assert.deepEqual(r.err, { InstructionError: [0, 'UnsupportedProgramId'] }, `${what}: ${r.logs.join('\n')}`);
      assert.deepEqual(r.logs, [`Program ${LOADER_V2.toBase58()} invoke [1]`, 'BPF loader management instructions are no longer supported', `Program ${LOADER_V2.toBase58()} failed: Unsupported program id`]);
      paid += r.fee;
    }
    const after = await state(account.publicKey);
    assert.deepEqual(after.accounts, before.accounts, 'the account is untouched: zeros, not executable');
    assert.equal(after.accounts[0]!.executable, false);
    assert.ok(after.accounts[0]!.data.every((b) => b === 0));
    assert.equal(after.payer, before.payer - paid);
  });
});
