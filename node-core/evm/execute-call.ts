/*
 * This file holds a modified copy of part of EVM._executeCall from @ethereumjs/evm 10.1.3
 * (https://github.com/ethereumjs/ethereumjs-monorepo, packages/evm/src/evm.ts), which is licensed
 * under the Mozilla Public License 2.0. This file is therefore under the MPL 2.0 too, unlike the rest
 * of the project (MIT): a copy of the MPL is at https://mozilla.org/MPL/2.0/.
 */
/**
 * @ethereumjs's EVM._executeCall (one per CALL frame, eth_call's included) hands runInterpreter
 * `{ ...{ codeAddress: message.codeAddress }, ...message, gasLimit }`. On Node 20's V8 an object
 * literal that spreads a second object after a first gets a new hidden class for each property on
 * every evaluation (new maps and descriptor arrays, never shared): 20-30 µs of each eth_call of a
 * view function here (a third of runCall), and the object runInterpreter then reads through
 * megamorphic lookups.
 *
 * Installed, _executeCall is this module's copy of 10.1.3's for the case this chain runs: no debug
 * logging, no profiler, and none of EIP-6800/7864 (code chunk witnesses), 2780 (Amsterdam's
 * top-frame charges), 7708 (transfer logs) or 7928 (block access lists), whose branches are then
 * skipped by @ethereumjs's own code too. It builds the same object as one literal: the same keys in
 * the same order with the same values (the unit test compares it with the spreads'), when the
 * message has exactly the keys @ethereumjs's Message constructor gives it (and the one _loadCode
 * adds); otherwise it spreads, as @ethereumjs does. Any other case runs @ethereumjs's own _executeCall. Installed only when the
 * EVM's own _executeCall is 10.1.3's, character for character (its source's SHA-256 below).
 */
import { EVM } from '@ethereumjs/evm';
import { Account } from '@ethereumjs/util';
import { sourceSha256 } from './source-hash.ts';

/** SHA-256 of @ethereumjs/evm 10.1.3's EVM.prototype._executeCall.toString(), the function copied below. */
const COPIED_SOURCE_SHA256 = 'f2358d2eeecc46e18de7628afe4da9d1e6ca91fe3c22cf9503c7703d0ec64d31';

/** EIPs whose branches in _executeCall the copy leaves out: with any of them active, @ethereumjs's own runs. */
const LEFT_OUT_EIPS = [6800, 7864, 2780, 7708, 7928];

/** The own keys of a Message as 10.1.3's constructor makes it, in order. */
export const MESSAGE_KEYS = 'to,value,caller,gasLimit,data,eofCallData,depth,code,_codeAddress,isStatic,isCompiled,salt,selfdestruct,createdAddresses,delegatecall,gasRefund,blobVersionedHashes,accessWitness'.split(',');
/** _loadCode adds this key when it loads the code from the state (every frame but a precompile's or one given its code). */
const LOADED_CODE_KEY = 'chargeCodeAccesses';

type Obj = Record<string, any>;
type EvmLike = Obj & {
  DEBUG: boolean;
  common: { isActivatedEIP(eip: number): boolean };
  _optsCached: { profiler?: { enabled?: boolean } };
  stateManager: { getAccount(address: unknown): Promise<Account | undefined> };
  _executeCall(message: Obj): Promise<Obj>;
  _reduceSenderBalance(account: Account, message: Obj): Promise<void>;
  _addToBalance(account: Account, message: Obj): Promise<void>;
  _loadCode(message: Obj): Promise<void>;
  runPrecompile(code: unknown, data: Uint8Array, gasLimit: bigint): Promise<Obj>;
  runInterpreter(message: Obj, opts: Obj): Promise<Obj>;
  postMessageCleanup(): void;
};

/** 0 when the message's keys are not the Message constructor's (then frameMessage spreads), 1 when they are, 2 when _loadCode's key follows them. */
export function messageShape(message: Obj): 0 | 1 | 2 {
  const keys = Object.keys(message);
  const n = MESSAGE_KEYS.length;
  if (keys.length !== n && !(keys.length === n + 1 && keys[n] === LOADED_CODE_KEY)) return 0;
  for (let i = 0; i < n; i++) if (keys[i] !== MESSAGE_KEYS[i]) return 0;
  return keys.length === n ? 1 : 2;
}

