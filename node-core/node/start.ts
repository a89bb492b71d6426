/**
 * startNode: the composition root, the one start-up of a node used by the `isthmus` command, the tests
 * and the Electron main process. It opens (or creates) the ledger, builds the chain with the EVM space
 * beside it, the RPC method tables and PubSub, starts the endpoints and the slot clock.
 */
import { sbfEngineAvailability } from '../runtime/sbf/load-engine.ts';
import { createRequire } from 'node:module';
import { sha256 } from '../common/hash.ts';
import type { Chain } from '../ledger/chain.ts';
import type { GenesisConfig } from '../ledger/genesis-config.ts';
import { laterBuiltinGenesisAccounts, ledgerFiles } from '../ledger/genesis.ts';
import { ledgerDiskBytes } from '../ledger/ledger-folder.ts';
import { LedgerStateError, openChain } from '../ledger/open-chain.ts';
import { ChainSnapshots } from '../ledger/snapshots.ts';
import { markRentExempt, type Account } from '../runtime/account.ts';
import { builtinPrograms } from '../runtime/programs/index.ts';
import { EVM_PROGRAM_ID } from '../evm/constants.ts';
import { createEvmProgram, EVM_EXTENSION } from '../evm/program.ts';
import { EvmRelay } from '../evm/relay.ts';
import { EvmSpace, type EvmSpaceMeta } from '../evm/space.ts';
import { initEncodings } from '../rpc/encoding/account.ts';
import type { RpcContext } from '../rpc/context.ts';
import { Dispatcher } from '../rpc/dispatcher.ts';
import type { EvmRpcContext } from '../rpc/eth/context.ts';
import { ChainControlGate } from '../rpc/chain-control-gate.ts';
import { FilterManager } from '../rpc/eth/filters.ts';
import { Impersonation } from '../rpc/eth/impersonation.ts';
import { ethMethods } from '../rpc/eth/methods.ts';
import { healthStatus, healthText } from '../rpc/health.ts';
import { KnownValidators } from '../rpc/known-validators.ts';
import { nativeMethods } from '../rpc/methods/index.ts';
import { SubmissionDecoder } from '../rpc/submission-decoder.ts';
import { EXPLORER_PATH } from '../transport/explorer-static.ts';
import { startEvmEndpoint, startPubsubEndpoint, startRpcEndpoint } from './endpoints.ts';
import { startHeapUpkeep } from './heap-upkeep.ts';
import { openLedger, type NodeKeys } from './open-ledger.ts';
import type { NodeOptions } from './options.ts';
import { programAccounts } from './program-flags.ts';

export const NODE_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export interface RunningNode {
  chain: Chain;
  genesis: GenesisConfig;
  genesisHash: string;
  keys: NodeKeys;
  rpcUrl: string;
  pubsubUrl: string;
  rpcPort: number;
  pubsubPort: number;
  /** The EVM endpoint (Ethereum JSON-RPC over HTTP and WebSocket). */
  evmRpcUrl: string;
  evmRpcPort: number;
  /** The explorer served by this node (http://host:rpcPort/explorer/). */
  explorerUrl: string;
  evm: EvmSpace;
  faucetKeypairPath: string;
  /** True when this start made the ledger's genesis. */
  createdLedger: boolean;
  /** Stops the servers and the clock, flushes the store. */
  close(): Promise<void>;
  /**
   * Resolves once the node has stopped: with null after close(), with the error when it stopped by
   * itself because it could not go on (a slot could not be stored); its ledger is released either way.
   */
  stopped: Promise<Error | null>;
}

/** A u32 that names this node's feature set, as getVersion's `feature-set`. */
const FEATURE_SET = new DataView(sha256(new TextEncoder().encode(`isthmus feature set ${NODE_VERSION}`)).buffer).getUint32(0, true);

