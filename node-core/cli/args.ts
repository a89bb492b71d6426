import net from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultLedgerDir } from '../common/data-dir.ts';
import { normalizeMnemonic, validateMnemonic } from '../keys/mnemonic.ts';
import { DEFAULT_OPTIONS, MIN_LIMIT_LEDGER_SIZE, type NodeOptions } from '../node/options.ts';
import { CHAIN_IDS, type NetworkName } from '../evm/constants.ts';
import { AccountFileError, loadAccountDir, loadAccountFile } from '../ledger/account-files.ts';
import { loadBpfProgram, loadUpgradeableProgram, ProgramFlagError } from '../node/program-flags.ts';

export type CommandLine =
  | { command: 'start'; options: NodeOptions }
  | { command: 'verify-ledger'; ledger: string }
  | { command: 'help'; text: string }
  | { command: 'error'; message: string };

interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Name of the flag's value in the help, e.g. PORT. */
  arg?: string;
  /** Inclusive range of an integer flag. */
  int?: [min: number, max: number];
  help: string;
  defaultText?: string;
  /** May be given more than once. */
  multiple?: boolean;
}

const MAX_PORT = 65_535;

const FLAGS = {
  'rpc-port': {
    type: 'string', arg: 'PORT', int: [0, MAX_PORT], defaultText: String(DEFAULT_OPTIONS.rpcPort),
    help: 'JSON RPC port (0 picks a free port)',
  },
  'rpc-pubsub-port': {
    type: 'string', arg: 'PORT', int: [0, MAX_PORT], defaultText: 'rpc port + 1',
    help: 'PubSub WebSocket port',
  },
  'bind-address': {
    type: 'string', arg: 'ADDR', defaultText: DEFAULT_OPTIONS.bindAddress,
    help: 'IP address to listen on',
  },
  'allow-chain-control': {
    type: 'boolean',
    help: 'Answer the methods that edit the chain (anvil_*, evm_*, surfnet_*: balances, accounts, time, mining, snapshots, reset to genesis) on a non-loopback --bind-address too; on loopback they always answer',
  },
  ledger: {
    type: 'string', arg: 'DIR', defaultText: defaultLedgerDir(),
    help: 'Ledger folder; created if missing',
  },
  reset: { type: 'boolean', help: 'Start from a new genesis, deleting the existing ledger' },
  'slot-ms': {
    type: 'string', arg: 'MS', int: [10, 60_000], defaultText: String(DEFAULT_OPTIONS.slotMs),
    help: 'Milliseconds per slot (10 to 60000)',
  },
  mnemonic: {
    type: 'string', arg: '"WORDS"', defaultText: 'new words with a new ledger',
    help: 'BIP39 words for the 10 dev accounts (m/44\'/501\'/i\'/0\')',
  },
  quiet: { type: 'boolean', help: 'Print nothing but errors' },
  'root-depth': {
    type: 'string', arg: 'N', int: [1, 32], defaultText: String(DEFAULT_OPTIONS.rootDepth),
    help: 'Blocks above a confirmed block before it is rooted (1 to 32)',
  },
  'limit-ledger-size': {
    type: 'string', arg: 'SLOTS', int: [MIN_LIMIT_LEDGER_SIZE, Number.MAX_SAFE_INTEGER], defaultText: 'keep all',
    help: `Keep this many slots of block history (at least ${MIN_LIMIT_LEDGER_SIZE})`,
  },
  'slots-per-epoch': {
    type: 'string', arg: 'N', int: [32, Number.MAX_SAFE_INTEGER],
    defaultText: String(DEFAULT_OPTIONS.slotsPerEpoch),
    help: 'Slots in each epoch (at least 32)',
  },
  'rpc-pubsub-enable-vote-subscription': { type: 'boolean', help: 'Allow voteSubscribe on PubSub' },
  'evm-rpc-port': {
    type: 'string', arg: 'PORT', int: [0, MAX_PORT], defaultText: `${DEFAULT_OPTIONS.evmRpcPort}; a free port when --rpc-port is 0`,
    help: 'Ethereum JSON-RPC port, HTTP and WebSocket (0 picks a free port)',
  },
  network: {
    type: 'string', arg: 'NAME', defaultText: 'devnet',
    help: 'EVM network of a new ledger: mainnet (chain id 106), testnet (111) or devnet (5705)',
  },
  'evm-chain-id': {
    type: 'string', arg: 'ID', int: [1, Number.MAX_SAFE_INTEGER], defaultText: 'the network\'s',
    help: 'EVM chain id of a new ledger (instead of --network\'s)',
  },
  'rpc-allowed-hosts': {
    type: 'string', arg: 'HOSTS', defaultText: 'localhost and IP addresses only',
    help: 'Comma-separated host names the HTTP and WebSocket endpoints also answer ("*": any); others get 403',
  },
  account: {
    type: 'string', arg: 'ADDRESS FILE', multiple: true,
    help: 'Load an account from a `solana account --output json` file (ADDRESS -: the file\'s pubkey; also looked up under tests/fixtures) into a new genesis or over an existing ledger; repeatable',
  },
  'bpf-program': {
    type: 'string', arg: 'ADDRESS_OR_KEYPAIR PROGRAM.so', multiple: true,
    help: 'Put an SBF program (ELF) at ADDRESS_OR_KEYPAIR (a base-58 address or a keypair file) with upgrades disabled, as solana-test-validator does: BPF Upgradeable Loader, upgrade authority 11111111111111111111111111111111; into a new genesis or over an existing ledger; repeatable',
  },
  'upgradeable-program': {
    type: 'string', arg: 'ADDRESS_OR_KEYPAIR PROGRAM.so UPGRADE_AUTHORITY', multiple: true,
    help: 'Put an upgradeable SBF program in place, as solana-test-validator does: Program and ProgramData accounts, deployed at slot 0 of a new genesis or at the last stored slot of an existing ledger; UPGRADE_AUTHORITY is an address, a keypair file or none (upgrades disabled); repeatable',
  },
  'account-dir': {
    type: 'string', arg: 'DIR', multiple: true,
    help: 'Load every *.json account file in DIR (see --account); repeatable',
  },
  'known-validator': {
    type: 'string', arg: 'URL', multiple: true,
    help: 'JSON RPC URL of a known validator; GET /health and getHealth report this node behind once its slot trails the highest of theirs by 150 (repeatable)',
  },
  'trusted-validator': { type: 'string', arg: 'URL', multiple: true, help: 'The same as --known-validator (its older name)' },
  help: { type: 'boolean', short: 'h', help: 'Print this help' },
} satisfies Record<string, FlagSpec>;

