/**
 * The virtual EVM block of a sealed native slot: the transactions and receipts tries, the logs
 * bloom, and a real header (today's hardfork's fields) whose keccak is the block hash. The native
 * slot is written where Velas writes it: the nonce holds the slot, big-endian.
 */
import { createBlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToBytes, bigIntToUnpaddedBytes, bytesToHex, hexToBytes, intToUnpaddedBytes, KECCAK256_RLP, KECCAK256_RLP_ARRAY, setLengthLeft } from '@ethereumjs/util';
import { Bloom } from '@ethereumjs/vm';
import { BLOCK_GAS_LIMIT, COINBASE, EXTRA_DATA } from './constants.ts';
import type { BlockEnv } from './machine.ts';
import type { EvmBlockRecord, EvmTxRecord, Hex } from './records.ts';
import { encodeRlp, rlpSize, type RlpInput } from './rlp-encode.ts';
import { trieRootOf } from './trie-batch.ts';

/** The bloom of one receipt's logs. */
export function logsBloom(logs: EvmTxRecord['logs']): Uint8Array {
  const bloom = new Bloom();
  for (const log of logs) {
    bloom.add(hexToBytes(log.address));
    for (const topic of log.topics) bloom.add(hexToBytes(topic));
  }
  return bloom.bitvector;
}

/** Transaction type of a raw transaction: the envelope byte, or 0 for legacy RLP. */
export const txType = (raw: Uint8Array): number => (raw[0]! <= 0x7f ? raw[0]! : 0);

/** A receipt as the receipts trie encodes it (EIP-2718: the type byte before typed receipts). */
export function encodeReceipt(r: EvmTxRecord): Uint8Array {
  const body = encodeRlp([
    r.status === 1 ? Uint8Array.of(1) : new Uint8Array(0),
    bigIntToUnpaddedBytes(BigInt(r.cumulativeGasUsed)),
    logsBloom(r.logs),
    r.logs.map((l) => [hexToBytes(l.address), l.topics.map((t) => hexToBytes(t)), hexToBytes(l.data)]),
  ]);
  const type = txType(r.raw);
  if (type === 0) return body;
  const out = new Uint8Array(body.length + 1);
  out[0] = type;
  out.set(body, 1);
  return out;
}

function orderedTrieRoot(values: Uint8Array[]): Promise<Uint8Array> {
  return trieRootOf(values.map((value, i) => [encodeRlp(intToUnpaddedBytes(i)), value]));
}

export interface BlockInput {
  number: number;
  parentHash: Hex;
  env: BlockEnv;
  stateRoot: Uint8Array;
  transactions: EvmTxRecord[];
  nativeSlot: number;
  nativeBlockhash: string;
}

export async function buildBlock(common: Common, input: BlockInput): Promise<EvmBlockRecord> {
  const txs = input.transactions;
  const bloom = new Bloom();
  for (const t of txs) bloom.or(new Bloom(logsBloom(t.logs)));
  const gasUsed = txs.length ? txs[txs.length - 1]!.cumulativeGasUsed : 0;
  const transactionsTrie = txs.length ? await orderedTrieRoot(txs.map((t) => t.raw)) : KECCAK256_RLP;
  const receiptTrie = txs.length ? await orderedTrieRoot(txs.map(encodeReceipt)) : KECCAK256_RLP;
  const header = createBlockHeader(
    {
      parentHash: hexToBytes(input.parentHash),
      uncleHash: KECCAK256_RLP_ARRAY,
      coinbase: COINBASE,
      stateRoot: input.stateRoot,
      transactionsTrie,
      receiptTrie,
      logsBloom: bloom.bitvector,
      difficulty: 0n,
      number: BigInt(input.number),
      gasLimit: BLOCK_GAS_LIMIT,
      gasUsed: BigInt(gasUsed),
      timestamp: input.env.timestamp,
      extraData: EXTRA_DATA,
      mixHash: input.env.prevRandao,
      nonce: setLengthLeft(bigIntToBytes(BigInt(input.nativeSlot)), 8),
      baseFeePerGas: input.env.baseFeePerGas,
      withdrawalsRoot: KECCAK256_RLP,
      blobGasUsed: 0n,
      excessBlobGas: 0n,
      parentBeaconBlockRoot: new Uint8Array(32),
    },
    { common, skipConsensusFormatValidation: true },
  );
  // Size as Ethereum counts it: the RLP of [header, transactions, uncles, withdrawals].
  const size = rlpSize([header.raw(), txs.map((t) => (txType(t.raw) === 0 ? (RLP.decode(t.raw) as RlpInput) : t.raw)), [], []]);
  return {
    number: input.number,
    hash: bytesToHex(header.hash()),
    parentHash: input.parentHash,
    stateRoot: bytesToHex(input.stateRoot),
    transactionsRoot: bytesToHex(transactionsTrie),
    receiptsRoot: bytesToHex(receiptTrie),
    logsBloom: bloom.bitvector,
    gasUsed,
    timestamp: Number(input.env.timestamp),
    mixHash: bytesToHex(input.env.prevRandao),
    baseFeePerGas: input.env.baseFeePerGas,
    size,
    nativeSlot: input.nativeSlot,
    nativeBlockhash: input.nativeBlockhash,
    transactions: txs.map((t) => t.hash),
  };
}
