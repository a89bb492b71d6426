/** Block, slot-range, signature-history and transaction-lookup methods (1.5-era and current names). */
import { totalEpochStake } from './staking.ts';
import type { Commitment } from '../../ledger/commitment.ts';
import { encodeBlock, encodeConfirmedTransaction, type TransactionDetails, type TransactionEncoding } from '../encoding/transaction.ts';
import { contextSlot, withContext, type RpcContext } from '../context.ts';
import { blockCleanedUp, blockNotAvailable, invalidParams, slotSkipped, RpcError, INVALID_PARAMS } from '../errors.ts';
import {
  TRANSACTION_ENCODINGS,
  address,
  arrayOf,
  bool,
  commitment,
  config,
  oneOf,
  optional,
  required,
  signature,
  u64,
  type Parse,
  type ParamValues,
} from '../params.ts';
import { method } from './method.ts';

export const MAX_GET_CONFIRMED_BLOCKS_RANGE = 500_000;
export const MAX_SIGNATURES_FOR_ADDRESS_SLOT_RANGE = 10_000;
export const MAX_SIGNATURES_FOR_ADDRESS2_LIMIT = 1_000;
export const MAX_SIGNATURE_STATUSES = 256;

/** History methods serve confirmed or finalized data only, as Agave does. */
function historyCommitment(c: Commitment | undefined): Commitment {
  if (c === 'processed') throw new RpcError(INVALID_PARAMS, 'Method does not support commitment below `confirmed`');
  return c ?? 'finalized';
}

/** The encoding argument may be a bare string (1.5 form) or a config object. */
function orBareEncoding<T, W>(parseConfig: Parse<T, W>): Parse<T | { encoding: TransactionEncoding }, W | TransactionEncoding> {
  // A bare string is the encoding itself, so a bad one is reported as `encoding`.
  return (v, name) => (typeof v === 'string' ? { encoding: oneOf(TRANSACTION_ENCODINGS)(v, 'encoding') } : parseConfig(v, name));
}

const transactionConfigShape = { encoding: oneOf(TRANSACTION_ENCODINGS), commitment, maxSupportedTransactionVersion: u64 };

const blockConfig = orBareEncoding(config({ ...transactionConfigShape, transactionDetails: oneOf(['full', 'signatures', 'none', 'accounts'] as const), rewards: bool }));

/** What a block or transaction request asked for, whichever form its config came in. */
interface EncodingOptions {
  encoding?: TransactionEncoding;
  commitment?: Commitment;
  maxSupportedTransactionVersion?: number;
}

/** A slot with no block: skipped once rooted (check_blockstore_root), else not available yet. */
const noBlock = (ctx: RpcContext, slot: number) => (slot <= ctx.chain.rootSlot ? slotSkipped(slot) : blockNotAvailable(slot));

async function readBlock(ctx: RpcContext, slot: number, c: Commitment) {
  if (slot > ctx.chain.slotAt(c)) throw blockNotAvailable(slot);
  const first = await ctx.chain.store.firstAvailableSlot();
  if (first !== null && slot < first) throw blockCleanedUp(slot, first);
  const block = await ctx.chain.store.getBlock(slot);
  if (!block) throw noBlock(ctx, slot);
  return block;
}

function blockMethod(legacy: boolean) {
  return method([required('slot', u64), optional('config', blockConfig)], async ([slot, cfg = {}], ctx) => {
    const k: EncodingOptions & { transactionDetails?: TransactionDetails; rewards?: boolean } = cfg;
    const c = historyCommitment(k.commitment);
    const block = await readBlock(ctx, slot, c);
    return encodeBlock(block, {
      encoding: k.encoding ?? 'json',
      transactionDetails: k.transactionDetails ?? 'full',
      rewards: k.rewards ?? true,
      maxSupportedTransactionVersion: k.maxSupportedTransactionVersion,
      legacy,
    });
  });
}

export const getBlock = blockMethod(false);
export const getConfirmedBlock = blockMethod(true);

