/**
 * geth's default tracer, the struct logger: one entry per executed opcode with pc, op, gas left,
 * the opcode's cost (for calls: with the gas handed to the callee), depth from 1, and by option
 * the stack, memory, the storage slots the contract touched, and the last call's return data.
 *
 * A million gas is some 260,000 entries and 80 MB of JSON, so the entries are written as JSON text
 * while the run steps (no object per entry, no stringify of a huge tree): kept for the answer, or
 * given a sink, handed on chunk by chunk as they fill, the run waiting while the sink is full (the
 * entries go to the client while the run steps). An entry is held until the next step, because a
 * call's cost learns the gas it handed on when the callee starts.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { bytesToHex } from '@ethereumjs/util';
import type { RunTxResult } from '@ethereumjs/vm';
import { chunkPool, JsonBytesWriter, JsonText } from '../../common/json-text.ts';
import type { PieceSink } from '../../common/piece-channel.ts';
import type { EvmListeners } from '../machine.ts';
import { stackOf } from './light-step-events.ts';
import { StackText } from './stack-text.ts';

export interface StructLoggerConfig {
  enableMemory?: boolean;
  disableStack?: boolean;
  disableStorage?: boolean;
  enableReturnData?: boolean;
  /** geth stops logging after this many steps (0: no limit). */
  limit?: number;
}

const hex64 = (v: bigint) => `0x${v.toString(16).padStart(64, '0')}`;
const HANDS_ON_GAS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']);
const CALL_STIPEND = 2300;
const EMPTY = new Uint8Array(0);

const latin1 = (s: string): Uint8Array => Buffer.from(s, 'latin1');

/**
 * An entry's text up to its gas, `,{"pc":P,"op":"NAME","gas":`, per pc and opcode (a loop runs the
 * same few pcs over and over). Made per trace: an opcode's name is fixed within one run.
 */
class EntryHeads {
  private readonly heads = new Map<number, Uint8Array>();

  get(pc: number, code: number, name: string): Uint8Array {
    const key = pc * 256 + code;
    let head = this.heads.get(key);
    if (!head) this.heads.set(key, (head = latin1(`,{"pc":${pc},"op":${JSON.stringify(name)},"gas":`)));
    return head;
  }
}

/** Depths are below this (the EVM's call depth limit is 1024). */
const DEPTHS = 2048;
/**
 * `,"gasCost":C,"depth":D,"refund":` per cost and depth (a call's cost, with the gas handed on, can be
 * large); with `withNoRefundStack`, followed by `0,"stack":[` (most entries have no refund and a stack).
 */
const costDepthTexts = new Map<number, Uint8Array>();
function costDepthText(cost: number, depth: number, withNoRefundStack: boolean): Uint8Array {
  const cacheable = cost < 2 ** 40 && depth < DEPTHS;
  const key = (cost * DEPTHS + depth) * 2 + (withNoRefundStack ? 1 : 0);
  const t = cacheable ? costDepthTexts.get(key) : undefined;
  if (t) return t;
  const made = latin1(`,"gasCost":${cost},"depth":${depth},"refund":${withNoRefundStack ? '0,"stack":[' : ''}`);
  // Unusual costs (a call's, with the gas handed on) are many and seen once: the cache keeps the common ones.
  if (cacheable && costDepthTexts.size < 4096) costDepthTexts.set(key, made);
  return made;
}

/** The storage member: the slots seen so far, in the order they were first seen (as an object keeps its keys). */
function storageMember(slots: Map<string, string>): string {
  let out = '';
  for (const [k, v] of slots) out += `${out ? ',' : ''}"${k}":"${v}"`;
  return `,"storage":{${out}}`;
}

function memoryMember(memory: Uint8Array): string {
  const hex = Buffer.from(memory.buffer, memory.byteOffset, memory.length).toString('hex');
  const words: string[] = [];
  for (let i = 0; i < hex.length; i += 64) words.push(`"0x${hex.slice(i, i + 64).padEnd(64, '0')}"`);
  return `,"memory":[${words.join(',')}]`;
}

