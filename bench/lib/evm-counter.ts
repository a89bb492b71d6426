/** The Counter contract the EVM benches call: deployed by `dev`, its address once the receipt exists. */
import { Interface, type Wallet } from 'ethers';
import { compileFixture } from '../../test/helpers/evm.ts';
import { rpcCall } from './http-load.ts';

const counter = compileFixture('Counter.sol', 'Counter');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counter's creation code with its constructor argument. */
export const counterDeployData = (): string => counter.bytecode + new Interface(counter.abi as never).encodeDeploy(['bench']).slice(2);

export async function deployCounter(url: string, chainId: bigint, dev: Wallet): Promise<string> {
  const nonce = Number(await rpcCall(url, 'eth_getTransactionCount', [dev.address, 'pending']));
  const data = counterDeployData();
  const raw = await dev.signTransaction({ data, nonce, gasLimit: 2_000_000n, maxFeePerGas: 20_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, chainId, type: 2 });
  const hash = await rpcCall(url, 'eth_sendRawTransaction', [raw]);
  for (;;) {
    const receipt = await rpcCall(url, 'eth_getTransactionReceipt', [hash]);
    if (receipt) return receipt.contractAddress;
    await sleep(20);
  }
}
