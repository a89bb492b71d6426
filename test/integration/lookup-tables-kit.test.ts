/**
 * v0 transactions that load accounts from address lookup tables, against a real node, driven by
 * @solana/kit (tables built by hand, fetched with fetchAddressesForLookupTables, messages compressed
 * with compressTransactionMessageUsingAddressLookupTables) and by @solana/web3.js
 * (AddressLookupTableProgram, connection.getAddressLookupTable, compileToV0Message); the bad cases
 * answer Agave's errors and change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  fetchAddressesForLookupTables,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase64EncodedWireTransaction,
  getProgramDerivedAddress,
  getSignatureFromTransaction,
  getU64Encoder,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type RpcSubscriptions,
  type SolanaRpcApi,
  type SolanaRpcSubscriptionsApi,
  type TransactionSigner,
} from '@solana/kit';
import {
  AddressLookupTableProgram,
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  TransactionMessage,
  VersionedTransaction,
  type AddressLookupTableAccount,
} from '@solana/web3.js';
import { rpc as rawRpc, startTestNode, waitFor, type TestNode } from '../helpers/node.ts';

const ALT = address('AddressLookupTab1e1111111111111111111111111');
const SYSTEM = address('11111111111111111111111111111111');
const SLOT_MS = 20;

let node: TestNode;
let rpc: Rpc<SolanaRpcApi>;
let subs: RpcSubscriptions<SolanaRpcSubscriptionsApi>;
let payer: KeyPairSigner;

const u32 = (n: number) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
};
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, (at += p.length) - p.length);
  return out;
};
const signer = (s: TransactionSigner) => ({ address: s.address, role: AccountRole.WRITABLE_SIGNER, signer: s }) as never;

async function deriveTable(authority: Address, slot: bigint) {
  return getProgramDerivedAddress({ programAddress: ALT, seeds: [getAddressEncoder().encode(authority), getU64Encoder().encode(slot)] });
}

function createTableIx(table: Address, authority: TransactionSigner, slot: bigint, bump: number): Instruction {
  return {
    programAddress: ALT,
    accounts: [
      { address: table, role: AccountRole.WRITABLE },
      { address: authority.address, role: AccountRole.READONLY },
      signer(payer),
      { address: SYSTEM, role: AccountRole.READONLY },
    ],
    data: concat(u32(0), new Uint8Array(getU64Encoder().encode(slot)), Uint8Array.of(bump)),
  };
}

function extendTableIx(table: Address, authority: TransactionSigner, addresses: Address[]): Instruction {
  return {
    programAddress: ALT,
    accounts: [
      { address: table, role: AccountRole.WRITABLE },
      { address: authority.address, role: AccountRole.READONLY_SIGNER, signer: authority } as never,
      signer(payer),
      { address: SYSTEM, role: AccountRole.READONLY },
    ],
    data: concat(u32(2), new Uint8Array(getU64Encoder().encode(BigInt(addresses.length))), ...addresses.map((a) => new Uint8Array(getAddressEncoder().encode(a)))),
  };
}

function transferIx(from: TransactionSigner, to: Address, lamports: bigint): Instruction {
  return { programAddress: SYSTEM, accounts: [signer(from), { address: to, role: AccountRole.WRITABLE }], data: concat(u32(2), new Uint8Array(getU64Encoder().encode(lamports))) };
}

// kit's types cannot follow a message through the optional compression; the tests check the bytes instead.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function signed(instructions: Instruction[], lookups?: Record<Address, Address[]>): Promise<any> {
  const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
    (m) => (lookups ? compressTransactionMessageUsingAddressLookupTables(m, lookups) : m),
  );
  return signTransactionMessageWithSigners(message);
}

/** Waits until the confirmed bank is past `slot`: addresses appended in `slot` can then be looked up there. */
async function slotPassed(slot: bigint) {
  await waitFor(async () => (await rpc.getSlot({ commitment: 'confirmed' }).send()) > slot, { what: `slot ${slot} to pass` });
}

before(async () => {
  node = await startTestNode({ slotMs: SLOT_MS });
  rpc = createSolanaRpc(node.rpcUrl);
  subs = createSolanaRpcSubscriptions(node.pubsubUrl);
  payer = await createKeyPairSignerFromBytes(node.keys.devAccounts[0]!.secretKey);
});

