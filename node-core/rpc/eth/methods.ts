/**
 * The Ethereum JSON-RPC method table of the EVM space: one function per method, answered from the
 * EVM space's blocks and state. Served on the EVM endpoint and, beside the native methods, on the
 * native HTTP port.
 */
import { createTx } from '@ethereumjs/tx';
import { bytesToHex } from '@ethereumjs/util';
import { keccak256 } from '../../common/hash.ts';
import { BASE_FEE_PER_GAS, BLOCK_GAS_LIMIT, COINBASE } from '../../evm/constants.ts';
import type { EvmBlockRecord, EvmTxRecord, Hex } from '../../evm/records.ts';
import { TxRejected } from '../../evm/relay.ts';
import { isEmptyCodeHash } from '../../evm/state.ts';
import type { DecodedTransaction } from '../../evm/transaction.ts';
import type { MethodTable } from '../dispatcher.ts';
import { RpcError } from '../errors.ts';
import { arrayOf, bool, fail, optional, parseParams, required, type Parse } from '../params.ts';
import { anvilMethods } from './anvil.ts';
import { estimateGas, ethCall, SERVER_ERROR, type CallTarget } from './call.ts';
import { cachedCall } from './call-cache.ts';
import { selectBlock, stateTarget, type EvmRpcContext } from './context.ts';
import { snapshotMethods } from './snapshots.ts';
import { firstLogIndex, formatBlock, formatReceipt, formatTransaction, transactionFields } from './format.ts';
import { criteriaOf, invalidRange, rangeLogs } from './logs.ts';
import { makeOtsGetApiLevel, otsMethods } from './ots.ts';
import { debugMethods } from './debug.ts';
import { decodeLogsMethods } from './decode-logs.ts';
import { otsTraceMethods } from './ots-trace.ts';
import {
  blockSelector,
  bytesHex,
  callObject,
  data,
  ethAddress,
  hash32,
  hex,
  logFilter,
  quantity,
  smallQuantity,
  type BlockSelector,
  type CallObject,
  type LogFilter,
} from './params.ts';

type Method = (params: unknown, ctx: EvmRpcContext) => unknown;

const latest: BlockSelector = { tag: 'latest' };
/** A method that takes no params refuses any, as geth does ("too many arguments"): absent, null and [] pass. */
const noParams = (p: unknown) => parseParams(p, []);
const run = (ctx: EvmRpcContext) => ctx.space.callMachine.run.bind(ctx.space.callMachine);

/** A storage slot: a quantity or a 32-byte word, as clients send either. */
const storageSlot: Parse<Hex> = (v, name) => {
  const n = quantity(v, name);
  return `0x${n.toString(16).padStart(64, '0')}` as Hex;
};

// ---- chain and node ----

/** Starts with "anvil" because development tools (hardhat-network-helpers) accept a node as a dev network by that prefix. */
const web3_clientVersion: Method = (p, ctx) => {
  noParams(p);
  return `anvil-compatible/Isthmus/v${ctx.version}/${process.platform}-${process.arch}/node${process.version.slice(1)}`;
};
const web3_sha3: Method = (p) => {
  const [bytes] = parseParams(p, [required('data', data)]);
  return bytesToHex(keccak256(bytes));
};
const net_version: Method = (p, ctx) => {
  noParams(p);
  return String(ctx.space.chainId);
};
const net_listening: Method = (p) => {
  noParams(p);
  return true;
};
const net_peerCount: Method = (p) => {
  noParams(p);
  return '0x0';
};
const eth_chainId: Method = (p, ctx) => {
  noParams(p);
  return hex(ctx.space.chainId);
};
const eth_syncing: Method = (p) => {
  noParams(p);
  return false;
};
const eth_mining: Method = (p) => {
  noParams(p);
  return false;
};
const eth_hashrate: Method = (p) => {
  noParams(p);
  return '0x0';
};
const eth_coinbase: Method = (p) => {
  noParams(p);
  return COINBASE;
};
const eth_blockNumber: Method = (p, ctx) => {
  noParams(p);
  return hex(ctx.space.head.number);
};
const eth_accounts: Method = (p, ctx) => {
  noParams(p);
  return ctx.devKeys.map((k) => k.address);
};

