/**
 * startNode: the one start-up of a node and its servers, used by the `isthmus` command, the tests
 * and the Electron main process. It opens (or creates) the ledger, rebuilds the banks from the
 * store, starts the slot clock and listens for JSON-RPC and PubSub.
 */
import fs from 'node:fs';
import type http from 'node:http';
import { createRequire } from 'node:module';
import { sha256 } from '../common/hash.ts';
import type { Chain } from '../ledger/chain.ts';
import { createGenesis, genesisHashOf, ledgerFiles, precompileGenesisAccounts, readLedgerKeys, type LedgerKeys } from '../ledger/genesis.ts';
import type { Account } from '../runtime/account.ts';
import type { GenesisConfig } from '../ledger/genesis-config.ts';
import { lockLedger } from '../ledger/ledger-lock.ts';
import { genesisBlockhash, LedgerStateError, openChain, writeGenesis } from '../ledger/open-chain.ts';
import { builtinPrograms } from '../runtime/programs/index.ts';
import { initEncodings } from '../rpc/encoding/account.ts';
import type { RpcContext } from '../rpc/context.ts';
import { Dispatcher } from '../rpc/dispatcher.ts';
import { nativeMethods } from '../rpc/methods/index.ts';
import { openLmdbStore } from '../store/lmdb-store.ts';
import type { Store } from '../store/store.ts';
import { createHttpServer, listen } from './http.ts';
import { createExplorerStatic, EXPLORER_PATH } from './explorer-static.ts';
import type { NodeOptions } from './options.ts';
import { startPubsubServer, type PubsubServer } from '../pubsub/server.ts';
import { EVM_PROGRAM_ID } from '../evm/constants.ts';
import { evmGenesisRecords } from '../evm/genesis.ts';
import { createEvmProgram, EVM_EXTENSION } from '../evm/program.ts';
import { EvmRelay } from '../evm/relay.ts';
import { EvmSpace, type EvmSpaceMeta } from '../evm/space.ts';
import type { EvmRpcContext } from '../rpc/eth/context.ts';
import { FilterManager } from '../rpc/eth/filters.ts';
import { ethMethods } from '../rpc/eth/methods.ts';
import { startEvmServer, type EvmServer } from './evm-server.ts';
import { KnownValidators } from './known-validators.ts';
import { healthStatus, healthText } from '../rpc/health.ts';

export const NODE_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export interface RunningNode {
  chain: Chain;
  genesis: GenesisConfig;
  genesisHash: string;
  keys: LedgerKeys;
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
}

/** A u32 that names this node's feature set, as getVersion's `feature-set`. */
const FEATURE_SET = new DataView(sha256(new TextEncoder().encode(`isthmus feature set ${NODE_VERSION}`)).buffer).getUint32(0, true);

export class LedgerError extends Error {}

function prepareLedgerDir(ledger: string, reset: boolean): void {
  const files = ledgerFiles(ledger);
  if (reset && fs.existsSync(ledger)) {
    const entries = fs.readdirSync(ledger);
    if (entries.length > 0 && !fs.existsSync(files.marker)) {
      throw new LedgerError(`refusing to --reset ${ledger}: it is not an Isthmus ledger (no ${ledgerFiles('').marker.slice(1)})`);
    }
    lockLedger(ledger)(); // refuses while another node runs on it
    fs.rmSync(ledger, { recursive: true, force: true });
  }
  fs.mkdirSync(ledger, { recursive: true });
  if (!fs.existsSync(files.marker)) {
    if (fs.readdirSync(ledger).length > 0) throw new LedgerError(`${ledger} is not empty and is not an Isthmus ledger; pass another --ledger`);
    fs.writeFileSync(files.marker, JSON.stringify({ format: 1 }) + '\n');
  }
}

