/**
 * The call tree of one run, from the EVM's message events (a frame per CALL, CALLCODE,
 * DELEGATECALL, STATICCALL, CREATE, CREATE2) and the step events of the few opcodes a message does
 * not show: which kind of call made it, SELFDESTRUCT, and LOGs when asked for. geth's callTracer and
 * Otterscan's ots_traceTransaction / ots_getInternalOperations are shapes of this tree.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { bytesToHex } from '@ethereumjs/util';
import type { RunTxResult } from '@ethereumjs/vm';
import { BRIDGE_ADDRESS } from '../constants.ts';
import type { EvmListeners } from '../machine.ts';
import type { Hex } from '../records.ts';
import { depositOf } from './replay.ts';

export type FrameType = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT';

export interface FrameLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  /** How many child frames came before the log (geth's `position`). */
  position: number;
  /** The log's index among the logs kept so far (geth counts from the block's first; add that base). */
  index: number;
}

export interface CallFrame {
  type: FrameType;
  from: Hex;
  to: Hex;
  /** null where the call carries none of its own (DELEGATECALL, STATICCALL). */
  value: bigint | null;
  gas: bigint;
  gasUsed: bigint;
  input: Uint8Array;
  output: Uint8Array;
  /** @ethereumjs's exception, when the frame failed. */
  error?: string;
  depth: number;
  calls: CallFrame[];
  logs: FrameLog[];
}

const CALL_OPS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']);
const EMPTY = new Uint8Array(0);

function word(v: bigint): Hex {
  return `0x${v.toString(16).padStart(64, '0')}`;
}

function readMemory(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array {
  const out = new Uint8Array(Number(size));
  const start = Number(offset);
  if (start < memory.length) out.set(memory.subarray(start, Math.min(memory.length, start + out.length)));
  return out;
}

export class CallFrameCollector {
  private readonly stack: Array<{ frame: CallFrame; message: Message }> = [];
  /** The opcode that last ran at each depth: the kind of call a new message at depth + 1 is. */
  private readonly opAt: string[] = [];
  root: CallFrame | null = null;
  /** Logs emitted and not reverted so far: a reverted frame's logs give their indexes back, as geth's state journal does. */
  private logCount = 0;

  constructor(private readonly opts: { logs: boolean }) {}

  readonly listeners: EvmListeners = {
    step: (e: InterpreterStep) => this.step(e),
    beforeMessage: (m: Message) => this.enter(m),
    afterMessage: (r: EVMResult) => this.exit(r),
  };

  private step(e: InterpreterStep): void | Promise<void> {
    const name = e.opcode.name;
    this.opAt[e.depth] = name;
    if (this.opts.logs && name.startsWith('LOG')) {
      const s = e.stack;
      const n = s.length;
      const count = Number(name.slice(3));
      const frame = this.stack[this.stack.length - 1]?.frame;
      if (!frame || n < 2 + count) return;
      const topics: Hex[] = [];
      for (let i = 0; i < count; i++) topics.push(word(s[n - 3 - i]!));
      frame.logs.push({ address: e.address.toString() as Hex, topics, data: bytesToHex(readMemory(e.memory, s[n - 1]!, s[n - 2]!)), position: frame.calls.length, index: this.logCount++ });
    } else if (name === 'SELFDESTRUCT') {
      const frame = this.stack[this.stack.length - 1]?.frame;
      const s = e.stack;
      if (!frame || s.length < 1) return;
      const beneficiary = word(s[s.length - 1]!);
      return (async () => {
        const balance = (await e.stateManager.getAccount(e.address))?.balance ?? 0n;
        frame.calls.push({
          type: 'SELFDESTRUCT', from: e.address.toString() as Hex, to: `0x${beneficiary.slice(26)}`, value: balance,
          gas: 0n, gasUsed: 0n, input: EMPTY, output: EMPTY, depth: e.depth + 1, calls: [], logs: [],
        });
      })();
    }
  }

  private enter(m: Message): void {
    const parent = this.stack[this.stack.length - 1];
    let type: FrameType;
    if (m.depth === 0) type = m.to ? 'CALL' : 'CREATE';
    else {
      const op = this.opAt[m.depth - 1];
      type = op && CALL_OPS.has(op) ? (op as FrameType) : m.to ? (m.delegatecall ? 'DELEGATECALL' : m.isStatic && !parent?.message.isStatic ? 'STATICCALL' : 'CALL') : m.salt ? 'CREATE2' : 'CREATE';
    }
    const frame: CallFrame = {
      type,
      from: m.caller.toString() as Hex,
      to: (m.to?.toString() ?? '0x') as Hex,
      value: type === 'DELEGATECALL' || type === 'STATICCALL' ? null : m.value,
      gas: m.gasLimit,
      gasUsed: 0n,
      // The message's data is a view of the caller's memory, which later steps overwrite.
      input: m.data.slice(),
      output: EMPTY,
      depth: m.depth,
      calls: [],
      logs: [],
    };
    if (parent) parent.frame.calls.push(frame);
    else this.root = frame;
    this.stack.push({ frame, message: m });
  }

  private exit(r: EVMResult): void {
    const top = this.stack.pop();
    if (!top) return;
    const { frame, message } = top;
    const exec = r.execResult;
    // A CREATE's message gets its address once the EVM computes it.
    if (frame.to === '0x') frame.to = (message.to ?? r.createdAddress)?.toString() as Hex ?? '0x';
    frame.gasUsed = exec.executionGasUsed;
    frame.output = (exec.returnValue ?? EMPTY).slice();
    if (exec.exceptionError) {
      frame.error = exec.exceptionError.error;
      this.logCount -= dropLogs(frame);
    }
  }

  /** The finished tree: the top frame's gas as the transaction saw it (its limit less intrinsic gas), gasUsed as the receipt has it. */
  finish(result: RunTxResult): CallFrame {
    const root = this.root;
    if (!root) throw new Error('the run produced no call frame');
    root.gasUsed = result.totalGasSpent;
    if (root.type === 'CREATE' && result.createdAddress) root.to = result.createdAddress.toString() as Hex;
    return root;
  }
}

/** A reverted frame's logs are gone, with those of every frame under it; how many there were. */
function dropLogs(frame: CallFrame): number {
  let n = frame.logs.length;
  frame.logs = [];
  for (const c of frame.calls) n += dropLogs(c);
  return n;
}

/** A native → EVM deposit as a frame: a plain transfer from the bridge's address. */
export function depositFrame(raw: Uint8Array): CallFrame {
  const { to, value } = depositOf(raw);
  return { type: 'CALL', from: BRIDGE_ADDRESS, to, value, gas: 0n, gasUsed: 0n, input: EMPTY, output: EMPTY, depth: 0, calls: [], logs: [] };
}

/** The frames in call order, with their depth (Otterscan's flat trace). */
export function flattenFrames(root: CallFrame): CallFrame[] {
  const out: CallFrame[] = [];
  const walk = (f: CallFrame) => {
    out.push(f);
    f.calls.forEach(walk);
  };
  walk(root);
  return out;
}