export async function startNode(options: NodeOptions): Promise<RunningNode> {
  const ledger = await openLedger(options);
  const { store, genesis, keys } = ledger;
  /** What has started so far, closed newest first if the start fails. */
  const started: Array<() => unknown> = [];
  try {
    await initEncodings();
    // The chain, with the EVM space beside it as its extension and its program.
    const evmMeta = (await store.readMeta())?.extensions[EVM_EXTENSION] as EvmSpaceMeta | undefined;
    if (!evmMeta) throw new LedgerStateError('this ledger was made before the EVM space existed; start it with --reset for a new genesis');
    const evm = await EvmSpace.open(store, ledger.evmGenesis.chainId, evmMeta);
    const programs = new Map(builtinPrograms);
    programs.set(EVM_PROGRAM_ID, createEvmProgram({ machine: evm.machine, decoder: evm.decoder }));
    const chain = await openChain({
      store,
      genesis,
      genesisHash: ledger.genesisHash,
      programs,
      slotMs: options.slotMs,
      rootDepth: options.rootDepth,
      limitLedgerSize: options.limitLedgerSize,
      extensions: [evm],
      voter: { identity: keys.identity, voteAccount: genesis.voteAccount },
    });
    evm.attach(chain);
    if (!ledger.createdLedger) chain.overwriteAccountsAtStart(startAccounts(chain, options));
    const relay = new EvmRelay(chain, evm, keys.evmRelayer);
    const filters = new FilterManager();
    started.push(() => filters.close());
    evm.on('block', (block, txs) => filters.onBlock(block, txs));
    relay.on('pending', (d) => filters.onPending(d.hash));

    // The RPC method tables and their contexts.
    // One gate for the chain-control methods of both ports (rpc/chain-control-gate.ts).
    const chainControl = new ChainControlGate(options.bindAddress, options.allowChainControl ?? false);
    const impersonation = new Impersonation(evm.decoder);
    const snapshots = await ChainSnapshots.open(chain);
    // The sBPF engine loads here, once: where it cannot, the node runs its builtins and says why.
    const sbf = sbfEngineAvailability();
    if (!sbf.available && !options.quiet) console.log(`deployed programs cannot run on this node: ${sbf.reason}`);
    // sendTransaction (and eth_sendRawTransaction) decode and check signatures on a worker thread (started with the first one).
    const submissions = new SubmissionDecoder();
    started.push(() => submissions.close());
    const evmCtx: EvmRpcContext = { chain, space: evm, relay, devKeys: keys.evmDevAccounts, filters, version: NODE_VERSION, chainControl, impersonation, snapshots, submissions };
    const ctx: RpcContext = { chain, identity: keys.identity.address, faucet: keys.faucet, version: NODE_VERSION, featureSet: FEATURE_SET, rpcAddress: '', pubsubAddress: '', chainControl, snapshots, submissions };
    // eth_* are answered on the native port too, as on Velas's validator.
    const ethOnNativePort = Object.fromEntries(Object.entries(ethMethods).map(([name, method]) => [name, (params: unknown) => method(params, evmCtx)]));
    const dispatcher = new Dispatcher({ ...nativeMethods, ...ethOnNativePort }, ctx);
    const known = new KnownValidators(options.knownValidators ?? [], {
      intervalMs: options.knownValidatorPollMs,
      onChange: (v, reachable, reason) => {
        if (!options.quiet) console.log(reachable ? `known validator ${v.url} answers (slot ${v.slot})` : `known validator ${v.url} does not answer: ${reason}`);
      },
    });
    ctx.health = () => healthStatus(chain.confirmedSlot, known.highestSlot());
    ctx.knownValidators = () => known.validators;

    // The endpoints.
    const host = options.bindAddress;
    const allowedHosts = options.rpcAllowedHosts;
    const rpc = await startRpcEndpoint({
      port: options.rpcPort,
      host,
      allowedHosts,
      answer: (body, request) => dispatcher.handleBodyInPieces(body, request),
      health: () => healthText(ctx.health!()),
      explorerDir: options.explorerDir,
    });
    started.push(() => rpc.close());
    const pubsubPort = options.rpcPubsubPort ?? (options.rpcPort === 0 ? 0 : options.rpcPort + 1);
    const pubsub = await startPubsubEndpoint({ chain, port: pubsubPort, host, allowedHosts, enableVoteSubscription: options.enableVoteSubscription });
    started.push(() => pubsub.close());
    const evmEndpoint = await startEvmEndpoint(evmCtx, { port: options.evmRpcPort, host, allowedHosts });
    started.push(() => evmEndpoint.close());

    const urlHost = host.includes(':') ? `[${host}]` : host;
    const rpcUrl = `http://${urlHost}:${rpc.port}`;
    const pubsubUrl = `ws://${urlHost}:${pubsub.port}`;
    const evmRpcUrl = `http://${urlHost}:${evmEndpoint.port}`;
    ctx.rpcAddress = `${urlHost}:${rpc.port}`;
    ctx.pubsubAddress = `${urlHost}:${pubsub.port}`;
    ctx.isthmus = {
      rpcUrl,
      pubsubUrl,
      evmRpcUrl,
      evmChainId: evm.chainId,
      explorerUrl: `${rpcUrl}${EXPLORER_PATH}`,
      bindAddress: host,
      slotMs: options.slotMs,
      rootDepth: options.rootDepth,
      mnemonic: keys.mnemonic,
      limitLedgerSize: options.limitLedgerSize ?? null,
      ledgerDiskBytes: () => ledgerDiskBytes(options.ledger),
      devAccounts: keys.devAccounts,
      evmDevAccounts: keys.evmDevAccounts,
    };
    chain.start();
    known.start();
    const heapUpkeep = startHeapUpkeep();

    let closing: Promise<void> | null = null;
    let failure: Error | null = null;
    let markStopped!: (failure: Error | null) => void;
    const stopped = new Promise<Error | null>((resolve) => (markStopped = resolve));
    const close = () =>
      (closing ??= (async () => {
        try {
          heapUpkeep.stop();
          known.stop();
          await pubsub.close();
          await evmEndpoint.close();
          filters.close();
          await rpc.close();
          await submissions.close();
          await chain.stop();
          await ledger.close();
        } finally {
          markStopped(failure);
        }
      })());
    // A chain that cannot go on stops the whole node: clients see it gone, not a node that never confirms.
    chain.once('failed', (error) => {
      failure = error;
      if (!options.quiet) console.error(`isthmus: the node stops: ${error.message}`);
      void close().catch((e) => console.error('isthmus: error while stopping:', e));
    });
    return {
      chain,
      genesis,
      genesisHash: ledger.genesisHash,
      keys,
      rpcUrl,
      pubsubUrl,
      rpcPort: rpc.port,
      pubsubPort: pubsub.port,
      evmRpcUrl,
      evmRpcPort: evmEndpoint.port,
      explorerUrl: ctx.isthmus.explorerUrl,
      evm,
      faucetKeypairPath: ledgerFiles(options.ledger).faucet,
      createdLedger: ledger.createdLedger,
      close,
      stopped,
    };
  } catch (e) {
    for (const close of started.reverse()) await close();
    await ledger.close();
    throw e;
  }
}

/**
 * What an existing ledger gets at start: the builtin accounts it predates (precompiles, loaders), then the --account
 * files, then the programs of --bpf-program and --upgradeable-program, deployed at the last stored
 * slot (invocable from the first new one, as a genesis program is from slot 1) and rent-exempt as
 * the genesis ones are once loaded.
 */
function startAccounts(chain: Chain, options: NodeOptions): Array<{ address: string; account: Account }> {
  const missing = laterBuiltinGenesisAccounts()
    .filter((g) => !chain.getAccount(g.address, 'processed'))
    .map((g) => ({ address: g.address, account: { lamports: g.lamports, data: new Uint8Array(Buffer.from(g.data, 'base64')), owner: g.owner, executable: g.executable, rentEpoch: 0 } }));
  const programs = programAccounts(options.programs ?? [], chain.genesis.rent, chain.confirmedSlot).map(({ address, account }) => ({
    address,
    account: markRentExempt(account, chain.genesis.rent),
  }));
  return [...missing, ...(options.accounts ?? []), ...programs];
}