// ---- state ----

async function readAccount(target: CallTarget, address: Hex) {
  return target.state.account(address);
}

const eth_getBalance: Method = async (p, ctx) => {
  const [address, sel = latest] = parseParams(p, [required('address', ethAddress), optional('block', blockSelector)]);
  // The common case stays synchronous: the newest state is a bank layer in memory.
  if ('tag' in sel && sel.tag === 'latest') return hex(ctx.space.stateAt('confirmed').account(address)?.balance ?? 0n);
  return hex((await readAccount(await stateTarget(ctx, sel), address))?.balance ?? 0n);
};

const eth_getTransactionCount: Method = async (p, ctx) => {
  const [address, sel = latest] = parseParams(p, [required('address', ethAddress), optional('block', blockSelector)]);
  if ('tag' in sel && sel.tag === 'pending') return hex(ctx.relay.pendingNonce(address));
  return hex((await readAccount(await stateTarget(ctx, sel), address))?.nonce ?? 0n);
};

const eth_getCode: Method = async (p, ctx) => {
  const [address, sel = latest] = parseParams(p, [required('address', ethAddress), optional('block', blockSelector)]);
  const target = await stateTarget(ctx, sel);
  const account = await readAccount(target, address);
  if (!account || isEmptyCodeHash(account.codeHash)) return '0x';
  return bytesHex((await target.state.code(bytesToHex(account.codeHash))) ?? new Uint8Array(0));
};

const eth_getStorageAt: Method = async (p, ctx) => {
  const [address, slot, sel = latest] = parseParams(p, [required('address', ethAddress), required('slot', storageSlot), optional('block', blockSelector)]);
  const value = await (await stateTarget(ctx, sel)).state.storage(address, slot);
  return `0x${Buffer.from(value).toString('hex').padStart(64, '0')}`;
};

const noOverrides = (v: unknown) => {
  if (v !== undefined && v !== null) throw new RpcError(-32602, 'Invalid params: state and block overrides are not supported by this node');
  return undefined;
};

/** eth_call's parameters (made once: it is the hottest method). */
const ETH_CALL_PARAMS = [required('transaction', callObject), optional('block', blockSelector), optional('stateOverrides', noOverrides), optional('blockOverrides', noOverrides)] as const;

const eth_call: Method = async (p, ctx) => {
  const [call, sel = latest] = parseParams(p, ETH_CALL_PARAMS);
  const target = await stateTarget(ctx, sel);
  return bytesHex(await cachedCall(call, target, () => ethCall(ctx.space.callMachine, call, target)));
};

const eth_estimateGas: Method = async (p, ctx) => {
  const [call, sel = { tag: 'pending' } as BlockSelector] = parseParams(p, [required('transaction', callObject), optional('block', blockSelector), optional('stateOverrides', noOverrides)]);
  return hex(await estimateGas(run(ctx), ctx.space.callMachine.common, call, await stateTarget(ctx, sel)));
};

// ---- fees ----

/** Blocks the fee suggestion looks back over, and the tips it takes from each (geth's oracle). */
const FEE_BLOCKS = 20;
const FEE_SAMPLES_PER_BLOCK = 3;

async function suggestedTip(ctx: EvmRpcContext): Promise<bigint> {
  const tips: bigint[] = [];
  const head = ctx.space.head.number;
  for (let n = head; n > head - FEE_BLOCKS && n > 0; n--) {
    const block = await ctx.space.block(n);
    if (!block) continue;
    const paid = (await ctx.space.blockTransactions(block)).filter((t) => !t.deposit).map((t) => t.effectiveGasPrice - block.baseFeePerGas);
    paid.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    tips.push(...paid.slice(0, FEE_SAMPLES_PER_BLOCK));
  }
  if (tips.length === 0) return 0n;
  tips.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return tips[Math.floor(((tips.length - 1) * 60) / 100)]!;
}

