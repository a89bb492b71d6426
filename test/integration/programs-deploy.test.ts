/**
 * Deployed sBPF programs on a real node, driven by @solana/kit and @solana-program/loader-v3: deploy
 * through the BPF Upgradeable Loader in packet-sized Writes, invoke (Agave's logs, compute units,
 * return data), upgrade, set the authority to none, close; failing programs and bad input get Agave's
 * errors and change nothing but the fee.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AccountRole, createKeyPairSignerFromBytes, generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  getCloseInstruction,
  getDeployWithMaxDataLenInstruction,
  getSetAuthorityInstruction,
  getWriteInstruction,
  LOADER_V3_PROGRAM_ADDRESS,
} from '@solana-program/loader-v3';
import { rpc as rawRpc, startTestNode, type TestNode } from '../helpers/node.ts';
import { Deployer, fixture, programDataOf } from '../helpers/sbf-deploy.ts';

const CLOCK = 'SysvarC1ock11111111111111111111111111111111' as Address;

let node: TestNode;
let d: Deployer;
let authority: KeyPairSigner;

const invoke = (program: Address, accounts: Instruction['accounts'] = [], data = new Uint8Array(0)): Instruction => ({ programAddress: program, accounts, data });

before(async () => {
  node = await startTestNode({ slotMs: 40 });
  d = new Deployer(node.rpcUrl, await createKeyPairSignerFromBytes(node.keys.devAccounts[0]!.secretKey));
  authority = await generateKeyPairSigner();
});

after(async () => {
  await node?.stop();
});

/** kit parses integers in responses as bigints; the node's JSON has plain numbers. */
const plain = (v: unknown) => JSON.parse(JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? Number(x) : x)));

async function balance(a: Address): Promise<bigint> {
  return (await d.rpc.getBalance(a, { commitment: 'confirmed' }).send()).value;
}

