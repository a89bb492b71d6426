/** An EVM machine in-process with a funded key and one contract, for tests that run transactions on it directly. */
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, privateToAddress } from '@ethereumjs/util';
import { Wallet } from 'ethers';
import { keccak256 } from '../../node-core/common/hash.ts';
import { EvmMachine, type BlockEnv } from '../../node-core/evm/machine.ts';
import { EvmBaseState, newEvmAccount } from '../../node-core/evm/state.ts';

export interface MachineWithContract {
  machine: EvmMachine;
  base: EvmBaseState;
  env: BlockEnv;
  /** A signed EIP-1559 transaction from the funded key to the contract. */
  transaction(o?: { data?: string; gasLimit?: bigint; nonce?: number }): Promise<TypedTransaction>;
}

export async function machineWithContract(code: Uint8Array, key: Uint8Array, contract: string): Promise<MachineWithContract> {
  const machine = await EvmMachine.create(5705, async () => new Uint8Array(32));
  const base = new EvmBaseState();
  base.accounts.set(bytesToHex(privateToAddress(key)), newEvmAccount(10n ** 24n));
  const codeHash = keccak256(code);
  base.accounts.set(contract, { ...newEvmAccount(0n), codeHash });
  base.codes.set(bytesToHex(codeHash), code);
  const env = { number: 1n, timestamp: 1_700_000_000n, prevRandao: new Uint8Array(32), baseFeePerGas: 1_000_000_000n };
  const wallet = new Wallet(bytesToHex(key));
  return {
    machine,
    base,
    env,
    async transaction(o = {}) {
      const raw = await wallet.signTransaction({ to: contract, data: o.data, nonce: o.nonce ?? 0, gasLimit: o.gasLimit ?? 100_000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n, chainId: 5705n, type: 2 });
      return createTxFromRLP(Buffer.from(raw.slice(2), 'hex'), { common: machine.common });
    },
  };
}
