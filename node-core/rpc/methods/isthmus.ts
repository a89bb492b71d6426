/**
 * Isthmus's own methods, for the explorer: what no standard RPC tells (the node's URLs as it sees
 * them, the EVM chain id, the dev accounts with their keys). The dev keys are answered only while the
 * node listens on a loopback address, as the unlocked EVM dev accounts are meant for this machine only.
 */
import { encodeBase58 } from '../../common/base58.ts';
import { BRIDGE_ADDRESS, EVM_PROGRAM_ID, EVM_STATE_ID, TRANSFER_TO_NATIVE_SELECTOR, WEI_PER_LAMPORT } from '../../evm/constants.ts';
import { evmDerivationPath } from '../../keys/evm-keys.ts';
import type { IsthmusNodeInfo, RpcContext } from '../context.ts';
import { FORBIDDEN_ORIGIN, METHOD_NOT_FOUND, RpcError } from '../errors.ts';
import { parseParams } from '../params.ts';
import type { RequestInfo } from '../dispatcher.ts';

const info = (ctx: RpcContext): IsthmusNodeInfo => {
  if (!ctx.isthmus) throw new RpcError(METHOD_NOT_FOUND, 'isthmus_* methods are not available on this server');
  return ctx.isthmus;
};

export function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || /^127\./.test(address);
}

export function isthmus_getNodeInfo(params: unknown, ctx: RpcContext) {
  parseParams(params, []);
  const i = info(ctx);
  return {
    version: ctx.version,
    genesisHash: ctx.chain.genesisHash,
    clusterType: ctx.chain.genesis.clusterType,
    rpcUrl: i.rpcUrl,
    pubsubUrl: i.pubsubUrl,
    evmRpcUrl: i.evmRpcUrl,
    evmChainId: i.evmChainId,
    explorerUrl: i.explorerUrl,
    slotMs: i.slotMs,
    rootDepth: i.rootDepth,
    slotsPerEpoch: ctx.chain.genesis.epochSchedule.slotsPerEpoch,
    identity: ctx.identity,
    faucet: ctx.faucet.address,
    evmProgramId: EVM_PROGRAM_ID,
    evmStateAccount: EVM_STATE_ID,
    bridgeAddress: BRIDGE_ADDRESS,
    transferToNativeSelector: `0x${TRANSFER_TO_NATIVE_SELECTOR}`,
    weiPerLamport: WEI_PER_LAMPORT.toString(),
    devAccountsAvailable: isLoopback(i.bindAddress),
  };
}

/**
 * The node's CORS is open (wallets and dapps call it from their pages), so a page of any site could
 * read the keys; from a browser they go only to the explorer this node serves (its own origin).
 * Requests without an Origin (tools, scripts, the desktop app's main process) are not from a page.
 */
function sameOrigin(origin: string, rpcUrl: string): boolean {
  try {
    const o = new URL(origin);
    const own = new URL(rpcUrl);
    return o.protocol === own.protocol && o.port === own.port && isLoopback(o.hostname.replace(/^\[|\]$/g, ''));
  } catch {
    return false;
  }
}

export function isthmus_getDevAccounts(params: unknown, ctx: RpcContext, request?: RequestInfo) {
  parseParams(params, []);
  const i = info(ctx);
  if (!isLoopback(i.bindAddress)) {
    throw new RpcError(METHOD_NOT_FOUND, `isthmus_getDevAccounts is answered only by a node listening on a loopback address (this one listens on ${i.bindAddress})`);
  }
  if (request?.origin !== undefined && !sameOrigin(request.origin, i.rpcUrl)) {
    throw new RpcError(FORBIDDEN_ORIGIN, `isthmus_getDevAccounts is answered to web pages only from the explorer this node serves (${i.explorerUrl}), not to ${request.origin}`);
  }
  return {
    mnemonic: i.mnemonic,
    native: i.devAccounts.map((k, index) => ({ index, address: k.address, path: `m/44'/501'/${index}'/0'`, secretKey: encodeBase58(k.secretKey) })),
    evm: i.evmDevAccounts.map((k, index) => ({ index, address: k.address, path: evmDerivationPath(index), privateKey: `0x${Buffer.from(k.privateKey).toString('hex')}` })),
  };
}
