/** The clients the chain-control tests drive a node with: web3.js for the native port, ethers for the EVM port. */
import { Connection, type Keypair } from '@solana/web3.js';
import { JsonRpcProvider, Wallet } from 'ethers';
import { deriveEvmKeys } from '../../node-core/keys/evm-keys.ts';
import { closeConnectionSocket } from './web3-connection.ts';

export interface ChainClients {
  connection: Connection;
  provider: JsonRpcProvider;
  /** The first EVM dev account of the words, with the provider. */
  alice: Wallet;
  /** A native account that pays (a dev account). */
  payer: Keypair;
}

export function chainClients(urls: { rpcUrl: string; pubsubUrl: string; evmRpcUrl: string }, words: string, payer: Keypair): ChainClients {
  const connection = new Connection(urls.rpcUrl, { commitment: 'confirmed', wsEndpoint: urls.pubsubUrl });
  // No block-number cache: after a revert or reset the numbers go back.
  const provider = new JsonRpcProvider(urls.evmRpcUrl, undefined, { pollingInterval: 50, cacheTimeout: -1 });
  const alice = new Wallet(Buffer.from(deriveEvmKeys(words, 1)[0]!.privateKey).toString('hex'), provider);
  return { connection, provider, alice, payer };
}

export async function closeChainClients(clients: Pick<ChainClients, 'connection' | 'provider'>): Promise<void> {
  clients.provider.destroy();
  await closeConnectionSocket(clients.connection);
}
