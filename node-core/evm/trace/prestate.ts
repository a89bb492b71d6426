/**
 * geth's prestateTracer: the accounts (and storage slots) a transaction touched, as they were before
 * it ran; in diffMode, `pre` and `post` of what it changed. Touched addresses and slots come from
 * the messages and the opcodes that name an address or a slot; their values are read from the
 * replay's state before and after the transaction.
 */
import type { InterpreterStep, Message } from '@ethereumjs/evm';
import { bytesToHex } from '@ethereumjs/util';
import { COINBASE } from '../constants.ts';
import type { EvmListeners } from '../machine.ts';
import { isEmptyCodeHash, type EvmStateSource } from '../state.ts';

export interface PrestateConfig {
  diffMode?: boolean;
  disableCode?: boolean;
  disableStorage?: boolean;
}

export interface PrestateAccount {
  balance?: string;
  nonce?: number;
  code?: string;
  storage?: Record<string, string>;
}

const ADDRESS_OPS: Record<string, number> = { BALANCE: 1, EXTCODESIZE: 1, EXTCODECOPY: 1, EXTCODEHASH: 1, SELFDESTRUCT: 1, CALL: 2, CALLCODE: 2, DELEGATECALL: 2, STATICCALL: 2 };
const word = (v: bigint): string => `0x${v.toString(16).padStart(64, '0')}`;
const addressOf = (v: bigint): string => `0x${v.toString(16).padStart(40, '0').slice(-40)}`;
/** Ethereum's precompiles (0x01–0x11 by Osaka, P256VERIFY at 0x100): geth leaves them out. */
const isPrecompile = (a: string) => {
  const n = BigInt(a);
  return (n >= 1n && n <= 0x11n) || n === 0x100n;
};

export class PrestateCollector {
  private readonly touched = new Map<string, Set<string>>();
  private readonly created = new Set<string>();

  constructor(
    private readonly config: PrestateConfig,
    from: string,
    to: string | undefined,
  ) {
    this.touch(from);
    if (to) this.touch(to);
    this.touch(COINBASE);
  }

  private touch(address: string, slot?: string): void {
    let slots = this.touched.get(address);
    if (!slots) this.touched.set(address, (slots = new Set()));
    if (slot) slots.add(slot);
  }

  readonly listeners: EvmListeners = {
    step: (e: InterpreterStep) => {
      const op = e.opcode.name;
      const pos = op === 'SLOAD' || op === 'SSTORE' ? 0 : ADDRESS_OPS[op];
      if (pos === undefined) return;
      const s = e.stack;
      if (pos === 0) {
        if (s.length) this.touch(e.address.toString(), word(s[s.length - 1]!));
        return;
      }
      if (s.length >= pos) {
        const a = addressOf(s[s.length - pos]!);
        if (!isPrecompile(a)) this.touch(a);
      }
    },
    beforeMessage: (m: Message) => {
      if (!m.to) return;
      if (m.depth === 0 || !isPrecompile(m.to.toString())) this.touch(m.to.toString());
    },
    afterMessage: (r) => {
      if (r.createdAddress) {
        this.touch(r.createdAddress.toString());
        this.created.add(r.createdAddress.toString());
      }
    },
  };

  private async account(state: EvmStateSource, address: string, slots: Set<string>): Promise<PrestateAccount & { exists: boolean }> {
    const a = await state.account(address);
    const out: PrestateAccount & { exists: boolean } = { exists: a !== null, balance: `0x${(a?.balance ?? 0n).toString(16)}` };
    if (a && a.nonce > 0n) out.nonce = Number(a.nonce);
    if (a && !isEmptyCodeHash(a.codeHash) && !this.config.disableCode) {
      const code = await state.code(bytesToHex(a.codeHash));
      if (code && code.length) out.code = bytesToHex(code);
    }
    if (slots.size && !this.config.disableStorage) {
      const storage: Record<string, string> = {};
      for (const slot of slots) {
        const v = await state.storage(address, slot);
        storage[slot] = word(v.length ? BigInt(bytesToHex(v)) : 0n);
      }
      out.storage = storage;
    }
    return out;
  }

  /** The default mode's answer: every touched account before the transaction (as Anvil answers, new contracts too, empty). */
  async prestate(pre: EvmStateSource): Promise<Record<string, PrestateAccount>> {
    const out: Record<string, PrestateAccount> = {};
    for (const [address, slots] of this.touched) {
      const { exists: _, ...account } = await this.account(pre, address, slots);
      out[address] = account;
    }
    return out;
  }

  /** diffMode: `pre` of the accounts that changed (unchanged slots left out), `post` of what changed. */
  async diff(pre: EvmStateSource, post: EvmStateSource): Promise<{ pre: Record<string, PrestateAccount>; post: Record<string, PrestateAccount> }> {
    const before: Record<string, PrestateAccount> = {};
    const after: Record<string, PrestateAccount> = {};
    for (const [address, slots] of this.touched) {
      const { exists, ...was } = await this.account(pre, address, slots);
      const now = await post.account(address);
      if (now === null) {
        // Gone (self-destructed in its creating transaction, or never there): only its old state.
        if (exists) before[address] = was;
        continue;
      }
      const { exists: _, ...is } = await this.account(post, address, slots);
      const changed: PrestateAccount = {};
      let modified = false;
      if (is.balance !== was.balance) (modified = true), (changed.balance = is.balance);
      if (is.nonce !== was.nonce) (modified = true), (changed.nonce = is.nonce);
      if (is.code !== was.code) (modified = true), (changed.code = is.code);
      if (was.storage) {
        const changedSlots: Record<string, string> = {};
        for (const [slot, value] of Object.entries(was.storage)) {
          const v = is.storage![slot]!;
          // Unchanged slots and slots that were empty are not part of `pre`.
          if (v === value || BigInt(value) === 0n) delete was.storage[slot];
          if (v === value) continue;
          modified = true;
          if (BigInt(v) !== 0n) changedSlots[slot] = v;
        }
        if (Object.keys(was.storage).length === 0) delete was.storage;
        if (Object.keys(changedSlots).length) changed.storage = changedSlots;
      }
      if (!modified) continue;
      after[address] = changed;
      if (exists || !this.created.has(address)) before[address] = was;
    }
    return { pre: before, post: after };
  }
}
