/**
 * The real `isthmus start` command on a ledger, with the clients a durability test of chain control
 * drives it with (web3.js, ethers), killed with SIGKILL and started again on the same ledger and
 * ports; once stopped, `isthmus verify-ledger` says whether the books hold.
 */
import { Keypair, type PublicKey } from '@solana/web3.js';
import { Wallet } from 'ethers';
import { decodeBase58 } from '../../node-core/common/base58.ts';
import { chainClients, closeChainClients, type ChainClients } from './chain-clients.ts';
import { freePorts, runIsthmus, runToExit, waitForRpc, type NodeProcess } from './cli-process.ts';
import { rpc } from './node.ts';

export interface ChainProcess extends ChainClients {
  url: string;
  evmUrl: string;
  /** A new native address and a new EVM address to send to. */
  receiver: PublicKey;
  evmReceiver: string;
  /** SIGKILL, then the same command again; resolves once it answers. */
  killAndRestart(): Promise<void>;
  /** Stops the node and the clients, then runs verify-ledger on the ledger. */
  stopAndVerify(): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

export async function startChainProcess(ledger: string, words: string): Promise<ChainProcess> {
  const [rpcPort, wsPort, evmPort] = await freePorts(3);
  const args = ['start', '--ledger', ledger, '--rpc-port', String(rpcPort), '--rpc-pubsub-port', String(wsPort), '--evm-rpc-port', String(evmPort), '--slot-ms', '50', '--root-depth', '4', '--quiet'];
  const url = `http://127.0.0.1:${rpcPort}`;
  const evmUrl = `http://127.0.0.1:${evmPort}`;
  let proc: NodeProcess = runIsthmus([...args, '--mnemonic', words]);
  await waitForRpc(url, proc.child);
  const devKeys = (await rpc(url, 'isthmus_getDevAccounts', [])).result;
  const clients = chainClients({ rpcUrl: url, pubsubUrl: `ws://127.0.0.1:${wsPort}`, evmRpcUrl: evmUrl }, words, Keypair.fromSecretKey(decodeBase58(devKeys.native[0].secretKey)));
  return {
    url,
    evmUrl,
    ...clients,
    receiver: Keypair.generate().publicKey,
    evmReceiver: Wallet.createRandom().address,
    async killAndRestart() {
      proc.child.kill('SIGKILL');
      await proc.exited;
      proc = runIsthmus(args);
      await waitForRpc(url, proc.child);
    },
    async stopAndVerify() {
      await closeChainClients(clients);
      proc.child.kill('SIGTERM');
      await proc.exited;
      return runToExit(['verify-ledger', '--ledger', ledger]);
    },
  };
}