type FlagName = keyof typeof FLAGS;
const FLAG_SPECS: Record<string, FlagSpec> = FLAGS;

// parseArgs gets only type and short: the help metadata above is not for it (it would treat `default` as its own).
type ParseOptions = {
  [K in FlagName]: { type: (typeof FLAGS)[K]['type']; short?: string; multiple: (typeof FLAGS)[K] extends { multiple: true } ? true : false };
};
const PARSE_OPTIONS = Object.fromEntries(
  Object.entries(FLAG_SPECS).map(([name, { type, short, multiple }]) => [name, { type, ...(short ? { short } : {}), multiple: multiple === true }]),
) as ParseOptions;

const MAX_FLAG_COLUMN = 44;

function flagLines(): string {
  const rows = Object.entries(FLAG_SPECS).map(([name, spec]) => [
    `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.arg ? ` ${spec.arg}` : ''}`,
    spec.help + (spec.defaultText !== undefined ? ` [default: ${spec.defaultText}]` : ''),
  ]);
  // A flag with a long list of values (--upgradeable-program) has its help on the next line.
  const wide = (left: string) => left.length > MAX_FLAG_COLUMN;
  const width = Math.max(...rows.map(([left]) => left!).filter((left) => !wide(left)).map((left) => left.length)) + 2;
  return rows.map(([left, right]) => (wide(left!) ? `  ${left}\n  ${' '.repeat(width)}${right}` : `  ${left!.padEnd(width)}${right}`)).join('\n');
}