const eth_maxPriorityFeePerGas: Method = async (p, ctx) => {
  noParams(p);
  return hex(await suggestedTip(ctx));
};
const eth_gasPrice: Method = async (p, ctx) => {
  noParams(p);
  return hex(BASE_FEE_PER_GAS + (await suggestedTip(ctx)));
};
const eth_blobBaseFee: Method = (p) => {
  noParams(p);
  return '0x1';
};

const percentile: Parse<number> = (v, name) => (typeof v === 'number' && v >= 0 && v <= 100 ? v : fail(name, 'a percentile from 0 to 100', v));

const eth_feeHistory: Method = async (p, ctx) => {
  const [count, newest, percentiles = []] = parseParams(p, [
    required('blockCount', (v, n) => Math.min(1024, smallQuantity(v, n))),
    required('newestBlock', blockSelector),
    optional('rewardPercentiles', arrayOf(percentile)),
  ]);
  for (let i = 1; i < percentiles.length; i++) if (percentiles[i]! < percentiles[i - 1]!) throw new RpcError(-32602, 'Invalid params: rewardPercentiles must be ascending');
  const last = await selectBlock(ctx, newest);
  if (!last) throw new RpcError(SERVER_ERROR, 'header not found');
  const oldest = Math.max(0, last.number - count + 1);
  const baseFeePerGas: Hex[] = [];
  const gasUsedRatio: number[] = [];
  const reward: Hex[][] = [];
  for (let n = oldest; n <= last.number; n++) {
    const block = (await ctx.space.block(n))!;
    baseFeePerGas.push(hex(block.baseFeePerGas));
    gasUsedRatio.push(block.gasUsed / Number(BLOCK_GAS_LIMIT));
    if (percentiles.length) reward.push(blockRewards(block, await ctx.space.blockTransactions(block), percentiles));
  }
  // The base fee is fixed: the next block's is the same.
  baseFeePerGas.push(hex(BASE_FEE_PER_GAS));
  return {
    oldestBlock: hex(oldest),
    baseFeePerGas,
    gasUsedRatio,
    baseFeePerBlobGas: baseFeePerGas.map(() => '0x1'),
    blobGasUsedRatio: gasUsedRatio.map(() => 0),
    ...(percentiles.length ? { reward } : {}),
  };
};

/** geth's per-block rewards: tips at gas-weighted percentiles (0 for an empty block). */
function blockRewards(block: EvmBlockRecord, txs: EvmTxRecord[], percentiles: number[]): Hex[] {
  const paid = txs.filter((t) => !t.deposit && t.gasUsed > 0).map((t) => ({ tip: t.effectiveGasPrice - block.baseFeePerGas, gas: t.gasUsed }));
  if (paid.length === 0) return percentiles.map(() => '0x0');
  paid.sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
  const total = paid.reduce((n, t) => n + t.gas, 0);
  return percentiles.map((pct) => {
    const threshold = (total * pct) / 100;
    let sum = 0;
    for (const t of paid) {
      sum += t.gas;
      if (sum >= threshold) return hex(t.tip);
    }
    return hex(paid[paid.length - 1]!.tip);
  });
}

// ---- blocks, transactions, receipts ----

async function blockJson(ctx: EvmRpcContext, block: EvmBlockRecord | null, full: boolean) {
  if (!block) return null;
  const txs = full ? (await ctx.space.blockTransactions(block)).map((t) => formatTransaction(t, block, ctx.space.machine.common)) : block.transactions;
  return formatBlock(block, ctx.space.isFinalized(block), txs);
}

const eth_getBlockByNumber: Method = async (p, ctx) => {
  const [sel, full = false] = parseParams(p, [required('block', blockSelector), optional('fullTransactions', bool)]);
  return blockJson(ctx, await selectBlock(ctx, sel), full);
};

const eth_getBlockByHash: Method = async (p, ctx) => {
  const [hash, full = false] = parseParams(p, [required('blockHash', hash32), optional('fullTransactions', bool)]);
  return blockJson(ctx, await ctx.space.blockByHash(hash), full);
};

