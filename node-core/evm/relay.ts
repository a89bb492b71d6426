/**
 * eth_sendRawTransaction's road into the chain: the checks an Ethereum node makes before it takes a
 * transaction (in geth's words, which ethers and viem recognize), a pool per sender that holds
 * transactions with future nonces until the gap closes (and refuses underpriced replacements), and
 * the wrapping of each ready transaction into native transactions signed and paid by the node's
 * relayer key (evm/relayer-key.ts): one EvmTransaction when it fits a 1,232-byte packet, else the
 * big-transaction flow (a storage account written in chunks, then executed).
 */
import { EventEmitter } from 'node:events';
import type { TypedTransaction } from '@ethereumjs/tx';
import { SYSTEM_PROGRAM_ID } from '../common/pubkey.ts';
import type { Chain } from '../ledger/chain.ts';
import { generateKeypair, type Keypair } from '../keys/keypair.ts';
import { minimumBalanceForRentExemption } from '../runtime/account.ts';
import { compileMessage, signTransaction, type InstructionSpec } from '../runtime/message-builder.ts';
import { encodeSystemInstruction } from '../runtime/programs/system-instruction.ts';
import type { Transaction } from '../runtime/wire.ts';
import { BASE_FEE_PER_GAS, BLOCK_GAS_LIMIT, EVM_PROGRAM_ID, EVM_STATE_ID, MAX_TX_GAS } from './constants.ts';
import type { Hex } from './records.ts';
import { evmInstruction, withdrawalRecipients, wrapInOne } from './relay-wrap.ts';
import type { EvmSpace } from './space.ts';
import { InvalidTransaction, type DecodedTransaction } from './transaction.ts';

/** geth's txMaxSize: 4 slots of 32 KiB. */
export const MAX_TX_SIZE = 128 * 1024;
/** Raw transaction bytes per EvmBigTransaction write (fits a packet beside two signatures and four keys). */
export const CHUNK_SIZE = 880;
/** A replacement must raise both fee fields by this many percent (geth's default price bump). */
const PRICE_BUMP_PERCENT = 10n;
/**
 * Back-pressure: the pool holds at most what the node executes in this many blocks (its biggest
 * recent blocks say how much that is), never fewer than POOL_FLOOR transactions, counting those not
 * yet executed (the executed ones are in a block within the slot). Past that a sender is told
 * "txpool is full", geth's words when its pool overflows, and retries; a pool without bound only
 * turns a burst into blocks of thousands and receipts seconds late, and a deeper one only makes
 * each transaction wait longer for its receipt.
 */
const POOL_DEPTH_BLOCKS = 1;
const POOL_FLOOR = 256;
/** How many recent blocks' sizes the capacity is taken from. */
const CAPACITY_WINDOW = 16;

/** Why a transaction was refused, in the words Ethereum clients match on. */
export class TxRejected extends Error {}
/** One error for every refusal of a full pool: it carries no stack worth capturing each time. */
const POOL_FULL = new TxRejected('txpool is full');

interface Pending {
  decoded: DecodedTransaction;
  nonce: bigint;
}