/**
 * The largest struct-logger answer kept (bytes of JSON). A default trace costs ~77 bytes per gas unit
 * of a simple loop, and memory grows it without bound (enableMemory writes the whole memory at each
 * step): past this the trace is refused with a way to ask for less, rather than fill the machine's memory.
 */
export const MAX_STRUCT_LOG_BYTES = 512 * 1024 * 1024;

/** A struct-logger trace that would be larger than its cap. */
export class TraceTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`trace larger than ${Math.round(maxBytes / 2 ** 20)} MB: ask for less (a limit, disableStack, disableStorage, enableMemory off) or use the callTracer`);
  }
}

/** geth's ExecutionResult members other than the entries; a deposit (no run) has none of its own. */
function resultMembers(run: RunTxResult | undefined): string {
  if (!run) return '"gas":0,"failed":false,"returnValue":"0x"';
  return `"gas":${Number(run.totalGasSpent)},"failed":${run.execResult.exceptionError !== undefined},"returnValue":"${bytesToHex(run.execResult.returnValue)}"`;
}

export class StructLogger {
  private readonly out: JsonBytesWriter;
  /** Streaming: the sink is full, and the run waits for this before its next step. */
  private waiting: Promise<void> | null = null;
  /** The cap was reached: nothing more is written, and the result is refused. */
  private tooLarge = false;
  /** Entries logged, and written out (all but the held one). */
  private count = 0;
  private written = 0;
  private readonly stack = new StackText();
  private readonly heads = new EntryHeads();
  /** Storage seen so far per contract (geth shows the whole map at each SLOAD/SSTORE). */
  private readonly storage = new Map<string, Map<string, string>>();
  /** The return data of the last finished call, as its member (kept only with enableReturnData). */
  private returnData = ',"returnData":"0x"';

  // The newest entry, written out at the next step or at the end (the stack's text is still this step's then).
  private held = false;
  private heldOp = '';
  /** Its text up to the gas (EntryHeads). */
  private heldHead: Uint8Array = EMPTY;
  private heldGas = 0;
  private heldCost = 0;
  private heldDepth = 0;
  private heldRefund = 0;
  /** Its memory, return data and storage members, by option. */
  private heldRest = '';

  /**
   * With `sink`, the answer streams: its text, with the entries first (`{"structLogs":[...],"gas":..}`:
   * the other members are known only at the end), goes into the sink as chunks fill, and end() writes the rest.
   */
  constructor(
    private readonly config: StructLoggerConfig,
    private readonly maxBytes = MAX_STRUCT_LOG_BYTES,
    private readonly sink?: PieceSink,
  ) {
    this.out = sink ? new JsonBytesWriter(chunkPool, (chunk) => void (sink.write(chunk) || (this.waiting ??= this.wait(sink)))) : new JsonBytesWriter();
    if (sink) this.out.ascii('{"structLogs":[');
  }

  readonly listeners: EvmListeners = {
    step: (e) => (this.sink ? this.streamStep(e) : this.step(e)),
    beforeMessage: (m: Message) => {
      this.setReturnData(EMPTY);
      // geth's cost of a call or create includes the gas given to the callee (less a value call's stipend, which is free).
      if (m.depth > 0 && this.held && this.heldDepth === m.depth && HANDS_ON_GAS.has(this.heldOp)) {
        this.heldCost += Number(m.gasLimit) - ((this.heldOp === 'CALL' || this.heldOp === 'CALLCODE') && m.value > 0n ? CALL_STIPEND : 0);
      }
    },
    // After a create the return data buffer is empty; after a call it holds the callee's output.
    afterMessage: (r: EVMResult) => this.setReturnData(r.createdAddress ? EMPTY : (r.execResult.returnValue ?? EMPTY)),
  };

  private setReturnData(data: Uint8Array): void {
    if (this.config.enableReturnData) this.returnData = `,"returnData":"${bytesToHex(data)}"`;
  }

