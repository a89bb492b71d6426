/**
 * The Common of this chain's EVM space (id, hardfork, native crypto), with @ethereumjs's parameter
 * sets applied once. Apart from the machine so that a worker thread can decode transactions
 * (rpc/submission-worker.ts) without loading the VM.
 */
import { paramsBlock } from '@ethereumjs/block';
import { createCustomCommon, Mainnet, type Common } from '@ethereumjs/common';
import { paramsTx } from '@ethereumjs/tx';
import { keccak256 } from '../common/hash.ts';
import { HARDFORK } from './constants.ts';
import { ecrecover } from './crypto.ts';

export function createEvmCommon(chainId: number): Common {
  const common = createCustomCommon({ chainId, name: 'isthmus' }, Mainnet, { hardfork: HARDFORK, customCrypto: { ecrecover, keccak256 } });
  // Every transaction and block header @ethereumjs builds re-applies its module's parameter set to
  // its copy of the Common (a deep JSON copy and a rebuild of the parameter cache: a third of an
  // eth_call's time here). They are applied once; a set already applied is not applied again.
  const applied = new Set<object>();
  const updateParams = common.updateParams;
  common.updateParams = function (this: Common, params: Parameters<Common['updateParams']>[0]) {
    if (applied.has(params)) return;
    applied.add(params);
    updateParams.call(this, params);
  };
  common.updateParams(paramsTx);
  common.updateParams(paramsBlock);
  // isActivatedEIP scans an array of ~90 EIP numbers and runs several times per opcode (8% of an
  // eth_call). The array is replaced, never changed in place, when the hardfork or EIPs change, so a
  // Set per array answers the same. Copies of the Common (transactions, blocks) share the method.
  const eipSets = new WeakMap<number[], Set<number>>();
  common.isActivatedEIP = function (this: Common, eip: number) {
    const list = (this as unknown as { _activatedEIPsCache: number[] })._activatedEIPsCache;
    let set = eipSets.get(list);
    if (!set) eipSets.set(list, (set = new Set(list)));
    return set.has(eip);
  };
  return common;
}