const countOf = (block: EvmBlockRecord | null) => (block ? hex(block.transactions.length) : null);
const eth_getBlockTransactionCountByNumber: Method = async (p, ctx) => countOf(await selectBlock(ctx, parseParams(p, [required('block', blockSelector)])[0]));
const eth_getBlockTransactionCountByHash: Method = async (p, ctx) => countOf(await ctx.space.blockByHash(parseParams(p, [required('blockHash', hash32)])[0]));
const eth_getUncleCountByBlockNumber: Method = async (p, ctx) => ((await selectBlock(ctx, parseParams(p, [required('block', blockSelector)])[0])) ? '0x0' : null);
const eth_getUncleCountByBlockHash: Method = async (p, ctx) => ((await ctx.space.blockByHash(parseParams(p, [required('blockHash', hash32)])[0])) ? '0x0' : null);
const eth_getUncleByBlockNumberAndIndex: Method = (p) => {
  parseParams(p, [required('block', blockSelector), required('index', quantity)]);
  return null;
};
const eth_getUncleByBlockHashAndIndex: Method = (p) => {
  parseParams(p, [required('blockHash', hash32), required('index', quantity)]);
  return null;
};

async function txAt(ctx: EvmRpcContext, block: EvmBlockRecord | null, index: number) {
  if (!block || index >= block.transactions.length) return null;
  const txs = await ctx.space.blockTransactions(block);
  return formatTransaction(txs[index]!, block, ctx.space.machine.common);
}
const eth_getTransactionByBlockNumberAndIndex: Method = async (p, ctx) => {
  const [sel, index] = parseParams(p, [required('block', blockSelector), required('index', smallQuantity)]);
  return txAt(ctx, await selectBlock(ctx, sel), index);
};
const eth_getTransactionByBlockHashAndIndex: Method = async (p, ctx) => {
  const [hash, index] = parseParams(p, [required('blockHash', hash32), required('index', smallQuantity)]);
  return txAt(ctx, await ctx.space.blockByHash(hash), index);
};

/** A transaction taken but not yet in a visible block, as geth shows pending ones. */
function pendingJson(ctx: EvmRpcContext, d: DecodedTransaction) {
  const fields = transactionFields({ raw: d.raw, deposit: false }, ctx.space.machine.common);
  const tx = d.tx;
  fields.gasPrice = hex('maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice);
  return { blockHash: null, blockNumber: null, from: d.from, hash: d.hash, transactionIndex: null, ...fields };
}

const eth_getTransactionByHash: Method = async (p, ctx) => {
  const [hash] = parseParams(p, [required('hash', hash32)]);
  const t = await ctx.space.transaction(hash);
  if (!t) {
    const pending = ctx.relay.pendingByHash.get(hash);
    return pending ? pendingJson(ctx, pending) : null;
  }
  const block = (await ctx.space.block(t.blockNumber))!;
  return formatTransaction(t, block, ctx.space.machine.common);
};

const eth_getTransactionReceipt: Method = async (p, ctx) => {
  const [hash] = parseParams(p, [required('hash', hash32)]);
  const t = await ctx.space.transaction(hash);
  if (!t) return null;
  const block = (await ctx.space.block(t.blockNumber))!;
  return formatReceipt(t, block, firstLogIndex(await ctx.space.blockTransactions(block), t.index));
};

const eth_getBlockReceipts: Method = async (p, ctx) => {
  const [sel] = parseParams(p, [required('block', blockSelector)]);
  const block = await selectBlock(ctx, sel);
  if (!block) return null;
  const txs = await ctx.space.blockTransactions(block);
  let logIndex = 0;
  return txs.map((t) => {
    const r = formatReceipt(t, block, logIndex);
    logIndex += t.logs.length;
    return r;
  });
};

// ---- logs and filters ----

async function logRange(ctx: EvmRpcContext, f: LogFilter): Promise<[number, number]> {
  const at = async (sel: BlockSelector | undefined) => (sel === undefined ? ctx.space.head.number : ((await selectBlock(ctx, sel))?.number ?? ctx.space.head.number));
  const from = await at(f.fromBlock);
  const to = await at(f.toBlock);
  if (from > to) throw invalidRange(from, to);
  return [from, to];
}

async function getLogs(ctx: EvmRpcContext, f: LogFilter) {
  if (f.blockHash) {
    if (f.fromBlock || f.toBlock) throw new RpcError(-32602, 'Invalid params: blockHash may not be used with fromBlock or toBlock');
    const block = await ctx.space.blockByHash(f.blockHash);
    if (!block) throw new RpcError(SERVER_ERROR, 'unknown block');
    return rangeLogs(ctx.space, block.number, block.number, criteriaOf(f));
  }
  const [from, to] = await logRange(ctx, f);
  return rangeLogs(ctx.space, from, to, criteriaOf(f));
}

const eth_getLogs: Method = async (p, ctx) => getLogs(ctx, parseParams(p, [required('filter', logFilter)])[0]);

const eth_newFilter: Method = async (p, ctx) => {
  const [f] = parseParams(p, [required('filter', logFilter)]);
  const bound = (sel: BlockSelector | undefined) => (sel && 'number' in sel ? sel.number : 'latest');
  return ctx.filters.install('logs', criteriaOf(f), { from: bound(f.fromBlock), to: bound(f.toBlock) });
};
const eth_newBlockFilter: Method = (p, ctx) => {
  noParams(p);
  return ctx.filters.install('blocks');
};
const eth_newPendingTransactionFilter: Method = (p, ctx) => {
  noParams(p);
  return ctx.filters.install('pending');
};
const filterNotFound = () => new RpcError(SERVER_ERROR, 'filter not found');
const filterId: Parse<string> = (v, name) => (typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v) ? v : fail(name, 'a filter id', v));
const eth_getFilterChanges: Method = (p, ctx) => {
  const [id] = parseParams(p, [required('filterId', filterId)]);
  const changes = ctx.filters.drain(id);
  if (changes === null) throw filterNotFound();
  return changes;
};
const eth_uninstallFilter: Method = (p, ctx) => ctx.filters.uninstall(parseParams(p, [required('filterId', filterId)])[0]);
const eth_getFilterLogs: Method = async (p, ctx) => {
  const [id] = parseParams(p, [required('filterId', filterId)]);
  const f = ctx.filters.get(id);
  if (!f || f.kind !== 'logs') throw filterNotFound();
  const head = ctx.space.head.number;
  const from = f.range!.from === 'latest' ? head : f.range!.from;
  const to = f.range!.to === 'latest' ? head : Math.min(f.range!.to, head);
  if (from > to) return [];
  return rangeLogs(ctx.space, from, to, f.criteria!);
};