after(async () => {
  await node?.stop();
});

describe('address lookup tables with @solana/kit', () => {
  let table: Address;
  let recipients: Address[];
  let authority: KeyPairSigner;
  let tableSlot: bigint;

  it('the program is a builtin account of the genesis', async () => {
    const { value } = await rpc.getAccountInfo(ALT, { encoding: 'base64' }).send();
    assert.equal(value!.executable, true);
    assert.equal(value!.owner, 'NativeLoader1111111111111111111111111111111');
  });

  it('creates and extends a table at the derived address', async () => {
    authority = await generateKeyPairSigner();
    recipients = await Promise.all([1, 2, 3].map(async () => (await generateKeyPairSigner()).address));
    // A finalized slot: the confirmed bank a preflight runs on has the confirmed slot itself not yet in its slot hashes.
    const recentSlot = await rpc.getSlot({ commitment: 'finalized' }).send();
    const [derived, bump] = await deriveTable(authority.address, recentSlot);
    table = derived;
    const send = sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions: subs });
    const tx = await signed([createTableIx(table, authority, recentSlot, bump), extendTableIx(table, authority, recipients)]);
    await send(tx, { commitment: 'confirmed' });
    const sig = getSignatureFromTransaction(tx);
    const got = await rpc.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'jsonParsed' }).send();
    tableSlot = got!.slot;
    const parsed = got!.transaction.message.instructions.map((i) => ('parsed' in i ? (i.parsed as { type: string }).type : null));
    assert.deepEqual(parsed, ['createLookupTable', 'extendLookupTable']);
    assert.equal(got!.meta!.innerInstructions!.length, 2, 'the System program was invoked by both instructions');

    const { value } = await rpc.getAccountInfo(table, { commitment: 'confirmed', encoding: 'jsonParsed' }).send();
    assert.equal(value!.owner, ALT);
    assert.deepEqual(value!.data, {
      program: 'address-lookup-table',
      parsed: {
        type: 'lookupTable',
        info: {
          deactivationSlot: '18446744073709551615',
          lastExtendedSlot: String(tableSlot),
          lastExtendedSlotStartIndex: 0,
          authority: authority.address,
          addresses: recipients,
        },
      },
      space: 56n + 3n * 32n,
    });
  });

  it('sends a v0 transfer compressed through the table and reads it back with loadedAddresses', async () => {
    await slotPassed(tableSlot);
    const lookups = await fetchAddressesForLookupTables([table], rpc, { commitment: 'confirmed' });
    assert.deepEqual(lookups, { [table]: recipients });
    const tx = await signed([transferIx(payer, recipients[1]!, 1_000_000n)], lookups);
    const sim = await rpc.simulateTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64', commitment: 'confirmed' }).send();
    assert.equal(sim.value.err, null);
    await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions: subs })(tx, { commitment: 'confirmed' });
    const sig = getSignatureFromTransaction(tx);

    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const got: any = await rpc.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
    assert.equal(got!.version, 0);
    assert.deepEqual(got!.transaction.message.addressTableLookups, [{ accountKey: table, writableIndexes: [1], readonlyIndexes: [] }]);
    assert.deepEqual(got!.meta!.loadedAddresses, { writable: [recipients[1]], readonly: [] });
    assert.equal(got!.transaction.message.accountKeys.includes(recipients[1]!), false, 'the recipient is not a static key');
    assert.equal(got!.meta!.postBalances.length, got!.transaction.message.accountKeys.length + 1);
    assert.equal((await rpc.getBalance(recipients[1]!, { commitment: 'confirmed' }).send()).value, 1_000_000n);

    const parsed = await rpc.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'jsonParsed' }).send();
    const keys = parsed!.transaction.message.accountKeys;
    assert.deepEqual(keys[keys.length - 1], { pubkey: recipients[1], signer: false, writable: true, source: 'lookupTable' });
    assert.ok(keys.slice(0, -1).every((k) => k.source === 'transaction'));
    const sigs = await rpc.getSignaturesForAddress(recipients[1]!, { commitment: 'confirmed' }).send();
    assert.deepEqual(sigs.map((s) => s.signature), [sig]);
    const block = await rawRpc(node.rpcUrl, 'getBlock', [Number(got.slot), { commitment: 'confirmed', maxSupportedTransactionVersion: 0, transactionDetails: 'accounts' }]);
    const entry = block.result.transactions.find((t: { transaction: { signatures: string[] } }) => t.transaction.signatures[0] === sig);
    assert.deepEqual(entry.transaction.accountKeys.at(-1), { pubkey: recipients[1], writable: true, signer: false, source: 'lookupTable' });
    assert.equal(entry.version, 0);
    const legacyClient = await rawRpc(node.rpcUrl, 'getTransaction', [sig, { commitment: 'confirmed' }]);
    assert.equal(legacyClient.error.code, -32015, 'a client without maxSupportedTransactionVersion cannot read it');
  });

  it('a wrong index, a missing table or a table of another owner: Agave\'s errors, nothing changed', async () => {
    const lookups = { [table]: recipients };
    const tx = await signed([transferIx(payer, recipients[0]!, 5n)], lookups);
    // Re-point the compressed lookup at index 9 (the table holds 3).
    const wire = new Uint8Array(Buffer.from(getBase64EncodedWireTransaction(tx), 'base64'));
    assert.equal(wire[wire.length - 2], 0, 'the writable index of the one lookup');
    const bad = (mutate: (w: Uint8Array) => void) => {
      const w = wire.slice();
      mutate(w);
      return Buffer.from(w).toString('base64');
    };
    const before = (await rpc.getBalance(payer.address, { commitment: 'processed' }).send()).value;
    const send = (encoded: string) => rawRpc(node.rpcUrl, 'sendTransaction', [encoded, { encoding: 'base64', preflightCommitment: 'confirmed' }]);
    const index = await send(bad((w) => (w[w.length - 2] = 9)));
    assert.deepEqual(index.error, { code: -32602, message: 'invalid transaction: Transaction address table lookup uses an invalid index' });
    const tableKeyAt = wire.length - 3 - 32;
    const missing = await send(bad((w) => w.set(new Uint8Array(getAddressEncoder().encode(recipients[2]!)), tableKeyAt)));
    assert.deepEqual(missing.error, { code: -32602, message: "invalid transaction: Transaction loads an address table account that doesn't exist" });
    const owner = await send(bad((w) => w.set(new Uint8Array(getAddressEncoder().encode(payer.address)), tableKeyAt)));
    assert.deepEqual(owner.error, { code: -32602, message: 'invalid transaction: Transaction loads an address table account with an invalid owner' });
    const simulated = await rawRpc(node.rpcUrl, 'simulateTransaction', [bad((w) => (w[w.length - 2] = 9)), { encoding: 'base64', commitment: 'confirmed' }]);
    assert.equal(simulated.error.code, -32602);
    // getFeeForMessage resolves the tables too: the message starts after the signature count and the one signature.
    const message = (mutate: (w: Uint8Array) => void) => Buffer.from(Buffer.from(bad(mutate), 'base64').subarray(65)).toString('base64');
    const fee = await rawRpc(node.rpcUrl, 'getFeeForMessage', [message(() => {}), { commitment: 'confirmed' }]);
    assert.equal(fee.result.value, 5000);
    const badFee = await rawRpc(node.rpcUrl, 'getFeeForMessage', [message((w) => (w[w.length - 2] = 9)), { commitment: 'confirmed' }]);
    assert.deepEqual(badFee.error, { code: -32602, message: 'invalid transaction message: Transaction address table lookup uses an invalid index' });
    assert.equal((await rpc.getBalance(payer.address, { commitment: 'processed' }).send()).value, before);
  });
});