  private step(e: InterpreterStep): void | Promise<void> {
    if (this.held) this.writeHeld();
    const c = this.config;
    if (c.limit && this.count >= c.limit) return;
    if (this.tooLarge || (this.tooLarge = this.out.size > this.maxBytes)) return;
    this.count++;
    const op = e.opcode.name;
    this.held = true;
    this.heldOp = op;
    this.heldHead = this.heads.get(e.pc, e.opcode.code, op);
    this.heldGas = Number(e.gasLeft);
    this.heldCost = Number(e.opcode.dynamicFee ?? BigInt(e.opcode.fee));
    this.heldDepth = e.depth + 1;
    this.heldRefund = Number(e.gasRefund);
    const storageOp = !c.disableStorage && (op === 'SLOAD' || op === 'SSTORE');
    // Read only when used.
    const stack = !c.disableStack || storageOp ? stackOf(e) : null;
    if (!c.disableStack) this.stack.update(stack!.store, stack!.length);
    let rest = '';
    if (c.enableMemory) rest += memoryMember(e.memory);
    if (c.enableReturnData) rest += this.returnData;
    this.heldRest = rest;
    if (!storageOp || stack!.length < (op === 'SSTORE' ? 2 : 1)) return;
    const address = e.address.toString();
    let seen = this.storage.get(address);
    if (!seen) this.storage.set(address, (seen = new Map()));
    const key = hex64(stack!.store[stack!.length - 1]!);
    if (op === 'SSTORE') {
      seen.set(key, hex64(stack!.store[stack!.length - 2]!));
      this.heldRest += storageMember(seen);
      return;
    }
    const slots = seen;
    return e.stateManager.getStorage(e.address, Buffer.from(key.slice(2), 'hex')).then((v) => {
      slots.set(key, `0x${Buffer.from(v).toString('hex').padStart(64, '0')}`);
      this.heldRest += storageMember(slots);
    });
  }

  private writeHeld(): void {
    const out = this.out;
    // The head starts with the comma that separates entries; the first entry goes without it.
    out.bytes(this.heldHead, this.written++ > 0 ? 0 : 1);
    out.uint(this.heldGas);
    if (this.heldRefund === 0 && !this.config.disableStack) {
      out.bytes(costDepthText(this.heldCost, this.heldDepth, true));
      this.stack.writeWords(out);
    } else {
      out.bytes(costDepthText(this.heldCost, this.heldDepth, false));
      out.uint(this.heldRefund);
      if (!this.config.disableStack) this.stack.writeMember(out);
    }
    if (this.heldRest) out.ascii(this.heldRest);
    out.byte(0x7d); // }
    this.held = false;
  }

  /** A step while streaming: past the cap the run stops (the answer can no longer be whole); while the sink is full the run waits. */
  private streamStep(e: InterpreterStep): void | Promise<void> {
    const pending = this.step(e);
    if (this.tooLarge) return Promise.reject(new TraceTooLarge(this.maxBytes));
    const waiting = this.waiting;
    if (!waiting) return pending;
    this.waiting = null;
    return pending ? pending.then(() => waiting) : waiting;
  }

  private wait(sink: PieceSink): Promise<void> {
    const ready = sink.ready();
    // Marked handled: it may reject (the reader gone) before a step hands it to the run.
    ready.catch(() => {});
    return ready;
  }

  /** geth's ExecutionResult, as JSON text. */
  result(run: RunTxResult): JsonText {
    if (this.held) this.writeHeld();
    if (this.tooLarge) throw new TraceTooLarge(this.maxBytes);
    return new JsonText([`{${resultMembers(run)},"structLogs":[`, ...this.out.finish(), ']}']);
  }

  /** Streaming: the rest of the answer (`run`'s members; none for a deposit) into the sink, once it can take it. */
  async end(run: RunTxResult | undefined): Promise<void> {
    if (this.held) this.writeHeld();
    if (this.tooLarge) throw new TraceTooLarge(this.maxBytes);
    this.out.ascii(`],${resultMembers(run)}}`);
    this.out.finish();
    const waiting = this.waiting;
    this.waiting = null;
    await waiting;
  }
}
