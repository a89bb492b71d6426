/** The injected EVM wallet (MetaMask and the like, window.ethereum). */
import type { NodeInfo } from './connection.ts';
import { TOKEN_SYMBOL } from './units.ts';

export const hasWallet = () => typeof window !== 'undefined' && !!window.ethereum;

/** EIP-3085 parameters for this node's EVM space: hex chain id, 18 decimals. */
export function addChainParams(info: NodeInfo) {
  return {
    chainId: '0x' + info.evmChainId.toString(16),
    chainName: `Isthmus local (chain ${info.evmChainId})`,
    nativeCurrency: { name: TOKEN_SYMBOL, symbol: TOKEN_SYMBOL, decimals: 18 },
    rpcUrls: [info.evmRpcUrl],
    blockExplorerUrls: [info.explorerUrl],
  };
}

export async function addToWallet(info: NodeInfo): Promise<void> {
  if (!window.ethereum) throw new Error('No EVM wallet in this browser (install MetaMask or open the explorer in a browser that has one)');
  await window.ethereum.request({ method: 'wallet_addEthereumChain', params: [addChainParams(info)] });
}

export async function walletAccount(): Promise<string> {
  if (!window.ethereum) throw new Error('No EVM wallet in this browser');
  const accounts = (await window.ethereum.request({ method: 'eth_requestAccounts' })) as string[];
  if (!accounts?.length) throw new Error('The wallet gave no account');
  return accounts[0]!.toLowerCase();
}
