/**
 * geth's default tracer, the struct logger: one entry per executed opcode with pc, op, gas left,
 * the opcode's cost (for calls: with the gas handed to the callee), depth from 1, and by option
 * the stack, memory, the storage slots the contract touched, and the last call's return data.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { bytesToHex } from '@ethereumjs/util';
import type { RunTxResult } from '@ethereumjs/vm';
import type { EvmListeners } from '../machine.ts';

export interface StructLoggerConfig {
  enableMemory?: boolean;
  disableStack?: boolean;
  disableStorage?: boolean;
  enableReturnData?: boolean;
  /** geth stops logging after this many steps (0: no limit). */
  limit?: number;
}

export interface StructLog {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  stack?: string[];
  memory?: string[];
  storage?: Record<string, string>;
  returnData?: string;
  /** The refund counter (Anvil writes it at every step, geth when not 0). */
  refund: number;
  error?: string;
}

const hex64 = (v: bigint) => `0x${v.toString(16).padStart(64, '0')}`;
const HANDS_ON_GAS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']);
const CALL_STIPEND = 2300;

export class StructLogger {
  readonly logs: StructLog[] = [];
  /** Storage seen so far per contract (geth shows the whole map at each SLOAD/SSTORE). */
  private readonly storage = new Map<string, Record<string, string>>();
  /** Return data of the last finished call, per depth of the caller. */
  private returnData: Uint8Array = new Uint8Array(0);

  constructor(private readonly config: StructLoggerConfig) {}

  /** The newest entry at each depth: a call's entry learns the gas it handed on when the callee starts. */
  private readonly lastAt: StructLog[] = [];

  readonly listeners: EvmListeners = {
    step: (e) => this.step(e),
    beforeMessage: (m: Message) => {
      this.returnData = new Uint8Array(0);
      const caller = m.depth > 0 ? this.lastAt[m.depth] : undefined;
      // geth's cost of a call or create includes the gas given to the callee (less a value call's stipend, which is free).
      if (caller && HANDS_ON_GAS.has(caller.op)) caller.gasCost += Number(m.gasLimit) - ((caller.op === 'CALL' || caller.op === 'CALLCODE') && m.value > 0n ? CALL_STIPEND : 0);
    },
    // After a create the return data buffer is empty; after a call it holds the callee's output.
    afterMessage: (r: EVMResult) => void (this.returnData = r.createdAddress ? new Uint8Array(0) : (r.execResult.returnValue ?? new Uint8Array(0)).slice()),
  };

  private step(e: InterpreterStep): void | Promise<void> {
    const c = this.config;
    if (c.limit && this.logs.length >= c.limit) return;
    const log: StructLog = { pc: e.pc, op: e.opcode.name, gas: Number(e.gasLeft), gasCost: Number(e.opcode.dynamicFee ?? BigInt(e.opcode.fee)), depth: e.depth + 1, refund: 0 };
    const storageOp = !c.disableStorage && (log.op === 'SLOAD' || log.op === 'SSTORE');
    // Read only when used: each read of the event's stack is a copy.
    const stack = !c.disableStack || storageOp ? e.stack : [];
    if (!c.disableStack) log.stack = stack.map((v) => `0x${v.toString(16)}`);
    if (c.enableMemory) {
      const words: string[] = [];
      const memory = e.memory;
      for (let i = 0; i < memory.length; i += 32) words.push(`0x${Buffer.from(memory.subarray(i, i + 32)).toString('hex').padEnd(64, '0')}`);
      log.memory = words;
    }
    if (c.enableReturnData) log.returnData = bytesToHex(this.returnData);
    log.refund = Number(e.gasRefund);
    this.logs.push(log);
    this.lastAt[log.depth] = log;
    if (!storageOp || stack.length < (log.op === 'SSTORE' ? 2 : 1)) return;
    const address = e.address.toString();
    let seen = this.storage.get(address);
    if (!seen) this.storage.set(address, (seen = {}));
    const key = stack[stack.length - 1]!;
    if (log.op === 'SSTORE') {
      seen[hex64(key)] = hex64(stack[stack.length - 2]!);
      log.storage = { ...seen };
      return;
    }
    const slots = seen;
    return e.stateManager.getStorage(e.address, Buffer.from(hex64(key).slice(2), 'hex')).then((v) => {
      slots[hex64(key)] = `0x${Buffer.from(v).toString('hex').padStart(64, '0')}`;
      log.storage = { ...slots };
    });
  }

  /** geth's ExecutionResult. */
  result(run: RunTxResult): { gas: number; failed: boolean; returnValue: string; structLogs: StructLog[] } {
    return { gas: Number(run.totalGasSpent), failed: run.execResult.exceptionError !== undefined, returnValue: bytesToHex(run.execResult.returnValue), structLogs: this.logs };
  }
}
