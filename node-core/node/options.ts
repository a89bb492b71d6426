import type { Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import type { ProgramToLoad } from './program-flags.ts';
/** Everything that configures one running node; the CLI, the tests and Electron all build one of these. */
export interface NodeOptions {
  /** HTTP JSON-RPC port (0 = any free port). */
  rpcPort: number;
  /** PubSub WebSocket port; defaults to rpcPort + 1 (or any free port when rpcPort is 0). */
  rpcPubsubPort?: number;
  bindAddress: string;
  /** Ledger folder; created if missing. */
  ledger: string;
  /** Start from a new genesis, deleting what the ledger held. */
  reset: boolean;
  slotMs: number;
  /** BIP39 words for the dev accounts; when absent a new mnemonic is generated with a new ledger. */
  mnemonic?: string;
  quiet: boolean;
  /** Slots a confirmed slot needs above it before it is rooted (Solana's 32 by default). */
  rootDepth: number;
  /** Keep at most this many slots of block history (undefined = keep all; at least MIN_LIMIT_LEDGER_SIZE). */
  limitLedgerSize?: number;
  slotsPerEpoch: number;
  /** Lamports for each of the 10 dev accounts at genesis. */
  devAccountLamports: number;
  /** Allow voteSubscribe on PubSub. */
  enableVoteSubscription: boolean;
  /** Ethereum JSON-RPC (HTTP and WebSocket) port (0 = any free port). */
  evmRpcPort: number;
  /** The EVM chain id of a new ledger [default: devnet's, 5705]. */
  evmChainId?: number;
  /** Host names the HTTP and WebSocket endpoints answer beside localhost and IP addresses ("*": any). */
  rpcAllowedHosts: string[];
  /** Accounts to load (--account, --account-dir): into a new genesis, or over an existing ledger's at start. */
  accounts?: Array<{ address: Address; account: Account }>;
  /**
   * Programs to put in place (--bpf-program, --upgradeable-program), as solana-test-validator does:
   * into a new genesis (deployed at slot 0), or over an existing ledger's accounts at start. They
   * come after `accounts`, so a program wins over an account file at the same address.
   */
  programs?: ProgramToLoad[];
  /** JSON-RPC URLs of known validators: the health check compares the node's slot with theirs. */
  knownValidators?: string[];
  /** How often the known validators are polled (default 1 s). */
  knownValidatorPollMs?: number;
  /** Answer the chain-control methods (state edits, time, mining, snapshots) on a non-loopback bind address too. */
  allowChainControl?: boolean;
  /** The built explorer served at /explorer/ [default: renderer/dist of this checkout]. */
  explorerDir?: string;
}

export const DEFAULT_OPTIONS = {
  rpcPort: 8899,
  bindAddress: '127.0.0.1',
  reset: false,
  slotMs: 400,
  quiet: false,
  rootDepth: 32,
  slotsPerEpoch: 432_000,
  devAccountLamports: 100_000_000_000_000,
  enableVoteSubscription: false,
  evmRpcPort: 8545,
  rpcAllowedHosts: [] as string[],
} satisfies Partial<NodeOptions>;

/** The fewest slots `--limit-ledger-size` (and the desktop app's setting) may keep. */
export const MIN_LIMIT_LEDGER_SIZE = 1000;
