/**
 * The bridge wizard's chain work: checks before signing, the native → EVM deposit (Velas's three
 * instructions, as node-core/evm/deposit.ts builds them) and the EVM → native transferToNative call,
 * then following both sides until finalized.
 */
import bs58 from 'bs58';
import { formatDecimal, groupDigits, lamportsToToken, WEI_PER_LAMPORT } from './units.ts';

export const BRIDGE_ADDRESS = '0x56454c41532d434841494e000000000053574150';
export const TRANSFER_TO_NATIVE_SELECTOR = '0xb1d6927a';
export const EVM_PROGRAM_ID = 'EVM1111111111111111111111111111111111111111';
export const EVM_STATE_ID = 'EvmState11111111111111111111111111111111111';

export class BridgeCheckError extends Error {}

export const isEvmAddress = (a: string) => /^0x[0-9a-fA-F]{40}$/.test(a.trim());
export function isNativeAddress(a: string): boolean {
  try {
    return bs58.decode(a.trim()).length === 32;
  } catch {
    return false;
  }
}

/** transferToNative(bytes32 native_recipient) call data. */
export function transferToNativeData(recipient: string): string {
  const bytes = bs58.decode(recipient);
  if (bytes.length !== 32) throw new BridgeCheckError('The native recipient must be a base-58 address of 32 bytes');
  return TRANSFER_TO_NATIVE_SELECTOR + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Little-endian u32/u64 and bincode strings, the EVM program's instruction layout. */
function u32(n: number): number[] {
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
}
function u64(n: bigint): number[] {
  const out: number[] = [];
  for (let i = 0; i < 8; i++) out.push(Number((n >> BigInt(8 * i)) & 0xffn));
  return out;
}

export function depositInstructionData(lamports: bigint, evmAddress: string) {
  const addr = new TextEncoder().encode(evmAddress.toLowerCase());
  return {
    assign: Uint8Array.from([...u32(1), ...bs58.decode(EVM_PROGRAM_ID)]),
    swap: Uint8Array.from([...u32(1), ...u64(lamports), ...u64(BigInt(addr.length)), ...addr]),
    free: Uint8Array.from(u32(2)),
  };
}

export interface NativeCheck {
  balance: bigint;
  fee: bigint;
  rentMinimum: bigint;
}

/** Native → EVM: the amount, the fee and what stays in the account, checked before anything is signed. */
export function checkNativeSpend(wei: bigint, c: NativeCheck): bigint {
  if (wei <= 0n) throw new BridgeCheckError('The amount must be more than zero');
  if (wei % WEI_PER_LAMPORT !== 0n) throw new BridgeCheckError(`The amount must be a whole number of lamports (1 lamport = 10^9 wei); ${groupDigits(wei)} wei is not`);
  const lamports = wei / WEI_PER_LAMPORT;
  const needed = lamports + c.fee;
  if (needed > c.balance) {
    throw new BridgeCheckError(`Insufficient balance: ${lamportsToToken(lamports)} plus the fee of ${groupDigits(c.fee)} lamports needs ${lamportsToToken(needed)}, the account has ${lamportsToToken(c.balance)}`);
  }
  const left = c.balance - needed;
  if (left > 0n && left < c.rentMinimum) {
    throw new BridgeCheckError(`This would leave ${groupDigits(left)} lamports, less than the rent-exempt minimum of ${groupDigits(c.rentMinimum)}: send ${lamportsToToken(c.balance - c.fee)} (everything) or leave at least the minimum`);
  }
  return lamports;
}

/** EVM → native: whole lamports (the precompile refuses the rest), value plus gas within the balance. */
export function checkEvmSpend(wei: bigint, balance: bigint, gasCost: bigint): void {
  if (wei <= 0n) throw new BridgeCheckError('The amount must be more than zero');
  if (wei % WEI_PER_LAMPORT !== 0n) throw new BridgeCheckError(`The bridge moves whole lamports only (1 lamport = 10^9 wei); ${groupDigits(wei)} wei is not a whole number of lamports`);
  if (wei + gasCost > balance) {
    throw new BridgeCheckError(`Insufficient balance: ${formatDecimal(wei, 18, true)} plus gas of up to ${formatDecimal(gasCost, 18, true)} is more than the ${formatDecimal(balance, 18, true)} the account has`);
  }
}

/** Native keypair text: a JSON array of 64 bytes (Solana CLI file) or a base-58 secret key. */
export function parseSecretKey(text: string): Uint8Array {
  const t = text.trim();
  let bytes: Uint8Array;
  if (t.startsWith('[')) {
    let arr: unknown;
    try {
      arr = JSON.parse(t);
    } catch {
      throw new BridgeCheckError('The keypair is not valid JSON');
    }
    if (!Array.isArray(arr) || !arr.every((b) => Number.isInteger(b) && b >= 0 && b < 256)) throw new BridgeCheckError('The keypair must be an array of bytes');
    bytes = Uint8Array.from(arr as number[]);
  } else {
    try {
      bytes = bs58.decode(t);
    } catch {
      throw new BridgeCheckError('The secret key is neither a JSON byte array nor base-58');
    }
  }
  if (bytes.length !== 64) throw new BridgeCheckError(`A keypair has 64 bytes; this has ${bytes.length}`);
  return bytes;
}

export function parseEvmPrivateKey(text: string): string {
  const t = text.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(t)) throw new BridgeCheckError('An EVM private key is 32 bytes of hex (64 hex digits)');
  return '0x' + t.toLowerCase();
}
