/**
 * Anvil's chain-control methods on the EVM port, with the names, params and answers Anvil has (and
 * the hardhat_* and evm_* aliases it accepts), so viem's test client and Hardhat's network helpers
 * work unchanged. Every one is behind the chain-control gate (rpc/chain-control-gate.ts).
 *
 * Our chain seals EVM blocks per native slot: to mine is to seal the working bank as a block now
 * (chain.sealNow, marked so it forms an EVM block even without transactions); a state edit is
 * written into the working bank between transactions and enters the chain with its slot
 * (chain.edit), the EVM state account's backing moved with any balance (evm/edits.ts).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { bytesToHex } from '@ethereumjs/util';
import { BASE_FEE_PER_GAS, BLOCK_GAS_LIMIT, HARDFORK } from '../../evm/constants.ts';
import { applyEvmEdits, dumpEvmState, EvmEditError, evmLayerOf, type EvmAccountEdit } from '../../evm/edits.ts';
import type { Hex } from '../../evm/records.ts';
import { gated } from '../chain-control-gate.ts';
import type { MethodTable } from '../dispatcher.ts';
import { RpcError } from '../errors.ts';
import { bool, fail, optional, parseParams, required, type Parse } from '../params.ts';
import type { EvmRpcContext } from './context.ts';
import { data, ethAddress, hex, quantity, smallQuantity } from './params.ts';
import { snapshotsOf } from './snapshots.ts';

type Method = (params: unknown, ctx: EvmRpcContext) => unknown;

const INVALID_PARAMS = -32602;
/** anvil_mine's most blocks in one call (each is a slot committed to the store). */
const MAX_MINE = 10_000;

/** A number of seconds or blocks: a JSON number or a hex quantity, as Anvil takes either. */
const count: Parse<number> = (v, name) => smallQuantity(v, name);
const seconds: Parse<number> = (v, name) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : smallQuantity(v, name));
/** A storage slot: a quantity or a 32-byte word. */
const storageSlot: Parse<string> = (v, name) => {
  const n = quantity(v, name);
  return n < 1n << 256n ? `0x${n.toString(16).padStart(64, '0')}` : fail(name, 'a 32-byte storage slot', v);
};
/** A storage value: exactly 32 bytes, as Anvil takes it. */
const word: Parse<Uint8Array> = (v, name) => {
  const b = data(v, name);
  return b.length === 32 ? b : fail(name, 'a 32-byte hex value ("0x" and 64 hex digits)', v);
};

const noParams = (p: unknown) => parseParams(p, []);
const invalid = (e: unknown): never => {
  if (e instanceof EvmEditError || e instanceof RangeError) throw new RpcError(INVALID_PARAMS, e.message);
  throw e;
};

/** Writes EVM edits into the chain (durable once this resolves, while the clock runs). */
function editEvm(ctx: EvmRpcContext, edits: ReadonlyArray<readonly [Hex, EvmAccountEdit]>): Promise<void> {
  return ctx.chain.edit((bank) => ({ lamports: applyEvmEdits(bank, edits), result: undefined })).catch(invalid);
}

// ---- mining and time ----

/** Seals the working bank as an EVM block (a slot of its own); resolves once it is visible. */
async function mineOne(ctx: EvmRpcContext, nextBeginsMs?: number): Promise<void> {
  await ctx.chain.sealNow((bank) => {
    evmLayerOf(bank).mined = true;
  }, nextBeginsMs);
}

/** evm_mine: one block, at `timestamp` when given ({ timestamp, blocks } as Hardhat and Anvil also take). */
const evm_mine: Method = async (p, ctx) => {
  const [opts] = parseParams(p, [optional('options', (v, name) => (typeof v === 'object' ? (v as { timestamp?: unknown; blocks?: unknown }) : { timestamp: seconds(v, name) }))]);
  const timestamp = opts?.timestamp === undefined || opts.timestamp === null ? undefined : seconds(opts.timestamp, 'timestamp');
  const blocks = opts?.blocks === undefined || opts.blocks === null ? 1 : count(opts.blocks, 'blocks');
  if (blocks > MAX_MINE) throw new RpcError(INVALID_PARAMS, `at most ${MAX_MINE} blocks per call`);
  if (timestamp !== undefined) await ctx.chain.setTime(timestamp).catch(invalid);
  for (let i = 0; i < blocks; i++) await mineOne(ctx);
  return '0x0';
};

