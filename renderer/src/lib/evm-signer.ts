/** EVM → native senders: an unlocked dev account (eth_sendTransaction), an imported key (ethers, loaded on demand) or the injected wallet. */
import type { Connection } from './connection.ts';
import { nodeBridge, transferToNativeData } from './bridge.ts';

export type EvmSource = { kind: 'dev'; address: string } | { kind: 'key'; privateKey: string } | { kind: 'wallet'; address: string };

const hex = (n: bigint) => '0x' + n.toString(16);

export async function evmSourceAddress(source: EvmSource): Promise<string> {
  if (source.kind !== 'key') return source.address.toLowerCase();
  const { Wallet } = await import('ethers');
  return new Wallet(source.privateKey).address.toLowerCase();
}

/** Gas for the transferToNative call, and its price, as the node estimates them. */
export async function estimateTransferToNative(c: Connection, from: string, recipient: string, wei: bigint): Promise<{ gas: bigint; gasPrice: bigint }> {
  const bridge = nodeBridge(c.info);
  const [gas, gasPrice] = await Promise.all([
    c.evm.call<string>('eth_estimateGas', [{ from, to: bridge.bridgeAddress, value: hex(wei), data: transferToNativeData(recipient, bridge) }]),
    c.evm.call<string>('eth_gasPrice'),
  ]);
  return { gas: BigInt(gas), gasPrice: BigInt(gasPrice) };
}

export async function sendTransferToNative(c: Connection, source: EvmSource, recipient: string, wei: bigint, gas: bigint): Promise<string> {
  const bridge = nodeBridge(c.info);
  const to = bridge.bridgeAddress;
  const data = transferToNativeData(recipient, bridge);
  if (source.kind === 'dev') {
    return c.evm.call<string>('eth_sendTransaction', [{ from: source.address, to, value: hex(wei), data, gas: hex(gas) }]);
  }
  if (source.kind === 'wallet') {
    if (!window.ethereum) throw new Error('No EVM wallet in this browser');
    const chain = (await window.ethereum.request({ method: 'eth_chainId' })) as string;
    const want = (await c.evm.call<string>('eth_chainId')).toLowerCase();
    if (chain.toLowerCase() !== want) throw new Error(`The wallet is on chain ${Number(BigInt(chain))}, this node is chain ${Number(BigInt(want))}: switch networks in the wallet (Dev accounts → Add to MetaMask)`);
    return (await window.ethereum.request({ method: 'eth_sendTransaction', params: [{ from: source.address, to, value: hex(wei), data, gas: hex(gas) }] })) as string;
  }
  const { Wallet, JsonRpcProvider } = await import('ethers');
  const provider = new JsonRpcProvider(c.evm.url, undefined, { staticNetwork: true, batchMaxCount: 1 });
  const wallet = new Wallet(source.privateKey, provider);
  const sent = await wallet.sendTransaction({ to, value: wei, data, gasLimit: gas });
  return sent.hash.toLowerCase();
}

export const evmBalance = async (c: Connection, address: string) => BigInt(await c.evm.call<string>('eth_getBalance', [address, 'latest']));
