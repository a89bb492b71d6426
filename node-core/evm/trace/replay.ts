/**
 * Re-executes stored EVM transactions from stored state, for tracers. Nothing is kept while the
 * chain runs: the state trie keeps every past state root, so the state at the start of a block is
 * its parent's root; the block's earlier entries are replayed on it the way the EVM program ran them
 * (signed transactions through runTx, native → EVM deposits as the balance credit and bridge nonce
 * bump program.ts makes, withdrawal records dropped after each transaction), then the target runs with
 * the tracer's listeners. A replay whose gas, status or logs differ from the stored receipt is an
 * error, never a trace.
 *
 * Replays run on a machine of their own, created on the first trace: the chain's and eth_call's
 * machines carry no listener, so tracing costs nothing while nobody asks.
 */
import { RLP } from '@ethereumjs/rlp';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToBigInt, bytesToHex, hexToBytes } from '@ethereumjs/util';
import type { RunTxResult } from '@ethereumjs/vm';
import { parseTransaction, isWritableIndex } from '../../runtime/wire.ts';
import { bridgeAddressKey } from '../bridge-precompile.ts';
import { EvmMachine, type BlockEnv, type EvmListeners } from '../machine.ts';
import type { EvmBlockRecord, EvmTxRecord, Hex } from '../records.ts';
import type { EvmSpace } from '../space.ts';
import { EvmChanges, layeredAccount, layeredCode, layeredStorage, newEvmAccount, type EvmAccount, type EvmStateSource } from '../state.ts';

/** A stack of change layers over a source that may answer asynchronously (a past block's state). */
export class LayeredSource implements EvmStateSource {
  constructor(
    /** Lowest first. */
    readonly layers: readonly EvmChanges[],
    readonly below: EvmStateSource,
  ) {}

  account(address: string): EvmAccount | null | Promise<EvmAccount | null> {
    const a = layeredAccount(this.layers, address);
    return a !== undefined ? a : this.below.account(address);
  }

  storage(address: string, slot: string): Uint8Array | Promise<Uint8Array> {
    return layeredStorage(this.layers, address, slot) ?? this.below.storage(address, slot);
  }

  code(codeHash: string): Uint8Array | undefined | Promise<Uint8Array | undefined> {
    return layeredCode(this.layers, codeHash) ?? this.below.code(codeHash);
  }

  /** This view with one more layer on top. */
  with(top: EvmChanges): LayeredSource {
    return new LayeredSource([...this.layers, top], this.below);
  }
}

/** The environment a stored block's transactions ran in. */
export const blockEnv = (b: EvmBlockRecord): BlockEnv => ({ number: BigInt(b.number), timestamp: BigInt(b.timestamp), prevRandao: hexToBytes(b.mixHash), baseFeePerGas: b.baseFeePerGas });

/** A deposit's recipient and wei, from its legacy-RLP envelope (transaction.ts encodeDeposit). */
export function depositOf(raw: Uint8Array): { to: Hex; value: bigint } {
  const fields = RLP.decode(raw) as Uint8Array[];
  return { to: bytesToHex(fields[3]!), value: bytesToBigInt(fields[4]!) };
}

/** One entry of a block as replayed: `pre` is the state it started from, `post` the state after it. */
export interface ReplayedEntry {
  record: EvmTxRecord;
  pre: LayeredSource;
  post: LayeredSource;
  /** The run's result; absent for a deposit (no EVM execution). */
  result?: RunTxResult;
  tx?: TypedTransaction;
}

/** The stored receipt disagrees with the replay: the trace would be wrong, so there is none. */
export class ReplayMismatch extends Error {}

export class EvmReplayer {
  private machineReady: Promise<EvmMachine> | null = null;
  private readonly writableBySignature = new Map<string, Promise<Set<string>>>();

  constructor(private readonly space: EvmSpace) {}

  /** The tracing machine (also runs debug_traceCall), created on first use. */
  machine(): Promise<EvmMachine> {
    this.machineReady ??= EvmMachine.create(this.space.chainId, (n) => this.space.blockHash(Number(n)));
    return this.machineReady;
  }