export const HELP_TEXT = `isthmus: a local Solana-style blockchain node

Usage:
  isthmus start [OPTIONS]
  isthmus evm transfer-to-evm [--lamports] <EVM_ADDRESS> <AMOUNT>
  isthmus verify-ledger [--ledger DIR]
  isthmus help
  isthmus --help

Commands:
  start    Run the node (JSON RPC on --rpc-port, PubSub on --rpc-pubsub-port, Ethereum JSON-RPC on --evm-rpc-port)
  evm      Move native tokens into the EVM space (isthmus evm --help)
  verify-ledger
           Check value conservation across the spaces at a stopped ledger's last stored slot:
           native lamports + burned fees = genesis supply + inflation minted, native lamports =
           the recorded supply, EVM balances = the EVM state account's backing x 10^9 wei.
           --ledger DIR [default: ${defaultLedgerDir()}]. Exit 0: it holds; 1: it does not (a
           report of each broken equation); 2: usage error, not a ledger, or a node runs on it
  help     Print this help

Options for start:
${flagLines()}
`;

const fail = (message: string): CommandLine => ({ command: 'error', message: `error: ${message}` });
const SEE_HELP = '(see isthmus --help)';

export function parseCommandLine(argv: string[]): CommandLine {
  const [command, ...rest] = argv;
  if (command === undefined) return fail(`no command given; try 'isthmus start' ${SEE_HELP}`);
  if (command === '--help' || command === '-h') return { command: 'help', text: HELP_TEXT };
  if (command === 'help') {
    if (rest.length === 0 || (rest.length === 1 && rest[0] === 'start')) return { command: 'help', text: HELP_TEXT };
    return fail(`unknown help topic '${rest.join(' ')}' ${SEE_HELP}`);
  }
  if (command === 'start') return parseStart(rest);
  if (command === 'verify-ledger') return parseVerifyLedger(rest);
  if (command.startsWith('-')) {
    const name = command.replace(/^--?/, '').split('=')[0]!;
    if (Object.hasOwn(FLAG_SPECS, name)) return fail(`${command} must follow the command, as in 'isthmus start ${command}'`);
    return fail(`unknown flag ${command} ${SEE_HELP}`);
  }
  return fail(`unknown command '${command}' ${SEE_HELP}`);
}

/** The flags that take more than one value (parseArgs cannot express them): their value names, in order. */
const MULTI_VALUE_FLAGS: Record<string, { values: string[]; example: string }> = {
  '--account': { values: ['ADDRESS', 'FILE'], example: '--account - account.json' },
  '--bpf-program': { values: ['ADDRESS_OR_KEYPAIR', 'PROGRAM.so'], example: '--bpf-program program-keypair.json program.so' },
  '--upgradeable-program': { values: ['ADDRESS_OR_KEYPAIR', 'PROGRAM.so', 'UPGRADE_AUTHORITY'], example: '--upgradeable-program program-keypair.json program.so none' },
};