const feeCap = (tx: TypedTransaction): bigint => ('maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice);
const tipCap = (tx: TypedTransaction): bigint => ('maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : (tx as { gasPrice: bigint }).gasPrice);

export interface EvmRelayEvents {
  /** A transaction was taken (relayed or queued). */
  pending: [DecodedTransaction];
}

export class EvmRelay extends EventEmitter<EvmRelayEvents> {
  /** Transactions taken and not yet in a visible block, by hash (eth_getTransactionByHash shows them). */
  readonly pendingByHash = new Map<string, DecodedTransaction>();
  /** Per sender: transactions waiting for a nonce gap to close. */
  private readonly queued = new Map<string, Map<bigint, Pending>>();
  /** Per sender: the highest nonce handed to the chain and not yet executed. */
  private readonly inflight = new Map<string, { nonce: bigint; signatures: Set<string> }>();
  /** Native signature (the last of a wrapping) → the EVM transaction it carries. */
  private readonly bySignature = new Map<string, DecodedTransaction>();
  private readonly known = new Set<string>();
  /** Taken transactions the chain has executed, whose block is not visible yet (they no longer wait in the pool). */
  private readonly executed = new Set<string>();
  /** Transactions in the newest visible blocks, newest last (the pool's measure of capacity). */
  private readonly recentBlockSizes: number[] = [];

  constructor(
    private readonly chain: Chain,
    private readonly space: EvmSpace,
    private readonly relayer: Keypair,
  ) {
    super();
    // Once the native transaction ran, the EVM one is no longer on its way; if it failed (or the
    // chain refused it), the EVM transaction was never executed and is dropped, as geth drops
    // transactions that turn invalid.
    const settle = (signature: string, failed: boolean) => {
      const decoded = this.bySignature.get(signature);
      if (decoded === undefined) return;
      this.bySignature.delete(signature);
      const f = this.inflight.get(decoded.from);
      f?.signatures.delete(signature);
      if (f && f.signatures.size === 0) this.inflight.delete(decoded.from);
      if (failed) this.forget([decoded.hash]);
      else if (this.pendingByHash.has(decoded.hash)) this.executed.add(decoded.hash);
    };
    chain.on('transaction', (e) => settle(e.transaction.signature, e.transaction.meta.err !== null));
    chain.on('dropped', (e) => settle(e.signature, true));
    // A revert or reset discards what the chain took after the slot it returns to; a transaction
    // waiting for a nonce gap was sent in that time, and its sender's nonce is back where it was: it
    // goes too, rather than fill a gap of the discarded time later. (Nothing is in flight then: the
    // chain executed every queued transaction before it, Chain.exclusive.) One executed in a slot
    // whose block was not yet visible ran in the discarded time too: the chain no longer has it.
    chain.on('reverted', () => {
      this.dropQueued();
      this.forget([...this.executed]);
    });
    space.on('block', (block) => {
      this.forget(block.transactions);
      this.recentBlockSizes.push(block.transactions.length);
      if (this.recentBlockSizes.length > CAPACITY_WINDOW) this.recentBlockSizes.shift();
    });
  }

  /** Taken transactions not yet executed: what the pool limit bounds. */
  get waiting(): number {
    return this.pendingByHash.size - this.executed.size;
  }

  /** How many transactions the pool holds before it refuses new ones. */
  get poolLimit(): number {
    return Math.max(POOL_FLOOR, POOL_DEPTH_BLOCKS * Math.max(0, ...this.recentBlockSizes));
  }

  /** The nonce the sender's next transaction to the chain needs: state (pending) and what is on its way. */
  private nextRelayNonce(address: string): bigint {
    const state = this.space.stateAt('processed').account(address)?.nonce ?? 0n;
    const f = this.inflight.get(address);
    return f && f.nonce + 1n > state ? f.nonce + 1n : state;
  }

  /** eth_getTransactionCount(pending): the next nonce after what is on its way and queued without a gap. */
  pendingNonce(address: string): bigint {
    const a = address.toLowerCase();
    let next = this.nextRelayNonce(a);
    const q = this.queued.get(a);
    while (q?.has(next)) next++;
    return next;
  }

  /**
   * The refusals that need no decoding (too big, a full pool): throws TxRejected. A full pool with no
   * queued transaction a send could replace is refused before the costly decoding (sender recovery),
   * since senders retry this answer as fast as it comes during a burst.
   */
  precheck(raw: Uint8Array): void {
    if (raw.length > MAX_TX_SIZE) throw new TxRejected(`oversized data: transaction size ${raw.length}, limit ${MAX_TX_SIZE}`);
    if (this.queued.size === 0 && this.waiting >= this.poolLimit) throw POOL_FULL;
  }

  /**
   * Validates and takes a raw transaction; returns its hash. `wrapped`: the native transaction that
   * carries it, made ahead of time (the submission worker, wrapInOne), used while its blockhash is valid;
   * `adopted`: these bytes decoded already (the worker's recovery, TransactionDecoder.adopt).
   */
  submitRaw(raw: Uint8Array, wrapped?: Transaction, adopted?: DecodedTransaction): Hex {
    this.precheck(raw);
    let decoded: DecodedTransaction;
    try {
      decoded = adopted ?? this.space.decoder.decode(raw);
    } catch (e) {
      if (e instanceof InvalidTransaction) throw new TxRejected(e.message);
      throw e;
    }
    if (this.known.has(decoded.hash)) throw new TxRejected('already known');
    const tx = decoded.tx;
    const from = decoded.from;
    const state = this.space.stateAt('processed').account(from);
    const stateNonce = state?.nonce ?? 0n;
    if (tx.nonce < stateNonce) throw new TxRejected(`nonce too low: next nonce ${stateNonce}, tx nonce ${tx.nonce}`);
    if (tx.gasLimit > BLOCK_GAS_LIMIT) throw new TxRejected('exceeds block gas limit');
    if (tx.gasLimit > MAX_TX_GAS) throw new TxRejected(`transaction gas limit too high (cap: ${MAX_TX_GAS}, tx: ${tx.gasLimit})`);
    if (tipCap(tx) > feeCap(tx)) throw new TxRejected(`max priority fee per gas higher than max fee per gas: address ${from}, maxPriorityFeePerGas: ${tipCap(tx)}, maxFeePerGas: ${feeCap(tx)}`);
    if (feeCap(tx) < BASE_FEE_PER_GAS) throw new TxRejected(`max fee per gas less than block base fee: address ${from}, maxFeePerGas: ${feeCap(tx)}, baseFee: ${BASE_FEE_PER_GAS}`);
    const intrinsic = intrinsicGas(tx);
    if (tx.gasLimit < intrinsic) throw new TxRejected(`intrinsic gas too low: gas ${tx.gasLimit}, minimum needed ${intrinsic}`);
    const cost = tx.gasLimit * feeCap(tx) + tx.value;
    const balance = state?.balance ?? 0n;
    if (balance < cost) throw new TxRejected(`insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`);

    const next = this.nextRelayNonce(from);
    const q = this.queued.get(from);
    const replaced = q?.get(tx.nonce);
    if (tx.nonce < next && !replaced) throw new TxRejected(`nonce too low: next nonce ${next}, tx nonce ${tx.nonce}`);
    // A full pool still takes the transaction that fills its sender's nonce gap: the ones queued behind
    // the gap count as waiting but cannot run without it, and refusing it would keep the pool full for good.
    const fillsGap = tx.nonce === next && (q?.size ?? 0) > 0;
    if (!replaced && !fillsGap && this.waiting >= this.poolLimit) throw POOL_FULL;
    if (replaced) {
      const old = replaced.decoded.tx;
      const bump = (v: bigint) => v + (v * PRICE_BUMP_PERCENT) / 100n;
      if (feeCap(tx) < bump(feeCap(old)) || tipCap(tx) < bump(tipCap(old))) throw new TxRejected('replacement transaction underpriced');
      this.known.delete(replaced.decoded.hash);
    }
    this.known.add(decoded.hash);
    if (replaced) this.pendingByHash.delete(replaced.decoded.hash);
    this.pendingByHash.set(decoded.hash, decoded);
    this.emit('pending', decoded);
    if (tx.nonce === next && !replaced) {
      this.relay(decoded, wrapped);
      this.promote(from);
    } else {
      let queue = q;
      if (!queue) this.queued.set(from, (queue = new Map()));
      queue.set(tx.nonce, { decoded, nonce: tx.nonce });
      // A replacement of the transaction that fills the gap goes out now.
      if (tx.nonce === next) this.promote(from);
    }
    return decoded.hash;
  }

  /** Hands queued transactions whose nonce is next to the chain. */
  private promote(from: string): void {
    const q = this.queued.get(from);
    if (!q) return;
    for (let next = this.nextRelayNonce(from); q.has(next); next = this.nextRelayNonce(from)) {
      const p = q.get(next)!;
      q.delete(next);
      this.relay(p.decoded);
    }
    if (q.size === 0) this.queued.delete(from);
  }

  /** Wraps a ready transaction into native transactions and submits them, in order. */
  private relay(decoded: DecodedTransaction, wrapped?: Transaction): void {
    const txs = wrapped && this.chain.isBlockhashValid(wrapped.message.recentBlockhash, 'processed') ? [wrapped] : this.wrap(decoded);
    const last = txs[txs.length - 1]!;
    const f = this.inflight.get(decoded.from) ?? { nonce: decoded.tx.nonce, signatures: new Set<string>() };
    f.nonce = decoded.tx.nonce;
    f.signatures.add(last.id);
    this.inflight.set(decoded.from, f);
    this.bySignature.set(last.id, decoded);
    for (const t of txs) this.chain.submit(t);
  }

  /** What the submission worker needs to wrap a transaction ahead of time (wrapInOne): the relayer key and a recent blockhash. */
  wrapping(): { relayer: Keypair; blockhash: string } {
    return { relayer: this.relayer, blockhash: this.chain.latestBlockhash('processed').blockhash };
  }

  /** The native transactions that carry `decoded` (signed by the relayer key). */
  wrap(decoded: DecodedTransaction): Transaction[] {
    const blockhash = this.chain.latestBlockhash('processed').blockhash;
    const one = wrapInOne(decoded.raw, decoded.tx, this.relayer, blockhash);
    if (one) return [one];

    const extra = withdrawalRecipients(decoded.tx, this.relayer.address).map((key) => ({ key, writable: true }));
    const storage = generateKeypair();
    const size = decoded.raw.length;
    const rent = minimumBalanceForRentExemption(this.chain.genesis.rent, size);
    const storageAccounts = [{ key: EVM_STATE_ID, writable: true }, { key: storage.address, signer: true, writable: true }];
    const createAccount: InstructionSpec = {
      programId: SYSTEM_PROGRAM_ID,
      accounts: [{ key: this.relayer.address, signer: true, writable: true }, { key: storage.address, signer: true, writable: true }],
      data: encodeSystemInstruction({ type: 'createAccount', lamports: BigInt(rent), space: BigInt(size), owner: EVM_PROGRAM_ID }),
    };
    const signed = (ixs: InstructionSpec[]) => signTransaction(compileMessage(this.relayer.address, ixs, blockhash), [this.relayer, storage]);
    const out = [signed([createAccount, evmInstruction({ kind: 'allocate', size: BigInt(size) }, storageAccounts)])];
    for (let offset = 0; offset < size; offset += CHUNK_SIZE) {
      out.push(signed([evmInstruction({ kind: 'write', offset: BigInt(offset), data: decoded.raw.subarray(offset, offset + CHUNK_SIZE) }, storageAccounts)]));
    }
    out.push(signed([evmInstruction({ kind: 'execute' }, [...storageAccounts, { key: this.relayer.address, writable: true }, ...extra])]));
    return out;
  }

  /** Transactions waiting for a nonce gap, for eth_getTransactionCount's and txpool's view. */
  queuedCount(): number {
    let n = 0;
    for (const q of this.queued.values()) n += q.size;
    return n;
  }

  /** Drops every transaction waiting for a nonce gap (eth_getTransactionByHash no longer knows them). */
  private dropQueued(): void {
    for (const q of this.queued.values()) this.forget([...q.values()].map((p) => p.decoded.hash));
    this.queued.clear();
  }

  /**
   * Drops a transaction still waiting for its nonce gap (anvil_dropTransaction); false when no
   * queued transaction has that hash (one handed to the chain runs in the slot it arrived in).
   */
  drop(hash: string): boolean {
    for (const [from, q] of this.queued) {
      for (const [nonce, p] of q) {
        if (p.decoded.hash !== hash) continue;
        q.delete(nonce);
        if (q.size === 0) this.queued.delete(from);
        this.forget([hash]);
        return true;
      }
    }
    return false;
  }

  /** Forgets hashes of transactions in a visible block (the store answers for them). */
  forget(hashes: Iterable<string>): void {
    for (const h of hashes) {
      this.known.delete(h);
      this.pendingByHash.delete(h);
      this.executed.delete(h);
      this.space.decoder.forget(h);
    }
  }
}

/** Intrinsic gas with EIP-7623's calldata floor (Prague and later), as the pool checks it. */
export function intrinsicGas(tx: TypedTransaction): bigint {
  const base = tx.getIntrinsicGas();
  if (!tx.common.isActivatedEIP(7623)) return base;
  const floor = 21000n + tokens(tx.data) * 10n;
  return base > floor ? base : floor;
}

function tokens(data: Uint8Array): bigint {
  let n = 0n;
  for (const b of data) n += b === 0 ? 1n : 4n;
  return n;
}
