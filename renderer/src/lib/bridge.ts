/**
 * The bridge wizard's chain work: checks before signing, the native → EVM deposit (Velas's three
 * instructions, as node-core/evm/deposit.ts builds them) and the EVM → native transferToNative call,
 * both signed in the page with the ids and addresses the node names (isthmus_getNodeInfo).
 */
import bs58 from 'bs58';
import { formatDecimal, groupDigits, lamportsToToken, WEI_PER_LAMPORT } from './units.ts';

export class BridgeCheckError extends Error {}

/** The bridge as the node names it in isthmus_getNodeInfo: the explorer keeps no copy of its own. */
export interface NodeBridge {
  bridgeAddress: string;
  transferToNativeSelector: string;
  evmProgramId: string;
  evmStateAccount: string;
}

export const NO_BRIDGE_INFO =
  'This node does not tell its bridge: it answers no isthmus_getNodeInfo, so the explorer knows neither its bridge address nor its EVM program and builds no transfer for it';

/** The node's bridge from its info, or a BridgeCheckError saying the node does not tell it. */
export function nodeBridge(info: Partial<NodeBridge> | null | undefined): NodeBridge {
  const { bridgeAddress, transferToNativeSelector, evmProgramId, evmStateAccount } = info ?? {};
  if (!bridgeAddress || !transferToNativeSelector || !evmProgramId || !evmStateAccount) throw new BridgeCheckError(NO_BRIDGE_INFO);
  if (!isEvmAddress(bridgeAddress) || !/^0x[0-9a-fA-F]{8}$/.test(transferToNativeSelector) || !isNativeAddress(evmProgramId) || !isNativeAddress(evmStateAccount)) {
    throw new BridgeCheckError(`This node names its bridge in a form the explorer does not read: ${JSON.stringify({ bridgeAddress, transferToNativeSelector, evmProgramId, evmStateAccount })}`);
  }
  return { bridgeAddress: bridgeAddress.toLowerCase(), transferToNativeSelector: transferToNativeSelector.toLowerCase(), evmProgramId, evmStateAccount };
}

export const isEvmAddress = (a: string) => /^0x[0-9a-fA-F]{40}$/.test(a.trim());
export function isNativeAddress(a: string): boolean {
  try {
    return bs58.decode(a.trim()).length === 32;
  } catch {
    return false;
  }
}

/** transferToNative(bytes32 native_recipient) call data, with the node's selector. */
export function transferToNativeData(recipient: string, bridge: Pick<NodeBridge, 'transferToNativeSelector'>): string {
  const bytes = bs58.decode(recipient);
  if (bytes.length !== 32) throw new BridgeCheckError('The native recipient must be a base-58 address of 32 bytes');
  return bridge.transferToNativeSelector + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
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

/** The deposit's three instructions' data: System assign to the node's EVM program, SwapNativeToEther, FreeOwnership. */
export function depositInstructionData(lamports: bigint, evmAddress: string, bridge: Pick<NodeBridge, 'evmProgramId'>) {
  const addr = new TextEncoder().encode(evmAddress.toLowerCase());
  return {
    assign: Uint8Array.from([...u32(1), ...bs58.decode(bridge.evmProgramId)]),
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
