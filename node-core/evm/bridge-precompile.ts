/**
 * The EVM → native half of the bridge: `transferToNative(bytes32 native_recipient)` payable, a
 * precompile at Velas's address. The call's value arrives at the precompile by the EVM's own rules;
 * the precompile burns it on the EVM side and records a withdrawal in its own storage (keyed by
 * recipient), so a revert anywhere above the call undoes both. After the transaction the EVM program
 * pays recorded withdrawals out of the EVM state account to the recipients (program.ts).
 */
import { EVMError, type ExecResult, type PrecompileInput } from '@ethereumjs/evm';
import { Address, bytesToBigInt, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { encodeBase58 } from '../common/base58.ts';
import { BRIDGE_ADDRESS, TRANSFER_TO_NATIVE_SELECTOR, WEI_PER_LAMPORT } from './constants.ts';
import { word } from './crypto.ts';
import { encodeRevertReason } from './revert.ts';

export const BRIDGE = new Address(hexToBytes(BRIDGE_ADDRESS));
const SELECTOR = hexToBytes(`0x${TRANSFER_TO_NATIVE_SELECTOR}`);

/** What the precompile needs of the call it serves and of the native transaction around it. */
export interface BridgeCallContext {
  /** The message being executed (value, call kind), tracked from the EVM's message events. */
  currentMessage(): { value: bigint; to?: Address; delegatecall: boolean; isStatic: boolean } | undefined;
  /** Whether the native transaction passed this account (writable) for the bridge to credit. */
  canCredit(recipient: string): boolean;
}

const revert = (reason: string): ExecResult => ({
  returnValue: encodeRevertReason(`transferToNative: ${reason}`),
  executionGasUsed: 0n,
  exceptionError: new EVMError(EVMError.errorMessages.REVERT),
});

/** Decodes transferToNative calldata: the recipient's base-58 address, or null when it is not that call. */
export function transferToNativeRecipient(data: Uint8Array): string | null {
  if (data.length !== 36) return null;
  for (let i = 0; i < 4; i++) if (data[i] !== SELECTOR[i]) return null;
  return encodeBase58(data.subarray(4));
}

export function createBridgePrecompile(context: () => BridgeCallContext) {
  return async function transferToNative(input: PrecompileInput): Promise<ExecResult> {
    const ctx = context();
    const recipient = transferToNativeRecipient(input.data);
    if (recipient === null) return revert(`expected calldata transferToNative(bytes32) (selector 0x${TRANSFER_TO_NATIVE_SELECTOR} and 32 bytes)`);
    const message = ctx.currentMessage();
    if (!message || message.delegatecall || message.to?.toString() !== BRIDGE_ADDRESS) return revert('only a plain CALL to the bridge address can move value');
    if (message.value === 0n) return revert('the call carries no value');
    if (message.value % WEI_PER_LAMPORT !== 0n) return revert(`value ${message.value} wei is not a whole number of lamports (1 lamport = 10^9 wei)`);
    if (!ctx.canCredit(recipient)) return revert(`the native recipient ${recipient} was not passed to the native transaction`);

    const state = input._EVM.stateManager;
    const self = (await state.getAccount(BRIDGE))!;
    self.balance -= message.value;
    await state.putAccount(BRIDGE, self);
    const key = input.data.subarray(4);
    const recorded = bytesToBigInt(await state.getStorage(BRIDGE, key));
    await state.putStorage(BRIDGE, key, word(recorded + message.value / WEI_PER_LAMPORT));
    return { returnValue: new Uint8Array(0), executionGasUsed: 0n };
  };
}

/** The withdrawals a transaction recorded, as [recipient, lamports], from the bridge's storage slots. */
export function recordedWithdrawals(slots: ReadonlyMap<string, Uint8Array> | undefined): Array<[string, bigint]> {
  if (!slots) return [];
  const out: Array<[string, bigint]> = [];
  for (const [slot, value] of slots) if (value.length > 0) out.push([encodeBase58(hexToBytes(slot as `0x${string}`)), bytesToBigInt(value)]);
  return out;
}

export const bridgeAddressKey = bytesToHex(BRIDGE.bytes);
