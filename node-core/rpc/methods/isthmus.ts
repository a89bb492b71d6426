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
import { method } from './method.ts';
import { isLoopback } from '../chain-control-gate.ts';
import { sbfEngineAvailability, sbfEngineStatus } from '../../runtime/sbf/load-engine.ts';

const info = (ctx: RpcContext): IsthmusNodeInfo => {
  if (!ctx.isthmus) throw new RpcError(METHOD_NOT_FOUND, 'isthmus_* methods are not available on this server');
  return ctx.isthmus;
};

export { isLoopback };

/** isthmus_getNodeInfo's answer: what the explorer needs of the node that no standard method tells. */
export interface NodeInfoJson {
  version: string;
  genesisHash: string;
  clusterType: string;
  rpcUrl: string;
  pubsubUrl: string;
  evmRpcUrl: string;
  evmChainId: number;
  explorerUrl: string;
  slotMs: number;
  rootDepth: number;
  slotsPerEpoch: number;
  identity: string;
  faucet: string;
  evmProgramId: string;
  evmStateAccount: string;
  /** The bridge precompile's EVM address. */
  bridgeAddress: string;
  /** transferToNative's 4-byte selector, `0x` and 8 hex digits. */
  transferToNativeSelector: string;
  /** Wei per lamport as a decimal string (10^9 does not overflow, but a string keeps it exact for any client). */
  weiPerLamport: string;
  /** Whether isthmus_getDevAccounts answers (only while the node listens on a loopback address). */
  devAccountsAvailable: boolean;
  /** Whether the chain-control methods (state edits, time, mining, snapshots) answer: a loopback bind or --allow-chain-control. */
  chainControlAllowed: boolean;
  /** Whether slot production is paused (surfnet_pauseClock) until surfnet_resumeClock. */
  clockPaused: boolean;
  /** The engine that runs deployed sBPF programs, or why there is none on this platform. */
  sbfEngine: { available: boolean; detail: string };
  /** The ledger: the bytes its folder takes on disk now, the slots of history it keeps (null: all), its oldest slot. */
  ledger: { diskBytes: number; limitLedgerSize: number | null; firstAvailableSlot: number };
}

export const isthmus_getNodeInfo = method([], async (_, ctx): Promise<NodeInfoJson> => {
  const i = info(ctx);
  const diskBytes = await i.ledgerDiskBytes();
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
    chainControlAllowed: ctx.chainControl?.allowed ?? false,
    clockPaused: ctx.chain.clockPaused,
    sbfEngine: { available: sbfEngineAvailability().available, detail: sbfEngineStatus() },
    ledger: { diskBytes, limitLedgerSize: i.limitLedgerSize, firstAvailableSlot: ctx.chain.firstAvailableSlot },
  };
});

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

/** isthmus_getDevAccounts's answer: the mnemonic and both spaces' dev accounts with their keys. */
export interface DevAccountsJson {
  mnemonic: string;
  /** Base-58 address and 64-byte secret key (the Solana CLI's keypair), derived at `path`. */
  native: Array<{ index: number; address: string; path: string; secretKey: string }>;
  /** 0x address and 0x private key, derived at `path`. */
  evm: Array<{ index: number; address: string; path: string; privateKey: string }>;
}

export const isthmus_getDevAccounts = method([], (_, ctx, request): DevAccountsJson => {
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
});
