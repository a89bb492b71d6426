/**
 * The `isthmus` command line, run as the real command: help, flag errors (exit code 2), a taken port,
 * the start-up banner, the faucet keypair file, dev accounts from --mnemonic checked against an
 * independent BIP39 + SLIP-0010 derivation, and `npm start -- --help`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { Keypair } from '@solana/web3.js';
import WebSocket from 'ws';
import { deriveDevKeypairs } from '../../node-core/keys/mnemonic.ts';
import { freePorts, killLeftovers, ROOT, runIsthmus, runToExit } from '../helpers/cli-process.ts';
import { rpc, tempLedger } from '../helpers/node.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

after(killLeftovers);

const WORDS = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

// ---- an independent derivation: BIP39 seed (PBKDF2) and SLIP-0010 ed25519, on node:crypto only ----

function bip39Seed(words: string, passphrase = ''): Buffer {
  return crypto.pbkdf2Sync(Buffer.from(words.normalize('NFKD')), Buffer.from(`mnemonic${passphrase}`.normalize('NFKD')), 2048, 64, 'sha512');
}

function slip10Ed25519(seed: Uint8Array, hardenedPath: number[]): Buffer {
  let i = crypto.createHmac('sha512', 'ed25519 seed').update(seed).digest();
  for (const index of hardenedPath) {
    const ser = Buffer.alloc(4);
    ser.writeUInt32BE((index | 0x80000000) >>> 0);
    i = crypto.createHmac('sha512', i.subarray(32)).update(Buffer.concat([Buffer.from([0]), i.subarray(0, 32), ser])).digest();
  }
  return i.subarray(0, 32);
}

/** m/44'/501'/i'/0' */
const devAddress = (words: string, i: number) => Keypair.fromSeed(slip10Ed25519(bip39Seed(words), [44, 501, i, 0])).publicKey.toBase58();

async function call(url: string, method: string, params?: unknown): Promise<Json> {
  const r = await rpc(url, method, params);
  if (r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
  return r.result;
}

/** A port whose next port is free too (the default PubSub port is the RPC port + 1). */
async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const [p] = await freePorts(1);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen(p! + 1, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (ok && p! < 65_535) return p!;
  }
  throw new Error('no free port pair');
}

const FLAGS = [
  '--rpc-port', '--rpc-pubsub-port', '--bind-address', '--ledger', '--reset', '--slot-ms', '--mnemonic', '--quiet',
  '--root-depth', '--limit-ledger-size', '--slots-per-epoch', '--rpc-pubsub-enable-vote-subscription', '--help',
];

describe('the independent derivation itself', () => {
  test('matches the BIP39 (Trezor) and SLIP-0010 ed25519 reference vectors', () => {
    assert.equal(
      bip39Seed('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', 'TREZOR').toString('hex'),
      'c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04',
    );
    const seed = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');
    assert.equal(slip10Ed25519(seed, []).toString('hex'), '2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7');
    assert.equal(slip10Ed25519(seed, [0]).toString('hex'), '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3');
    assert.equal(slip10Ed25519(seed, [0, 1]).toString('hex'), 'b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2');
    assert.equal(Buffer.from(Keypair.fromSeed(slip10Ed25519(seed, [0])).publicKey.toBytes()).toString('hex'), '8c8a13df77a28f3445213a0f432fde644acaa215fc72dcdf300d5efaa85d350c');
  });

  test("node-core's deriveDevKeypairs agrees with it", () => {
    const ours = deriveDevKeypairs(WORDS, 10);
    ours.forEach((k, i) => assert.equal(k.address, devAddress(WORDS, i), `account ${i}`));
  });
});