  /** The state at the start of `block`: its parent's state root. */
  async blockStart(block: EvmBlockRecord): Promise<LayeredSource> {
    const parent = block.number > 0 ? await this.space.block(block.number - 1) : null;
    if (!parent) throw new Error(`the parent of EVM block ${block.number} is missing`);
    return new LayeredSource([], this.space.historicalState(parent));
  }

  /**
   * Replays `block`'s entries in order; `listenersFor(i)` gives the listeners for entry i (none: it
   * runs untraced), and `until` stops after that index. `onEntry` sees each entry once it has run.
   */
  async replayBlock(
    block: EvmBlockRecord,
    records: EvmTxRecord[],
    opts: { until?: number; listenersFor?(index: number): EvmListeners | undefined; onEntry?(entry: ReplayedEntry): void | Promise<void> },
  ): Promise<void> {
    const machine = await this.machine();
    let state = await this.blockStart(block);
    const env = blockEnv(block);
    const last = opts.until ?? records.length - 1;
    for (let i = 0; i <= last; i++) {
      const record = records[i]!;
      const changes = new EvmChanges();
      let result: RunTxResult | undefined;
      let tx: TypedTransaction | undefined;
      if (record.deposit) await this.applyDeposit(record, state, changes);
      else {
        tx = createTxFromRLP(record.raw, { common: machine.common });
        const canCredit = await this.creditable(record.nativeSignature);
        const listeners = opts.listenersFor?.(i);
        const run = { tx, env, below: state, changes, canCredit: (r: string) => canCredit.has(r) };
        result = listeners ? await machine.runListened(run, listeners) : await machine.run(run);
        // program.ts pays the withdrawals out natively; their records never reach the state.
        changes.storage.delete(bridgeAddressKey);
        checkReceipt(record, result);
      }
      const post = state.with(changes);
      await opts.onEntry?.({ record, pre: state, post, result, tx });
      state = post;
    }
  }

  /** SwapNativeToEther as program.ts applies it: the recipient's balance, the bridge's nonce. */
  private async applyDeposit(record: EvmTxRecord, state: LayeredSource, changes: EvmChanges): Promise<void> {
    const { to, value } = depositOf(record.raw);
    const recipient = (await state.account(to)) ?? newEvmAccount();
    changes.accounts.set(to, { ...recipient, balance: recipient.balance + value });
    const view = state.with(changes);
    const bridge = (await view.account(bridgeAddressKey)) ?? newEvmAccount();
    changes.accounts.set(bridgeAddressKey, { ...bridge, nonce: bridge.nonce + 1n });
  }

  /**
   * The native accounts the bridge precompile could credit in the native transaction that carried
   * the EVM one: its writable accounts (static keys and looked-up ones).
   */
  private creditable(signature: string): Promise<Set<string>> {
    let p = this.writableBySignature.get(signature);
    if (!p) {
      p = this.space.store.getTransaction(signature).then((loc) => {
        const out = new Set<string>();
        if (!loc) return out;
        const message = parseTransaction(loc.transaction.wire).message;
        message.accountKeys.forEach((k, i) => isWritableIndex(message, i) && out.add(k));
        for (const k of loc.transaction.meta.loadedAddresses.writable) out.add(k);
        return out;
      });
      this.writableBySignature.set(signature, p);
      if (this.writableBySignature.size > 1024) this.writableBySignature.delete(this.writableBySignature.keys().next().value!);
    }
    return p;
  }
}

function checkReceipt(record: EvmTxRecord, result: RunTxResult): void {
  const status = result.execResult.exceptionError ? 0 : 1;
  const logs = (result.execResult.logs ?? []).map(([address, topics, data]) => [bytesToHex(address), ...topics.map((t) => bytesToHex(t)), bytesToHex(data)].join(':'));
  const stored = record.logs.map((l) => [l.address, ...l.topics, l.data].join(':'));
  if (Number(result.totalGasSpent) !== record.gasUsed || status !== record.status || logs.join(',') !== stored.join(',')) {
    throw new ReplayMismatch(
      `replaying EVM transaction ${record.hash} gave gasUsed ${result.totalGasSpent}, status ${status}, ${logs.length} logs; its receipt has ${record.gasUsed}, ${record.status}, ${record.logs.length}`,
    );
  }
}
