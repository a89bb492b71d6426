/**
 * solana-test-validator's program flags, `--bpf-program ADDRESS_OR_KEYPAIR PROGRAM.so` and
 * `--upgradeable-program ADDRESS_OR_KEYPAIR PROGRAM.so UPGRADE_AUTHORITY|none`, read back with
 * @solana/web3.js and @solana/kit: the accounts the test validator makes (owners, executable flags,
 * rent-exempt lamports, the ProgramData at the PDA with slot and authority), at genesis and over an
 * existing ledger, and the command line's refusals (exit code 2, the flag named, nothing written).
 * The programs are not invoked here: this checks the accounts only.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { address, createSolanaRpc } from '@solana/kit';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { loadBpfProgram, loadUpgradeableProgram } from '../../node-core/node/program-flags.ts';
import { freePorts, killLeftovers, ROOT, runIsthmus, runToExit } from '../helpers/cli-process.ts';
import { startTestNode, tempLedger, waitFor } from '../helpers/node.ts';

after(killLeftovers);

const LOADER = new PublicKey('BPFLoaderUpgradeab1e11111111111111111111111');
const DEFAULT_PUBKEY = '11111111111111111111111111111111';
const FIXTURES = path.join(ROOT, 'test/fixtures/sbf');
const NOOP = path.join(FIXTURES, 'noop.so');
const HELLO = path.join(FIXTURES, 'hello_solana_program.so');
const CLOCK = path.join(FIXTURES, 'clock_sysvar_program.so');
const RENT_EXEMPT_EPOCH = 18446744073709551615;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-program-flags-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A keypair file as `solana-keygen new` writes it: the 64 secret key bytes as a JSON array. */
function keypairFile(name: string, kp = Keypair.generate()): { file: string; address: string } {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(Array.from(kp.secretKey)));
  return { file, address: kp.publicKey.toBase58() };
}

const u64le = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};

/** The ProgramData address, derived by web3.js independently of the node. */
const programDataOf = (program: string) => PublicKey.findProgramAddressSync([new PublicKey(program).toBuffer()], LOADER)[0].toBase58();

/** Checks the Program and ProgramData accounts of `program` as solana-test-validator writes them. */
async function assertProgramAccounts(c: Connection, program: string, elfFile: string, authority: string, slot: number): Promise<void> {
  const elf = fs.readFileSync(elfFile);
  const programData = programDataOf(program);
  const [p, pd] = await c.getMultipleAccountsInfo([new PublicKey(program), new PublicKey(programData)]);
  assert.ok(p && pd, `${program}: both accounts exist`);
  assert.equal(p.owner.toBase58(), LOADER.toBase58());
  assert.equal(p.executable, true);
  assert.deepEqual(p.data, Buffer.concat([Buffer.from([2, 0, 0, 0]), new PublicKey(programData).toBuffer()]));
  assert.equal(p.lamports, await c.getMinimumBalanceForRentExemption(36));
  assert.equal(p.rentEpoch, RENT_EXEMPT_EPOCH);

  assert.equal(pd.owner.toBase58(), LOADER.toBase58());
  assert.equal(pd.executable, false);
  const header = Buffer.concat([Buffer.from([3, 0, 0, 0]), u64le(slot), Buffer.from([1]), new PublicKey(authority).toBuffer()]);
  assert.equal(pd.data.length, 45 + elf.length);
  assert.deepEqual(pd.data.subarray(0, 45), header, `${program}: ProgramData {slot ${slot}, Some(${authority})}`);
  assert.ok(pd.data.subarray(45).equals(elf), `${program}: the ELF follows the metadata byte for byte`);
  assert.equal(pd.lamports, await c.getMinimumBalanceForRentExemption(45 + elf.length));
  assert.equal(pd.rentEpoch, RENT_EXEMPT_EPOCH);
}

