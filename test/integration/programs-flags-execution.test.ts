/**
 * Programs given with solana-test-validator's flags run: `--bpf-program` and `--upgradeable-program`
 * at genesis are invocable from the first slots (noop's and hello_solana's logs); the upgrade
 * authority of `--upgradeable-program` can upgrade (the new code runs from the next slot) while `none`
 * refuses an upgrade; and over an existing ledger, the real `isthmus start` with `--bpf-program` runs
 * the program as soon as the node is up. Driven by @solana/kit + @solana-program/loader-v3
 * (test/helpers/sbf-deploy.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { createKeyPairSignerFromBytes, generateKeyPairSigner, type Address, type Instruction } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { loadBpfProgram, loadUpgradeableProgram } from '../../node-core/node/program-flags.ts';
import { freePorts, killLeftovers, ROOT, runIsthmus, waitForRpc } from '../helpers/cli-process.ts';
import { startTestNode, tempLedger, waitFor } from '../helpers/node.ts';
import { Deployer, fixture, programDataOf } from '../helpers/sbf-deploy.ts';

after(killLeftovers);

const FIXTURES = path.join(ROOT, 'test/fixtures/sbf');
const NOOP = path.join(FIXTURES, 'noop.so');
const HELLO = path.join(FIXTURES, 'hello_solana_program.so');
const CLOCK = path.join(FIXTURES, 'clock_sysvar_program.so');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-programs-flags-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const invoke = (program: Address): Instruction => ({ programAddress: program, accounts: [], data: new Uint8Array(0) });
const plain = (v: unknown) => JSON.parse(JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? Number(x) : x)));
const noopLogs = (p: string) => [`Program ${p} invoke [1]`, `Program ${p} consumed 5 of 200000 compute units`, `Program ${p} success`];

describe('programs from the flags run', () => {
  it('at genesis: --bpf-program and --upgradeable-program are invocable from the first slots; the authority upgrades, `none` refuses', async () => {
    const noop = Keypair.generate().publicKey.toBase58() as Address;
    const hello = Keypair.generate().publicKey.toBase58() as Address;
    const final = Keypair.generate().publicKey.toBase58() as Address;
    const authorityKeypair = Keypair.generate();
    const authorityFile = path.join(dir, 'authority.json');
    fs.writeFileSync(authorityFile, JSON.stringify(Array.from(authorityKeypair.secretKey)));
    const node = await startTestNode({
      slotMs: 40,
      programs: [loadBpfProgram(noop, NOOP), loadUpgradeableProgram(hello, HELLO, authorityFile), loadUpgradeableProgram(final, CLOCK, 'none')],
    });
    try {
      const d = new Deployer(node.rpcUrl, await createKeyPairSignerFromBytes(node.keys.devAccounts[0]!.secretKey));
      // Sent at once, no waiting for a slot: deployed at slot 0, they run from slot 1, the first a transaction lands in.
      const [n, h, c] = await d.results(await d.sendMany([await d.sign([invoke(noop)]), await d.sign([invoke(hello)]), await d.sign([invoke(final)])]));
      assert.equal(n!.err, null);
      assert.deepEqual(n!.meta.logMessages, noopLogs(noop));
      assert.equal(h!.err, null, JSON.stringify(h!.meta.logMessages));
      assert.ok(h!.meta.logMessages.includes('Program log: Hello, Solana!'));
      assert.ok(h!.meta.logMessages.includes(`Program log: Our program's Program ID: ${hello}`));
      assert.equal(c!.err, null, JSON.stringify(c!.meta.logMessages));
      const block = await d.rpc.getBlockTime(BigInt(c!.slot)).send();
      assert.equal(Buffer.from(c!.meta.returnData.data[0], 'base64').readBigInt64BE(0), BigInt(block!), 'the Clock of the slot it ran in');

      // The authority of --upgradeable-program upgrades hello_solana to noop; noop's code runs from the next slot.
      const authority = await createKeyPairSignerFromBytes(authorityKeypair.secretKey);
      const up = await d.upgrade(hello, fixture('noop.so'), authority);
      assert.equal(up.err, null, JSON.stringify(up.meta.logMessages));
      await d.slotPassed(up.slot);
      const after = await d.send([invoke(hello)]);
      assert.equal(after.err, null);
      assert.deepEqual(after.meta.logMessages, noopLogs(hello));

      // `none` (as --bpf-program): the authority is Pubkey::default(), which no one can sign for.
      for (const program of [final, noop]) {
        const pd = await programDataOf(program);
        const before = (await d.rpc.getAccountInfo(pd, { commitment: 'confirmed', encoding: 'base64' }).send()).value!.data[0];
        const refused = await d.upgrade(program, fixture('noop.so'), await generateKeyPairSigner());
        assert.deepEqual(plain(refused.err), { InstructionError: [0, 'IncorrectAuthority'] }, program);
        assert.ok(refused.meta.logMessages.includes('Incorrect upgrade authority provided'));
        assert.equal((await d.rpc.getAccountInfo(pd, { commitment: 'confirmed', encoding: 'base64' }).send()).value!.data[0], before, 'the programdata is unchanged');
      }
      const still = await d.send([invoke(noop)]);
      assert.deepEqual(still.meta.logMessages, noopLogs(noop));
    } finally {
      await node.stop();
    }
  });

  it('over an existing ledger: `isthmus start --bpf-program` runs the program from the first slot after the restart', async () => {
    const ledger = tempLedger();
    const [rpcPort, pubsubPort, evmPort] = await freePorts(3);
    try {
      const first = await startTestNode({ ledger, slotMs: 40 });
      const payerKey = first.keys.devAccounts[0]!.secretKey;
      await waitFor(() => first.chain.confirmedSlot >= 3, { what: 'a few confirmed slots' });
      await first.stop();
      const lastStored = first.chain.confirmedSlot;

      const program = Keypair.generate().publicKey.toBase58() as Address;
      const p = runIsthmus(['start', '--ledger', ledger, '--rpc-port', String(rpcPort), '--rpc-pubsub-port', String(pubsubPort), '--evm-rpc-port', String(evmPort), '--slot-ms', '50', '--bpf-program', program, HELLO]);
      try {
        const url = `http://127.0.0.1:${rpcPort}`;
        await waitForRpc(url, p.child, 60_000);
        const d = new Deployer(url, await createKeyPairSignerFromBytes(payerKey));
        const r = await d.send([invoke(program)]);
        assert.equal(r.err, null, JSON.stringify(r.meta.logMessages));
        assert.ok(r.slot > lastStored, `ran in slot ${r.slot}, after the ledger's last stored slot ${lastStored}`);
        assert.ok(r.meta.logMessages.includes('Program log: Hello, Solana!'));
        const pd = (await d.rpc.getAccountInfo(await programDataOf(program), { commitment: 'confirmed', encoding: 'base64' }).send()).value!;
        assert.equal(Buffer.from(pd.data[0], 'base64').readBigUInt64LE(4), BigInt(lastStored), 'deployed at the last stored slot');
      } finally {
        p.child.kill('SIGINT');
        await p.exited;
      }
    } finally {
      fs.rmSync(ledger, { recursive: true, force: true });
    }
  });
});
