/**
 * Type-level tests of the check on the native method table (node-core/rpc/methods/api.ts). tsc runs
 * them (`npm run typecheck`, the first step of `npm test`); node does not, there is nothing to run.
 * Each `@ts-expect-error` marks a table the compiler must refuse: were the check to stop catching
 * one, tsc would fail on the unused directive.
 */
import type { NativeApi } from '../../node-core/rpc/methods/api.ts';
import { checkedTable } from '../../node-core/rpc/methods/api.ts';
import { nativeMethods } from '../../node-core/rpc/methods/index.ts';
import { method } from '../../node-core/rpc/methods/method.ts';
import { withContext } from '../../node-core/rpc/context.ts';
import { address, arrayOf, blockhash, commitment, commitmentConfig, config, optional, required, string, u64 } from '../../node-core/rpc/params.ts';

/** True only when A and B are the same type. */
type Same<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;

// What kit's types say, read as JSON: bigint and branded strings become number and string.
export const balanceArgs: Same<NativeApi['getBalance']['args'], [address: string, config?: { commitment?: 'processed' | 'confirmed' | 'finalized'; minContextSlot?: number }]> = true;
export const slotLeadersArgs: Same<NativeApi['getSlotLeaders']['args'], [startSlot: number, limit: number]> = true;
export const genesisHashResult: Same<NativeApi['getGenesisHash']['result'], string> = true;

// The table the node serves passes.
checkedTable(nativeMethods);

// ---- answers kit's types do not admit ----

checkedTable({
  ...nativeMethods,
  // @ts-expect-error a balance as a string: kit's getBalance answers a u64
  getBalance: method([required('pubkey', address), optional('config', commitmentConfig)], () => withContext(0, '5000')),
});

checkedTable({
  ...nativeMethods,
  // @ts-expect-error a field of the wrong type, deep in the answer
  getEpochInfo: method([optional('config', commitmentConfig)], () => ({ absoluteSlot: 1, blockHeight: 1, epoch: 'zero', slotIndex: 1, slotsInEpoch: 32, transactionCount: 0 })),
});

checkedTable({
  ...nativeMethods,
  // @ts-expect-error a field kit's getLatestBlockhash has left out (lastValidBlockHeight)
  getLatestBlockhash: method([optional('config', commitmentConfig)], () => withContext(0, { blockhash: '11111111111111111111111111111111' })),
});

checkedTable({
  ...nativeMethods,
  // @ts-expect-error null where kit's getSlot never has it
  getSlot: method([optional('config', commitmentConfig)], () => null),
});

checkedTable({
  ...nativeMethods,
  // @ts-expect-error a corrected method is still checked: getInflationReward's commission may be null, not a string
  getInflationReward: method([required('addresses', arrayOf(address)), optional('config', config({ commitment, epoch: u64, minContextSlot: u64 }))], () => [
    { epoch: 1, effectiveSlot: 32, amount: 1, postBalance: 2, commission: '5%' },
  ]),
});

checkedTable({
  ...nativeMethods,
  // @ts-expect-error a 1.x method by its own interface (fees.ts): getRecentBlockhash's value needs its feeCalculator
  getRecentBlockhash: method([optional('config', commitmentConfig)], () => withContext(0, { blockhash: '11111111111111111111111111111111' })),
});

// ---- params that do not take what a client may send ----

checkedTable({
  ...nativeMethods,
  // @ts-expect-error kit sends minContextSlot in getBalance's config; these params would ignore it
  getBalance: method([required('pubkey', address), optional('config', config({ commitment }))], () => withContext(0, 1)),
});

checkedTable({
  ...nativeMethods,
  // @ts-expect-error kit sends getSlotLeaders' limit as a number, which a string parser refuses
  getSlotLeaders: method([required('startSlot', u64), required('limit', string)], () => []),
});

checkedTable({
  ...nativeMethods,
  // @ts-expect-error kit may call getSlot with no params at all
  getSlot: method([required('config', commitmentConfig)], () => 1),
});

checkedTable({
  ...nativeMethods,
  // @ts-expect-error isBlockhashValid's first param is a blockhash, and kit sends a config after it
  isBlockhashValid: method([required('blockhash', blockhash)], () => withContext(0, true)),
});

// ---- the table as a whole ----

checkedTable({
  ...nativeMethods,
  // @ts-expect-error a method NativeApi has no type for
  getSomethingNew: method([], () => 1),
});

const { getBalance, ...withoutGetBalance } = nativeMethods;
void getBalance;
// @ts-expect-error a method of NativeApi the table leaves out
checkedTable(withoutGetBalance);
