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
import { createGenesis, genesisHashOf, ledgerFiles, readLedgerKeys, type LedgerKeys } from '../ledger/genesis.ts';
import type { GenesisConfig } from '../ledger/genesis-config.ts';
import { lockLedger } from '../ledger/ledger-lock.ts';
import { openChain, writeGenesis } from '../ledger/open-chain.ts';
import { builtinPrograms } from '../runtime/programs/index.ts';
import { initEncodings } from '../rpc/encoding/account.ts';
import type { RpcContext } from '../rpc/context.ts';
import { Dispatcher } from '../rpc/dispatcher.ts';
import { nativeMethods } from '../rpc/methods/index.ts';
import { openLmdbStore } from '../store/lmdb-store.ts';
import type { Store } from '../store/store.ts';
import { createHttpServer, listen } from './http.ts';
import type { NodeOptions } from './options.ts';
import { startPubsubServer, type PubsubServer } from '../pubsub/server.ts';

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
      });
      const hash = genesisHashOf(made.config);
      await writeGenesis(store, made.config, hash);
      genesisRecord = { config: made.config, hash };
      keys = made.keys;
      createdLedger = true;
    } else {
      keys = readLedgerKeys(options.ledger, genesisRecord.config);
    }
    const chain = await openChain({
      store,
      genesis: genesisRecord.config,
      genesisHash: genesisRecord.hash,
      programs: builtinPrograms,
      slotMs: options.slotMs,
      rootDepth: options.rootDepth,
      limitLedgerSize: options.limitLedgerSize,
    });

    const ctx: RpcContext = {
      chain,
      identity: keys.identity.address,
      faucet: keys.faucet,
      version: NODE_VERSION,
      featureSet: FEATURE_SET,
      rpcAddress: '',
      pubsubAddress: '',
    };
    const dispatcher = new Dispatcher(nativeMethods, ctx);
    const httpServer = createHttpServer({ dispatcher: dispatcher as Dispatcher<unknown>, health: () => 'ok' });
    const host = options.bindAddress;
    let rpcPort: number;
    let pubsub: PubsubServer;
    try {
      rpcPort = await listen(httpServer, options.rpcPort, host, '--rpc-port');
      const wantedPubsub = options.rpcPubsubPort ?? (options.rpcPort === 0 ? 0 : options.rpcPort + 1);
      pubsub = await startPubsubServer({ chain, port: wantedPubsub, host, enableVoteSubscription: options.enableVoteSubscription });
    } catch (e) {
      httpServer.close();
      throw e;
    }
    const urlHost = host.includes(':') ? `[${host}]` : host;
    ctx.rpcAddress = `${urlHost}:${rpcPort}`;
    ctx.pubsubAddress = `${urlHost}:${pubsub.port}`;
    chain.start();

    let closing: Promise<void> | null = null;
    const close = () =>
      (closing ??= (async () => {
        await pubsub.close();
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

function closeHttp(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
