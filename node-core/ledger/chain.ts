/**
 * The chain: the one object the rest of the node talks to. It owns a slot's lifecycle and its events:
 * a working bank opens for the next slot this validator leads (others' slots pass without a block),
 * takes transactions, is sealed into a block, committed to the store in one atomic write, confirmed
 * (the validator votes on every block it seals) and rooted once `rootDepth` blocks stand above it.
 * Every other job is a module of ledger/ that it composes: bank-forks (the banks, reads at a
 * commitment), slot-clock, transaction-queue, bank-execution, status-cache, fees, supply,
 * bank-sysvars, epoch-stakes, slot-commit, vote-loop and performance-samples.
 */
import { EventEmitter } from 'node:events';
import type { Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import { TransactionError, type TransactionErrorValue } from '../runtime/errors.ts';
import { needsAsyncExecution, type ExecutedTransaction } from '../runtime/executor.ts';
import type { ProgramRegistry } from '../runtime/program.ts';
import type { Sysvars } from '../runtime/sysvars.ts';
import type { Message, Transaction } from '../runtime/wire.ts';
import type { LoadedAddresses } from '../runtime/address-loader.ts';
import type { StakeHistory } from '../runtime/programs/stake/state.ts';
import { markRentExempt } from '../runtime/account.ts';
import type { BlockHeader, ChainMeta, RevertedRecords, SlotCommit, Store, StoredTransaction } from '../store/store.ts';
import { Bank, type AccountsDb } from './bank.ts';
import { TransactionProcessor } from './bank-execution.ts';
import { BankForks } from './bank-forks.ts';
import { bankSysvars, clockAfter, registerOwnBlockhash, type ClockTimes } from './bank-sysvars.ts';
import { BlockhashQueue } from './blockhash-queue.ts';
import type { ChainExtension } from './chain-extension.ts';
import type { Commitment } from './commitment.ts';
import { EpochStakes } from './epoch-stakes.ts';
import { Fees } from './fees.ts';
import type { GenesisConfig } from './genesis-config.ts';
import type { LeaderSchedules } from './leader-schedule.ts';
import { PerformanceSamples, type PerformanceSample } from './performance-samples.ts';
import { blockhashOf, sealExtensions, slotCommit } from './slot-commit.ts';
import { SlotClock } from './slot-clock.ts';
import { BlockSlotRing } from './slot-history.ts';
import { StatusCache, type SignatureStatus } from './status-cache.ts';
import { Supply } from './supply.ts';
import { TransactionQueue } from './transaction-queue.ts';
import { VoteLoop, type Voter } from './vote-loop.ts';

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export interface ChainEventMap {
  /** A new working bank started. */
  slot: [{ slot: number; parent: number; root: number }];
  /** A signature-checked transaction was queued for the working bank. */
  received: [string];
  /** A transaction was executed into the working bank (processed). */
  transaction: [{ slot: number; transaction: StoredTransaction; writes: Array<[Address, Account]> }];
  /** A queued transaction could not enter a block (it never will: its signature is free again). */
  dropped: [{ signature: string; err: TransactionErrorValue }];
  /** The working bank was sealed into a block (its store commit follows). */
  sealed: [Bank];
  /** A slot was sealed and durably committed; it is now the confirmed slot. */
  confirmed: [Bank];
  /** Slots that became rooted, oldest first. */
  rooted: [Bank[]];
  /** The chain cannot go on (a slot could not be stored, the clock failed): its clock has stopped. Emitted once. */
  failed: [Error];
  /** The chain was reverted to `slot` (ledger/snapshots.ts), or reset to genesis (slot 0): `accounts` are the states put back. */
  reverted: [{ slot: number; accounts: Array<[Address, Account | null]> }];
}

export interface ChainParams {
  store: Store;
  genesis: GenesisConfig;
  genesisHash: string;
  programs: ProgramRegistry;
  accounts: AccountsDb;
  meta: ChainMeta;
  /** Headers of the newest stored blocks (up to BLOCKHASH_QUEUE_ENTRIES), oldest first. */
  recentHeaders: BlockHeader[];
  /** Statuses of transactions in the newest stored slots (for the duplicate check after a restart). */
  recentStatuses: Array<[string, SignatureStatus]>;
  /** The block time of the first stored block of the newest slot's epoch (its Clock's epoch start); absent: the genesis time. */
  epochStartTimestamp?: number;
  /** Slots of the stored blocks among the newest 2^20 slots, ascending (the SlotHistory sysvar); absent: the newest slot only. */
  blockSlots?: number[];
  slotMs: number;
  rootDepth: number;
  limitLedgerSize?: number;
  /** Extensions with state of their own beside the accounts (the EVM space). */
  extensions?: ChainExtension[];
  /** The validator's identity and vote account: it votes on each slot it seals (ledger/vote-loop.ts). */
  voter?: Voter;
}

/** What the chain is (re)built from: the store's state after its newest slot. */
export type ChainState = Pick<ChainParams, 'accounts' | 'meta' | 'recentHeaders' | 'recentStatuses' | 'epochStartTimestamp'>;

/** The SlotHistory bits of the stored block slots (slot 0 is the genesis bank's, as in Agave's default SlotHistory). */
function blockSlotRing(storedBlockSlots: number[], newest: number): BlockSlotRing {
  const ring = new BlockSlotRing();
  for (const slot of [0, ...storedBlockSlots, newest]) if (slot >= ring.nextSlot) ring.add(slot);
  return ring;
}

export class Chain extends EventEmitter<ChainEventMap> {
  readonly store: Store;
  readonly genesis: GenesisConfig;
  readonly genesisHash: string;
  readonly programs: ProgramRegistry;
  readonly slotMs: number;
  readonly rootDepth: number;
  private readonly limitLedgerSize?: number;
  readonly extensions: readonly ChainExtension[];
  /** Who leads each slot; the working bank is always at a slot this node leads. */
  leaders!: LeaderSchedules;
  private epochs!: EpochStakes;
  private readonly votes?: VoteLoop;
  private forks!: BankForks;
  private blockhashes!: BlockhashQueue;
  private statuses!: StatusCache;
  private processor!: TransactionProcessor;
  private fees!: Fees;
  private supplyBook!: Supply;
  private readonly samples: PerformanceSamples;
  private readonly clock: SlotClock;
  private readonly queue = new TransactionQueue({
    isAsync: (tx) => needsAsyncExecution(tx, this.programs),
    execute: (tx) => void this.processTransaction(tx),
    executeAsync: (tx) => this.processor.processAsync(this.forks.working, tx),
    refused: (tx, e) => this.onRefused(tx, e),
  });
  private commits: Promise<void> = Promise.resolve();
  private transactionCount = 0;
  /**
   * The working bank holds changes that must be stored even without a transaction: accounts put in
   * place before the clock started (overwriteAccountsAtStart), or an epoch's start (stake history, rewards).
   */
  private keepWorking = false;
  private extensionsMeta: Record<string, unknown> = {};
  private stopped = false;
  private failedWith: Error | null = null;
  /** How far the chain's time runs ahead of the wall clock (time travel, evm_increaseTime), in ms. */
  private timeOffsetMs = 0;
  /** Where the next working bank opens instead of the next slot this node leads (time travel, anvil_mine's interval). */
  private nextOpening: { slot?: number; beginsMs?: number } | null = null;
  /** The snapshot, revert or reset holding the chain (exclusive), if one does. */
  private held: Promise<unknown> | null = null;
  firstAvailableSlot = 0;

  constructor(p: ChainParams) {
    super();
    this.store = p.store;
    this.genesis = p.genesis;
    this.genesisHash = p.genesisHash;
    this.programs = p.programs;
    this.slotMs = p.slotMs;
    this.rootDepth = p.rootDepth;
    this.limitLedgerSize = p.limitLedgerSize;
    this.extensions = p.extensions ?? [];
    if (p.voter) this.votes = new VoteLoop(p.voter, (tx) => void this.processTransaction(tx));
    this.load(p, blockSlotRing(p.blockSlots ?? [], p.meta.slot));
    // After load's openWorkingBank: the vote it put in the first bank counts on both sides of the first sample.
    this.samples = new PerformanceSamples(() => this.sampleCounters(), this.sampleCounters());
    this.clock = new SlotClock(
      this.slotMs,
      () => this.sealWhenIdle().then((sealed) => ({ sealed: sealed.slot, working: this.forks.working.slot })),
      (e) => this.fail(new Error(`the slot clock failed: ${errorMessage(e)}`, { cause: e })),
    );
  }

  private sampleCounters() {
    return { slot: this.forks.working.slot, transactions: this.transactionCount, voteTransactions: this.votes?.count ?? 0 };
  }

  /** The chain's state from what the store holds, the working bank opened after its newest slot: at start, and after a revert. */
  private load(p: ChainState, blockSlots: BlockSlotRing): void {
    this.blockhashes = new BlockhashQueue();
    this.statuses = new StatusCache();
    this.fees = new Fees(this.genesis.feeRateGovernor, this.genesis.identity, p.meta.lamportsPerSignature);
    this.supplyBook = new Supply(p.meta.totalSupply, p.meta.burned, p.meta.minted ?? 0, p.meta.adjusted ?? 0);
    this.transactionCount = p.meta.transactionCount;
    this.epochs = new EpochStakes(this.genesis, p.accounts, p.meta.epochStakes, this.leaders);
    this.leaders = this.epochs.leaders;
    this.extensionsMeta = p.meta.extensions;
    // A chain whose time was moved ahead (time travel) resumes from its last block's time, not the wall clock's.
    this.timeOffsetMs = Math.max(0, p.meta.blockTime * 1000 - Date.now());
    for (const h of p.recentHeaders) {
      this.blockhashes.push({ blockhash: h.blockhash, slot: h.slot, blockHeight: h.blockHeight, lamportsPerSignature: this.fees.lamportsPerSignature });
    }
    for (const [sig, status] of p.recentStatuses) this.statuses.insert(sig, status);
    this.processor = new TransactionProcessor(this.blockhashes, this.statuses, this.programs, (recorded) => {
      this.transactionCount++;
      this.emit('transaction', recorded);
    });
    // The banks of before (a revert or reset) read as they did, without the new forks' index.
    this.forks?.dropAll();
    this.forks = new BankForks(p.accounts, this.blockhashes, blockSlots);
    // After a (re)start everything stored is final: there are no forks to roll it back.
    const restartTimes = { unixTimestamp: p.meta.blockTime, epochStartTimestamp: p.epochStartTimestamp ?? this.genesis.creationTime };
    const last = new Bank(p.meta.slot, p.meta.slot, null, p.accounts, this.sysvarsFor(p.meta.slot, restartTimes), this.forks.unrooted);
    last.blockHeight = p.meta.blockHeight ?? p.recentHeaders.find((h) => h.slot === p.meta.slot)?.blockHeight ?? p.meta.slot;
    if (!p.meta.epochStakes) this.epochs.snapshotAtStart(last);
    last.blockhash = p.meta.blockhash;
    last.blockTime = p.meta.blockTime;
    last.capitalization = p.meta.totalSupply;
    last.burnedTotal = p.meta.burned;
    last.mintedTotal = this.supplyBook.minted;
    last.sysvars.recentBlockhashes = this.sysvarsFor(p.meta.slot + 1, restartTimes).recentBlockhashes;
    this.forks.openAt(last);
    for (const ext of this.extensions) ext.openBank(last, null);
    this.keepWorking = false;
    this.openWorkingBank(last);
  }

  /**
   * Runs `work` with the clock stopped, no transaction executing and every sealed slot in the store
   * (snapshots, reverts and resets, ledger/snapshots.ts): every transaction queued before it is
   * executed first (it was sent before, so it belongs to the chain `work` acts on), then the queue
   * executes nothing until `work` is done; sends wait meanwhile (whenOpen). The clock runs again
   * after, unless the chain stopped.
   */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.runExclusive(work);
    this.held = run;
    try {
      return await run;
    } finally {
      if (this.held === run) this.held = null;
    }
  }

  private async runExclusive<T>(work: () => Promise<T>): Promise<T> {
    this.clock.stop();
    try {
      await this.executeQueued();
      this.queue.pause();
      for (let c = this.commits; ; c = this.commits) {
        await c;
        if (c === this.commits) break;
      }
      return await work();
    } finally {
      this.queue.resume();
      if (!this.stopped) this.clock.start();
    }
  }

  /** Executes every queued transaction into the working bank (sealing it when one waits for the next bank). */
  private async executeQueued(): Promise<void> {
    for (;;) {
      await this.queue.idle();
      if (this.queue.length === 0 || this.stopped) return;
      if (this.queue.waitsForNextBank) this.sealWorkingBank();
      this.queue.drain(Infinity, true);
    }
  }

  /** Whether a snapshot, revert or reset holds the chain now (exclusive). */
  get isHeld(): boolean {
    return this.held !== null;
  }

  /**
   * Resolves at once unless a snapshot, revert or reset holds the chain, else once none does. The RPC's
   * sends wait on it before they check a transaction, so one that arrives during a revert is checked
   * against, and enters, the chain after it: never taken by the chain before and lost by the revert.
   */
  async whenOpen(): Promise<void> {
    while (this.held) await this.held.catch(() => {});
  }

  /**
   * After the store was reverted to `state.meta.slot` (inside `exclusive`): the banks above the root
   * are dropped and the chain continues from the store's state. `restored`: the accounts the revert
   * put back; the extensions get the extras. The rooted accounts are brought to the store's state by
   * folding the committed banks in, then the restored values over them: the work grows with what
   * changed since the snapshot, not with the ledger.
   */
  async resetTo(state: Omit<ChainState, 'accounts'>, restored: RevertedRecords): Promise<void> {
    const committed = this.forks.committedAboveRoot();
    const accounts = this.forks.accounts;
    for (const bank of committed) for (const [k, a] of bank.changes) (a ? accounts.set(k, a) : accounts.delete(k));
    for (const [k, a] of restored.accounts) (a ? accounts.set(k, markRentExempt(a, this.genesis.rent)) : accounts.delete(k));
    for (const ext of this.extensions) await ext.reverted?.({ banks: committed, extras: restored.extras, meta: state.meta.extensions[ext.name] });
    this.forks.blockSlots.rewindTo(state.meta.slot);
    this.load({ ...state, accounts }, this.forks.blockSlots);
    this.emit('reverted', { slot: state.meta.slot, accounts: restored.accounts });
  }

  /**
   * After the store was reset to genesis (inside `exclusive`, ledger/snapshots.ts): every bank is
   * dropped, the accounts are read again from the store (the genesis accounts), the extensions reload
   * theirs, and the chain continues from slot 0. Subscribers learn it as a revert to slot 0: the
   * accounts are every one that existed before or exists now, with its state now (null: gone).
   */
  async resetToGenesis(state: Omit<ChainState, 'accounts'>): Promise<void> {
    const touched = new Set<Address>(this.forks.accounts.keys());
    for (const bank of [...this.forks.committedAboveRoot(), this.forks.working]) for (const k of bank.changes.keys()) touched.add(k);
    const accounts: AccountsDb = new Map();
    for await (const [k, a] of this.store.loadAccounts()) accounts.set(k, markRentExempt(a, this.genesis.rent));
    for (const ext of this.extensions) await ext.resetToGenesis?.(state.meta.extensions[ext.name]);
    this.firstAvailableSlot = (await this.store.firstAvailableSlot()) ?? 0;
    this.nextOpening = null;
    this.load({ ...state, accounts }, blockSlotRing([], state.meta.slot));
    this.samples.restart(this.sampleCounters());
    for (const k of accounts.keys()) touched.add(k);
    this.emit('reverted', { slot: state.meta.slot, accounts: [...touched].map((k): [Address, Account | null] => [k, accounts.get(k) ?? null]) });
  }

  /**
   * Puts accounts in place before the clock starts (--account over an existing ledger, program
   * accounts a ledger predates): readable at every commitment at once, stored with the next slot's
   * commit; the supply follows the lamports added or removed.
   */
  overwriteAccountsAtStart(entries: ReadonlyArray<{ address: Address; account: Account }>): void {
    for (const { address, account } of entries) {
      this.supplyBook.adjust(this.forks.writeAtStart(address, account));
      this.keepWorking = true;
    }
  }

  // ---- lifecycle: open → seal → store commit → confirm → root ----

  start(): void {
    this.clock.start();
    this.samples.start();
  }

  /** Seals the working bank once the asynchronous transaction in flight (if any) has finished. */
  async sealWhenIdle(): Promise<Bank> {
    await this.queue.idle();
    return this.sealWorkingBank();
  }

  /** Stops the clock and waits until every sealed slot is in the store. */
  async stop(): Promise<void> {
    if (this.stopped) return this.commits;
    this.stopped = true;
    this.clock.stop();
    this.samples.stop();
    await this.queue.idle();
    // Transactions already processed (and accounts put in place at start, an epoch's start) are kept:
    // the working bank becomes the last block. The validator's own vote alone does not make one.
    const working = this.forks.working;
    if (working.transactions.length > working.voteTransactions || this.keepWorking || this.queue.length > 0) this.sealWorkingBank();
    await this.commits;
  }

  /**
   * Seals the working bank now (used by the clock, and by tests that step slots by hand). Queued
   * synchronous transactions enter it first; an asynchronous one waits for the next bank.
   */
  sealWorkingBank(): Bank {
    if (this.queue.busy) throw new Error('sealWorkingBank: an asynchronous transaction is executing (use sealWhenIdle)');
    this.queue.drain(Infinity, false);
    const bank = this.forks.working;
    this.supplyBook.burn(this.fees.distribute(bank));
    this.supplyBook.stamp(bank);
    const parentHash = this.forks.bank(bank.parentSlot)?.blockhash ?? this.latestBlockhash().blockhash;
    bank.blockhash = blockhashOf(parentHash, bank.slot, bank.transactions);
    // As Agave's block time: the bank's Clock, set when its slot began.
    bank.blockTime = bank.sysvars.clock.unixTimestamp;
    const lamportsPerSignature = this.fees.lamportsPerSignature;
    this.blockhashes.push({ blockhash: bank.blockhash, slot: bank.slot, blockHeight: bank.blockHeight, lamportsPerSignature });
    registerOwnBlockhash(bank, lamportsPerSignature);
    this.fees.updateAfter(bank);
    const { total: totalSupply, burned, minted, adjusted } = this.supplyBook;
    const counters = { transactionCount: this.transactionCount, lamportsPerSignature: this.fees.lamportsPerSignature, totalSupply, burned, minted, adjusted };
    const commit = slotCommit(bank, parentHash, { ...counters, epochStakes: this.leaders.toJSON(), extensions: this.extensionsMeta });
    this.emit('sealed', bank);
    this.openWorkingBank(bank);
    this.queue.scheduleDrain();
    this.commits = this.commits
      .then(() => this.sealExtensions(bank, commit))
      .then(() => this.store.commitSlot(commit))
      .then(
        () => this.onCommitted(bank),
        (e) => {
          console.error(`isthmus: failed to store slot ${bank.slot}:`, e);
          // The next slots build on this one: with it missing from the store the chain cannot go on.
          this.fail(new Error(`slot ${bank.slot} could not be stored: ${errorMessage(e)}`, { cause: e }));
        },
      );
    return bank;
  }

  /** Whether the chain has failed (see the `failed` event). */
  get failure(): Error | null {
    return this.failedWith;
  }

  private fail(error: Error): void {
    if (this.failedWith) return;
    this.failedWith = error;
    this.clock.stop();
    this.emit('failed', error);
  }

  /** Resolves when every slot sealed so far is in the store and its commitment has advanced. */
  flushed(): Promise<void> {
    return this.commits;
  }

  private async sealExtensions(bank: Bank, commit: SlotCommit): Promise<void> {
    const meta = await sealExtensions(this.extensions, bank, commit);
    if (meta) this.extensionsMeta = meta;
  }

  private onCommitted(bank: Bank): void {
    this.forks.confirm(bank);
    for (const ext of this.extensions) ext.committed?.(bank);
    this.emit('confirmed', bank);
    const rooted = this.forks.rootUpTo(bank.slot, bank.blockHeight - this.rootDepth);
    if (rooted.length) {
      for (const ext of this.extensions) ext.rooted?.(rooted);
      this.emit('rooted', rooted);
    }
    if (this.limitLedgerSize !== undefined && bank.slot % 100 === 0) this.purgeOldSlots(bank.slot);
  }

  private purgeOldSlots(latest: number): void {
    const keepFrom = latest - this.limitLedgerSize! + 1;
    if (keepFrom <= this.firstAvailableSlot) return;
    this.firstAvailableSlot = keepFrom;
    this.commits = this.commits.then(() => this.store.purgeSlotsBelow(keepFrom)).catch((e) => console.error('isthmus: purge failed:', e));
  }

  private openWorkingBank(parent: Bank): void {
    const opening = this.nextOpening;
    this.nextOpening = null;
    const slot = this.leaders.nextOwnSlot(Math.max(parent.slot, (opening?.slot ?? 0) - 1));
    // The slots between (led by others, or jumped over by time travel) pass first: the bank begins
    // that many slot times from now, unless the opening names its time. A time travel's or an
    // interval's opening moves the chain's time, and it runs on from there.
    const beginsMs = opening?.beginsMs ?? Date.now() + this.timeOffsetMs + Math.max(0, slot - parent.slot - 1) * this.slotMs;
    if (opening) this.timeOffsetMs = beginsMs - Date.now();
    this.forks.blockSlots.add(slot);
    const working = new Bank(slot, parent.slot, parent, this.forks.accounts, this.sysvarsFor(slot, clockAfter(parent, slot, beginsMs, this.genesis.epochSchedule)), this.forks.unrooted);
    working.blockHeight = parent.blockHeight + 1;
    this.forks.insertWorking(working);
    for (const ext of this.extensions) ext.openBank(working, parent);
    this.queue.bankOpened();
    this.keepWorking = false;
    this.statuses.purgeOldSlots(slot);
    const minted = this.epochs.bankOpened(working, parent, this.supplyBook.total);
    if (minted !== null) {
      this.supplyBook.mint(minted);
      this.keepWorking = true;
    }
    this.emit('slot', { slot, parent: parent.slot, root: this.forks.root.slot });
    this.votes?.vote(parent, working);
  }

  private sysvarsFor(slot: number, times: ClockTimes): Sysvars {
    const { rent, epochSchedule } = this.genesis;
    const lamportsPerSignature = this.fees.lamportsPerSignature;
    return bankSysvars(slot, times, { rent, epochSchedule, lamportsPerSignature, blockhashes: this.blockhashes, blockSlots: this.forks.blockSlots, stakeHistory: this.epochs.history });
  }

  // ---- chain control: state edits, mining, time (the RPC's anvil_*, evm_*, surfnet_* methods) ----

  /** Waits until no asynchronous transaction executes in the working bank (so it can be changed or sealed). */
  private async betweenTransactions(): Promise<void> {
    do await this.queue.idle();
    while (this.queue.busy);
    if (this.stopped) throw new Error('the chain is stopping: it takes no more edits');
  }

  /**
   * Applies an edit of state to the working bank between its transactions, so it enters the chain
   * with that bank's slot, in its one atomic commit. `apply` checks everything before it writes
   * (a throw changes nothing) and returns the lamports it added to the native accounts (negative:
   * removed), which the supply's books count as adjusted. With the clock running the slot is sealed
   * at once and this resolves when it is durable (every commitment reads the edit); with the clock
   * paused the edit waits in the working bank (read at processed) for the next slot.
   */
  async edit<T>(apply: (working: Bank) => { lamports: number; result: T }): Promise<T> {
    await this.betweenTransactions();
    const { lamports, result } = apply(this.forks.working);
    this.supplyBook.adjust(lamports);
    this.keepWorking = true;
    if (!this.clock.paused) {
      this.sealWorkingBank();
      await this.commits;
    }
    return result;
  }

  /**
   * Seals the working bank now, whether the clock runs or not (evm_mine), after `prepare` marked it
   * (the EVM space makes a block of it even without transactions); `nextBeginsMs` is when the next
   * bank begins (anvil_mine's interval). Resolves with the sealed bank once it is durable.
   */
  async sealNow(prepare?: (working: Bank) => void, nextBeginsMs?: number): Promise<Bank> {
    await this.betweenTransactions();
    prepare?.(this.forks.working);
    if (nextBeginsMs !== undefined) this.nextOpening = { beginsMs: nextBeginsMs };
    const bank = this.sealWorkingBank();
    await this.commits;
    return bank;
  }

  /**
   * Time travel: seals the working bank and opens the next one at `slot` (the slots between are
   * skipped, and the chain's time moves by their slot times) or at `unixTimestampMs` (as many slots
   * ahead as that time is); an epoch crossed turns as usual (stake history, rewards). Forward only.
   */
  async travel(to: { slot: number } | { unixTimestampMs: number }): Promise<Bank> {
    await this.betweenTransactions();
    const working = this.forks.working;
    if ('slot' in to) {
      if (!Number.isSafeInteger(to.slot) || to.slot <= working.slot) throw new RangeError(`slot ${to.slot} is not after the current slot ${working.slot}: time travel goes forward only`);
      this.nextOpening = { slot: to.slot };
    } else {
      const currentMs = working.sysvars.clock.unixTimestamp * 1000;
      if (!Number.isSafeInteger(to.unixTimestampMs) || to.unixTimestampMs <= currentMs) {
        throw new RangeError(`timestamp ${to.unixTimestampMs} ms is not after the current time ${currentMs} ms (slot ${working.slot}): time travel goes forward only`);
      }
      const slots = Math.max(1, Math.floor((to.unixTimestampMs - (Date.now() + this.timeOffsetMs)) / this.slotMs));
      this.nextOpening = { slot: working.slot + slots, beginsMs: to.unixTimestampMs };
    }
    this.sealWorkingBank();
    await this.commits;
    return this.forks.working;
  }

  /**
   * Sets the working bank's Clock time (and the EVM block it may form) to `unixTimestamp` seconds;
   * later banks run on from there. Never before the parent block's time.
   */
  async setTime(unixTimestamp: number): Promise<void> {
    await this.betweenTransactions();
    const working = this.forks.working;
    const parentTime = this.forks.bank(working.parentSlot)?.sysvars.clock.unixTimestamp ?? 0;
    if (!Number.isSafeInteger(unixTimestamp) || unixTimestamp < parentTime) throw new RangeError(`Timestamp error: ${unixTimestamp} is lower than previous block's timestamp`);
    this.retime(working, unixTimestamp);
    this.timeOffsetMs = unixTimestamp * 1000 - Date.now();
  }

  /** Moves the chain's time `seconds` ahead (the working bank's Clock with it); returns the total offset from the wall clock, in seconds. */
  async increaseTime(seconds: number): Promise<number> {
    await this.betweenTransactions();
    const working = this.forks.working;
    this.retime(working, working.sysvars.clock.unixTimestamp + seconds);
    this.timeOffsetMs += seconds * 1000;
    return Math.round(this.timeOffsetMs / 1000);
  }

  private retime(bank: Bank, unixTimestamp: number): void {
    const clock = bank.sysvars.clock;
    // The epoch's first bank sets the epoch's start time.
    if (clock.epochStartTimestamp === clock.unixTimestamp && this.forks.bank(bank.parentSlot)?.sysvars.clock.epoch !== clock.epoch) clock.epochStartTimestamp = unixTimestamp;
    clock.unixTimestamp = unixTimestamp;
    for (const ext of this.extensions) ext.retimed?.(bank);
  }

  get clockPaused(): boolean {
    return this.clock.paused;
  }
  /** Stops slot production (and so EVM blocks) until resumeClock; transactions wait in the working bank. */
  pauseClock(): void {
    this.clock.pause();
  }
  resumeClock(): void {
    if (!this.stopped) this.clock.resume();
  }

  // ---- transactions ----

  /** Queues a signature-checked transaction for the working bank. */
  submit(tx: Transaction): void {
    if (!this.queue.push(tx)) return;
    this.emit('received', tx.id);
    this.queue.scheduleDrain();
  }

  private onRefused(tx: Transaction, e: unknown): void {
    if (e instanceof TransactionError) this.emit('dropped', { signature: tx.id, err: e.value });
    else console.error('isthmus: transaction processing failed:', e);
  }

  /** Executes into the working bank; throws TransactionError when it cannot enter the block. */
  processTransaction(tx: Transaction): ExecutedTransaction {
    return this.processor.process(this.forks.working, tx);
  }

  /** Runs a transaction on the bank at `commitment` without keeping anything (synchronous programs only). */
  simulate(tx: Transaction, commitment: Commitment): ExecutedTransaction {
    return this.processor.simulate(this.bankAt(commitment), tx, this.queue.has(tx.id));
  }

  /** simulate for any transaction, the EVM's included. */
  simulateAsync(tx: Transaction, commitment: Commitment): Promise<ExecutedTransaction> {
    return this.processor.simulateAsync(this.bankAt(commitment), tx, this.queue.has(tx.id));
  }

  // ---- reads at a commitment (bank-forks.ts) and the chain's counters ----

  bankAt(commitment: Commitment): Bank {
    return this.forks.bankAt(commitment);
  }
  /** A sealed bank still in memory (unrooted or the root). */
  bank(slot: number): Bank | undefined {
    return this.forks.bank(slot);
  }
  slotAt(commitment: Commitment): number {
    return this.forks.bankAt(commitment).slot;
  }
  get processedSlot(): number {
    return this.forks.working.slot;
  }
  get confirmedSlot(): number {
    return this.forks.confirmed.slot;
  }
  get rootSlot(): number {
    return this.forks.root.slot;
  }
  /** Block height of the bank at the commitment (blocks below it; skipped slots have none). */
  blockHeightAt(commitment: Commitment): number {
    return this.forks.bankAt(commitment).blockHeight;
  }
  getAccount(address: Address, commitment: Commitment): Account | null {
    return this.forks.getAccount(address, commitment);
  }
  loadAddresses(message: Message, commitment: Commitment): LoadedAddresses {
    return this.forks.loadAddresses(message, commitment);
  }
  slotHistoryAt(commitment: Commitment): { oldest: number; newest: number; hasBlock: (slot: number) => boolean } {
    return this.forks.slotHistoryAt(commitment);
  }
  confirmationsOf(slot: number): number | undefined {
    return this.forks.confirmationsOf(slot);
  }
  voteSignature(slot: number): string | undefined {
    return this.forks.voteSignature(slot);
  }
  latestBlockhash(commitment: Commitment = 'processed'): { blockhash: string; slot: number; lastValidBlockHeight: number; lamportsPerSignature: number } {
    return this.forks.latestBlockhash(commitment);
  }
  isBlockhashValid(blockhash: string, commitment: Commitment): boolean {
    return this.forks.isBlockhashValid(blockhash, commitment);
  }

  blockhashInfo(blockhash: string): { slot: number; blockHeight: number; lamportsPerSignature: number } | undefined {
    return this.blockhashes.get(blockhash);
  }
  currentLamportsPerSignature(): number {
    return this.fees.lamportsPerSignature;
  }
  signatureStatus(signature: string): SignatureStatus | undefined {
    return this.statuses.get(signature);
  }
  get totalTransactionCount(): number {
    return this.transactionCount;
  }
  /** The supply; genesis supply + minted + adjusted = total + burned. */
  supply(): { total: number; burned: number; minted: number; adjusted: number } {
    return { total: this.supplyBook.total, burned: this.supplyBook.burned, minted: this.supplyBook.minted, adjusted: this.supplyBook.adjusted };
  }
  /** The supply as the bank at `commitment` sees it (Bank::capitalization). */
  capitalizationAt(commitment: Commitment): number {
    return commitment === 'processed' ? this.supplyBook.total : this.forks.bankAt(commitment).capitalization;
  }
  /** The StakeHistory sysvar's entries (newest epoch first). */
  currentStakeHistory(): StakeHistory {
    return this.epochs.history;
  }
  performanceSamples(limit: number): PerformanceSample[] {
    return this.samples.newest(limit);
  }
}