/** anvil_mine / hardhat_mine: `count` blocks (1 if absent), `interval` seconds apart when given. */
const anvil_mine: Method = async (p, ctx) => {
  const [n = 1, interval] = parseParams(p, [optional('count', count), optional('interval', count)]);
  if (n > MAX_MINE) throw new RpcError(INVALID_PARAMS, `at most ${MAX_MINE} blocks per call`);
  for (let i = 0; i < n; i++) {
    const last = i === n - 1;
    const next = interval === undefined || last ? undefined : (ctx.chain.bankAt('processed').sysvars.clock.unixTimestamp + interval) * 1000;
    await mineOne(ctx, next);
  }
  return null;
};

const evm_increaseTime: Method = async (p, ctx) => {
  const [s] = parseParams(p, [required('seconds', seconds)]);
  if (s < 0) throw new RpcError(INVALID_PARAMS, `time moves forward only: evm_increaseTime takes seconds ≥ 0, got ${s}`);
  return ctx.chain.increaseTime(s);
};

const evm_setNextBlockTimestamp: Method = async (p, ctx) => {
  const [t] = parseParams(p, [required('timestamp', seconds)]);
  await ctx.chain.setTime(t).catch(invalid);
  return null;
};

// ---- state edits ----

const anvil_setBalance: Method = async (p, ctx) => {
  const [address, balance] = parseParams(p, [required('address', ethAddress), required('balance', quantity)]);
  await editEvm(ctx, [[address, { balance }]]);
  return null;
};

const anvil_setCode: Method = async (p, ctx) => {
  const [address, code] = parseParams(p, [required('address', ethAddress), required('code', data)]);
  await editEvm(ctx, [[address, { code }]]);
  return null;
};

const anvil_setNonce: Method = async (p, ctx) => {
  const [address, nonce] = parseParams(p, [required('address', ethAddress), required('nonce', quantity)]);
  await editEvm(ctx, [[address, { nonce }]]);
  return null;
};

const anvil_setStorageAt: Method = async (p, ctx) => {
  const [address, slot, value] = parseParams(p, [required('address', ethAddress), required('slot', storageSlot), required('value', word)]);
  await editEvm(ctx, [[address, { storage: [[slot, value]] }]]);
  return true;
};

// ---- impersonation ----

const impersonation = (ctx: EvmRpcContext) => {
  if (!ctx.impersonation) throw new RpcError(-32603, 'impersonation is not available on this server');
  return ctx.impersonation;
};

const anvil_impersonateAccount: Method = (p, ctx) => {
  const [address] = parseParams(p, [required('address', ethAddress)]);
  impersonation(ctx).start(address);
  return null;
};

const anvil_stopImpersonatingAccount: Method = (p, ctx) => {
  const [address] = parseParams(p, [required('address', ethAddress)]);
  impersonation(ctx).stop(address);
  return null;
};

const anvil_autoImpersonateAccount: Method = (p, ctx) => {
  const [enabled] = parseParams(p, [required('enabled', bool)]);
  impersonation(ctx).auto = enabled;
  return null;
};

// ---- state as a whole ----

interface DumpedState {
  accounts: Record<string, { nonce?: number | string; balance?: string; code?: string; storage?: Record<string, string> }>;
}

/** anvil_dumpState: the EVM state at the newest block, as Anvil writes it (gzipped JSON, hex). */
const anvil_dumpState: Method = (p, ctx) => {
  noParams(p);
  const head = ctx.space.head;
  const state = { block: { number: hex(head.number), timestamp: hex(head.timestamp) }, accounts: dumpEvmState(ctx.space.stateAt('confirmed')), best_block_number: hex(head.number), blocks: [], transactions: [], historical_states: null };
  return bytesToHex(gzipSync(JSON.stringify(state)));
};