// ---- sending ----

function rejected(e: unknown): never {
  if (e instanceof TxRejected) throw new RpcError(SERVER_ERROR, e.message);
  throw e;
}

const eth_sendRawTransaction: Method = async (p, ctx) => {
  const [raw] = parseParams(p, [required('transaction', data)]);
  try {
    ctx.relay.precheck(raw);
    // The checks, the sender's recovery and the native wrapping on the worker thread, when it runs (else submitRaw does them here).
    const recovery = await ctx.submissions?.recoverEvm(raw, ctx.space.chainId, ctx.relay.wrapping());
    const recovered = recovery && 'recovered' in recovery ? recovery : null;
    const adopted = recovered ? ctx.space.decoder.adopt(raw, recovered.recovered) : undefined;
    // Checked against the chain after a snapshot, revert or reset in progress (Chain.whenOpen); submitRaw is synchronous.
    await ctx.chain.whenOpen();
    return ctx.relay.submitRaw(raw, recovered?.wrapped, adopted);
  } catch (e) {
    return rejected(e);
  }
};

const eth_sendTransaction: Method = async (p, ctx) => {
  const [call] = parseParams(p, [required('transaction', callObject)]);
  // Filled in (the nonce) and checked against the chain after a snapshot, revert or reset in progress:
  // one that began while signing is waited for and the transaction signed again.
  let raw: Uint8Array;
  do {
    await ctx.chain.whenOpen();
    raw = await signForDevAccount(ctx, call);
  } while (ctx.chain.isHeld);
  try {
    return ctx.relay.submitRaw(raw);
  } catch (e) {
    return rejected(e);
  }
};