describe('address lookup tables with @solana/web3.js', () => {
  let conn: Connection;
  let payerKp: Keypair;
  let authority: Keypair;
  let table: PublicKey;
  const recipients = [Keypair.generate().publicKey, Keypair.generate().publicKey];

  before(() => {
    conn = new Connection(node.rpcUrl, 'confirmed');
    payerKp = Keypair.fromSecretKey(node.keys.devAccounts[1]!.secretKey);
    authority = Keypair.generate();
  });

  async function sendV0(instructions: TransactionMessage["instructions"], tables: AddressLookupTableAccount[] = [], signers: Keypair[] = []) {
    const { blockhash } = await conn.getLatestBlockhash();
    const message = new TransactionMessage({ payerKey: payerKp.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message(tables);
    const tx = new VersionedTransaction(message);
    tx.sign([payerKp, ...signers]);
    const sig = await conn.sendTransaction(tx);
    await waitFor(async () => (await conn.getSignatureStatus(sig)).value?.confirmationStatus === 'confirmed', { what: 'confirmation' });
    return sig;
  }

  async function lookupTable(): Promise<AddressLookupTableAccount> {
    return (await conn.getAddressLookupTable(table)).value!;
  }

  it('AddressLookupTableProgram: create and extend; getAddressLookupTable reads the state', async () => {
    const recentSlot = await conn.getSlot('finalized');
    const [create, address] = AddressLookupTableProgram.createLookupTable({ authority: authority.publicKey, payer: payerKp.publicKey, recentSlot });
    table = address;
    const extend = AddressLookupTableProgram.extendLookupTable({ lookupTable: table, authority: authority.publicKey, payer: payerKp.publicKey, addresses: recipients });
    const sig = await sendV0([create, extend], [], [authority]);
    const slot = (await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0 }))!.slot;
    const state = await lookupTable();
    assert.deepEqual(state.state.addresses.map(String), recipients.map(String));
    assert.equal(state.state.authority?.toBase58(), authority.publicKey.toBase58());
    assert.equal(state.state.lastExtendedSlot, slot);
    assert.ok(state.isActive());
    await slotPassed(BigInt(slot));
  });

  it('a v0 transfer through the table; getTransaction shows the loaded addresses', async () => {
    const sig = await sendV0([SystemProgram.transfer({ fromPubkey: payerKp.publicKey, toPubkey: recipients[0]!, lamports: 2_000_000 })], [await lookupTable()]);
    const got = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0 });
    assert.deepEqual(got!.meta!.loadedAddresses!.writable.map(String), [recipients[0]!.toBase58()]);
    assert.equal(got!.transaction.message.addressTableLookups.length, 1);
    const keys = got!.transaction.message.getAccountKeys({ accountKeysFromLookups: got!.meta!.loadedAddresses! });
    assert.equal(keys.get(keys.length - 1)!.toBase58(), recipients[0]!.toBase58());
    const parsed = await conn.getParsedTransaction(sig, { maxSupportedTransactionVersion: 0 });
    const last = parsed!.transaction.message.accountKeys.at(-1)!;
    assert.deepEqual([last.pubkey.toBase58(), last.writable, last.signer, last.source], [recipients[0]!.toBase58(), true, false, 'lookupTable']);
    const ix = parsed!.transaction.message.instructions[0] as { program: string; parsed: { type: string; info: { destination: string } } };
    assert.deepEqual([ix.program, ix.parsed.type, ix.parsed.info.destination], ['system', 'transfer', recipients[0]!.toBase58()]);
    assert.equal(await conn.getBalance(recipients[0]!), 2_000_000);
  });

  it('freeze: a frozen table cannot be extended (Immutable), nothing changed', async () => {
    await sendV0([AddressLookupTableProgram.freezeLookupTable({ lookupTable: table, authority: authority.publicKey })], [], [authority]);
    const before = await conn.getAccountInfo(table);
    const { blockhash } = await conn.getLatestBlockhash();
    const extend = AddressLookupTableProgram.extendLookupTable({ lookupTable: table, authority: authority.publicKey, payer: payerKp.publicKey, addresses: [Keypair.generate().publicKey] });
    const tx = new VersionedTransaction(new TransactionMessage({ payerKey: payerKp.publicKey, recentBlockhash: blockhash, instructions: [extend] }).compileToV0Message());
    tx.sign([payerKp, authority]);
    const res = await rawRpc(node.rpcUrl, 'sendTransaction', [Buffer.from(tx.serialize()).toString('base64'), { encoding: 'base64', preflightCommitment: 'confirmed' }]);
    assert.equal(res.error.code, -32002);
    assert.deepEqual(res.error.data.err, { InstructionError: [0, 'Immutable'] });
    assert.equal(res.error.message, 'Transaction simulation failed: Error processing Instruction 0: Account is immutable');
    assert.deepEqual((await conn.getAccountInfo(table))!.data, before!.data);
  });

  it('deactivate: still usable while deactivating, then not found; closing waits for the cool-down', async () => {
    const auth2 = Keypair.generate();
    const recentSlot = await conn.getSlot('finalized');
    const [create, t2] = AddressLookupTableProgram.createLookupTable({ authority: auth2.publicKey, payer: payerKp.publicKey, recentSlot });
    const extend = AddressLookupTableProgram.extendLookupTable({ lookupTable: t2, authority: auth2.publicKey, payer: payerKp.publicKey, addresses: recipients });
    await sendV0([create, extend], [], [auth2]);
    const deactivateSig = await sendV0([AddressLookupTableProgram.deactivateLookupTable({ lookupTable: t2, authority: auth2.publicKey })], [], [auth2]);
    const deactivatedAt = (await conn.getTransaction(deactivateSig, { maxSupportedTransactionVersion: 0 }))!.slot;
    const state = (await conn.getAddressLookupTable(t2)).value!;
    assert.equal(state.state.deactivationSlot, BigInt(deactivatedAt));
    // Deactivating: lookups still work.
    await sendV0([SystemProgram.transfer({ fromPubkey: payerKp.publicKey, toPubkey: recipients[1]!, lamports: 1_000_000 })], [state]);
    const closeIx = AddressLookupTableProgram.closeLookupTable({ lookupTable: t2, authority: auth2.publicKey, recipient: payerKp.publicKey });
    const early = await rawRpc(node.rpcUrl, 'simulateTransaction', [await encodeV0([closeIx], [auth2]), { encoding: 'base64', commitment: 'confirmed' }]);
    assert.deepEqual(early.result.value.err, { InstructionError: [0, 'InvalidArgument'] });
    assert.ok(early.result.value.logs.some((l: string) => /^Table cannot be closed until it's fully deactivated in \d+ blocks$/.test(l)));

    // 350 slots on (past the 300 blockhashes a node keeps for lookups by hash) the slot hashes still hold
    // the deactivation slot, so the table still serves lookups.
    await waitFor(async () => (await conn.getSlot('confirmed')) > deactivatedAt + 350, { timeoutMs: 60_000, everyMs: 100, what: '350 slots' });
    const midway = await sendV0([SystemProgram.transfer({ fromPubkey: payerKp.publicKey, toPubkey: recipients[1]!, lamports: 1_000_001 })], [state]);
    assert.equal((await conn.getTransaction(midway, { maxSupportedTransactionVersion: 0 }))!.meta!.err, null);
    const slotHashes = await conn.getParsedAccountInfo(new PublicKey('SysvarS1otHashes111111111111111111111111111'));
    const entries = (slotHashes.value!.data as { parsed: { info: unknown[] } }).parsed.info.length;
    assert.ok(entries > 350 && entries <= 512, `the slot hashes hold every slot up to 512 (${entries})`);

    // 512 slots after the deactivation its slot has left the slot hashes.
    await waitFor(async () => (await conn.getSlot('confirmed')) > deactivatedAt + 513, { timeoutMs: 60_000, everyMs: 200, what: 'the cool-down' });
    const { blockhash } = await conn.getLatestBlockhash();
    const use = new VersionedTransaction(
      new TransactionMessage({ payerKey: payerKp.publicKey, recentBlockhash: blockhash, instructions: [SystemProgram.transfer({ fromPubkey: payerKp.publicKey, toPubkey: recipients[1]!, lamports: 1 })] }).compileToV0Message([state]),
    );
    use.sign([payerKp]);
    const refused = await rawRpc(node.rpcUrl, 'sendTransaction', [Buffer.from(use.serialize()).toString('base64'), { encoding: 'base64', preflightCommitment: 'confirmed' }]);
    assert.deepEqual(refused.error, { code: -32602, message: "invalid transaction: Transaction loads an address table account that doesn't exist" });

    const lamports = (await conn.getAccountInfo(t2))!.lamports;
    const before = await conn.getBalance(payerKp.publicKey);
    await sendV0([closeIx], [], [auth2]);
    assert.equal(await conn.getAccountInfo(t2), null);
    assert.equal(await conn.getBalance(payerKp.publicKey), before + lamports - 10_000);
  });

  async function encodeV0(instructions: TransactionMessage['instructions'], signers: Keypair[]) {
    const { blockhash } = await conn.getLatestBlockhash();
    const tx = new VersionedTransaction(new TransactionMessage({ payerKey: payerKp.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message());
    tx.sign([payerKp, ...signers]);
    return Buffer.from(tx.serialize()).toString('base64');
  }
});