describe('--bpf-program and --upgradeable-program', () => {
  it('at genesis: Program and ProgramData accounts as solana-test-validator makes them, read with web3.js and kit', async () => {
    const bpf = keypairFile('bpf-program.json');
    const upgradeable = Keypair.generate().publicKey.toBase58();
    const authority = keypairFile('authority.json');
    const final = Keypair.generate().publicKey.toBase58();
    const node = await startTestNode({
      programs: [
        loadBpfProgram(bpf.file, NOOP),
        loadUpgradeableProgram(upgradeable, HELLO, authority.file),
        loadUpgradeableProgram(final, CLOCK, 'none'),
      ],
    });
    try {
      const c = new Connection(node.rpcUrl, 'confirmed');
      // --bpf-program and `none`: the test validator writes Some(Pubkey::default()), not None.
      await assertProgramAccounts(c, bpf.address, NOOP, DEFAULT_PUBKEY, 0);
      await assertProgramAccounts(c, upgradeable, HELLO, authority.address, 0);
      await assertProgramAccounts(c, final, CLOCK, DEFAULT_PUBKEY, 0);

      // getProgramAccounts finds them under the loader; a dataSize filter picks the Program accounts.
      const ours = new Set([bpf.address, upgradeable, final].flatMap((p) => [p, programDataOf(p)]));
      const all = await c.getProgramAccounts(LOADER);
      assert.deepEqual(new Set(all.map((a) => a.pubkey.toBase58()).filter((a) => ours.has(a))), ours);
      const programs = await c.getProgramAccounts(LOADER, { filters: [{ dataSize: 36 }] });
      assert.deepEqual(programs.map((a) => a.pubkey.toBase58()).sort(), [bpf.address, upgradeable, final].sort());

      // jsonParsed, as Agave's account decoder names them.
      const rpc = createSolanaRpc(node.rpcUrl);
      const parsedProgram = (await rpc.getAccountInfo(address(upgradeable), { encoding: 'jsonParsed', commitment: 'confirmed' }).send()).value!.data as any;
      assert.deepEqual(parsedProgram, { program: 'bpf-upgradeable-loader', parsed: { type: 'program', info: { programData: programDataOf(upgradeable) } }, space: 36n });
      const parsedData = (await rpc.getAccountInfo(address(programDataOf(upgradeable)), { encoding: 'jsonParsed', commitment: 'confirmed' }).send()).value!.data as any;
      assert.equal(parsedData.program, 'bpf-upgradeable-loader');
      assert.equal(parsedData.parsed.type, 'programData');
      assert.equal(parsedData.parsed.info.slot, 0n);
      assert.equal(parsedData.parsed.info.authority, authority.address);
      assert.ok(Buffer.from(parsedData.parsed.info.data[0], 'base64').equals(fs.readFileSync(HELLO)));
      const finalData = (await rpc.getAccountInfo(address(programDataOf(final)), { encoding: 'jsonParsed', commitment: 'confirmed' }).send()).value!.data as any;
      assert.equal(finalData.parsed.info.authority, DEFAULT_PUBKEY);
    } finally {
      await node.stop();
    }
  });

  it('over an existing ledger: put in place at start, deployed at the last stored slot, kept after a restart without the flag', async () => {
    const ledger = tempLedger();
    try {
      let node = await startTestNode({ ledger });
      const before = new Connection(node.rpcUrl, 'confirmed');
      await waitFor(async () => (await before.getSlot('confirmed')) >= 3, { what: 'a few confirmed slots' });
      await node.stop();
      const lastStored = node.chain.confirmedSlot;

      const program = Keypair.generate().publicKey.toBase58();
      const authority = Keypair.generate().publicKey.toBase58();
      node = await startTestNode({ ledger, programs: [loadUpgradeableProgram(program, NOOP, authority)] });
      try {
        const c = new Connection(node.rpcUrl, 'confirmed');
        await assertProgramAccounts(c, program, NOOP, authority, lastStored);
        // Readable at every commitment at once, as --account's accounts are.
        const finalized = new Connection(node.rpcUrl, 'finalized');
        assert.equal((await finalized.getAccountInfo(new PublicKey(program)))?.executable, true);
      } finally {
        await node.stop();
      }

      node = await startTestNode({ ledger });
      try {
        await assertProgramAccounts(new Connection(node.rpcUrl, 'confirmed'), program, NOOP, authority, lastStored);
      } finally {
        await node.stop();
      }
    } finally {
      fs.rmSync(ledger, { recursive: true, force: true });
    }
  });

  it('the isthmus command takes both flags, an address or a keypair file', async () => {
    const program = keypairFile('cli-program.json');
    const upgradeable = Keypair.generate().publicKey.toBase58();
    const authority = Keypair.generate().publicKey.toBase58();
    const ledger = tempLedger();
    const [rpcPort, pubsubPort, evmPort] = await freePorts(3);
    const p = runIsthmus(['start', '--ledger', ledger, '--rpc-port', String(rpcPort), '--rpc-pubsub-port', String(pubsubPort), '--evm-rpc-port', String(evmPort),
      '--slot-ms', '50', '--bpf-program', program.file, NOOP, '--upgradeable-program', upgradeable, HELLO, authority]);
    try {
      await p.waitForOutput(/JSON RPC URL/);
      const c = new Connection(`http://127.0.0.1:${rpcPort}`, 'confirmed');
      await assertProgramAccounts(c, program.address, NOOP, DEFAULT_PUBKEY, 0);
      await assertProgramAccounts(c, upgradeable, HELLO, authority, 0);
    } finally {
      p.child.kill('SIGINT');
      await p.exited;
      fs.rmSync(ledger, { recursive: true, force: true });
    }
  });

  it('bad input: a clear error naming the flag, exit code 2, nothing written', async () => {
    const notElf = path.join(FIXTURES, 'README.md');
    const badKeypair = path.join(dir, 'bad-keypair.json');
    fs.writeFileSync(badKeypair, '[1, 2, 3]');
    const someAddress = Keypair.generate().publicKey.toBase58();
    const missing = path.join(dir, 'missing.so');
    const cases: Array<[string[], RegExp]> = [
      [['--bpf-program', someAddress, missing], /--bpf-program: program file .*missing\.so cannot be read \(ENOENT\)/],
      [['--bpf-program', someAddress, notElf], /--bpf-program: program file .*README\.md is not an ELF file/],
      [['--bpf-program', 'not-an-address', NOOP], /--bpf-program: ADDRESS_OR_KEYPAIR 'not-an-address' is neither a base-58 address nor a keypair file/],
      [['--bpf-program', badKeypair, NOOP], /--bpf-program: ADDRESS_OR_KEYPAIR .* nor a valid keypair file/],
      [['--upgradeable-program', someAddress, NOOP, badKeypair], /--upgradeable-program: UPGRADE_AUTHORITY .* nor a valid keypair file/],
      [['--upgradeable-program', someAddress, NOOP, 'nobody'], /--upgradeable-program: UPGRADE_AUTHORITY 'nobody'/],
      [['--upgradeable-program', someAddress, NOOP], /--upgradeable-program needs ADDRESS_OR_KEYPAIR, PROGRAM\.so and UPGRADE_AUTHORITY/],
      [['--bpf-program', someAddress], /--bpf-program needs ADDRESS_OR_KEYPAIR and PROGRAM\.so/],
      [['--bpf-program', someAddress, '--reset'], /--bpf-program needs ADDRESS_OR_KEYPAIR and PROGRAM\.so/],
      [[`--bpf-program=${someAddress}`, NOOP], /--bpf-program takes two values/],
    ];
    const parent = tempLedger();
    const ledger = path.join(parent, 'never-made');
    try {
      // Two at a time, each with a generous limit: ten commands at once on a busy 2-core machine outlast runToExit's default.
      const results: Awaited<ReturnType<typeof runToExit>>[] = [];
      for (let i = 0; i < cases.length; i += 2) {
        results.push(...(await Promise.all(cases.slice(i, i + 2).map(([args]) => runToExit(['start', '--ledger', ledger, ...args], { timeoutMs: 60_000 })))));
      }
      results.forEach((r, i) => {
        const [args, message] = cases[i]!;
        assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}, stderr ${r.stderr}`);
        assert.equal(r.stdout, '', args.join(' '));
        assert.equal(r.stderr.trim().split('\n').length, 1, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /^error: /);
        assert.match(r.stderr, message);
      });
      assert.equal(fs.existsSync(ledger), false, 'a refused command line created the ledger');
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});
