import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { HELP_TEXT, parseCommandLine } from '../../node-core/cli/args.ts';
import { defaultLedgerDir } from '../../node-core/common/data-dir.ts';
import type { NodeOptions } from '../../node-core/node/options.ts';

const WORDS = 'test test test test test test test test test test test junk';

function start(...args: string[]): NodeOptions {
  const r = parseCommandLine(['start', ...args]);
  assert.equal(r.command, 'start', JSON.stringify(r));
  return (r as { options: NodeOptions }).options;
}

function error(argv: string[], ...patterns: (string | RegExp)[]): void {
  const r = parseCommandLine(argv);
  assert.equal(r.command, 'error', `${JSON.stringify(argv)} gave ${JSON.stringify(r)}`);
  const { message } = r as { message: string };
  assert.match(message, /^error: /);
  for (const p of patterns) {
    if (typeof p === 'string') assert.ok(message.includes(p), `${JSON.stringify(message)} lacks ${JSON.stringify(p)}`);
    else assert.match(message, p);
  }
}

describe('parseCommandLine: commands and help', () => {
  test('help forms', () => {
    for (const argv of [['--help'], ['-h'], ['help'], ['help', 'start'], ['start', '--help'], ['start', '-h'], ['start', '--rpc-port', '1', '-h']]) {
      assert.deepEqual(parseCommandLine(argv), { command: 'help', text: HELP_TEXT }, JSON.stringify(argv));
    }
  });

  test('a command is required and must be known', () => {
    error([], 'no command', 'isthmus --help');
    error(['stop'], "unknown command 'stop'");
    error(['help', 'bogus'], "unknown help topic 'bogus'");
  });

  test('flags before the command', () => {
    error(['--rpc-port', '9000', 'start'], '--rpc-port must follow the command');
    error(['--version'], 'unknown flag --version');
  });

  test('HELP_TEXT lists every flag with its default', () => {
    for (const flag of [
      '--rpc-port PORT', '--rpc-pubsub-port PORT', '--bind-address ADDR', '--ledger DIR', '--reset', '--slot-ms MS',
      '--mnemonic', '--quiet', '--root-depth N', '--limit-ledger-size SLOTS', '--slots-per-epoch N',
      '--rpc-pubsub-enable-vote-subscription', '--evm-rpc-port PORT', '--network NAME', '--evm-chain-id ID', '--rpc-allowed-hosts HOSTS', '-h, --help',
      '--allow-chain-control',
    ]) assert.ok(HELP_TEXT.includes(flag), flag);
    for (const def of ['[default: 8899]', '[default: rpc port + 1]', '[default: 127.0.0.1]', `[default: ${defaultLedgerDir()}]`,
      '[default: 400]', '[default: 32]', '[default: 432000]', '[default: keep all]']) assert.ok(HELP_TEXT.includes(def), def);
    assert.match(HELP_TEXT, /Usage:\n {2}isthmus start \[OPTIONS\]/);
  });
});