/** `{ ...{ codeAddress: message.codeAddress }, ...message, gasLimit }`, as one literal when the message has the Message constructor's keys (and _loadCode's). */
export function frameMessage(message: Obj, gasLimit: bigint): Obj {
  const codeAddress = message.codeAddress;
  const shape = messageShape(message);
  if (shape === 0) return { ...{ codeAddress }, ...message, gasLimit };
  const built: Obj = {
    codeAddress,
    to: message.to,
    value: message.value,
    caller: message.caller,
    gasLimit,
    data: message.data,
    eofCallData: message.eofCallData,
    depth: message.depth,
    code: message.code,
    _codeAddress: message._codeAddress,
    isStatic: message.isStatic,
    isCompiled: message.isCompiled,
    salt: message.salt,
    selfdestruct: message.selfdestruct,
    createdAddresses: message.createdAddresses,
    delegatecall: message.delegatecall,
    gasRefund: message.gasRefund,
    blobVersionedHashes: message.blobVersionedHashes,
    accessWitness: message.accessWitness,
  };
  if (shape === 2) built.chargeCodeAccesses = message.chargeCodeAccesses;
  return built;
}

function install(): void {
  const proto = EVM.prototype as unknown as EvmLike;
  const original = proto._executeCall;
  // A copy of @ethereumjs/evm 10.1.3's EVM._executeCall without the branches of the EIPs above, debug logging and the profiler.
  proto._executeCall = async function (this: EvmLike, message: Obj): Promise<Obj> {
    if (this.DEBUG || this._optsCached.profiler?.enabled === true) return original.call(this, message);
    for (const eip of LEFT_OUT_EIPS) if (this.common.isActivatedEIP(eip)) return original.call(this, message);
    const gasLimit: bigint = message.gasLimit;
    const fromAddress = message.caller;
    let account = await this.stateManager.getAccount(fromAddress);
    if (!account) {
      account = new Account();
    }
    let errorMessage;
    // Reduce tx value from sender
    if (!message.delegatecall) {
      try {
        await this._reduceSenderBalance(account, message);
      } catch (e) {
        errorMessage = e;
      }
    }
    // Load `to` account
    let toAccount = await this.stateManager.getAccount(message.to);
    if (!toAccount) {
      toAccount = new Account();
    }
    // Add tx value to the `to` account
    if (!message.delegatecall) {
      try {
        await this._addToBalance(toAccount, message);
      } catch (e) {
        errorMessage = e;
      }
    }
    // Load code
    await this._loadCode(message);
    let exit = false;
    if (!message.code || (typeof message.code !== 'function' && message.code.length === 0)) {
      exit = true;
    }
    if (errorMessage !== undefined) {
      exit = true;
    }
    if (exit) {
      const earlyResult = {
        gasRefund: message.gasRefund,
        executionGasUsed: message.gasLimit - gasLimit,
        exceptionError: errorMessage,
        returnValue: new Uint8Array(0),
        logs: undefined,
      };
      return { execResult: earlyResult };
    }
    let result;
    if (message.isCompiled) {
      result = await this.runPrecompile(message.code, message.data, gasLimit);
      result.gasRefund = message.gasRefund;
    } else {
      result = await this.runInterpreter(frameMessage(message, gasLimit), { initialLogs: undefined });
    }
    if (message.depth === 0) {
      this.postMessageCleanup();
    }
    result.executionGasUsed += message.gasLimit - gasLimit;
    return {
      execResult: result,
    };
  };
}

let installed: Promise<boolean> | null = null;

export function installExecuteCall(): Promise<boolean> {
  return (installed ??= (async () => {
    const own = (EVM.prototype as unknown as EvmLike)._executeCall;
    if (typeof own !== 'function' || sourceSha256(own) !== COPIED_SOURCE_SHA256) return false;
    install();
    return true;
  })());
}