/** The accounts of a dump (gzipped or plain JSON, hex), checked before anything is written. */
function parseDump(bytes: Uint8Array): Array<[Hex, EvmAccountEdit]> {
  let json: DumpedState;
  try {
    const text = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes).toString('utf8') : Buffer.from(bytes).toString('utf8');
    json = JSON.parse(text) as DumpedState;
  } catch (e) {
    throw new RpcError(INVALID_PARAMS, `Invalid params: state: not a state dump (gzipped or plain JSON): ${(e as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || typeof json.accounts !== 'object' || json.accounts === null) throw new RpcError(INVALID_PARAMS, 'Invalid params: state: a dump has an "accounts" object');
  return Object.entries(json.accounts).map(([address, a]) => {
    const edit: EvmAccountEdit = {};
    if (a.balance !== undefined) edit.balance = quantity(a.balance, `accounts.${address}.balance`);
    if (a.nonce !== undefined) edit.nonce = typeof a.nonce === 'number' ? BigInt(a.nonce) : quantity(a.nonce, `accounts.${address}.nonce`);
    if (a.code !== undefined) edit.code = data(a.code, `accounts.${address}.code`);
    if (a.storage !== undefined) edit.storage = Object.entries(a.storage).map(([slot, value]) => [storageSlot(slot, `accounts.${address}.storage`), data(value, `accounts.${address}.storage.${slot}`)] as const);
    return [ethAddress(address, 'accounts'), edit];
  });
}

/** anvil_loadState: merges a dump's accounts into the state, all in one slot (or none when any is refused). */
const anvil_loadState: Method = async (p, ctx) => {
  const [bytes] = parseParams(p, [required('state', data)]);
  await editEvm(ctx, parseDump(bytes));
  return true;
};

/**
 * anvil_reset's params as what they ask for: a reset to genesis, or a fork (refused). No params,
 * [null], [{}] and a `forking` that names neither a URL nor a block (viem's reset() without
 * arguments sends { forking: { blockNumber: null } }) ask for genesis; Anvil refuses the last two
 * on a node that is not a fork, we take them: nothing in them asks for one.
 */
function resetOptions(p: unknown, name: string): void {
  const [options] = parseParams(p, [optional('options', (v, n) => (typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : fail(n, 'an object ({ forking?: { jsonRpcUrl?, blockNumber? } })', v)))]);
  if (!options) return;
  const unknown = Object.keys(options).filter((k) => k !== 'forking');
  if (unknown.length) throw new RpcError(INVALID_PARAMS, `Invalid params: options: unknown field ${unknown.map((k) => JSON.stringify(k)).join(', ')}; ${name} takes { forking?: { jsonRpcUrl?, blockNumber? } }`);
  const forking = options.forking;
  if (forking === undefined || forking === null) return;
  if (typeof forking !== 'object' || Array.isArray(forking)) fail('options.forking', 'an object ({ jsonRpcUrl?, blockNumber? }) or null', forking);
  const f = forking as Record<string, unknown>;
  const named = Object.keys(f).filter((k) => f[k] !== undefined && f[k] !== null);
  if (named.length === 0) return;
  throw new RpcError(
    INVALID_PARAMS,
    `Forking is not supported on this node: ${name} resets the chain to its own genesis only; it was asked for ${named.map((k) => `${k} ${JSON.stringify(f[k])}`).join(', ')}. Call it without forking params (nothing was changed)`,
  );
}

/** anvil_reset / hardhat_reset without a fork: the whole chain, both spaces, back to its genesis (ledger/snapshots.ts). */
const resetMethod =
  (name: string): Method =>
  async (p, ctx) => {
    resetOptions(p, name);
    await snapshotsOf(ctx).reset();
    return null;
  };

// ---- the pool, and what this chain keeps fixed ----

const anvil_dropTransaction: Method = (p, ctx) => {
  const [hash] = parseParams(p, [required('hash', data)]);
  if (hash.length !== 32) fail('hash', 'a 32-byte transaction hash', p);
  const hex = bytesToHex(hash);
  return ctx.relay.drop(hex) ? hex : null;
};

/** Anvil methods that change what this chain keeps fixed: a clear refusal saying why. */
const fixedOnThisChain = (name: string, why: string): Method => () => {
  throw new RpcError(-32601, `${name} is not supported on this node: ${why}`);
};
const fixedBaseFee = fixedOnThisChain('setNextBlockBaseFeePerGas', `the base fee is fixed at ${BASE_FEE_PER_GAS} wei (1 lamport per gas), so the burned part of every fee is whole lamports`);
const fixedCoinbase = fixedOnThisChain('setCoinbase', 'the coinbase is fixed at the zero address (priority fees, and the wei under a lamport of balance edits, go there)');
const fixedGasLimit = fixedOnThisChain('setBlockGasLimit', `the block gas limit is fixed at ${BLOCK_GAS_LIMIT} (Velas's)`);
const fixedPrevRandao = fixedOnThisChain('setPrevRandao', "each EVM block's prevRandao is its native parent slot's blockhash");

/** anvil_nodeInfo, with the gas price eth_gasPrice answers (methods.ts hands it in). */
const anvilNodeInfo = (gasPrice: Method): Method => async (p, ctx) => {
  noParams(p);
  const head = ctx.space.head;
  return {
    currentBlockNumber: hex(head.number),
    currentBlockTimestamp: head.timestamp,
    currentBlockHash: head.hash,
    hardFork: HARDFORK[0]!.toUpperCase() + HARDFORK.slice(1),
    transactionOrder: 'fifo',
    environment: { baseFee: hex(BASE_FEE_PER_GAS), chainId: ctx.space.chainId, gasLimit: hex(BLOCK_GAS_LIMIT), gasPrice: await gasPrice([], ctx) },
    forkConfig: { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
  };
};

const table: Record<string, Method> = {
  evm_mine,
  anvil_mine,
  hardhat_mine: anvil_mine,
  evm_increaseTime,
  anvil_increaseTime: evm_increaseTime,
  evm_setNextBlockTimestamp,
  anvil_setNextBlockTimestamp: evm_setNextBlockTimestamp,
  anvil_setBalance,
  hardhat_setBalance: anvil_setBalance,
  anvil_setCode,
  hardhat_setCode: anvil_setCode,
  anvil_setNonce,
  hardhat_setNonce: anvil_setNonce,
  anvil_setStorageAt,
  hardhat_setStorageAt: anvil_setStorageAt,
  anvil_impersonateAccount,
  hardhat_impersonateAccount: anvil_impersonateAccount,
  anvil_stopImpersonatingAccount,
  hardhat_stopImpersonatingAccount: anvil_stopImpersonatingAccount,
  anvil_autoImpersonateAccount,
  anvil_dumpState,
  hardhat_dumpState: anvil_dumpState,
  anvil_loadState,
  hardhat_loadState: anvil_loadState,
  anvil_reset: resetMethod('anvil_reset'),
  hardhat_reset: resetMethod('hardhat_reset'),
  anvil_dropTransaction,
  hardhat_dropTransaction: anvil_dropTransaction,
  anvil_setNextBlockBaseFeePerGas: fixedBaseFee,
  hardhat_setNextBlockBaseFeePerGas: fixedBaseFee,
  anvil_setCoinbase: fixedCoinbase,
  hardhat_setCoinbase: fixedCoinbase,
  evm_setBlockGasLimit: fixedGasLimit,
  anvil_setBlockGasLimit: fixedGasLimit,
  hardhat_setPrevRandao: fixedPrevRandao,
};

/** The Anvil table, every method behind the chain-control gate; `eth_gasPrice` is the port's own (for anvil_nodeInfo). */
export function anvilMethods(eth_gasPrice: Method): MethodTable<EvmRpcContext> {
  const all = { ...table, anvil_nodeInfo: anvilNodeInfo(eth_gasPrice) };
  return Object.fromEntries(Object.entries(all).map(([name, m]) => [name, gated(name, m)]));
}
