/**
 * Chain-control edits of the EVM state (anvil_setBalance, anvil_setCode, anvil_setNonce,
 * anvil_setStorageAt, anvil_loadState), written into a working bank's EVM layer beside the native
 * accounts, so they enter the chain with that bank's slot.
 *
 * Value stays backed: the EVM state account's lamports back every EVM balance, (wei in the EVM
 * space) = (its lamports − its reserve) × 10^9. A balance edit moves the backing by the same amount,
 * in whole lamports: a change that is not a multiple of 10^9 wei moves the backing by the next whole
 * lamport up and credits the wei left over (under a lamport) to the coinbase, where priority fees go.
 * The lamports added to (or taken from) the native side are returned for the supply's books
 * (ledger/supply.ts's adjusted).
 */
import { bytesToHex } from '@ethereumjs/util';
import { keccak256 } from '../common/hash.ts';
import type { Bank } from '../ledger/bank.ts';
import type { EvmBankLayer } from './bank-layer.ts';
import { COINBASE, EVM_STATE_ID, WEI_PER_LAMPORT } from './constants.ts';
import { EVM_EXTENSION } from './program.ts';
import type { Hex } from './records.ts';
import { EMPTY_CODE_HASH, newEvmAccount, type EvmAccount } from './state.ts';

/** An edit the chain cannot take (the message says why); nothing was changed. */
export class EvmEditError extends Error {}

export interface EvmAccountEdit {
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** Slots (0x + 64 hex digits) and their values (any length up to 32 bytes, big-endian). */
  storage?: ReadonlyArray<readonly [string, Uint8Array]>;
}

const MAX_U64 = (1n << 64n) - 1n;
const MAX_U256 = (1n << 256n) - 1n;

export function evmLayerOf(bank: Bank): EvmBankLayer {
  return bank.extensions.get(EVM_EXTENSION) as EvmBankLayer;
}

/** A storage value as the state keeps it: without leading zeros, empty when zero. */
function storageValue(value: Uint8Array): Uint8Array {
  if (value.length > 32) throw new EvmEditError(`a storage value is at most 32 bytes, got ${value.length}`);
  let i = 0;
  while (i < value.length && value[i] === 0) i++;
  return value.slice(i);
}

/**
 * The checked form of several edits (each address at most once): throws EvmEditError before
 * anything is written. Returns what `applyEvmEdits` writes.
 */
function planEdits(layer: EvmBankLayer, edits: ReadonlyArray<readonly [Hex, EvmAccountEdit]>) {
  let weiDelta = 0n;
  const plans = edits.map(([address, edit]) => {
    const current: EvmAccount = layer.account(address) ?? newEvmAccount();
    if (edit.balance !== undefined && (edit.balance < 0n || edit.balance > MAX_U256)) throw new EvmEditError(`balance ${edit.balance} is not a 256-bit unsigned integer`);
    if (edit.nonce !== undefined && (edit.nonce < 0n || edit.nonce > MAX_U64)) throw new EvmEditError(`nonce ${edit.nonce} is not a 64-bit unsigned integer`);
    const balance = edit.balance ?? current.balance;
    weiDelta += balance - current.balance;
    const storage = (edit.storage ?? []).map(([slot, value]) => [slot, storageValue(value)] as const);
    const code = edit.code;
    const codeHash = code === undefined ? current.codeHash : code.length === 0 ? EMPTY_CODE_HASH : keccak256(code);
    return { address, account: { nonce: edit.nonce ?? current.nonce, balance, codeHash }, code, storage };
  });
  const lamports = ceilDiv(weiDelta, WEI_PER_LAMPORT);
  const leftOver = lamports * WEI_PER_LAMPORT - weiDelta;
  if (leftOver !== 0n) {
    if (plans.some((p) => p.address.toLowerCase() === COINBASE)) {
      throw new EvmEditError(`EVM balances are backed by native lamports (1 lamport = 10^9 wei) and the wei under a lamport go to the coinbase ${COINBASE}: an edit of the coinbase's own balance must change the total by a multiple of 10^9 wei; this one changes it by ${weiDelta} wei`);
    }
    const coinbase = layer.account(COINBASE) ?? newEvmAccount();
    plans.push({ address: COINBASE, account: { ...coinbase, balance: coinbase.balance + leftOver }, code: undefined, storage: [] });
  }
  return { plans, lamports };
}

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return q * b < a ? q + 1n : q;
}

/**
 * Writes the edits into `bank`'s EVM layer and moves the EVM state account's backing with the
 * balances; returns the lamports added to the native accounts (negative: removed). A throw
 * (EvmEditError) changes nothing.
 */
export function applyEvmEdits(bank: Bank, edits: ReadonlyArray<readonly [Hex, EvmAccountEdit]>): number {
  const layer = evmLayerOf(bank);
  const { plans, lamports } = planEdits(layer, edits);
  const backing = bank.get(EVM_STATE_ID);
  if (!backing) throw new EvmEditError(`the EVM state account ${EVM_STATE_ID} is missing`);
  const newBacking = BigInt(backing.lamports) + lamports;
  if (newBacking > BigInt(Number.MAX_SAFE_INTEGER)) throw new EvmEditError(`the EVM state account cannot back that much: it would hold ${newBacking} lamports, over 2^53 − 1`);
  for (const { address, account, code, storage } of plans) {
    if (code !== undefined && code.length > 0) layer.changes.code.set(bytesToHex(account.codeHash), code);
    for (const [slot, value] of storage) layer.changes.putStorage(address, slot, value);
    layer.changes.accounts.set(address, account);
  }
  if (lamports !== 0n) bank.set(EVM_STATE_ID, { ...backing, data: backing.data, lamports: Number(newBacking) });
  return Number(lamports);
}

/** One account of anvil_dumpState: Anvil's SerializableAccountRecord. */
export interface DumpedAccount {
  nonce: number;
  balance: Hex;
  code: Hex;
  storage: Record<string, Hex>;
}

/** Every account of the layer's view with its code and storage, as anvil_dumpState writes them. */
export function dumpEvmState(layer: EvmBankLayer): Record<string, DumpedAccount> {
  const out: Record<string, DumpedAccount> = {};
  const word = (v: Uint8Array) => `0x${Buffer.from(v).toString('hex').padStart(64, '0')}` as Hex;
  for (const [address, account] of layer.accounts()) {
    const code = layer.code(bytesToHex(account.codeHash)) ?? new Uint8Array(0);
    const storage: Record<string, Hex> = {};
    for (const [slot, value] of [...layer.storageOf(address)].sort(([a], [b]) => (a < b ? -1 : 1))) storage[slot] = word(value);
    out[address] = { nonce: Number(account.nonce), balance: `0x${account.balance.toString(16)}`, code: bytesToHex(code), storage };
  }
  return out;
}