describe('parseCommandLine: start', () => {
  test('defaults', () => {
    assert.deepEqual(start(), {
      rpcPort: 8899,
      bindAddress: '127.0.0.1',
      ledger: defaultLedgerDir(),
      reset: false,
      slotMs: 400,
      quiet: false,
      rootDepth: 32,
      slotsPerEpoch: 432_000,
      devAccountLamports: 100_000_000_000_000,
      enableVoteSubscription: false,
      evmRpcPort: 8545,
      rpcAllowedHosts: [],
    });
  });

  test('every flag', () => {
    const o = start(
      '--rpc-port', '9000', '--rpc-pubsub-port', '9100', '--bind-address', '0.0.0.0', '--ledger', 'some/dir', '--reset',
      '--slot-ms', '10', '--mnemonic', WORDS, '--quiet', '--root-depth', '1', '--limit-ledger-size', '1000',
      '--slots-per-epoch', '32', '--rpc-pubsub-enable-vote-subscription', '--evm-rpc-port', '9545', '--network', 'testnet',
      '--rpc-allowed-hosts', 'my.box, other.box', '--allow-chain-control',
    );
    assert.deepEqual(o, {
      rpcPort: 9000,
      rpcPubsubPort: 9100,
      bindAddress: '0.0.0.0',
      ledger: path.resolve('some/dir'),
      reset: true,
      slotMs: 10,
      mnemonic: WORDS,
      quiet: true,
      rootDepth: 1,
      limitLedgerSize: 1000,
      slotsPerEpoch: 32,
      devAccountLamports: 100_000_000_000_000,
      enableVoteSubscription: true,
      evmRpcPort: 9545,
      evmChainId: 111,
      rpcAllowedHosts: ['my.box', 'other.box'],
      allowChainControl: true,
    });
  });

  test('EVM flags: network names, chain id, ports', () => {
    assert.equal(start('--network', 'mainnet').evmChainId, 106);
    assert.equal(start('--network', 'devnet').evmChainId, 5705);
    assert.equal(start('--network', 'mainnet', '--evm-chain-id', '31337').evmChainId, 31337);
    assert.equal(start().evmChainId, undefined);
    assert.equal(start('--evm-rpc-port', '0', '--rpc-port', '0').evmRpcPort, 0);
    error(['start', '--network', 'goerli'], "--network must be mainnet, testnet or devnet, got 'goerli'");
    error(['start', '--evm-chain-id', '0'], '--evm-chain-id must be an integer');
    error(['start', '--evm-chain-id', '0x10'], '--evm-chain-id must be an integer');
    error(['start', '--evm-rpc-port', '8899'], '--evm-rpc-port must differ');
    error(['start', '--evm-rpc-port', '8900'], '--evm-rpc-port must differ');
    error(['start', '--evm-rpc-port', '70000'], '--evm-rpc-port must be an integer from 0 to 65535');
  });

  test('--flag=value form, range edges, last repeat wins', () => {
    const o = start('--rpc-port=0', '--slot-ms=60000', '--root-depth=32', '--rpc-port', '65534', '--ledger=/abs/x');
    assert.equal(o.rpcPort, 65534);
    assert.equal(o.slotMs, 60000);
    assert.equal(o.rootDepth, 32);
    assert.equal(o.ledger, path.resolve('/abs/x'));
    assert.equal(o.rpcPubsubPort, undefined);
    assert.equal(start('--rpc-port', '0').rpcPort, 0);
    assert.equal(start('--rpc-port', '0', '--rpc-pubsub-port', '0').rpcPubsubPort, 0);
    assert.equal(start('--rpc-port', '65535', '--rpc-pubsub-port', '1').rpcPubsubPort, 1);
    assert.equal(start('--slots-per-epoch', '9007199254740991').slotsPerEpoch, Number.MAX_SAFE_INTEGER);
    assert.equal(start('--limit-ledger-size', '5000000').limitLedgerSize, 5_000_000);
  });

  test('bind addresses', () => {
    for (const a of ['127.0.0.1', '0.0.0.0', '::', '::1', '192.168.1.20', 'localhost']) assert.equal(start('--bind-address', a).bindAddress, a);
  });

  test('the mnemonic is normalized', () => {
    assert.equal(start('--mnemonic', `  ${WORDS.toUpperCase().replaceAll(' ', '  ')}\n`).mnemonic, WORDS);
  });
});

describe('parseCommandLine: bad start flags name the flag', () => {
  const intFlags: [string, string[], string][] = [
    ['--rpc-port', ['abc', '65536', '-1', '1.5', '1e3', '0x10', '+1', '', ' 1'], 'from 0 to 65535'],
    ['--rpc-pubsub-port', ['abc', '65536', '-5'], 'from 0 to 65535'],
    ['--slot-ms', ['9', '0', '60001', 'fast'], 'from 10 to 60000'],
    ['--root-depth', ['0', '33', 'deep'], 'from 1 to 32'],
    ['--limit-ledger-size', ['999', '0', 'lots', '99999999999999999999'], 'of at least 1000'],
    ['--slots-per-epoch', ['31', '0', 'x', '9007199254740992'], 'of at least 32'],
  ];
  for (const [flag, bads, range] of intFlags) {
    test(flag, () => {
      for (const bad of bads) {
        error(['start', `${flag}=${bad}`], `${flag} must be an integer ${range}, got '${bad}'`);
        if (bad !== '' && !bad.startsWith(' ')) error(['start', flag, bad], `${flag} must be an integer ${range}, got '${bad}'`);
      }
    });
  }

  test("error: --rpc-port must be an integer from 0 to 65535, got 'abc'", () => {
    assert.deepEqual(parseCommandLine(['start', '--rpc-port', 'abc']), {
      command: 'error',
      message: "error: --rpc-port must be an integer from 0 to 65535, got 'abc'",
    });
  });

  test('unknown flags', () => {
    assert.deepEqual(parseCommandLine(['start', '--foo']), { command: 'error', message: 'error: unknown flag --foo (see isthmus --help)' });
    error(['start', '--foo=1'], 'unknown flag --foo');
    error(['start', '-x'], 'unknown flag -x');
    error(['start', '--RPC-PORT', '1'], 'unknown flag --RPC-PORT');
    error(['start', '--reset', '--rpc-port', '1', '--nope'], 'unknown flag --nope');
    error(['start', '--toString'], 'unknown flag --toString');
    error(['start', '--constructor=1'], 'unknown flag --constructor');
    error(['start', '--__proto__'], 'unknown flag --__proto__');
  });

  test('missing values', () => {
    for (const flag of ['--rpc-port', '--rpc-pubsub-port', '--bind-address', '--ledger', '--slot-ms', '--mnemonic', '--root-depth', '--limit-ledger-size', '--slots-per-epoch']) {
      error(['start', flag], `${flag} needs a value`);
      error(['start', flag, '--reset'], `${flag} needs a value, got the flag --reset`);
    }
  });

  test('values given to switches', () => {
    for (const flag of ['--reset', '--quiet', '--rpc-pubsub-enable-vote-subscription', '--help']) {
      error(['start', `${flag}=yes`], `${flag} takes no value, got 'yes'`);
    }
  });

  test('stray arguments', () => {
    error(['start', 'now'], "unexpected argument 'now'");
    error(['start', '--reset', 'true'], "unexpected argument 'true'");
    error(['start', '--', '--reset'], "unexpected argument '--reset'");
  });

  test('--bind-address', () => {
    for (const bad of ['nowhere', '256.0.0.1', '1.2.3', 'example.com', ' ']) {
      error(['start', '--bind-address', bad], `--bind-address must be an IPv4 or IPv6 address, got '${bad}'`);
    }
  });

  test('--ledger', () => {
    error(['start', '--ledger='], '--ledger needs a folder path');
    error(['start', '--ledger', '  '], '--ledger needs a folder path');
  });

  test('--mnemonic', () => {
    for (const bad of ['a b c', 'test test test test test test test test test test test test', WORDS.replace('junk', 'junkk'), '']) {
      error(['start', `--mnemonic=${bad}`], '--mnemonic is not a valid BIP39 phrase');
    }
  });

  test('port clashes', () => {
    error(['start', '--rpc-port', '65535'], '--rpc-port 65535 leaves no port for PubSub', '--rpc-pubsub-port');
    error(['start', '--rpc-port', '9000', '--rpc-pubsub-port', '9000'], '--rpc-pubsub-port must differ from --rpc-port');
    error(['start', '--rpc-pubsub-port', '8899'], '--rpc-pubsub-port must differ from --rpc-port');
  });
});