const valueList = (names: string[]) => (names.length === 2 ? names.join(' and ') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`);

function parseStart(argv: string[]): CommandLine {
  // The multi-value flags are taken out first; the rest goes to parseArgs.
  const multi = new Map<string, string[][]>(Object.keys(MULTI_VALUE_FLAGS).map((f) => [f, []]));
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      args.push(...argv.slice(i));
      break;
    }
    const eq = a.indexOf('=');
    const withValue = eq > 0 ? a.slice(0, eq) : null;
    if (withValue !== null && Object.hasOwn(MULTI_VALUE_FLAGS, withValue)) {
      const spec = MULTI_VALUE_FLAGS[withValue]!;
      return fail(`${withValue} takes ${spec.values.length === 2 ? 'two' : 'three'} values: ${withValue} ${spec.values.join(' ')} ${SEE_HELP}`);
    }
    const spec = Object.hasOwn(MULTI_VALUE_FLAGS, a) ? MULTI_VALUE_FLAGS[a] : undefined;
    if (!spec) {
      args.push(a);
      continue;
    }
    const values = argv.slice(i + 1, i + 1 + spec.values.length);
    // `-` (an account file's own pubkey) is a value; anything else starting with -- is the next flag.
    if (values.length < spec.values.length || values.some((v) => v.startsWith('--'))) {
      return fail(`${a} needs ${valueList(spec.values)}, as in ${spec.example} ${SEE_HELP}`);
    }
    multi.get(a)!.push(values);
    i += spec.values.length;
  }
  const accountPairs = multi.get('--account')!;
  // A lenient pass first, only to turn each mistake into a message naming its flag; the strict
  // parseArgs below then agrees with what this pass accepted.
  const { tokens } = parseArgs({ args, options: PARSE_OPTIONS, strict: false, allowPositionals: true, tokens: true });
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help' && t.value === undefined)) return { command: 'help', text: HELP_TEXT };
  for (const t of tokens) {
    if (t.kind === 'positional') return fail(`unexpected argument '${t.value}' ${SEE_HELP}`);
    if (t.kind !== 'option') continue;
    const spec = Object.hasOwn(FLAG_SPECS, t.name) ? FLAG_SPECS[t.name]! : undefined;
    if (spec === undefined) return fail(`unknown flag ${t.rawName} ${SEE_HELP}`);
    const flag = `--${t.name}`;
    if (spec.type === 'boolean') {
      if (t.value !== undefined) return fail(`${flag} takes no value, got '${t.value}'`);
      continue;
    }
    if (t.value === undefined) return fail(`${flag} needs a value ${SEE_HELP}`);
    if (!t.inlineValue && t.value.startsWith('-')) {
      if (spec.int && /^-\d/.test(t.value)) return fail(rangeMessage(flag, spec.int, t.value));
      return fail(`${flag} needs a value, got the flag ${t.value} ${SEE_HELP}`);
    }
  }

  let values: ReturnType<typeof strictParse>['values'];
  try {
    ({ values } = strictParse(args));
  } catch (e) {
    return fail((e as Error).message);
  }

  const ints: Partial<Record<FlagName, number>> = {};
  for (const [name, spec] of Object.entries(FLAG_SPECS) as [FlagName, FlagSpec][]) {
    const raw = values[name];
    if (!spec.int || typeof raw !== 'string') continue;
    const n = parseInteger(raw, spec.int);
    if (n === undefined) return fail(rangeMessage(`--${name}`, spec.int, raw));
    ints[name] = n;
  }

  const bindAddress = values['bind-address'] ?? DEFAULT_OPTIONS.bindAddress;
  if (net.isIP(bindAddress) === 0 && bindAddress !== 'localhost') {
    return fail(`--bind-address must be an IPv4 or IPv6 address, got '${bindAddress}'`);
  }
  if (values.ledger !== undefined && values.ledger.trim() === '') return fail('--ledger needs a folder path');
  const mnemonic = values.mnemonic;
  if (mnemonic !== undefined && !validateMnemonic(mnemonic)) {
    return fail('--mnemonic is not a valid BIP39 phrase (12 to 24 English words with a correct checksum)');
  }

  const rpcPort = ints['rpc-port'] ?? DEFAULT_OPTIONS.rpcPort;
  const rpcPubsubPort = ints['rpc-pubsub-port'];
  if (rpcPubsubPort === undefined && rpcPort === MAX_PORT) {
    return fail(`--rpc-port ${MAX_PORT} leaves no port for PubSub at rpc port + 1; set --rpc-pubsub-port`);
  }
  if (rpcPubsubPort !== undefined && rpcPubsubPort !== 0 && rpcPubsubPort === rpcPort) {
    return fail(`--rpc-pubsub-port must differ from --rpc-port (both ${rpcPort})`);
  }

  const evmRpcPort = ints['evm-rpc-port'] ?? (rpcPort === 0 ? 0 : DEFAULT_OPTIONS.evmRpcPort);
  if (evmRpcPort !== 0 && (evmRpcPort === rpcPort || evmRpcPort === (rpcPubsubPort ?? rpcPort + 1))) {
    return fail(`--evm-rpc-port must differ from the JSON RPC and PubSub ports (${evmRpcPort})`);
  }
  const network = values.network;
  if (network !== undefined && !Object.hasOwn(CHAIN_IDS, network)) return fail(`--network must be mainnet, testnet or devnet, got '${network}'`);
  const evmChainId = ints['evm-chain-id'] ?? (network !== undefined ? CHAIN_IDS[network as NetworkName] : undefined);
  const allowedHosts = (values['rpc-allowed-hosts'] ?? '').split(',').map((h) => h.trim()).filter((h) => h !== '');

  const options: NodeOptions = {
    rpcPort,
    bindAddress,
    ledger: values.ledger !== undefined ? path.resolve(values.ledger) : defaultLedgerDir(),
    reset: values.reset ?? DEFAULT_OPTIONS.reset,
    slotMs: ints['slot-ms'] ?? DEFAULT_OPTIONS.slotMs,
    quiet: values.quiet ?? DEFAULT_OPTIONS.quiet,
    rootDepth: ints['root-depth'] ?? DEFAULT_OPTIONS.rootDepth,
    slotsPerEpoch: ints['slots-per-epoch'] ?? DEFAULT_OPTIONS.slotsPerEpoch,
    devAccountLamports: DEFAULT_OPTIONS.devAccountLamports,
    enableVoteSubscription: values['rpc-pubsub-enable-vote-subscription'] ?? DEFAULT_OPTIONS.enableVoteSubscription,
    evmRpcPort,
    rpcAllowedHosts: allowedHosts,
  };
  if (values['allow-chain-control']) options.allowChainControl = true;
  if (evmChainId !== undefined) options.evmChainId = evmChainId;
  if (rpcPubsubPort !== undefined) options.rpcPubsubPort = rpcPubsubPort;
  if (mnemonic !== undefined) options.mnemonic = normalizeMnemonic(mnemonic);
  if (ints['limit-ledger-size'] !== undefined) options.limitLedgerSize = ints['limit-ledger-size'];
  if (accountPairs.length > 0 || values['account-dir'] !== undefined) {
    try {
      options.accounts = [...accountPairs.map(([address, file]) => loadAccountFile(address!, file!)), ...(values['account-dir'] ?? []).flatMap((dir) => loadAccountDir(dir))];
    } catch (e) {
      if (e instanceof AccountFileError) return fail(e.message);
      throw e;
    }
  }
  try {
    const programs = [
      ...multi.get('--bpf-program')!.map(([address, file]) => loadBpfProgram(address!, file!)),
      ...multi.get('--upgradeable-program')!.map(([address, file, authority]) => loadUpgradeableProgram(address!, file!, authority!)),
    ];
    if (programs.length > 0) options.programs = programs;
  } catch (e) {
    if (e instanceof ProgramFlagError) return fail(e.message);
    throw e;
  }
  const known: string[] = [];
  for (const flag of ['known-validator', 'trusted-validator'] as const) {
    for (const url of (values[flag] ?? []) as unknown as string[]) {
      if (!isHttpUrl(url)) return fail(`--${flag} must be an http:// or https:// JSON RPC URL, got '${url}'`);
      known.push(url);
    }
  }
  if (known.length > 0) options.knownValidators = known;
  return { command: 'start', options };
}

function parseVerifyLedger(argv: string[]): CommandLine {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { ledger: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }));
  } catch (e) {
    return fail(`verify-ledger: ${(e as Error).message} ${SEE_HELP}`);
  }
  if (values.help) return { command: 'help', text: HELP_TEXT };
  if (values.ledger !== undefined && values.ledger.trim() === '') return fail('--ledger needs a folder path');
  return { command: 'verify-ledger', ledger: values.ledger !== undefined ? path.resolve(values.ledger) : defaultLedgerDir() };
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

const strictParse = (args: string[]) => parseArgs({ args, options: PARSE_OPTIONS, strict: true, allowPositionals: false });

/** Plain decimal digits only: no sign, exponent, hex or fraction. */
function parseInteger(raw: string, [min, max]: [number, number]): number | undefined {
  if (!/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
}

function rangeMessage(flag: string, [min, max]: [number, number], raw: string): string {
  const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
  return `${flag} must be an integer ${range}, got '${raw}'`;
}
