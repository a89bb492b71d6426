/**
 * Otterscan's `ots_*` methods (and the `erigon_getHeaderByNumber` it probes), in the shapes of
 * Otterscan's spec (docs/custom-jsonrpc.md; Erigon's turbo/jsonrpc/otterscan_*.go). Otterscan sends
 * block numbers as plain JSON numbers as well as hex and tags, and addresses in any case.
 *
 * The announced API level comes from the methods the node serves: level 8 only once every method it
 * promises (the tracing ones included) is in the table.
 */
import type { EvmBlockRecord, EvmTxRecord, Hex } from '../../evm/records.ts';
import { isEmptyCodeHash } from '../../evm/state.ts';
import { fail, optional, parseParams, required, type Parse } from '../params.ts';
import { selectBlock, stateTarget, type EvmRpcContext } from './context.ts';
import { firstLogIndex, formatBlock, formatReceipt, formatTransaction } from './format.ts';
import { blockSelector, ethAddress, hash32, hex, quantity, smallQuantity, type BlockSelector } from './params.ts';

type Method = (params: unknown, ctx: EvmRpcContext) => unknown;

/** Every method Otterscan's API level 8 promises (Otterscan refuses a node below its minimum level, 8). */
export const OTS_LEVEL_8_METHODS = [
  'erigon_getHeaderByNumber',
  'ots_getApiLevel',
  'ots_hasCode',
  'ots_getInternalOperations',
  'ots_getTransactionError',
  'ots_traceTransaction',
  'ots_getBlockDetails',
  'ots_getBlockDetailsByHash',
  'ots_getBlockTransactions',
  'ots_searchTransactionsBefore',
  'ots_searchTransactionsAfter',
  'ots_getTransactionBySenderAndNonce',
  'ots_getContractCreator',
] as const;

/**
 * The API level a table of served methods can announce: 8 when it serves every method of level 8,
 * else 0 (no level: the node does not claim what it does not serve).
 */
export function otsApiLevel(served: Iterable<string>): number {
  const names = new Set(served);
  return OTS_LEVEL_8_METHODS.every((m) => names.has(m)) ? 8 : 0;
}

/** ots_getApiLevel over the table the node serves (read when asked, so methods added later count). */
export const makeOtsGetApiLevel =
  (served: () => Iterable<string>): Method =>
  (p) => {
    parseParams(p, []);
    return otsApiLevel(served());
  };

/** A block as Otterscan sends it: a plain JSON number, a hex quantity or a tag. */
const otsBlock: Parse<BlockSelector> = (v, name) =>
  typeof v === 'number' ? (Number.isSafeInteger(v) && v >= 0 ? { number: v } : fail(name, 'a block number', v)) : blockSelector(v, name);

/** A block number (search bounds, where 0 means "from the end"): a JSON number or a hex quantity. */
const blockNumber: Parse<number> = (v, name) => smallQuantity(v, name);

/** A page size or number: a JSON number or a hex quantity, within bounds. */
const bounded =
  (min: number, max: number): Parse<number> =>
  (v, name) => {
    const n = smallQuantity(v, name);
    return n >= min && n <= max ? n : fail(name, `a number from ${min} to ${max}`, v);
  };

const MAX_PAGE_SIZE = 100;

// ---- blocks ----

/** Otterscan's block: eth_getBlockByNumber's without transactions, logsBloom null (spec: to save bandwidth), with transactionCount. */
function otsBlockJson(ctx: EvmRpcContext, block: EvmBlockRecord): Record<string, unknown> {
  const json = formatBlock(block, ctx.space.isFinalized(block), []);
  delete json.transactions;
  return { ...json, logsBloom: null, transactionCount: block.transactions.length };
}