export const getBlockTime = method([required('slot', u64)], async ([slot], ctx) => {
  if (slot > ctx.chain.confirmedSlot) throw blockNotAvailable(slot);
  const header = await ctx.chain.store.getBlockHeader(slot);
  if (header) return header.blockTime;
  // A purged slot is reported as cleaned up, as Agave's check_slot_cleaned_up does.
  const first = await ctx.chain.store.firstAvailableSlot();
  if (first !== null && slot < first) throw blockCleanedUp(slot, first);
  throw noBlock(ctx, slot);
});

const rangeCommitment = config({ commitment, minContextSlot: u64 });

async function blockSlots(ctx: RpcContext, start: number, end: number, limit: number): Promise<number[]> {
  if (end < start) return [];
  return ctx.chain.store.getBlockSlots(start, end, limit);
}

export const getBlocks = method(
  [required('startSlot', u64), optional('endSlot', u64), optional('config', rangeCommitment)],
  async ([start, endArg, cfg = {}], ctx) => {
    const c = historyCommitment(cfg.commitment);
    const top = contextSlot(ctx, c, cfg.minContextSlot);
    // The spec bounds the range asked for (Agave checks it only after clamping the end to its newest
    // slot, so a young chain of Agave's answers any range): more than 500,000 slots is refused.
    const asked = endArg ?? Math.max(top, start);
    if (asked >= start && asked - start > MAX_GET_CONFIRMED_BLOCKS_RANGE) throw invalidParams(`Slot range too large; max ${MAX_GET_CONFIRMED_BLOCKS_RANGE}`);
    const end = Math.min(asked, top);
    return blockSlots(ctx, start, end, MAX_GET_CONFIRMED_BLOCKS_RANGE + 1);
  },
  (params) => {
    const raw = Array.isArray(params) ? params : [];
    // The end slot may be left out with the config in its place.
    return raw.length === 2 && typeof raw[1] === 'object' && raw[1] !== null ? [raw[0], undefined, raw[1]] : raw;
  },
);
export const getConfirmedBlocks = getBlocks;

export const getBlocksWithLimit = method([required('startSlot', u64), required('limit', u64), optional('config', rangeCommitment)], async ([start, limit, cfg = {}], ctx) => {
  if (limit > MAX_GET_CONFIRMED_BLOCKS_RANGE) throw invalidParams(`Limit too large; max ${MAX_GET_CONFIRMED_BLOCKS_RANGE}`);
  const c = historyCommitment(cfg.commitment);
  const top = contextSlot(ctx, c, cfg.minContextSlot);
  if (limit === 0) return [];
  return blockSlots(ctx, start, top, limit);
});
export const getConfirmedBlocksWithLimit = getBlocksWithLimit;

/** Stake that voted on the slot at each lockout depth; null once rooted or unknown, as the commitment cache forgets those. */
export const getBlockCommitment = method([required('slot', u64)], ([slot], ctx) => {
  const totalStake = totalEpochStake(ctx);
  const chain = ctx.chain;
  const confirmations = chain.confirmationsOf(slot);
  if (slot <= chain.rootSlot || slot > chain.confirmedSlot || !confirmations) return { commitment: null, totalStake };
  const commitment = new Array<number>(32).fill(0);
  commitment[Math.min(confirmations - 1, 31)] = totalStake;
  return { commitment, totalStake };
});

function confirmationStatus(ctx: RpcContext, slot: number): 'processed' | 'confirmed' | 'finalized' {
  return slot <= ctx.chain.rootSlot ? 'finalized' : slot <= ctx.chain.confirmedSlot ? 'confirmed' : 'processed';
}

export const getSignatureStatuses = method(
  [required('signatures', arrayOf(signature, MAX_SIGNATURE_STATUSES)), optional('config', config({ searchTransactionHistory: bool }))],
  async ([sigs, cfg = {}], ctx) => {
    const chain = ctx.chain;
    const slot = chain.processedSlot;
    const value = await Promise.all(
      sigs.map(async (sig) => {
        let status = chain.signatureStatus(sig) ?? null;
        if (!status && cfg.searchTransactionHistory) {
          const loc = await chain.store.getSignatureLocation(sig);
          if (loc && loc.slot <= chain.confirmedSlot) status = loc;
        }
        if (!status) return null;
        const rooted = status.slot <= chain.rootSlot;
        return {
          slot: status.slot,
          confirmations: rooted ? null : (chain.confirmationsOf(status.slot) ?? 0),
          status: status.err === null ? { Ok: null } : { Err: status.err },
          err: status.err,
          confirmationStatus: confirmationStatus(ctx, status.slot),
        };
      }),
    );
    return withContext(slot, value);
  },
);

