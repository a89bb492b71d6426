/**
 * The JSON shapes of the Ethereum RPC: blocks (with `isFinalized`, `nativeSlot`), transactions (with
 * `nativeSignature`, and `transferToNative` on a call of the bridge) and receipts (with
 * `nativeSignature`, Besu's `revertReason` and its text `revertReasonText`), logs. Quantities are
 * minimal hex ("0x0" for zero, never Velas's "0x"); transaction indexes are 0-based, cumulative gas is
 * cumulative, as Ethereum clients expect.
 */
import { RLP } from '@ethereumjs/rlp';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToBigInt, KECCAK256_RLP, KECCAK256_RLP_ARRAY } from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';
import { logsBloom, txType } from '../../evm/block-builder.ts';
import { transferToNativeRecipient } from '../../evm/bridge-precompile.ts';
import { BLOCK_GAS_LIMIT, BRIDGE_ADDRESS, COINBASE, EXTRA_DATA, WEI_PER_LAMPORT } from '../../evm/constants.ts';
import type { EvmBlockRecord, EvmLog, EvmTxRecord, Hex } from '../../evm/records.ts';
import { decodeRevertReason } from '../../evm/revert.ts';
import { recipientOf } from '../../evm/space.ts';
import type { DecodedTransaction } from '../../evm/transaction.ts';
import { bytesHex, hex } from './params.ts';

/** sha256 of no requests (EIP-7685), the header field of a block without requests. */
const EMPTY_REQUESTS_HASH: Hex = '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const ZERO_HASH: Hex = `0x${'0'.repeat(64)}`;

export function formatBlock(b: EvmBlockRecord, finalized: boolean, transactions: Array<Hex | object>): Record<string, unknown> {
  return {
    number: hex(b.number),
    hash: b.hash,
    parentHash: b.parentHash,
    nonce: `0x${b.nativeSlot.toString(16).padStart(16, '0')}`,
    sha3Uncles: bytesHex(KECCAK256_RLP_ARRAY),
    logsBloom: bytesHex(b.logsBloom),
    transactionsRoot: b.transactionsRoot,
    stateRoot: b.stateRoot,
    receiptsRoot: b.receiptsRoot,
    miner: COINBASE,
    difficulty: '0x0',
    totalDifficulty: '0x0',
    extraData: bytesHex(EXTRA_DATA),
    size: hex(b.size),
    gasLimit: hex(BLOCK_GAS_LIMIT),
    gasUsed: hex(b.gasUsed),
    timestamp: hex(b.timestamp),
    transactions,
    uncles: [],
    mixHash: b.mixHash,
    baseFeePerGas: hex(b.baseFeePerGas),
    withdrawals: [],
    withdrawalsRoot: bytesHex(KECCAK256_RLP),
    blobGasUsed: '0x0',
    excessBlobGas: '0x0',
    parentBeaconBlockRoot: ZERO_HASH,
    requestsHash: EMPTY_REQUESTS_HASH,
    isFinalized: finalized,
    nativeSlot: hex(b.nativeSlot),
    nativeBlockhash: b.nativeBlockhash,
  };
}

/**
 * A direct call of the bridge's transferToNative(bytes32): the native recipient (base 58) and the
 * value in lamports (null when it is not a whole number of lamports, which the bridge refuses).
 * Only a call sent to the bridge address is seen here; the precompile credits no other.
 */
function transferToNativeCall(tx: TypedTransaction): { nativeRecipient: string; lamports: Hex | null } | null {
  if (tx.to?.toString() !== BRIDGE_ADDRESS) return null;
  const nativeRecipient = transferToNativeRecipient(tx.data);
  if (nativeRecipient === null) return null;
  return { nativeRecipient, lamports: tx.value % WEI_PER_LAMPORT === 0n ? hex(tx.value / WEI_PER_LAMPORT) : null };
}

/** The fields a signed transaction shows, decoded from its raw bytes. */
function signedFields(tx: TypedTransaction): Record<string, unknown> {
  const out: Record<string, unknown> = {
    type: hex(tx.type),
    nonce: hex(tx.nonce),
    gas: hex(tx.gasLimit),
    to: tx.to ? tx.to.toString() : null,
    value: hex(tx.value),
    input: bytesHex(tx.data),
    v: hex(tx.v!),
    r: hex(tx.r!),
    s: hex(tx.s!),
  };
  if ('chainId' in tx) {
    out.chainId = hex(tx.chainId);
    out.yParity = hex(tx.v!);
    out.accessList = (tx as { accessList: Array<[Uint8Array, Uint8Array[]]> }).accessList.map(([a, keys]) => ({ address: bytesHex(a), storageKeys: keys.map(bytesHex) }));
  } else if (tx.common) {
    out.chainId = hex(tx.common.chainId());
  }
  if ('maxFeePerGas' in tx) {
    out.maxFeePerGas = hex(tx.maxFeePerGas);
    out.maxPriorityFeePerGas = hex(tx.maxPriorityFeePerGas);
  } else out.gasPrice = hex((tx as { gasPrice: bigint }).gasPrice);
  if ('authorizationList' in tx) {
    out.authorizationList = (tx as { authorizationList: Uint8Array[][] }).authorizationList.map(([chainId, address, nonce, yParity, r, s]) => ({
      chainId: hex(bytesToBigInt(chainId!)), address: bytesHex(address!), nonce: hex(bytesToBigInt(nonce!)),
      yParity: hex(bytesToBigInt(yParity!)), r: hex(bytesToBigInt(r!)), s: hex(bytesToBigInt(s!)),
    }));
  }
  const bridged = transferToNativeCall(tx);
  if (bridged) out.transferToNative = bridged;
  return out;
}

