/** Fee and blockhash methods, 1.5-era and current names. */
import { computeBudgetOf } from '../../runtime/programs/compute-budget.ts';
import { transactionFee } from '../../runtime/executor.ts';
import { isWritableIndex, parseMessage, type Transaction } from '../../runtime/wire.ts';
import { durableNonceOf } from '../../ledger/durable-nonce.ts';
import { decodeNonceState } from '../../runtime/programs/nonce-account.ts';
import { contextSlot, withContext, type RpcContext } from '../context.ts';
import { invalidParams } from '../errors.ts';
import { TransactionError } from '../../runtime/errors.ts';
import { address, arrayOf, blockhash, commitmentConfig, optional, required, string } from '../params.ts';
import { method } from './method.ts';

export const getLatestBlockhash = method([optional('config', commitmentConfig)], ([cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const b = ctx.chain.latestBlockhash(c);
  return withContext(slot, { blockhash: b.blockhash, lastValidBlockHeight: b.lastValidBlockHeight });
});

/** Agave 1.x's FeeCalculator: the fee per signature under a blockhash. */
export interface FeeCalculatorJson {
  lamportsPerSignature: number;
}

/** getRecentBlockhash's value (1.x, removed in Agave 2.0 for getLatestBlockhash). */
export interface RecentBlockhashJson {
  blockhash: string;
  feeCalculator: FeeCalculatorJson;
}

export const getRecentBlockhash = method([optional('config', commitmentConfig)], ([cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const b = ctx.chain.latestBlockhash(c);
  return withContext(slot, { blockhash: b.blockhash, feeCalculator: { lamportsPerSignature: b.lamportsPerSignature } });
});

/** getFees's value (1.x, removed in Agave 2.0): `lastValidSlot` is the block height, as 1.9+ answered it. */
export interface FeesJson extends RecentBlockhashJson {
  lastValidSlot: number;
  lastValidBlockHeight: number;
}

export const getFees = method([optional('config', commitmentConfig)], ([cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const b = ctx.chain.latestBlockhash(c);
  return withContext(slot, {
    blockhash: b.blockhash,
    feeCalculator: { lamportsPerSignature: b.lamportsPerSignature },
    lastValidSlot: b.lastValidBlockHeight,
    lastValidBlockHeight: b.lastValidBlockHeight,
  });
});

/** getFeeCalculatorForBlockhash's value (1.x): the blockhash's fee calculator, or null once it has expired. */
export type FeeCalculatorForBlockhashJson = { feeCalculator: FeeCalculatorJson } | null;

export const getFeeCalculatorForBlockhash = method([required('blockhash', blockhash), optional('config', commitmentConfig)], ([hash, cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  const info = ctx.chain.isBlockhashValid(hash, c) ? ctx.chain.blockhashInfo(hash) : undefined;
  return withContext(slot, info ? { feeCalculator: { lamportsPerSignature: info.lamportsPerSignature } } : null);
});

/** getFeeRateGovernor's value (1.x): the genesis fee rate governor. */
export interface FeeRateGovernorJson {
  feeRateGovernor: {
    burnPercent: number;
    maxLamportsPerSignature: number;
    minLamportsPerSignature: number;
    targetLamportsPerSignature: number;
    targetSignaturesPerSlot: number;
  };
}

export const getFeeRateGovernor = method([], (_, ctx) => withContext(ctx.chain.slotAt('finalized'), { feeRateGovernor: ctx.chain.genesis.feeRateGovernor }));

export const isBlockhashValid = method([required('blockhash', blockhash), optional('config', commitmentConfig)], ([hash, cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  return withContext(slot, ctx.chain.isBlockhashValid(hash, c));
});

/**
 * The fee of a base64 message at the commitment's bank, or null when its blockhash has expired there
 * and it is not a durable-nonce message (Agave's Bank::get_fee_for_message falls back to the nonce
 * account's fee calculator, so a nonce transaction that can still land gets its fee).
 */
export const getFeeForMessage = method([required('message', string), optional('config', commitmentConfig)], ([encoded, cfg = {}], ctx) => {
  const c = cfg.commitment ?? 'finalized';
  const slot = contextSlot(ctx, c, cfg.minContextSlot);
  let message;
  try {
    message = parseMessage(new Uint8Array(Buffer.from(encoded, 'base64')));
  } catch (e) {
    throw invalidParams(`Invalid params: message: not a base64 transaction message (${(e as Error).message})`);
  }
  if (message.addressTableLookups.length > 0) {
    try {
      ctx.chain.loadAddresses(message, c);
    } catch (e) {
      if (e instanceof TransactionError) throw invalidParams(`invalid transaction message: ${e.message}`);
      throw e;
    }
  }
  let lps: number;
  if (ctx.chain.isBlockhashValid(message.recentBlockhash, c)) {
    lps = ctx.chain.blockhashInfo(message.recentBlockhash)!.lamportsPerSignature;
  } else {
    const nonceKey = durableNonceOf({ message } as Transaction, (a) => ctx.chain.getAccount(a, c));
    const state = nonceKey ? decodeNonceState(ctx.chain.getAccount(nonceKey, c)!.data) : null;
    if (state?.state !== 'initialized') return withContext(slot, null);
    lps = state.data.lamportsPerSignature;
  }
  let budget;
  try {
    budget = computeBudgetOf(message);
  } catch {
    return withContext(slot, null);
  }
  const signatures = new Array<Uint8Array>(message.header.numRequiredSignatures);
  return withContext(slot, transactionFee({ signatures, message }, budget, lps));
});

const MAX_NUM_RECENT_BLOCKS = 150;

/** The newest `count` stored blocks at or below `top`, oldest first (skipped slots hold none). */
async function recentBlockSlots(ctx: RpcContext, top: number, count: number): Promise<number[]> {
  const slots: number[] = [];
  const floor = ctx.chain.firstAvailableSlot;
  for (let end = top; slots.length < count && end >= floor; end -= 4 * count) {
    const start = Math.max(floor, end - 4 * count + 1);
    slots.unshift(...(await ctx.chain.store.getBlockSlots(start, end, 4 * count)));
  }
  return slots.slice(-count);
}

/**
 * Recent prioritization fees per block, newest 150 blocks, as Agave's PrioritizationFeeCache answers
 * them: the lowest compute-unit price paid in the block, raised to the lowest price paid by the
 * transactions that write-lock each of the given accounts, when that is higher.
 */
export const getRecentPrioritizationFees = method([optional('accounts', arrayOf(address, 128))], async ([accounts = []], ctx) => {
  const wanted = new Set(accounts);
  const out: Array<{ slot: number; prioritizationFee: number }> = [];
  for (const slot of await recentBlockSlots(ctx, ctx.chain.confirmedSlot, MAX_NUM_RECENT_BLOCKS)) {
    const block = ctx.chain.bank(slot)?.transactions ?? (await ctx.chain.store.getBlock(slot))?.transactions;
    if (!block) continue;
    let blockMin: number | null = null;
    const accountMin = new Map<string, number>();
    for (const t of block) {
      let message;
      let price: number;
      try {
        message = parseMessage(messageBytesOf(t.wire));
        price = Number(computeBudgetOf(message).unitPrice);
      } catch {
        continue;
      }
      blockMin = blockMin === null ? price : Math.min(blockMin, price);
      const lock = (k: string) => {
        if (!wanted.has(k)) return;
        const prev = accountMin.get(k);
        accountMin.set(k, prev === undefined ? price : Math.min(prev, price));
      };
      message.accountKeys.forEach((k, i) => isWritableIndex(message, i) && lock(k));
      // Writable addresses a v0 message loaded from lookup tables lock their accounts too.
      t.meta.loadedAddresses?.writable.forEach(lock);
    }
    out.push({ slot, prioritizationFee: Math.max(blockMin ?? 0, ...accountMin.values()) });
  }
  return out;
});

function messageBytesOf(wire: Uint8Array): Uint8Array {
  const sigs = wire[0]!; // fewer than 128 signatures fit a packet, so the short-vec is one byte
  return wire.subarray(1 + sigs * 64);
}