const signaturesConfig = config({ before: signature, until: signature, limit: u64, commitment, minContextSlot: u64 });

async function locate(ctx: RpcContext, sig: string | undefined, name: string) {
  if (sig === undefined) return undefined;
  const loc = ctx.chain.signatureStatus(sig) ?? (await ctx.chain.store.getSignatureLocation(sig));
  if (!loc) throw invalidParams(`Invalid params: ${name}: signature ${sig} is not in this node's ledger`);
  return { slot: loc.slot, index: loc.index };
}

const signaturesParams = [required('address', address), optional('config', signaturesConfig)] as const;

async function signaturesForAddress(ctx: RpcContext, [addr, cfg = {}]: ParamValues<typeof signaturesParams>) {
  const limit = cfg.limit ?? MAX_SIGNATURES_FOR_ADDRESS2_LIMIT;
  if (limit < 1 || limit > MAX_SIGNATURES_FOR_ADDRESS2_LIMIT) throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_FOR_ADDRESS2_LIMIT}`);
  const c = historyCommitment(cfg.commitment);
  const maxSlot = contextSlot(ctx, c, cfg.minContextSlot);
  return ctx.chain.store.getSignaturesForAddress(addr, {
    before: await locate(ctx, cfg.before, 'before'),
    until: await locate(ctx, cfg.until, 'until'),
    limit,
    maxSlot,
  });
}

export const getSignaturesForAddress = method(signaturesParams, async (args, ctx) =>
  (await signaturesForAddress(ctx, args)).map((e) => ({ signature: e.signature, slot: e.slot, err: e.err, memo: e.memo, blockTime: e.blockTime, confirmationStatus: confirmationStatus(ctx, e.slot) })),
);

/** The 1.x form: no `confirmationStatus`. */
export const getConfirmedSignaturesForAddress2 = method(signaturesParams, async (args, ctx) =>
  (await signaturesForAddress(ctx, args)).map((e) => ({ signature: e.signature, slot: e.slot, err: e.err, memo: e.memo, blockTime: e.blockTime })),
);

/** DEPRECATED 1.5 form: signatures in [start, end], lowest slot first. */
export const getConfirmedSignaturesForAddress = method([required('address', address), required('startSlot', u64), required('endSlot', u64)], async ([addr, start, end], ctx) => {
  if (end < start) return [];
  if (end - start > MAX_SIGNATURES_FOR_ADDRESS_SLOT_RANGE) throw invalidParams(`Slot range too large; max ${MAX_SIGNATURES_FOR_ADDRESS_SLOT_RANGE}`);
  const entries = await ctx.chain.store.getSignaturesForAddress(addr, {
    limit: Number.MAX_SAFE_INTEGER,
    maxSlot: Math.min(end, ctx.chain.rootSlot),
    minSlot: start,
  });
  return entries.reverse().map((e) => e.signature);
});

const transactionConfig = orBareEncoding(config(transactionConfigShape));

function transactionMethod(legacy: boolean) {
  return method([required('signature', signature), optional('config', transactionConfig)], async ([sig, cfg = {}], ctx) => {
    const k: EncodingOptions = cfg;
    const c = historyCommitment(k.commitment);
    const located = await ctx.chain.store.getTransaction(sig);
    if (!located || located.slot > ctx.chain.slotAt(c)) return null;
    return encodeConfirmedTransaction(located, k.encoding ?? 'json', { maxSupportedTransactionVersion: k.maxSupportedTransactionVersion, legacy });
  });
}
export const getTransaction = transactionMethod(false);
export const getConfirmedTransaction = transactionMethod(true);