/** Fills in what eth_sendTransaction leaves out (nonce, gas, fees) and signs with the unlocked key. */
async function signForDevAccount(ctx: EvmRpcContext, call: CallObject): Promise<Uint8Array> {
  if (!call.from) throw new RpcError(-32602, 'Invalid params: transaction.from is required');
  const devKey = ctx.devKeys.find((k) => k.address === call.from);
  const impersonated = devKey ? undefined : ctx.impersonation?.signerFor(call.from);
  const key = devKey ?? impersonated;
  if (!key) throw new RpcError(SERVER_ERROR, `unknown account ${call.from}: eth_sendTransaction signs only for the node's dev accounts (eth_accounts) and impersonated addresses (anvil_impersonateAccount)`);
  const common = ctx.space.machine.common;
  if (call.chainId !== undefined && call.chainId !== common.chainId()) throw new RpcError(SERVER_ERROR, `invalid chain id: have ${call.chainId}, want ${common.chainId()}`);
  const nonce = call.nonce ?? ctx.relay.pendingNonce(call.from);
  const tip = call.maxPriorityFeePerGas ?? (call.gasPrice === undefined ? await suggestedTip(ctx) : undefined);
  const filled: CallObject = { ...call, nonce };
  const gasLimit = call.gas ?? (await estimateGas(run(ctx), common, { ...filled, gasPrice: call.gasPrice, maxFeePerGas: call.maxFeePerGas ?? (call.gasPrice === undefined ? 2n * BASE_FEE_PER_GAS + tip! : undefined), maxPriorityFeePerGas: tip }, await stateTarget(ctx, { tag: 'pending' })));
  const base = { nonce, gasLimit, to: call.to, value: call.value ?? 0n, data: call.data ?? call.input ?? new Uint8Array(0), chainId: common.chainId() };
  const tx =
    call.gasPrice !== undefined && call.maxFeePerGas === undefined
      ? createTx({ ...base, gasPrice: call.gasPrice, ...(call.accessList ? { type: 1, accessList: call.accessList } : {}) }, { common })
      : createTx({ ...base, type: 2, maxPriorityFeePerGas: tip!, maxFeePerGas: call.maxFeePerGas ?? 2n * BASE_FEE_PER_GAS + tip!, accessList: call.accessList ?? [] }, { common });
  const signed = tx.sign(key.privateKey);
  return impersonated ? ctx.impersonation!.adopt(signed, call.from).raw : signed.serialize();
}

export const ethMethods: MethodTable<EvmRpcContext> = {
  ...snapshotMethods,
  web3_clientVersion,
  web3_sha3,
  net_version,
  net_listening,
  net_peerCount,
  eth_chainId,
  eth_syncing,
  eth_mining,
  eth_hashrate,
  eth_coinbase,
  eth_accounts,
  eth_blockNumber,
  eth_getBalance,
  eth_getTransactionCount,
  eth_getCode,
  eth_getStorageAt,
  eth_call,
  eth_estimateGas,
  eth_gasPrice,
  eth_maxPriorityFeePerGas,
  eth_feeHistory,
  eth_blobBaseFee,
  eth_getBlockByNumber,
  eth_getBlockByHash,
  eth_getBlockTransactionCountByNumber,
  eth_getBlockTransactionCountByHash,
  eth_getUncleCountByBlockNumber,
  eth_getUncleCountByBlockHash,
  eth_getUncleByBlockNumberAndIndex,
  eth_getUncleByBlockHashAndIndex,
  eth_getTransactionByBlockNumberAndIndex,
  eth_getTransactionByBlockHashAndIndex,
  eth_getTransactionByHash,
  eth_getTransactionReceipt,
  eth_getBlockReceipts,
  eth_getLogs,
  eth_newFilter,
  eth_newBlockFilter,
  eth_newPendingTransactionFilter,
  eth_getFilterChanges,
  eth_getFilterLogs,
  eth_uninstallFilter,
  eth_sendRawTransaction,
  eth_sendTransaction,
  ...otsMethods,
  // Over the whole table: the level announced follows the methods served.
  ots_getApiLevel: makeOtsGetApiLevel(() => Object.keys(ethMethods)),
  ...anvilMethods(eth_gasPrice),
  ...debugMethods,
  ...otsTraceMethods,
  ...decodeLogsMethods,
};
