/**
 * What the EVM space keeps of its transactions and blocks, in memory and in the store. Store
 * records are msgpack tuples of bytes and safe numbers (msgpack has no 256-bit integers).
 */
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';

export const BLOCK_TABLE = 'evm-block';
export const BLOCK_HASH_TABLE = 'evm-bhash';
/** [block number, index] → a transaction's record (evm/hash-index.ts). */
export const TX_TABLE = 'evm-txs';
/** [first 48 bits of a transaction's hash, block number, index] → 0. */
export const TX_INDEX_TABLE = 'evm-txindex';
/** Hash → record: where ledgers written before the index kept their transactions (read only). */
export const LEGACY_TX_TABLE = 'evm-tx';
/** [address, block number, index] → 0 (older ledgers: the transaction's hash, hex). */
export const ADDRESS_TX_TABLE = 'evm-addr';
export const ACCOUNT_TABLE = 'evm-acct';
export const STORAGE_TABLE = 'evm-stor';
export const CODE_TABLE = 'evm-code';
/** A contract's address → [creator, creation transaction hash] (contracts created at any depth). */
export const CREATOR_TABLE = 'evm-creator';
/** [sender, nonce] → the transaction's [block number, index] (ots_getTransactionBySenderAndNonce; older ledgers: its hash, hex). */
export const NONCE_TABLE = 'evm-nonce';

export type Hex = PrefixedHexString;

export interface EvmLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
}

/** The revert data of every transaction that did not revert: one shared empty array (a record is kept per transaction). */
export const NO_REVERT_DATA = new Uint8Array(0);

/** An executed EVM transaction with its receipt. */
export interface EvmTxRecord {
  hash: Hex;
  /** The transaction as included: a typed envelope or legacy RLP (deposits: legacy RLP with r = s = 0). */
  raw: Uint8Array;
  from: Hex;
  /** A native → EVM deposit rather than a signed transaction. */
  deposit: boolean;
  status: 0 | 1;
  gasUsed: number;
  cumulativeGasUsed: number;
  effectiveGasPrice: bigint;
  contractAddress: Hex | null;
  logs: EvmLog[];
  /** The call's return data when it failed (revert data), else empty. */
  revertData: Uint8Array;
  nativeSignature: string;
  blockNumber: number;
  index: number;
  /** Contracts the transaction created at any depth (CREATE/CREATE2 inside calls too), with who ran the create. */
  created: Array<{ address: Hex; creator: Hex }>;
  /** Addresses its inner calls touched beyond the sender, the recipient and the created contracts (the address index's). */
  internal: Hex[];
}

export interface EvmBlockRecord {
  number: number;
  hash: Hex;
  parentHash: Hex;
  stateRoot: Hex;
  transactionsRoot: Hex;
  receiptsRoot: Hex;
  logsBloom: Uint8Array;
  gasUsed: number;
  timestamp: number;
  mixHash: Hex;
  baseFeePerGas: bigint;
  size: number;
  nativeSlot: number;
  nativeBlockhash: string;
  transactions: Hex[];
}

const b = (h: Hex) => hexToBytes(h);
const h = (v: Uint8Array): Hex => bytesToHex(v);

export type TxTuple = [
  Uint8Array, Uint8Array, Uint8Array, 0 | 1, 0 | 1, number, number, Uint8Array, Uint8Array | null, Array<[Uint8Array, Uint8Array[], Uint8Array]>, Uint8Array, string, number, number,
  // Added later: records written before have neither.
  Array<[Uint8Array, Uint8Array]>?, Uint8Array[]?,
];

export function encodeTxRecord(r: EvmTxRecord): TxTuple {
  return [
    b(r.hash), r.raw, b(r.from), r.deposit ? 1 : 0, r.status, r.gasUsed, r.cumulativeGasUsed, bigIntToUnpaddedBytes(r.effectiveGasPrice),
    r.contractAddress ? b(r.contractAddress) : null,
    r.logs.map((l) => [b(l.address), l.topics.map(b), b(l.data)]),
    r.revertData, r.nativeSignature, r.blockNumber, r.index,
    r.created.map((c) => [b(c.address), b(c.creator)]), r.internal.map(b),
  ];
}

/** The hash of an encoded transaction record, without decoding the rest. */
export const txRecordHash = (t: unknown): Hex => h((t as TxTuple)[0]);

export function decodeTxRecord(t: TxTuple): EvmTxRecord {
  return {
    hash: h(t[0]), raw: t[1], from: h(t[2]), deposit: t[3] === 1, status: t[4], gasUsed: t[5], cumulativeGasUsed: t[6],
    effectiveGasPrice: bytesToBigInt(t[7]), contractAddress: t[8] ? h(t[8]) : null,
    logs: t[9].map(([address, topics, data]) => ({ address: h(address), topics: topics.map(h), data: h(data) })),
    revertData: t[10].length === 0 ? NO_REVERT_DATA : t[10], nativeSignature: t[11], blockNumber: t[12], index: t[13],
    created: (t[14] ?? []).map(([address, creator]) => ({ address: h(address), creator: h(creator) })), internal: (t[15] ?? []).map(h),
  };
}

type BlockTuple = [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, number, number, Uint8Array, Uint8Array, number, number, string, Uint8Array[], number];

export function encodeBlockRecord(r: EvmBlockRecord): BlockTuple {
  return [
    b(r.hash), b(r.parentHash), b(r.stateRoot), b(r.transactionsRoot), b(r.receiptsRoot), r.logsBloom, r.gasUsed, r.timestamp, b(r.mixHash),
    bigIntToUnpaddedBytes(r.baseFeePerGas), r.size, r.nativeSlot, r.nativeBlockhash, r.transactions.map(b), r.number,
  ];
}

export function decodeBlockRecord(t: BlockTuple): EvmBlockRecord {
  return {
    hash: h(t[0]), parentHash: h(t[1]), stateRoot: h(t[2]), transactionsRoot: h(t[3]), receiptsRoot: h(t[4]), logsBloom: t[5],
    gasUsed: t[6], timestamp: t[7], mixHash: h(t[8]), baseFeePerGas: bytesToBigInt(t[9]), size: t[10], nativeSlot: t[11],
    nativeBlockhash: t[12], transactions: t[13].map(h), number: t[14],
  };
}

/** The flat store's account record: rlp([nonce, balance, codeHash]). */
export const encodeAccountRecord = (a: { nonce: bigint; balance: bigint; codeHash: Uint8Array }): Uint8Array =>
  RLP.encode([bigIntToUnpaddedBytes(a.nonce), bigIntToUnpaddedBytes(a.balance), a.codeHash]);

export function decodeAccountRecord(v: Uint8Array): { nonce: bigint; balance: bigint; codeHash: Uint8Array } {
  const [nonce, balance, codeHash] = RLP.decode(v) as Uint8Array[];
  return { nonce: bytesToBigInt(nonce!), balance: bytesToBigInt(balance!), codeHash: codeHash! };
}

/** What the chain meta keeps of the EVM space after each slot. */
export interface EvmSpaceMeta {
  /** The number the next EVM block will have. */
  nextBlockNumber: number;
  /** The newest EVM block. */
  head: { number: number; hash: Hex };
  stateRoot: Hex;
}