export async function startNode(options: NodeOptions): Promise<RunningNode> {
  prepareLedgerDir(options.ledger, options.reset);
  const files = ledgerFiles(options.ledger);
  const unlock = lockLedger(options.ledger);
  let store: Store;
  try {
    store = await openLmdbStore(files.store);
  } catch (e) {
    unlock();
    throw e;
  }
  try {
    await initEncodings();
    let genesisRecord = (await store.readGenesis()) as { config: GenesisConfig; hash: string } | null;
    let keys: LedgerKeys;
    let createdLedger = false;
    if (!genesisRecord) {
      const made = createGenesis({
        ledger: options.ledger,
        mnemonic: options.mnemonic,
        slotMs: options.slotMs,
        slotsPerEpoch: options.slotsPerEpoch,
        devAccountLamports: options.devAccountLamports,
        evmChainId: options.evmChainId,
        extraAccounts: options.accounts,
      });
      const hash = genesisHashOf(made.config);
      const evmGenesis = await evmGenesisRecords(store, made.config.evm!, { creationTime: made.config.creationTime, blockhash: genesisBlockhash(hash) });
      await writeGenesis(store, made.config, hash, [{ name: EVM_EXTENSION, ...evmGenesis }]);
      genesisRecord = { config: made.config, hash };
      keys = made.keys;
      createdLedger = true;
    } else {
      keys = readLedgerKeys(options.ledger, genesisRecord.config);
    }
    const evmMeta = (await store.readMeta())?.extensions[EVM_EXTENSION] as EvmSpaceMeta | undefined;
    if (!genesisRecord.config.evm || !evmMeta) throw new LedgerStateError('this ledger was made before the EVM space existed; start it with --reset for a new genesis');
    const evm = await EvmSpace.open(store, genesisRecord.config.evm.chainId, evmMeta);
    const programs = new Map(builtinPrograms);
    programs.set(EVM_PROGRAM_ID, createEvmProgram({ machine: evm.machine, decoder: evm.decoder }));
    const chain = await openChain({
      store,
      genesis: genesisRecord.config,
      genesisHash: genesisRecord.hash,
      programs,
      slotMs: options.slotMs,
      rootDepth: options.rootDepth,
      limitLedgerSize: options.limitLedgerSize,
      extensions: [evm],
      voter: { identity: keys.identity, voteAccount: genesisRecord.config.voteAccount },
    });
    evm.attach(chain);
    if (!createdLedger) chain.overwriteAccountsAtStart(startAccounts(chain, options));
    const relay = new EvmRelay(chain, evm, keys.evmBridge);
    const filters = new FilterManager();
    evm.on('block', (block, txs) => filters.onBlock(block, txs));
    relay.on('pending', (d) => filters.onPending(d.hash));
    const evmCtx: EvmRpcContext = { chain, space: evm, relay, devKeys: keys.evmDevAccounts, filters, version: NODE_VERSION };

    const ctx: RpcContext = {
      chain,
      identity: keys.identity.address,
      faucet: keys.faucet,
      version: NODE_VERSION,
      featureSet: FEATURE_SET,
      rpcAddress: '',
      pubsubAddress: '',
    };
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
    const httpServer = createHttpServer({ dispatcher: dispatcher as Dispatcher<unknown>, health: () => healthText(ctx.health!()), serveStatic: createExplorerStatic(options.explorerDir), allowedHosts: options.rpcAllowedHosts });
    const host = options.bindAddress;
    let rpcPort: number;
    let pubsub: PubsubServer | undefined;
    let evmServer: EvmServer;
    try {
      rpcPort = await listen(httpServer, options.rpcPort, host, '--rpc-port');
      const wantedPubsub = options.rpcPubsubPort ?? (options.rpcPort === 0 ? 0 : options.rpcPort + 1);
      pubsub = await startPubsubServer({ chain, port: wantedPubsub, host, enableVoteSubscription: options.enableVoteSubscription, allowedHosts: options.rpcAllowedHosts });
      evmServer = await startEvmServer(evmCtx, { port: options.evmRpcPort, host, allowedHosts: options.rpcAllowedHosts });
    } catch (e) {
      httpServer.close();
      await pubsub?.close();
      filters.close();
      throw e;
    }
    const urlHost = host.includes(':') ? `[${host}]` : host;
    ctx.rpcAddress = `${urlHost}:${rpcPort}`;
    ctx.pubsubAddress = `${urlHost}:${pubsub.port}`;
    const rpcUrl = `http://${urlHost}:${rpcPort}`;
    ctx.isthmus = {
      rpcUrl,
      pubsubUrl: `ws://${urlHost}:${pubsub.port}`,
      evmRpcUrl: `http://${urlHost}:${evmServer.port}`,
      evmChainId: evm.chainId,
      explorerUrl: `${rpcUrl}${EXPLORER_PATH}`,
      bindAddress: host,
      slotMs: options.slotMs,
      rootDepth: options.rootDepth,
      mnemonic: keys.mnemonic,
      devAccounts: keys.devAccounts,
      evmDevAccounts: keys.evmDevAccounts,
    };
    chain.start();
    known.start();

    let closing: Promise<void> | null = null;
    const close = () =>
      (closing ??= (async () => {
        known.stop();
        await pubsub.close();
        await evmServer.close();
        filters.close();
        await closeHttp(httpServer);
        await chain.stop();
        await store.close();
        unlock();
      })());
    return {
      chain,
      genesis: genesisRecord.config,
      genesisHash: genesisRecord.hash,
      keys,
      rpcUrl: `http://${urlHost}:${rpcPort}`,
      pubsubUrl: `ws://${urlHost}:${pubsub.port}`,
      rpcPort,
      pubsubPort: pubsub.port,
      evmRpcUrl: `http://${urlHost}:${evmServer.port}`,
      evmRpcPort: evmServer.port,
      explorerUrl: ctx.isthmus.explorerUrl,
      evm,
      faucetKeypairPath: files.faucet,
      createdLedger,
      close,
    };
  } catch (e) {
    await store.close();
    unlock();
    throw e;
  }
}

/** What an existing ledger gets at start: the precompile accounts it predates, then the --account files. */
function startAccounts(chain: Chain, options: NodeOptions): Array<{ address: string; account: Account }> {
  const missing = precompileGenesisAccounts()
    .filter((g) => !chain.getAccount(g.address, 'processed'))
    .map((g) => ({ address: g.address, account: { lamports: g.lamports, data: new Uint8Array(0), owner: g.owner, executable: g.executable, rentEpoch: 0 } }));
  return [...missing, ...(options.accounts ?? [])];
}

function closeHttp(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
