/** Deterministic ledger records for the store tests and the crash writer. */
import { decodeBase58, encodeBase58 } from '../../node-core/common/base58.ts';
import { serializeMessage, serializeTransaction } from '../../node-core/runtime/wire.ts';
import { VOTE_PROGRAM_ID, type Address } from '../../node-core/common/pubkey.ts';
import type { Keypair } from '../../node-core/keys/keypair.ts';
import { voteTransaction } from '../../node-core/runtime/programs/vote/vote-transaction.ts';
import type { TransactionErrorValue } from '../../node-core/runtime/errors.ts';
import type { ChainMeta, SlotCommit, StoredTransaction } from '../../node-core/store/store.ts';

function bytesFrom(length: number, ...seed: number[]): Uint8Array {
  const out = new Uint8Array(length);
  let x = 0x9e3779b9;
  for (const s of seed) x = Math.imul(x ^ (s + 0x7f4a7c15), 0x85ebca6b) >>> 0;
  for (let i = 0; i < length; i++) {
    x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) >>> 0;
    x = (x + i + 1) >>> 0;
    out[i] = x & 0xff;
  }
  out[0] = out[0]! | 1; // no leading zero byte: keeps every text the same length class
  return out;
}

export const address = (n: number): Address => encodeBase58(bytesFrom(32, 1, n));
export const hash = (n: number): string => encodeBase58(bytesFrom(32, 2, n));
export const signature = (slot: number, index: number): string => encodeBase58(bytesFrom(64, 3, slot, index));

/** A transaction's wire as the chain stores it: the signature, then a legacy message naming the keys. */
function wireOf(sig: string, accountKeys: Address[], blockhash: string): Uint8Array {
  const header = { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 0 };
  const message = serializeMessage({ version: 'legacy', header, accountKeys, recentBlockhash: blockhash, instructions: [], addressTableLookups: [] }, decodeBase58);
  return serializeTransaction([decodeBase58(sig)], message);
}

export function transaction(
  slot: number,
  index: number,
  accountKeys: Address[],
  opts: { err?: TransactionErrorValue | null; memo?: string | null } = {},
): StoredTransaction {
  return {
    signature: signature(slot, index),
    wire: wireOf(signature(slot, index), accountKeys, hash(slot)),
    meta: {
      err: opts.err ?? null,
      fee: 5000,
      preBalances: accountKeys.map((_, i) => 1_000_000 * (i + 1)),
      postBalances: accountKeys.map((_, i) => 1_000_000 * (i + 1) - (i === 0 ? 5000 : 0)),
      logMessages: [`Program log: slot ${slot} tx ${index}`],
      computeUnitsConsumed: 150,
      preTokenBalances: [],
      postTokenBalances: [],
      innerInstructions: [],
      loadedAddresses: { writable: [], readonly: [] },
    },
    accountKeys,
    memo: opts.memo ?? null,
  };
}

export function chainMeta(slot: number, transactionCount = 0): ChainMeta {
  return {
    slot,
    blockhash: hash(slot),
    blockTime: 1_700_000_000 + Math.floor(slot / 2),
    transactionCount,
    lamportsPerSignature: 5000,
    totalSupply: 500_000_000 * 1e9,
    burned: 0,
    extensions: { evm: { block: slot } },
  };
}

export function slotCommit(slot: number, transactions: StoredTransaction[] = [], rest: Partial<Omit<SlotCommit, 'block'>> = {}): SlotCommit {
  const meta = rest.meta ?? chainMeta(slot);
  return {
    block: {
      slot,
      parentSlot: slot - 1,
      blockhash: hash(slot),
      previousBlockhash: hash(slot - 1),
      blockTime: meta.blockTime,
      blockHeight: slot,
      transactionCount: transactions.length,
      rewards: [],
      transactions,
    },
    accounts: rest.accounts ?? [],
    meta,
    extras: rest.extras,
  };
}

// ---- the crash writer's ledger: every slot is a pure function of its number ----

export const CRASH_ADDRESSES = [0, 1, 2, 3, 4].map((n) => address(100 + n));
export const CRASH_COUNTER = address(200);
export const CRASH_BIG = address(201);
export const CRASH_BIG_SIZE = 256 * 1024;
export const crashTxCount = (slot: number): number => slot % 4;
export const crashTxKeys = (slot: number, index: number): Address[] => [
  CRASH_ADDRESSES[index % 5]!,
  CRASH_ADDRESSES[(slot + index) % 5]!,
  CRASH_ADDRESSES[index % 5]!, // a repeated key: still one index entry
];

export function crashCommit(slot: number): SlotCommit {
  const txs = Array.from({ length: crashTxCount(slot) }, (_, i) =>
    transaction(slot, i, crashTxKeys(slot, i), { memo: i % 2 ? `[4] s${slot}` : null }),
  );
  return slotCommit(slot, txs, {
    meta: chainMeta(slot),
    accounts: [
      [CRASH_COUNTER, { lamports: slot, data: new Uint8Array(8), owner: address(0), executable: false, rentEpoch: 0 }],
      [CRASH_BIG, { lamports: 1, data: new Uint8Array(CRASH_BIG_SIZE).fill(slot & 0xff), owner: address(0), executable: false, rentEpoch: 0 }],
    ],
    extras: [
      { table: 'crash', key: slot, value: { slot } },
      { table: 'crash', key: slot - 40, value: null },
    ],
  });
}

/** The fee an own vote pays in these records. */
export const VOTE_FEE = 5000;

/**
 * The validator's vote in `slot` on `parent` (default: the slot before), its blockhash as the chain
 * writes it, with the meta the executor gives it.
 */
export function ownVoteTransaction(
  voter: { identity: Keypair; voteAccount: Address },
  slot: number,
  opts: { parent?: number; timestamp?: number | null; err?: StoredTransaction['meta']['err']; memo?: string | null; hash?: string } = {},
): StoredTransaction {
  const parent = opts.parent ?? slot - 1;
  const blockTime = chainMeta(parent).blockTime;
  const tx = voteTransaction(voter, { slot: parent, blockhash: opts.hash ?? hash(parent), blockTime: opts.timestamp === undefined ? blockTime : opts.timestamp });
  const preBalances = [499_999_999_000 - slot * 2500, 27_074_400, 143_487_360, 1_169_280, 1];
  return {
    signature: tx.id,
    wire: tx.wire,
    meta: {
      err: opts.err ?? null,
      fee: VOTE_FEE,
      preBalances,
      postBalances: preBalances.map((b, i) => (i === 0 ? b - VOTE_FEE : b)),
      logMessages: [`Program ${VOTE_PROGRAM_ID} invoke [1]`, `Program ${VOTE_PROGRAM_ID} success`],
      computeUnitsConsumed: 2100,
      preTokenBalances: [],
      postTokenBalances: [],
      innerInstructions: [],
      loadedAddresses: { writable: [], readonly: [] },
    },
    accountKeys: [...tx.message.accountKeys],
    memo: opts.memo ?? null,
  };
}
