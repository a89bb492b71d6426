/**
 * Raw Ethereum transactions: decoding with the checks every path shares (chain id, replay
 * protection, supported types), a cache of decoded transactions by hash so the sender is recovered
 * once (at eth_sendRawTransaction) and not again when the EVM program runs it, and the legacy-form
 * encoding of deposits.
 */
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { Capability, createTxFromRLP, TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { BoundedMap } from '../common/bounded-map.ts';
import { keccak256 } from '../common/hash.ts';
import type { Hex } from './records.ts';

export interface DecodedTransaction {
  tx: TypedTransaction;
  hash: Hex;
  from: Hex;
  raw: Uint8Array;
}

/** A transaction the EVM space does not take, with the reason in Ethereum clients' words. */
export class InvalidTransaction extends Error {}

/**
 * Decoded transactions kept so that the relay's check and the program's execution recover the sender
 * once; a transaction leaves when its block is visible (forget), so this bounds only refused ones.
 */
const CACHE_LIMIT = 8_192;

export class TransactionDecoder {
  private readonly cache: BoundedMap<string, DecodedTransaction>;
  /**
   * Transactions sent from an impersonated address (anvil_impersonateAccount), by hash: signed by a
   * throwaway key, their sender is the impersonated address. Only the node makes them (its gated
   * eth_sendTransaction); a raw transaction from outside never has one of these hashes.
   */
  private readonly impersonated = new Map<string, DecodedTransaction>();

  constructor(
    private readonly common: Common,
    cacheLimit = CACHE_LIMIT,
  ) {
    this.cache = new BoundedMap(cacheLimit);
  }

  get chainId(): bigint {
    return this.common.chainId();
  }

  /** Takes `signed` (signed by a throwaway key) as sent by `from`: decode answers it with that sender, and the EVM runs it so. */
  impersonate(signed: TypedTransaction, from: Hex): DecodedTransaction {
    const raw = signed.serialize();
    const hash = bytesToHex(keccak256(raw)) as Hex;
    const sender = createAddressFromString(from);
    // A signed transaction is frozen: the sender is answered by an object over it.
    const tx = Object.create(signed, { getSenderAddress: { value: () => sender } }) as TypedTransaction;
    const decoded = { tx, hash, from: from.toLowerCase() as Hex, raw };
    this.impersonated.set(hash, decoded);
    return decoded;
  }

  decode(raw: Uint8Array): DecodedTransaction {
    const hash = bytesToHex(keccak256(raw)) as Hex;
    const hit = this.impersonated.get(hash) ?? this.cache.get(hash);
    if (hit) return hit;
    const { tx, from } = checkAndRecover(raw, this.common, hash);
    return this.keep({ tx, hash, from, raw });
  }

  /**
   * Takes a transaction whose checks and sender recovery ran elsewhere (a worker thread, on
   * `recovered` = checkAndRecover's answer for these bytes): only the parsing is done here.
   */
  adopt(raw: Uint8Array, recovered: RecoveredSender): DecodedTransaction {
    const hit = this.impersonated.get(recovered.hash) ?? this.cache.get(recovered.hash);
    if (hit) return hit;
    const tx = createTxFromRLP(raw, { common: this.common });
    (tx as unknown as { cache: { senderPubKey?: Uint8Array } }).cache.senderPubKey = recovered.publicKey;
    return this.keep({ tx: withSender(tx, recovered.from), hash: recovered.hash, from: recovered.from, raw });
  }

  private keep(decoded: DecodedTransaction): DecodedTransaction {
    this.cache.set(decoded.hash, decoded);
    return decoded;
  }

  /** Drops a transaction that has been executed (its block is visible): it will not be decoded for execution again. */
  forget(hash: string): void {
    this.cache.delete(hash);
  }
}

/** What sender recovery found: the transaction's hash, sender and the sender's 64-byte public key. */
export interface RecoveredSender {
  hash: Hex;
  from: Hex;
  publicKey: Uint8Array;
}

/**
 * The checks every path shares (chain id, replay protection, supported types, a signature that
 * recovers) and the sender; throws InvalidTransaction. Pure: runs on a worker thread too.
 */
export function checkAndRecover(raw: Uint8Array, common: Common, hash: Hex = bytesToHex(keccak256(raw)) as Hex): RecoveredSender & { tx: TypedTransaction } {
  const chainId = common.chainId();
  let tx: TypedTransaction;
  try {
    tx = createTxFromRLP(raw, { common });
  } catch (e) {
    // @ethereumjs refuses a transaction signed for another chain in its own words: geth's are answered.
    const claimed = claimedChainId(raw);
    if (claimed !== null && claimed !== chainId) throw new InvalidTransaction(`invalid chain id: have ${claimed}, want ${chainId}`);
    throw new InvalidTransaction(`rlp: ${(e as Error).message.split(' (')[0]}`);
  }
  if (tx.type === TransactionType.BlobEIP4844) throw new InvalidTransaction('transaction type not supported: blob transactions need a beacon chain');
  if (tx.type === TransactionType.Legacy && !tx.supports(Capability.EIP155ReplayProtection)) {
    throw new InvalidTransaction('only replay-protected (EIP-155) transactions allowed over RPC');
  }
  if ('chainId' in tx && tx.chainId !== chainId) throw new InvalidTransaction(`invalid chain id: have ${tx.chainId}, want ${chainId}`);
  if (!tx.isSigned()) throw new InvalidTransaction('transaction is not signed');
  let publicKey: Uint8Array;
  try {
    publicKey = tx.getSenderPublicKey();
  } catch {
    throw new InvalidTransaction('invalid sender: the signature does not recover a public key');
  }
  const from = bytesToHex(keccak256(publicKey).subarray(12)) as Hex;
  return { tx: withSender(tx, from), hash, from, publicKey };
}

/**
 * `tx` answering `from` as its sender without deriving it again (@ethereumjs hashes the public key
 * at every getSenderAddress, and runTx asks): a signed transaction is frozen, so an object over it.
 */
function withSender(tx: TypedTransaction, from: Hex): TypedTransaction {
  const sender = createAddressFromString(from);
  // Frozen as the transaction is: @ethereumjs keeps its hash and sender key only for frozen transactions.
  return Object.freeze(Object.create(tx, { getSenderAddress: { value: () => sender } })) as TypedTransaction;
}

/** The chain id a raw transaction is signed for (null when it names none or does not decode). */
export function claimedChainId(raw: Uint8Array): bigint | null {
  try {
    if (raw.length > 0 && raw[0]! <= 0x7f) {
      const fields = RLP.decode(raw.subarray(1)) as Uint8Array[];
      return fields[0] instanceof Uint8Array ? bytesToBigInt(fields[0]) : null;
    }
    const fields = RLP.decode(raw) as Uint8Array[];
    const v = fields[6] instanceof Uint8Array ? bytesToBigInt(fields[6]) : 0n;
    return v >= 35n ? (v - 35n) / 2n : null;
  } catch {
    return null;
  }
}

/**
 * A deposit in the legacy transaction form, sent by the bridge address with its nonce: the fields a
 * block explorer shows, r = s = 0 (no signature) and v = chainId * 2 + 35, as Velas writes
 * unsigned transactions.
 */
export function encodeDeposit(nonce: bigint, to: Hex, value: bigint, chainId: bigint): { raw: Uint8Array; hash: Hex } {
  const zero = new Uint8Array(0);
  const raw = RLP.encode([bigIntToUnpaddedBytes(nonce), zero, zero, hexToBytes(to), bigIntToUnpaddedBytes(value), zero, bigIntToUnpaddedBytes(chainId * 2n + 35n), zero, zero]);
  return { raw, hash: bytesToHex(keccak256(raw)) };
}
