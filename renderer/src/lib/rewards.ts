/** An account's inflation rewards over the last epochs, from getInflationReward (one batch). */
import type { RpcClient } from './rpc.ts';

export interface EpochReward {
  epoch: number;
  amount: number;
  postBalance: number;
  effectiveSlot: number;
  commission: number | null;
}

/** Rewards of the `count` epochs before the current one, newest first; epochs with none are left out. */
export async function fetchInflationRewards(rpc: RpcClient, address: string, count = 5): Promise<{ epochs: number[]; rewards: EpochReward[] }> {
  const info = await rpc.call<{ epoch: number }>('getEpochInfo', [{ commitment: 'confirmed' }]);
  const epochs: number[] = [];
  for (let e = info.epoch - 1; e >= 0 && epochs.length < count; e--) epochs.push(e);
  const answers = await rpc.batch(epochs.map((epoch) => ['getInflationReward', [[address], { epoch, commitment: 'confirmed' }]] as const));
  const rewards: EpochReward[] = [];
  // An epoch whose paying block is gone (or a node without the method) answers an error: no row for it.
  answers.forEach((a) => {
    const reward = Array.isArray(a) ? (a[0] as EpochReward | null) : null;
    if (reward) rewards.push(reward);
  });
  return { epochs, rewards };
}
