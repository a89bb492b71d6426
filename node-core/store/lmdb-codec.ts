/**
 * Record layouts of the LMDB store. Records are msgpack tuples rather than objects: lmdb-js writes
 * an object's field names into every value, which would triple the size of the one header an idle
 * chain adds per slot.
 */
import { encodeBase58, tryDecodeBase58 } from '../common/base58.ts';
import type { Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import { messageAccountKeys } from '../runtime/address-loader.ts';
import { uiTokenAmount } from '../runtime/programs/token/amount.ts';
import { TOKEN_PROGRAM_ID } from '../runtime/programs/token/state.ts';
import type { TokenBalance } from '../runtime/token-balances.ts';
import type { TransactionErrorValue } from '../runtime/errors.ts';
import { parseTransaction } from '../runtime/wire.ts';
import type { CompactVote } from './lmdb-own-votes.ts';
import type { BlockHeader, Reward, RewardType, StoredTransaction, TransactionStatusMeta } from './store.ts';

/** msgpack hands binary back as Buffer, whose slice() is a view: callers get plain Uint8Arrays. */
export function plainBytes(b: Uint8Array): Uint8Array {
  return b.constructor === Uint8Array ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** A 32-byte hash as raw bytes when its base-58 text round-trips exactly, else the text itself. */
export function packHash(hash: string): Uint8Array | string {
  const bytes = tryDecodeBase58(hash);
  return bytes && bytes.length === 32 && encodeBase58(bytes) === hash ? bytes : hash;
}
export const unpackHash = (v: Uint8Array | string): string => (typeof v === 'string' ? v : encodeBase58(v));

/** A stored transaction's signature: the first in its wire, after the one-byte count (fewer than 128 fit a packet). */
export const firstSignatureBytes = (wire: Uint8Array): Uint8Array => wire.subarray(1, 65);

type RewardRecord = [Address, number, number, RewardType, number | null];
/**
 * parentSlot and blockHeight as distances below the slot (usually 1 and small: one byte each). The
 * previous blockhash is null when it is the parent's stored blockhash (the store writes it out before
 * it drops the parent). The eighth field, when present, is the block's first transaction: the
 * validator's own vote in compact form (lmdb-own-votes.ts); rewards are null there when there are none,
 * and a number when they are only the fee reward the vote's identity earns as leader (those lamports;
 * its balance after follows from the vote's).
 */
export type HeaderRecord = [number, Uint8Array | string, Uint8Array | string | null, number, number, number, (RewardRecord[] | number | null)?, CompactVote?];
export const HEADER_BLOCKHASH = 1;
export const HEADER_PREVIOUS_BLOCKHASH = 2;
export const HEADER_BLOCK_TIME = 3;
export const HEADER_VOTE = 7;

export function encodeHeader(h: BlockHeader, options: { parentHashKept?: boolean; vote?: CompactVote; leaderFee?: number } = {}): HeaderRecord {
  const rec: HeaderRecord = [
    h.slot - h.parentSlot,
    packHash(h.blockhash),
    options.parentHashKept ? null : packHash(h.previousBlockhash),
    h.blockTime,
    h.slot - h.blockHeight,
    h.transactionCount,
  ];
  const rewards = options.leaderFee ?? (h.rewards.length > 0 ? h.rewards.map((r): RewardRecord => [r.pubkey, r.lamports, r.postBalance, r.rewardType, r.commission]) : null);
  if (rewards || options.vote) rec.push(rewards);
  if (options.vote) rec.push(options.vote);
  return rec;
}

/**
 * The header of `slot`; `parentHash` reads the parent's blockhash when the record leaves it out, and
 * `leaderFee` makes the fee reward a record keeps as a number beside its compact vote.
 */
export function decodeHeader(
  slot: number,
  r: HeaderRecord,
  parentHash: (parentSlot: number) => string,
  leaderFee: (vote: CompactVote, lamports: number) => Reward,
): BlockHeader {
  const stored = r[6] ?? [];
  const rewards =
    typeof stored === 'number'
      ? [leaderFee(r[7]!, stored)]
      : stored.map(([pubkey, lamports, postBalance, rewardType, commission]): Reward => ({ pubkey, lamports, postBalance, rewardType, commission }));
  const parentSlot = slot - r[0];
  return {
    slot,
    parentSlot,
    blockhash: unpackHash(r[1]),
    previousBlockhash: r[2] === null ? parentHash(parentSlot) : unpackHash(r[2]),
    blockTime: r[3],
    blockHeight: slot - r[4],
    transactionCount: r[5],
    rewards,
  };
}

export const headerBlockhash = (r: HeaderRecord): string => unpackHash(r[HEADER_BLOCKHASH]);

type MetaRecord = [
  TransactionErrorValue | null,
  number,
  number[],
  number[],
  string[] | null,
  number,
  unknown[],
  unknown[],
  unknown[],
  Address[],
  Address[],
  [Address, Uint8Array]?,
];
/**
 * A token balance as [account index, mint, owner, amount, decimals, program id]: the UI amounts follow
 * from amount and decimals, and the program id is left out when it is SPL Token's. Ledgers written
 * before keep whole objects, which read back as they are.
 */
type TokenBalanceRecord = [number, Address, Address, string, number, Address?];

function encodeTokenBalance(b: TokenBalance): TokenBalanceRecord {
  const r: TokenBalanceRecord = [b.accountIndex, b.mint, b.owner, b.uiTokenAmount.amount, b.uiTokenAmount.decimals];
  if (b.programId !== TOKEN_PROGRAM_ID) r.push(b.programId);
  return r;
}

const encodeTokenBalances = (balances: unknown[]): unknown[] => (balances.length === 0 ? balances : (balances as TokenBalance[]).map(encodeTokenBalance));

const decodeTokenBalances = (records: unknown[]): unknown[] =>
  records.map((r) => {
    if (!Array.isArray(r)) return r;
    const [accountIndex, mint, owner, amount, decimals, programId = TOKEN_PROGRAM_ID] = r as TokenBalanceRecord;
    return { accountIndex, mint, uiTokenAmount: uiTokenAmount(BigInt(amount), decimals), owner, programId } satisfies TokenBalance;
  });

/**
 * [signature, wire, meta, account keys, memo]. The signature and the account keys are in the wire (the
 * keys with the meta's loaded addresses), so records store null there and reads take them from the
 * wire; ledgers written before keep them.
 */
export type TxRecord = [string | null, Uint8Array, MetaRecord, Address[] | null, string | null];

export function encodeTx(tx: StoredTransaction): TxRecord {
  const m = tx.meta;
  const meta: MetaRecord = [
    m.err,
    m.fee,
    m.preBalances,
    m.postBalances,
    m.logMessages,
    m.computeUnitsConsumed,
    encodeTokenBalances(m.preTokenBalances),
    encodeTokenBalances(m.postTokenBalances),
    m.innerInstructions,
    m.loadedAddresses.writable,
    m.loadedAddresses.readonly,
  ];
  if (m.returnData) meta.push([m.returnData.programId, m.returnData.data]);
  return [null, tx.wire, meta, null, tx.memo];
}

export function decodeTx(r: TxRecord): StoredTransaction {
  const [err, fee, preBalances, postBalances, logMessages, computeUnitsConsumed, preTokenBalances, postTokenBalances, innerInstructions, writable, readonly, returnData] = r[2];
  const meta: TransactionStatusMeta = {
    err,
    fee,
    preBalances,
    postBalances,
    logMessages,
    computeUnitsConsumed,
    preTokenBalances: decodeTokenBalances(preTokenBalances),
    postTokenBalances: decodeTokenBalances(postTokenBalances),
    innerInstructions,
    loadedAddresses: { writable, readonly },
  };
  if (returnData) meta.returnData = { programId: returnData[0], data: plainBytes(returnData[1]) };
  const wire = plainBytes(r[1]);
  const [storedSignature, , , storedKeys, memo] = r;
  if (storedSignature !== null && storedKeys !== null) return { signature: storedSignature, wire, meta, accountKeys: storedKeys, memo };
  // Read from the wire when first asked for: most readers (the block encoders) parse the wire themselves.
  let signature = storedSignature;
  let accountKeys = storedKeys;
  return Object.defineProperties({ wire, meta, memo } as StoredTransaction, {
    signature: { enumerable: true, get: () => (signature ??= encodeBase58(firstSignatureBytes(wire))) },
    accountKeys: { enumerable: true, get: () => (accountKeys ??= messageAccountKeys(parseTransaction(wire).message, meta.loadedAddresses)) },
  });
}

/** A transaction record's signature and how it ended, without building the transaction (decodeTx). */
export const txRecordSignature = (r: TxRecord): string => r[0] ?? encodeBase58(firstSignatureBytes(r[1]));
export const txRecordErr = (r: TxRecord): TransactionErrorValue | null => r[2][0];

/** sigs: signature → where it sits and how it ended. */
export type SigRecord = [number, number, TransactionErrorValue | null];
/**
 * addr index: [address, slot, index] → what getSignaturesForAddress reports, minus the block time; the
 * signature as raw bytes (text in ledgers written before).
 */
export type AddressRecord = [Uint8Array | string, TransactionErrorValue | null, string | null];

export const encodeAddressEntry = (tx: StoredTransaction): AddressRecord => [firstSignatureBytes(tx.wire).slice(), tx.meta.err, tx.memo];
export const addressEntrySignature = (r: AddressRecord): string => unpackHash(r[0]);

export type AccountRecord = [number, Uint8Array, Address, boolean, number];

export const encodeAccount = (a: Account): AccountRecord => [a.lamports, a.data, a.owner, a.executable, a.rentEpoch];

export function decodeAccount(r: AccountRecord): Account {
  return { lamports: r[0], data: plainBytes(r[1]), owner: r[2], executable: r[3], rentEpoch: r[4] };
}