describe('help and flag errors', () => {
  test('--help and start -h print the flags and exit 0', async () => {
    const runs = await Promise.all([['--help'], ['start', '-h']].map((argv) => runToExit(argv)));
    for (const r of runs) {
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
      assert.match(r.stdout, /Usage:/);
      for (const flag of FLAGS) assert.ok(r.stdout.includes(flag), `help lacks ${flag}`);
    }
    assert.equal(runs[1]!.stdout, runs[0]!.stdout);
  });

  test('an unknown flag or a bad value exits with code 2 and a one-line message naming the flag', async () => {
    const ledger = path.join(tempLedger(), 'never-made');
    // Representative cases: the parser's every rule is unit-tested (test/unit/cli-args.test.ts); this
    // checks the real command turns them into exit code 2 and one line on stderr.
    const cases: Array<[string[], string]> = [
      [['start', '--bogus'], '--bogus'],
      [['start', '--rpc-port', 'abc'], '--rpc-port'],
      [['start', '--slot-ms', '5'], '--slot-ms'],
      [['start', '--rpc-port'], '--rpc-port'],
      [['start', '--mnemonic', 'twelve words that are not a valid phrase at all really'], '--mnemonic'],
      [['bogus'], 'bogus'],
    ];
    // The limit only stops a hung command: a refused command line loads no node and exits in about a second.
    const results = await Promise.all(cases.map(([argv]) => runToExit([...argv, '--ledger', ledger], { timeoutMs: 120_000 })));
    results.forEach((r, i) => {
      const [argv, flag] = cases[i]!;
      assert.equal(r.code, 2, `${argv.join(' ')}: exit ${r.code}, stderr ${r.stderr}`);
      assert.equal(r.stdout, '', argv.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, `${argv.join(' ')}: ${r.stderr}`);
      assert.ok(r.stderr.includes(flag), `${argv.join(' ')}: ${JSON.stringify(r.stderr)} lacks ${flag}`);
    });
    assert.equal(fs.existsSync(ledger), false, 'a refused command line created the ledger');
    fs.rmSync(path.dirname(ledger), { recursive: true, force: true });
  });

  /** Runs `start` with one port held by another server; returns the result and that port. */
  async function withTakenPort(args: (taken: number, free: number) => string[]) {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as net.AddressInfo).port;
    const [free] = await freePorts(1);
    const ledger = tempLedger();
    try {
      return { taken, ...(await runToExit(['start', '--ledger', ledger, '--quiet', ...args(taken, free!)])) };
    } finally {
      blocker.close();
      fs.rmSync(ledger, { recursive: true, force: true });
    }
  }

  test('a taken RPC port: a one-line error naming the port and --rpc-port, non-zero exit', async () => {
    const r = await withTakenPort((taken) => ['--rpc-port', String(taken), '--evm-rpc-port', '0']);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.ok(r.stderr.includes(String(r.taken)) && r.stderr.includes('--rpc-port'), r.stderr);
  });

  test(
    'a taken PubSub port: a one-line error naming the port and --rpc-pubsub-port, non-zero exit',
    async () => {
      const r = await withTakenPort((taken, free) => ['--rpc-port', String(free), '--evm-rpc-port', '0', '--rpc-pubsub-port', String(taken)]);
      assert.notEqual(r.code, 0);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.ok(r.stderr.includes(String(r.taken)) && r.stderr.includes('--rpc-pubsub-port'), r.stderr);
    },
  );

  test('a taken EVM port: a one-line error naming the port and --evm-rpc-port, non-zero exit, nothing left listening', async () => {
    const [rpcPort] = await freePorts(1);
    const r = await withTakenPort((taken) => ['--rpc-port', String(rpcPort), '--rpc-pubsub-port', '0', '--evm-rpc-port', String(taken)]);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.ok(r.stderr.includes(String(r.taken)) && r.stderr.includes('--evm-rpc-port'), r.stderr);
    // The RPC port it had opened is free again.
    const probe = net.createServer();
    await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(rpcPort, '127.0.0.1', () => resolve()));
    probe.close();
  });
});

describe('start-up', () => {
  test('the banner: RPC and WebSocket URLs, genesis hash, identity, faucet keypair, 10 dev accounts from --mnemonic', async () => {
    const ledger = tempLedger();
    const port = await freePortPair();
    const p = runIsthmus(['start', '--ledger', ledger, '--rpc-port', String(port), '--evm-rpc-port', '0', '--slot-ms', '50', '--mnemonic', `  ${WORDS.toUpperCase()}  `]);
    try {
      await p.waitForOutput(/Press Ctrl-C to stop/);
      const out = p.stdout();
      const field = (label: string) => {
        const m = out.match(new RegExp(`${label}:\\s+(\\S+)`));
        assert.ok(m, `banner lacks ${label}:\n${out}`);
        return m[1]!;
      };
      const url = field('JSON RPC URL');
      assert.equal(url, `http://127.0.0.1:${port}`);
      assert.equal(field('WebSocket URL'), `ws://127.0.0.1:${port + 1}`);
      assert.equal(field('Genesis hash'), await call(url, 'getGenesisHash'));
      assert.equal(field('Identity'), (await call(url, 'getIdentity')).identity);
      const faucetPath = field('Faucet keypair');
      assert.equal(path.dirname(faucetPath), ledger);

      // The faucet keypair file: a JSON array of 64 byte values, readable by its owner only.
      const bytes = JSON.parse(fs.readFileSync(faucetPath, 'utf8'));
      assert.ok(Array.isArray(bytes) && bytes.length === 64 && bytes.every((b: unknown) => Number.isInteger(b) && (b as number) >= 0 && (b as number) <= 255));
      assert.equal(fs.statSync(faucetPath).mode & 0o777, 0o600);
      const faucet = Keypair.fromSecretKey(Uint8Array.from(bytes)); // checks the public half matches the secret
      assert.ok((await call(url, 'getBalance', [faucet.publicKey.toBase58()])).value > 0, 'the faucet holds lamports');

      // Ten dev accounts, each at m/44'/501'/i'/0' of the (normalized) words, funded.
      assert.ok(out.includes(`mnemonic: "${WORDS}"`), 'the normalized mnemonic is printed');
      const dev = [...out.matchAll(/^\s+\((\d)\) ([1-9A-HJ-NP-Za-km-z]{32,44})\s+([\d,.]+) SOL$/gm)];
      assert.equal(dev.length, 10, out);
      for (const [, index, address, sol] of dev) {
        assert.equal(address, devAddress(WORDS, Number(index)), `dev account ${index}`);
        assert.equal((await call(url, 'getBalance', [address])).value, Number(sol!.replaceAll(',', '')) * 1e9);
      }

      // The WebSocket URL accepts connections.
      const ws = new WebSocket(field('WebSocket URL'));
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      ws.close();

      p.child.kill('SIGTERM');
      assert.deepEqual(await p.exited, { code: 0, signal: null });
      assert.equal(p.stderr(), '');
    } finally {
      fs.rmSync(ledger, { recursive: true, force: true });
    }
  });

  test('npm start -- --help', async () => {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const r = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(npm, ['start', '--silent', '--', '--help'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('exit', (code) => resolve({ code, out }));
    });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /Usage:\n\s+isthmus start \[OPTIONS\]/);
    for (const flag of FLAGS) assert.ok(r.out.includes(flag), flag);
  });
});