async function blockDetails(ctx: EvmRpcContext, block: EvmBlockRecord | null) {
  if (!block) return null;
  const txs = await ctx.space.blockTransactions(block);
  const totalFees = txs.reduce((sum, t) => sum + BigInt(t.gasUsed) * t.effectiveGasPrice, 0n);
  // No block rewards here: blocks are made by the native chain, and the EVM space issues nothing.
  return { block: otsBlockJson(ctx, block), issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' }, totalFees: hex(totalFees) };
}

const ots_getBlockDetails: Method = async (p, ctx) => {
  const [sel] = parseParams(p, [required('blockNumber', otsBlock)]);
  return blockDetails(ctx, await selectBlock(ctx, sel));
};

const ots_getBlockDetailsByHash: Method = async (p, ctx) => {
  const [hash] = parseParams(p, [required('blockHash', hash32)]);
  return blockDetails(ctx, await ctx.space.blockByHash(hash));
};

/** The 4-byte selector of a transaction's input: Otterscan's block page shows only the method. */
function withInputCropped(tx: Record<string, unknown>): Record<string, unknown> {
  const input = tx.input as string;
  return input.length > 10 ? { ...tx, input: input.slice(0, 10) } : tx;
}

const ots_getBlockTransactions: Method = async (p, ctx) => {
  const [sel, pageNumber, pageSize] = parseParams(p, [required('blockNumber', otsBlock), required('pageNumber', bounded(0, Number.MAX_SAFE_INTEGER)), required('pageSize', bounded(1, MAX_PAGE_SIZE))]);
  const block = await selectBlock(ctx, sel);
  if (!block) return null;
  const all = await ctx.space.blockTransactions(block);
  const start = Math.min(pageNumber * pageSize, all.length);
  const page = all.slice(start, start + pageSize);
  const common = ctx.space.machine.common;
  const fullblock = { ...formatBlock(block, ctx.space.isFinalized(block), page.map((t) => withInputCropped(formatTransaction(t, block, common)))), transactionCount: all.length };
  // Logs are left out (spec: null): the block page shows only each transaction's status and fee.
  const receipts = page.map((t) => ({ ...formatReceipt(t, block, firstLogIndex(all, t.index)), logs: null, logsBloom: null }));
  return { fullblock, receipts };
};

/** The header of a block (Otterscan probes it at start to learn the node speaks Erigon's namespace). */
const erigon_getHeaderByNumber: Method = async (p, ctx) => {
  const [sel] = parseParams(p, [required('blockNumber', otsBlock)]);
  const block = await selectBlock(ctx, sel);
  return block ? formatBlock(block, ctx.space.isFinalized(block), block.transactions) : null;
};

// ---- accounts ----

const ots_hasCode: Method = async (p, ctx) => {
  const [address, sel = { tag: 'latest' } as BlockSelector] = parseParams(p, [required('address', ethAddress), optional('blockNumber', otsBlock)]);
  const account = await (await stateTarget(ctx, sel)).state.account(address);
  return account !== null && !isEmptyCodeHash(account.codeHash);
};

const ots_getContractCreator: Method = async (p, ctx) => {
  const [address] = parseParams(p, [required('address', ethAddress)]);
  return ctx.space.contractCreator(address);
};

const ots_getTransactionBySenderAndNonce: Method = async (p, ctx) => {
  const [sender, nonce] = parseParams(p, [required('sender', ethAddress), required('nonce', (v, n) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : quantity(v, n)))]);
  return (await ctx.space.transactionBySenderAndNonce(sender, nonce))?.hash ?? null;
};

// ---- address history ----

async function searchResult(ctx: EvmRpcContext, hashes: Hex[], firstPage: boolean, lastPage: boolean) {
  const txs: unknown[] = [];
  const receipts: unknown[] = [];
  const common = ctx.space.machine.common;
  for (const h of hashes) {
    const t = (await ctx.space.transaction(h)) as EvmTxRecord;
    const block = (await ctx.space.block(t.blockNumber))!;
    txs.push(formatTransaction(t, block, common));
    receipts.push({ ...formatReceipt(t, block, firstLogIndex(await ctx.space.blockTransactions(block), t.index)), timestamp: hex(block.timestamp) });
  }
  return { txs, receipts, firstPage, lastPage };
}

/**
 * Reads whole blocks of an address's history until the page holds at least `size` transactions (as
 * Erigon does: a block's transactions are never split across pages). `more` says whether anything
 * lies beyond the page.
 */
async function readPage(history: AsyncGenerator<[number, number, Hex]>, size: number): Promise<{ entries: Array<[number, number, Hex]>; more: boolean }> {
  const entries: Array<[number, number, Hex]> = [];
  for await (const entry of history) {
    if (entries.length >= size && entry[0] !== entries[entries.length - 1]![0]) {
      await history.return(undefined);
      return { entries, more: true };
    }
    entries.push(entry);
  }
  return { entries, more: false };
}

async function anyIn(history: AsyncGenerator<[number, number, Hex]>): Promise<boolean> {
  const first = await history.next();
  await history.return(undefined);
  return !first.done;
}

const searchParams = (p: unknown) =>
  parseParams(p, [required('address', ethAddress), required('blockNumber', blockNumber), required('pageSize', bounded(1, MAX_PAGE_SIZE))]);

/** Newest first, from blocks before `blockNumber` (0: from the newest block). */
const ots_searchTransactionsBefore: Method = async (p, ctx) => {
  const [address, before, size] = searchParams(p);
  const { entries, more } = await readPage(ctx.space.addressHistory(address, { below: before === 0 ? undefined : before }), size);
  const firstPage = before === 0 || !(await anyIn(ctx.space.addressHistory(address, { above: before - 1 })));
  return searchResult(ctx, entries.map((e) => e[2]), firstPage, !more);
};

/** From blocks after `blockNumber` (0: from the first block), oldest first read, answered newest first as every page is. */
const ots_searchTransactionsAfter: Method = async (p, ctx) => {
  const [address, after, size] = searchParams(p);
  const { entries, more } = await readPage(ctx.space.addressHistory(address, { above: after === 0 ? -1 : after }), size);
  const lastPage = after === 0 || !(await anyIn(ctx.space.addressHistory(address, { below: after + 1 })));
  return searchResult(ctx, entries.reverse().map((e) => e[2]), !more, lastPage);
};

/** Otterscan's methods this node serves (ots_getApiLevel is registered beside them, over the whole table). */
export const otsMethods = {
  erigon_getHeaderByNumber,
  ots_hasCode,
  ots_getBlockDetails,
  ots_getBlockDetailsByHash,
  ots_getBlockTransactions,
  ots_searchTransactionsBefore,
  ots_searchTransactionsAfter,
  ots_getTransactionBySenderAndNonce,
  ots_getContractCreator,
} satisfies Record<string, Method>;
