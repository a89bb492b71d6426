/**
 * `isthmus start` once its command line is parsed: starts the node, prints where to reach it, stops
 * on a signal. Loaded only then, so a refused command line or --help answers without loading the node.
 */
import { LAMPORTS_PER_SOL } from '../ledger/genesis.ts';
import { PortInUseError } from '../transport/listen.ts';
import { LedgerLockedError } from '../ledger/ledger-lock.ts';
import { LedgerStateError } from '../ledger/open-chain.ts';
import { LedgerError } from '../ledger/ledger-folder.ts';
import { startNode, type RunningNode } from '../node/start.ts';
import type { NodeOptions } from '../node/options.ts';

const sol = (lamports: number) => (lamports / LAMPORTS_PER_SOL).toLocaleString('en-US', { maximumFractionDigits: 9 });

function banner(node: RunningNode, options: NodeOptions): string {
  const lines = [
    `Isthmus ${node.chain.genesis.clusterType} node`,
    `  JSON RPC URL:      ${node.rpcUrl}`,
    `  WebSocket URL:     ${node.pubsubUrl}`,
    `  EVM JSON-RPC URL:  ${node.evmRpcUrl} (HTTP and WebSocket; chain id ${node.evm.chainId})`,
    `  Explorer:          ${node.explorerUrl}`,
    `  Health:            ${node.rpcUrl}/health${options.knownValidators?.length ? ` (against the known validators ${options.knownValidators.join(', ')})` : ''}`,
    `  Ledger:            ${options.ledger}${node.createdLedger ? ' (new)' : ''}`,
    `  Genesis hash:      ${node.genesisHash}`,
    `  Identity:          ${node.keys.identity.address}`,
    `  Faucet keypair:    ${node.faucetKeypairPath}`,
    `  Slot:              ${node.chain.processedSlot} (every ${options.slotMs} ms, rooted ${options.rootDepth} blocks behind)`,
    '',
    `Dev accounts (mnemonic: "${node.keys.mnemonic}", path m/44'/501'/i'/0'):`,
    ...node.keys.devAccounts.map((k, i) => `  (${i}) ${k.address}  ${sol(node.chain.getAccount(k.address, 'processed')?.lamports ?? 0)} SOL`),
    '',
    `EVM dev accounts (same mnemonic, path m/44'/60'/0'/0/i; unlocked for eth_sendTransaction):`,
    ...node.keys.evmDevAccounts.map((k, i) => {
      const wei = node.evm.stateAt('processed').account(k.address)?.balance ?? 0n;
      return `  (${i}) ${k.address}  ${sol(Number(wei / 1_000_000_000n))} SOL  private key 0x${Buffer.from(k.privateKey).toString('hex')}`;
    }),
    '',
    'Press Ctrl-C to stop.',
  ];
  return lines.join('\n');
}

/** Genesis is made once per ledger: flags that only shape a new genesis are ignored on an existing one. */
function ignoredGenesisFlags(node: RunningNode, options: NodeOptions): string[] {
  if (node.createdLedger) return [];
  const out: string[] = [];
  if (options.mnemonic && options.mnemonic !== node.keys.mnemonic) out.push('--mnemonic ignored: the ledger already exists (use --reset for a new genesis)');
  if (options.slotsPerEpoch !== node.genesis.epochSchedule.slotsPerEpoch) {
    out.push(`--slots-per-epoch ignored: the ledger already exists with ${node.genesis.epochSchedule.slotsPerEpoch} (use --reset for a new genesis)`);
  }
  return out;
}

/**
 * With its reader gone (the process that started it died, a `| head` exited), writes to the stream
 * fail with EPIPE: the node keeps serving and stops when asked, and that output is dropped. Without
 * this the first such write (the stop message) ended the process before the ledger was flushed.
 */
function dropOutputWithoutReader(stream: NodeJS.WriteStream): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
}

export async function runNode(options: NodeOptions): Promise<number> {
  dropOutputWithoutReader(process.stdout);
  dropOutputWithoutReader(process.stderr);
  let node: RunningNode;
  try {
    node = await startNode(options);
  } catch (e) {
    if (e instanceof PortInUseError || e instanceof LedgerError || e instanceof LedgerLockedError || e instanceof LedgerStateError) {
      process.stderr.write(`error: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  for (const warning of ignoredGenesisFlags(node, options)) process.stderr.write(`warning: ${warning}\n`);
  if (!options.quiet) process.stdout.write(banner(node, options) + '\n');
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      if (!options.quiet) process.stdout.write(`\n${signal}: stopping, flushing the ledger...\n`);
      node.close().then(
        () => {
          // Every sealed slot is committed by now: name the last one, so a restart can be checked against it.
          if (!options.quiet) process.stdout.write(`Stopped at slot ${node.chain.confirmedSlot}; every slot up to it is in the ledger.\n`);
          resolve(0);
        },
        (e) => {
          console.error('isthmus: error while stopping:', e);
          resolve(1);
        },
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
    // The node stopped by itself (it could not store a slot): say why and exit non-zero.
    void node.stopped.then((failure) => {
      if (!failure || stopping) return;
      stopping = true;
      process.stderr.write(`error: the node stopped: ${failure.message}\n`);
      resolve(1);
    });
  });
}