describe('deployed programs (BPF Upgradeable Loader, @solana-program/loader-v3)', () => {
  let upgradeable: Address;

  it('deploys noop in Write chunks and invokes it with Agave\'s logs and compute units', async () => {
    const { program, programData } = await d.deploy(fixture('noop.so'), authority);
    const info = (await d.rpc.getAccountInfo(program, { commitment: 'confirmed', encoding: 'base64' }).send()).value!;
    assert.equal(info.owner, LOADER_V3_PROGRAM_ADDRESS);
    assert.equal(info.executable, true);
    const pd = (await d.rpc.getAccountInfo(programData, { commitment: 'confirmed', encoding: 'base64' }).send()).value!;
    assert.equal(Buffer.from(pd.data[0], 'base64').length, 45 + fixture('noop.so').length);
    const r = await d.send([invoke(program)]);
    assert.equal(r.err, null);
    assert.deepEqual(r.meta.logMessages, [`Program ${program} invoke [1]`, `Program ${program} consumed 5 of 200000 compute units`, `Program ${program} success`]);
    assert.equal(Number(r.meta.computeUnitsConsumed), 5);
    assert.equal(Number(r.meta.fee), 5000);
  });

  it('returns the bank\'s Clock unix_timestamp as return data (simulateTransaction and the stored transaction)', async () => {
    const { program } = await d.deploy(fixture('clock_sysvar_program.so'), authority);
    const r = await d.send([invoke(program)]);
    assert.equal(r.err, null);
    const block = await d.rpc.getBlockTime(BigInt(r.slot)).send();
    const data = Buffer.from(r.meta.returnData.data[0], 'base64');
    assert.equal(r.meta.returnData.programId, program);
    assert.equal(data.readBigInt64BE(0), BigInt(block!));
    assert.ok(r.meta.logMessages.includes(`Program return: ${program} ${data.toString('base64')}`));
    const tx = await d.sign([invoke(program)]);
    const { getBase64EncodedWireTransaction } = await import('@solana/kit');
    const sim = await rawRpc(node.rpcUrl, 'simulateTransaction', [getBase64EncodedWireTransaction(tx), { encoding: 'base64', commitment: 'confirmed', innerInstructions: true }]);
    assert.equal(sim.result.value.err, null);
    assert.equal(sim.result.value.unitsConsumed, 419);
    assert.equal(sim.result.value.returnData.programId, program);
    assert.ok(sim.result.value.logs.includes(`Program ${program} consumed 419 of 200000 compute units`));
  });

  it('a failing program: its Custom error, the fee charged, nothing else changed', async () => {
    ({ program: upgradeable } = await d.deploy(fixture('solana_bpf_rust_upgradeable.so'), authority));
    const before = await balance(d.payer.address);
    const r = await d.send([invoke(upgradeable, [{ address: CLOCK, role: AccountRole.READONLY }])]);
    assert.deepEqual(plain(r.err), { InstructionError: [0, { Custom: 42 }] });
    assert.ok(r.meta.logMessages.includes('Program log: Upgradeable program'));
    assert.equal(Number(r.meta.computeUnitsConsumed), 715);
    assert.equal(await balance(d.payer.address), before - 5000n);
  });

  it('upgrades: the new code runs from the next slot (Custom 42 → 43)', async () => {
    const r = await d.upgrade(upgradeable, fixture('solana_bpf_rust_upgraded.so'), authority);
    assert.equal(r.err, null, JSON.stringify(r.meta?.logMessages));
    await d.slotPassed(r.slot);
    const after = await d.send([invoke(upgradeable, [{ address: CLOCK, role: AccountRole.READONLY }])]);
    assert.deepEqual(plain(after.err), { InstructionError: [0, { Custom: 43 }] });
    assert.ok(after.meta.logMessages.includes('Program log: Upgraded program'));
  });

  it('an upgrade by the wrong authority: IncorrectAuthority, nothing changed but the fee', async () => {
    const impostor = await generateKeyPairSigner();
    const pdBefore = (await d.rpc.getAccountInfo(await programDataOf(upgradeable), { commitment: 'confirmed', encoding: 'base64' }).send()).value!.data[0];
    const r = await d.upgrade(upgradeable, fixture('solana_bpf_rust_upgradeable.so'), impostor);
    assert.deepEqual(plain(r.err), { InstructionError: [0, 'IncorrectAuthority'] });
    assert.ok(r.meta.logMessages.includes('Incorrect upgrade authority provided'));
    const pdAfter = (await d.rpc.getAccountInfo(await programDataOf(upgradeable), { commitment: 'confirmed', encoding: 'base64' }).send()).value!.data[0];
    assert.equal(pdAfter, pdBefore);
  });

  it('sets the authority to none; an upgrade is then refused (Immutable)', async () => {
    const programData = await programDataOf(upgradeable);
    // loader-v3 0.3 fills the omitted new authority with the loader's address (which Agave takes as the new
    // authority); the Solana CLI passes two accounts, which Agave reads as None.
    const kitSet = getSetAuthorityInstruction({ bufferOrProgramDataAccount: programData, currentAuthority: authority });
    const set = await d.send([{ ...kitSet, accounts: kitSet.accounts.slice(0, 2) }]);
    assert.equal(set.err, null, JSON.stringify(set.meta?.logMessages));
    assert.ok(set.meta.logMessages.includes('New authority None'));
    const pd = Buffer.from((await d.rpc.getAccountInfo(programData, { commitment: 'confirmed', encoding: 'base64' }).send()).value!.data[0], 'base64');
    assert.equal(pd[12], 0); // ProgramData { slot, upgrade_authority_address: None }
    const r = await d.upgrade(upgradeable, fixture('solana_bpf_rust_upgradeable.so'), authority);
    assert.deepEqual(plain(r.err), { InstructionError: [0, 'Immutable'] });
    assert.ok(r.meta.logMessages.includes('Program not upgradeable'));
  });

  it('closes a program as the Solana CLI does (program writable); invoking it is then refused: Program is not deployed', async () => {
    const { program, programData } = await d.deploy(fixture('noop.so'), authority);
    const kitClose = getCloseInstruction({ bufferOrProgramDataAccount: programData, destinationAccount: d.payer.address, authority, programAccount: program });
    // loader-v3 0.3 passes the program read-only; Agave's processor requires it writable.
    const refused = await d.send([kitClose]);
    assert.deepEqual(plain(refused.err), { InstructionError: [0, 'InvalidArgument'] });
    assert.ok(refused.meta.logMessages.includes('Program account is not writable'));
    const accounts = kitClose.accounts.map((a, i) => (i === 3 ? { ...a, role: AccountRole.WRITABLE } : a));
    const closed = await d.send([{ ...kitClose, accounts }]);
    assert.equal(closed.err, null, JSON.stringify(closed.meta?.logMessages));
    assert.ok(closed.meta.logMessages.includes(`Closed Program ${program}`));
    assert.equal((await d.rpc.getAccountInfo(programData, { commitment: 'confirmed' }).send()).value, null);
    await d.slotPassed(closed.slot);
    const r = await d.send([invoke(program)]);
    assert.deepEqual(plain(r.err), { InstructionError: [0, 'UnsupportedProgramId'] });
    assert.deepEqual(r.meta.logMessages, [`Program ${program} invoke [1]`, 'Program is not deployed', `Program ${program} failed: Unsupported program id`]);
  });

  it('compute exhaustion: hello_solana under SetComputeUnitLimit(5000) is ProgramFailedToComplete', async () => {
    const { program } = await d.deploy(fixture('hello_solana_program.so'), authority);
    const ok = await d.send([invoke(program)]);
    assert.equal(ok.err, null);
    assert.ok(ok.meta.logMessages.includes('Program log: Hello, Solana!'));
    const r = await d.send([getSetComputeUnitLimitInstruction(5000), invoke(program)]);
    assert.deepEqual(plain(r.err), { InstructionError: [1, 'ProgramFailedToComplete'] });
    assert.equal(Number(r.meta.computeUnitsConsumed), 5000);
    assert.ok(r.meta.logMessages.includes(`Program ${program} failed: exceeded CUs meter at BPF instruction`));
  });

  describe('bad input', () => {
    it('a malformed ELF: the deploy fails with InvalidAccountData, no program is created', async () => {
      const garbage = new Uint8Array(2000).fill(7);
      const buffer = await d.writeBuffer(garbage, authority);
      const program = await generateKeyPairSigner();
      const r = await d.send([
        getCreateAccountInstruction({ payer: d.payer, newAccount: program, lamports: await d.rent(36), space: 36, programAddress: LOADER_V3_PROGRAM_ADDRESS }),
        getDeployWithMaxDataLenInstruction({ payerAccount: d.payer, programDataAccount: await programDataOf(program.address), programAccount: program.address, bufferAccount: buffer, authority, maxDataLen: 2000n }),
      ]);
      assert.deepEqual(plain(r.err), { InstructionError: [1, 'InvalidAccountData'] });
      assert.equal((await d.rpc.getAccountInfo(program.address, { commitment: 'confirmed' }).send()).value, null);
    });

    it('a Write past the end of the buffer: AccountDataTooSmall', async () => {
      const buffer = await d.writeBuffer(new Uint8Array(100), authority);
      const r = await d.send([getWriteInstruction({ bufferAccount: buffer, bufferAuthority: authority, offset: 90, bytes: new Uint8Array(20) })]);
      assert.deepEqual(plain(r.err), { InstructionError: [0, 'AccountDataTooSmall'] });
      assert.ok(r.meta.logMessages.some((l: string) => l.startsWith('Write overflow')), r.meta.logMessages.join('\n'));
    });

    it('a deploy whose payer cannot fund the programdata: the System CPI fails, nothing changed but the fee', async () => {
      const elf = fixture('noop.so');
      const buffer = await d.writeBuffer(elf, authority);
      const poor = await generateKeyPairSigner();
      const program = await generateKeyPairSigner();
      const fund = await d.send([
        { programAddress: '11111111111111111111111111111111' as Address, accounts: [{ address: d.payer.address, role: AccountRole.WRITABLE_SIGNER, signer: d.payer }, { address: poor.address, role: AccountRole.WRITABLE }] as never, data: transferData(1_000_000_000n) },
      ]);
      assert.equal(fund.err, null);
      const create = await d.send([getCreateAccountInstruction({ payer: d.payer, newAccount: program, lamports: await d.rent(36), space: 36, programAddress: LOADER_V3_PROGRAM_ADDRESS })]);
      assert.equal(create.err, null);
      const before = await balance(poor.address);
      // Room for 1 MB of program: about 7.3 SOL of rent, the payer has 1.
      const r = await d.send([getDeployWithMaxDataLenInstruction({ payerAccount: poor, programDataAccount: await programDataOf(program.address), programAccount: program.address, bufferAccount: buffer, authority, maxDataLen: 1_000_000n })], poor);
      assert.deepEqual(plain(r.err), { InstructionError: [0, { Custom: 1 }] });
      assert.ok(r.meta.logMessages.some((l: string) => l.startsWith('Transfer: insufficient lamports')), r.meta.logMessages.join('\n'));
      assert.equal(await balance(poor.address), before - BigInt(r.meta.fee));
      assert.equal((await d.rpc.getAccountInfo(await programDataOf(program.address), { commitment: 'confirmed' }).send()).value, null);
      assert.ok((await d.rpc.getAccountInfo(buffer, { commitment: 'confirmed', encoding: 'base64' }).send()).value);
    });
  });
});

function transferData(lamports: bigint): Uint8Array {
  const out = new Uint8Array(12);
  const v = new DataView(out.buffer);
  v.setUint32(0, 2, true);
  v.setBigUint64(4, lamports, true);
  return out;
}

function getSetComputeUnitLimitInstruction(units: number): Instruction {
  const data = new Uint8Array(5);
  data[0] = 2;
  new DataView(data.buffer).setUint32(1, units, true);
  return { programAddress: 'ComputeBudget111111111111111111111111111111' as Address, accounts: [], data };
}