describe('parseCommandLine: --bpf-program and --upgradeable-program', () => {
  const noop = path.resolve('test/fixtures/sbf/noop.so');
  const [a, b, auth] = ['3xTygm1mZ1dF2ndoSKdtqUBFZaqgeaDVCoW1ra5XwudF', 'SysvarC1ock11111111111111111111111111111111', 'Vote111111111111111111111111111111111111111'];

  test('in the help, with their values', () => {
    assert.ok(HELP_TEXT.includes('--bpf-program ADDRESS_OR_KEYPAIR PROGRAM.so'));
    assert.ok(HELP_TEXT.includes('--upgradeable-program ADDRESS_OR_KEYPAIR PROGRAM.so UPGRADE_AUTHORITY'));
  });

  test('repeatable, in order, among other flags; none and --bpf-program both mean the default authority', () => {
    const o = start('--bpf-program', a, noop, '--quiet', '--upgradeable-program', b, noop, auth, '--upgradeable-program', a, noop, 'none', '--slot-ms', '100');
    assert.deepEqual(o.programs!.map((p) => [p.flag, p.programId, p.upgradeAuthority, p.file, p.elf.length]), [
      ['--bpf-program', a, '11111111111111111111111111111111', noop, 1592],
      ['--upgradeable-program', b, auth, noop, 1592],
      ['--upgradeable-program', a, '11111111111111111111111111111111', noop, 1592],
    ]);
    assert.equal(o.quiet, true);
    assert.equal(o.slotMs, 100);
    assert.equal(start().programs, undefined);
  });

  test('too few values, or a value that is a flag', () => {
    error(['start', '--bpf-program'], '--bpf-program needs ADDRESS_OR_KEYPAIR and PROGRAM.so');
    error(['start', '--upgradeable-program', a, noop, '--quiet'], '--upgradeable-program needs ADDRESS_OR_KEYPAIR, PROGRAM.so and UPGRADE_AUTHORITY');
    error(['start', `--upgradeable-program=${a}`, noop, 'none'], '--upgradeable-program takes three values');
  });
});

describe('verify-ledger', () => {
  test('--ledger DIR, resolved; the default ledger without it; --help', () => {
    assert.deepEqual(parseCommandLine(['verify-ledger', '--ledger', 'some/dir']), { command: 'verify-ledger', ledger: path.resolve('some/dir') });
    assert.deepEqual(parseCommandLine(['verify-ledger']), { command: 'verify-ledger', ledger: defaultLedgerDir() });
    assert.deepEqual(parseCommandLine(['verify-ledger', '-h']), { command: 'help', text: HELP_TEXT });
    assert.match(HELP_TEXT, /isthmus verify-ledger \[--ledger DIR\]/);
  });

  test('bad input is a usage error naming it', () => {
    for (const [argv, pattern] of [
      [['verify-ledger', '--ledger', ' '], /--ledger needs a folder path/],
      [['verify-ledger', '--rpc-port', '1'], /verify-ledger: Unknown option '--rpc-port'/],
      [['verify-ledger', 'dir'], /verify-ledger: .*'dir'/],
    ] as Array<[string[], RegExp]>) {
      const r = parseCommandLine(argv);
      assert.equal(r.command, 'error', JSON.stringify(argv));
      assert.match((r as { message: string }).message, pattern);
    }
  });
});