/** A decoded transaction outside any block (the EVM program's parsed instruction): hash, sender and its signed fields. */
export function decodedTransactionJson(d: DecodedTransaction): Record<string, unknown> {
  return { hash: d.hash, from: d.from, ...signedFields(d.tx) };
}

/** A deposit's fields, from its legacy form (see evm/transaction.ts encodeDeposit). */
function depositFields(raw: Uint8Array, chainId: bigint): Record<string, unknown> {
  const [nonce, , , to, value, data, v] = RLP.decode(raw) as Uint8Array[];
  return {
    type: '0x0', nonce: hex(bytesToBigInt(nonce!)), gas: '0x0', gasPrice: '0x0', to: bytesHex(to!), value: hex(bytesToBigInt(value!)),
    input: bytesHex(data!), v: hex(bytesToBigInt(v!)), r: '0x0', s: '0x0', chainId: hex(chainId),
  };
}

/** The fields a transaction shows wherever it is (signature, fees, payload), from its raw bytes. */
export function transactionFields(t: { raw: Uint8Array; deposit: boolean }, common: Common): Record<string, unknown> {
  return t.deposit ? depositFields(t.raw, common.chainId()) : signedFields(createTxFromRLP(t.raw, { common }));
}

export function formatTransaction(t: EvmTxRecord, block: EvmBlockRecord, common: Common): Record<string, unknown> {
  const fields = transactionFields(t, common);
  // A mined transaction reports the price it paid.
  if (!t.deposit) fields.gasPrice = hex(t.effectiveGasPrice);
  return {
    blockHash: block.hash,
    blockNumber: hex(block.number),
    from: t.from,
    hash: t.hash,
    transactionIndex: hex(t.index),
    ...fields,
    nativeSignature: t.nativeSignature,
  };
}

/** Logs of a transaction with their block-wide indexes (`firstIndex` = logs before it in the block). */
export function formatLogs(t: EvmTxRecord, block: EvmBlockRecord, firstIndex: number): Record<string, unknown>[] {
  return t.logs.map((l: EvmLog, i) => ({
    address: l.address,
    topics: l.topics,
    data: l.data,
    blockNumber: hex(block.number),
    blockHash: block.hash,
    blockTimestamp: hex(block.timestamp),
    transactionHash: t.hash,
    transactionIndex: hex(t.index),
    logIndex: hex(firstIndex + i),
    removed: false,
  }));
}

export function formatReceipt(t: EvmTxRecord, block: EvmBlockRecord, firstLogIndex: number): Record<string, unknown> {
  const receipt: Record<string, unknown> = {
    transactionHash: t.hash,
    transactionIndex: hex(t.index),
    blockHash: block.hash,
    blockNumber: hex(block.number),
    from: t.from,
    to: recipientOf(t.raw),
    cumulativeGasUsed: hex(t.cumulativeGasUsed),
    gasUsed: hex(t.gasUsed),
    contractAddress: t.contractAddress,
    logs: formatLogs(t, block, firstLogIndex),
    logsBloom: bytesHex(logsBloom(t.logs)),
    status: hex(t.status),
    effectiveGasPrice: hex(t.effectiveGasPrice),
    type: hex(txType(t.raw)),
    nativeSignature: t.nativeSignature,
  };
  // Besu's field: the revert data of a failed transaction; beside it, the text it carries
  // (Error(string)'s message or Panic(uint256)'s code, as eth_call's error message words it).
  if (t.status === 0 && t.revertData.length > 0) {
    receipt.revertReason = bytesHex(t.revertData);
    const text = decodeRevertReason(t.revertData);
    if (text !== null) receipt.revertReasonText = text;
  }
  return receipt;
}

/** Block-wide index of a transaction's first log. */
export function firstLogIndex(txs: EvmTxRecord[], index: number): number {
  let n = 0;
  for (let i = 0; i < index; i++) n += txs[i]!.logs.length;
  return n;
}
