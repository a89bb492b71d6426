/**
 * The chain: the working bank that takes transactions, the slot clock that seals it into a block,
 * the commitment levels (processed → confirmed → rooted), and the one store commit per block.
 * The working bank is always for the next slot this validator leads (ledger/leader-schedule.ts):
 * slots led by other identities pass without a block. It votes on every block it seals, so the
 * newest sealed block is confirmed and a block is rooted once `rootDepth` blocks stand above it.
 */
import { EventEmitter } from 'node:events';
import type { Address } from '../common/pubkey.ts';
import type { Account } from '../runtime/account.ts';
import { TransactionError, type TransactionErrorValue } from '../runtime/errors.ts';
import { needsAsyncExecution, type ExecutedTransaction } from '../runtime/executor.ts';
import type { ProgramRegistry } from '../runtime/program.ts';
import { BlockSlotRing } from './slot-history.ts';
import { renderSysvar, SYSVAR_IDS, MAX_RECENT_BLOCKHASHES_SYSVAR_ENTRIES, MAX_SLOT_HASHES_ENTRIES, SLOT_HISTORY_MAX_ENTRIES, type Sysvars } from '../runtime/sysvars.ts';
import type { Message, Transaction } from '../runtime/wire.ts';
import { loadMessageAddresses, type LoadedAddresses } from '../runtime/address-loader.ts';
import type { BlockHeader, ChainMeta, SlotCommit, Store, StoredTransaction } from '../store/store.ts';
import { Bank, type AccountsDb } from './bank.ts';
import type { ChainExtension } from './chain-extension.ts';
import { BlockhashQueue, MAX_PROCESSING_AGE } from './blockhash-queue.ts';
import { epochOf } from './epoch.ts';
import type { GenesisConfig } from './genesis-config.ts';
import { decodeStakeHistory, type StakeHistory } from '../runtime/programs/stake/state.ts';
import { SYSVAR_STAKE_HISTORY_ID } from '../runtime/sysvars.ts';
import { processEpochBoundary } from './epoch-rewards.ts';
import { LeaderSchedules, stakedNodesOf } from './leader-schedule.ts';
import { voteTimestamp, voteTransaction, type Voter } from './vote-loop.ts';
import { PerformanceSamples, type PerformanceSample } from './performance-samples.ts';
import { SlotClock } from './slot-clock.ts';
import { StatusCache, type SignatureStatus } from './status-cache.ts';
import { Fees } from './fees.ts';
import { blockhashOf, sealExtensions, slotCommit } from './slot-commit.ts';
import { Supply } from './supply.ts';
import { TransactionProcessor } from './bank-execution.ts';
import { TransactionQueue } from './transaction-queue.ts';
import type { Commitment } from './commitment.ts';

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

export class Chain extends EventEmitter<ChainEventMap> {
  readonly store: Store;
  readonly genesis: GenesisConfig;
  readonly genesisHash: string;
  readonly programs: ProgramRegistry;
  private readonly accounts: AccountsDb;
  private readonly blockhashes = new BlockhashQueue();
  private readonly blockSlots = new BlockSlotRing();
  private readonly statuses = new StatusCache();
  private readonly banks = new Map<number, Bank>();
  private working!: Bank;
  private confirmedBank!: Bank;
  private rootBank!: Bank;
  private readonly processor: TransactionProcessor;
  private readonly queue = new TransactionQueue({
    isAsync: (tx) => needsAsyncExecution(tx, this.programs),
    execute: (tx) => void this.processTransaction(tx),
    executeAsync: (tx) => this.processor.processAsync(this.working, tx),
    refused: (tx, e) => this.onRefused(tx, e),
  });
  private readonly clock: SlotClock;
  private commits: Promise<void> = Promise.resolve();
  private readonly fees: Fees;
  private transactionCount: number;
  private readonly supplyBook: Supply;
  private stakeHistory: StakeHistory;
  /** Who leads each slot; the working bank is always at a slot this node leads. */
  readonly leaders: LeaderSchedules;
  private readonly voter?: Voter;
  private voteFailureLogged = false;
  private voteTransactions = 0;
  /**
   * The working bank holds changes that must be stored even without a transaction: accounts put in
   * place before the clock started (overwriteAccountsAtStart), or an epoch's start (stake history, rewards).
   */
  private keepWorking = false;
  private extensionsMeta: Record<string, unknown>;
  private readonly samples: PerformanceSamples;
  private stopped = false;
  readonly slotMs: number;
  readonly rootDepth: number;
  private readonly limitLedgerSize?: number;
  readonly extensions: readonly ChainExtension[];
  firstAvailableSlot = 0;

  constructor(p: ChainParams) {
    super();
    this.store = p.store;
    this.genesis = p.genesis;
    this.genesisHash = p.genesisHash;
    this.programs = p.programs;
    this.accounts = p.accounts;
    this.slotMs = p.slotMs;
    this.rootDepth = p.rootDepth;
    this.limitLedgerSize = p.limitLedgerSize;
    this.extensions = p.extensions ?? [];
    this.fees = new Fees(this.genesis.feeRateGovernor, this.genesis.identity, p.meta.lamportsPerSignature);
    this.transactionCount = p.meta.transactionCount;
    this.supplyBook = new Supply(p.meta.totalSupply, p.meta.burned, p.meta.minted ?? 0);
    this.voter = p.voter;
    const history = this.accounts.get(SYSVAR_STAKE_HISTORY_ID);
    this.stakeHistory = history ? decodeStakeHistory(history.data) : [];
    this.extensionsMeta = p.meta.extensions;
    for (const h of p.recentHeaders) {
      this.blockhashes.push({ blockhash: h.blockhash, slot: h.slot, blockHeight: h.blockHeight, lamportsPerSignature: this.fees.lamportsPerSignature });
    }
    for (const [sig, status] of p.recentStatuses) this.statuses.insert(sig, status);
    this.processor = new TransactionProcessor(this.blockhashes, this.statuses, this.programs, (recorded) => {
      this.transactionCount++;
      this.emit('transaction', recorded);
    });
    // Slot 0 is the genesis bank's, as in Agave's default SlotHistory.
    for (const slot of [0, ...(p.blockSlots ?? []), p.meta.slot]) if (slot >= this.blockSlots.nextSlot) this.blockSlots.add(slot);
    // After a (re)start everything stored is final: there are no forks to roll it back.
    const restartTimes = { unixTimestamp: p.meta.blockTime, epochStartTimestamp: p.epochStartTimestamp ?? this.genesis.creationTime };
    const last = new Bank(p.meta.slot, p.meta.slot, null, this.accounts, this.sysvarsFor(p.meta.slot, restartTimes));
    last.blockHeight = p.meta.blockHeight ?? p.recentHeaders.find((h) => h.slot === p.meta.slot)?.blockHeight ?? p.meta.slot;
    this.leaders = new LeaderSchedules(this.genesis.epochSchedule, this.genesis.identity, p.meta.epochStakes ?? []);
    if (!p.meta.epochStakes) this.snapshotStakesAtStart(last);
    last.blockhash = p.meta.blockhash;
    last.blockTime = p.meta.blockTime;
    last.capitalization = p.meta.totalSupply;
    last.burnedTotal = p.meta.burned;
    last.mintedTotal = this.supplyBook.minted;
    last.sysvars.recentBlockhashes = this.sysvarsFor(p.meta.slot + 1, restartTimes).recentBlockhashes;
    this.banks.set(last.slot, last);
    for (const ext of this.extensions) ext.openBank(last, null);
    this.confirmedBank = last;
    this.rootBank = last;
    this.openWorkingBank(last);
    this.samples = new PerformanceSamples(
      () => ({ slot: this.working.slot, transactions: this.transactionCount, voteTransactions: this.voteTransactions }),
      { slot: last.slot, transactions: this.transactionCount, voteTransactions: 0 },
    );
    this.clock = new SlotClock(this.slotMs, () => this.sealWhenIdle().then((sealed) => ({ sealed: sealed.slot, working: this.working.slot })));
  }

  /**
   * Puts accounts in place before the clock starts (--account over an existing ledger, program
   * accounts a ledger predates): readable at every commitment at once, stored with the next slot's
   * commit; the supply follows the lamports added or removed.
   */
  overwriteAccountsAtStart(entries: ReadonlyArray<{ address: Address; account: Account }>): void {
    for (const { address, account } of entries) {
      const delta = account.lamports - (this.working.get(address)?.lamports ?? 0);
      this.supplyBook.adjust(delta);
      // The accounts read the same at every commitment, so the sealed banks' supply follows too.
      for (const bank of this.banks.values()) bank.capitalization += delta;
      if (account.lamports === 0) this.accounts.delete(address);
      else this.accounts.set(address, account);
      this.working.set(address, account);
      this.keepWorking = true;
    }
  }

  /**
   * A ledger without epoch stakes (a new genesis, or one made before the schedule came from stake):
   * the current epoch and the next are scheduled by the stake effective now, as a genesis bank does.
   */
  private snapshotStakesAtStart(bank: Bank): void {
    const { epoch } = epochOf(this.genesis.epochSchedule, bank.slot);
    const nodes = stakedNodesOf(bank, epoch, this.stakeHistory);
    this.leaders.record(epoch, nodes);
    this.leaders.record(epoch + 1, nodes);
  }

  // ---- clock ----

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
    if (this.working.transactions.length > this.working.voteTransactions || this.keepWorking || this.queue.length > 0) this.sealWorkingBank();
    await this.commits;
  }

  /**
   * Seals the working bank now (used by the clock, and by tests that step slots by hand). Queued
   * synchronous transactions enter it first; an asynchronous one waits for the next bank.
   */
  sealWorkingBank(): Bank {
    if (this.queue.busy) throw new Error('sealWorkingBank: an asynchronous transaction is executing (use sealWhenIdle)');
    this.queue.drain(Infinity, false);
    const bank = this.working;
    this.supplyBook.burn(this.fees.distribute(bank));
    this.supplyBook.stamp(bank);
    const parentHash = this.banks.get(bank.parentSlot)?.blockhash ?? this.latestBlockhash().blockhash;
    bank.blockhash = blockhashOf(parentHash, bank.slot, bank.transactions);
    // As Agave's block time: the bank's Clock, set when its slot began.
    bank.blockTime = bank.sysvars.clock.unixTimestamp;
    const lamportsPerSignature = this.fees.lamportsPerSignature;
    this.blockhashes.push({ blockhash: bank.blockhash, slot: bank.slot, blockHeight: bank.blockHeight, lamportsPerSignature });
    // As Agave's register_recent_blockhash: a frozen bank runs (simulations) with its own blockhash as
    // the newest, so a nonce set in it can advance when simulated at its commitment.
    bank.sysvars.recentBlockhashes = [{ blockhash: bank.blockhash, lamportsPerSignature }, ...bank.sysvars.recentBlockhashes].slice(0, MAX_RECENT_BLOCKHASHES_SYSVAR_ENTRIES);
    this.fees.updateAfter(bank);
    const { total: totalSupply, burned, minted } = this.supplyBook;
    const counters = { transactionCount: this.transactionCount, lamportsPerSignature: this.fees.lamportsPerSignature, totalSupply, burned, minted };
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
        },
      );
    return bank;
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
    this.confirmedBank = bank;
    for (const ext of this.extensions) ext.committed?.(bank);
    this.emit('confirmed', bank);
    const rootHeight = bank.blockHeight - this.rootDepth;
    const rooted: Bank[] = [];
    for (let s = this.rootBank.slot + 1; s < bank.slot; s++) {
      const b = this.banks.get(s);
      if (!b) continue;
      if (b.blockHeight > rootHeight) break;
      for (const [k, a] of b.changes) (a ? this.accounts.set(k, a) : this.accounts.delete(k));
      // Its changes stay readable (they now equal the folded state); cutting the parent link keeps
      // older, superseded roots out of every read path.
      b.parent = null;
      this.banks.delete(this.rootBank.slot);
      this.rootBank = b;
      rooted.push(b);
    }
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
    const slot = this.leaders.nextOwnSlot(parent.slot);
    this.blockSlots.add(slot);
    this.working = new Bank(slot, parent.slot, parent, this.accounts, this.sysvarsFor(slot, this.clockAfter(parent, slot)));
    this.working.blockHeight = parent.blockHeight + 1;
    for (const ext of this.extensions) ext.openBank(this.working, parent);
    this.queue.bankOpened();
    this.keepWorking = false;
    this.banks.set(slot, this.working);
    this.statuses.purgeOldSlots(slot);
    const schedule = this.genesis.epochSchedule;
    const parentEpoch = epochOf(schedule, parent.slot).epoch;
    const epoch = epochOf(schedule, slot).epoch;
    if (epoch > parentEpoch) this.beginEpoch(this.working, parentEpoch, epoch);
    this.emit('slot', { slot, parent: parent.slot, root: this.rootBank.slot });
    this.vote(parent);
  }

  /** The first bank of an epoch: the ended epoch's stake history entry and inflation rewards, the next epoch's stakes. */
  private beginEpoch(bank: Bank, endedEpoch: number, epoch: number): void {
    const result = processEpochBoundary({ bank, genesis: this.genesis, endedEpoch, epoch, history: this.stakeHistory, capitalization: this.supplyBook.total });
    this.leaders.record(epoch + 1, result.stakedNodes);
    this.stakeHistory = result.stakeHistory;
    bank.sysvars.stakeHistory = result.stakeHistory;
    this.supplyBook.mint(result.minted);
    this.keepWorking = true;
  }

  /** The validator's vote on the slot it just sealed enters the new bank first. */
  private vote(voted: Bank): void {
    if (!this.voter || !voted.blockhash) return;
    try {
      const blockTime = voteTimestamp(this.working.get(this.voter.voteAccount)?.data, voted.blockTime);
      this.processTransaction(voteTransaction(this.voter, { slot: voted.slot, blockhash: voted.blockhash, blockTime }));
      this.working.voteTransactions++;
      this.voteTransactions++;
    } catch (e) {
      if (!this.voteFailureLogged) console.error(`isthmus: the validator's vote on slot ${voted.slot} was not processed:`, e instanceof Error ? e.message : e);
      this.voteFailureLogged = true;
    }
  }

  /**
   * The Clock's times for a bank opened at `slot` over `parent`: the wall clock when the slot begins
   * (the slots between them are others', so it begins that many slot times from now), never before
   * the parent's; the epoch's start is its first bank's time (the genesis time in epoch 0).
   */
  private clockAfter(parent: Bank, slot: number): { unixTimestamp: number; epochStartTimestamp: number } {
    const begins = Date.now() + Math.max(0, slot - parent.slot - 1) * this.slotMs;
    const unixTimestamp = Math.max(parent.sysvars.clock.unixTimestamp, Math.floor(begins / 1000));
    const schedule = this.genesis.epochSchedule;
    const sameEpoch = epochOf(schedule, slot).epoch === epochOf(schedule, parent.slot).epoch;
    return { unixTimestamp, epochStartTimestamp: sameEpoch ? parent.sysvars.clock.epochStartTimestamp : unixTimestamp };
  }

  private sysvarsFor(slot: number, times: { unixTimestamp: number; epochStartTimestamp: number }): Sysvars {
    const schedule = this.genesis.epochSchedule;
    const { epoch } = epochOf(schedule, slot);
    const recent = this.blockhashes.recent(slot - 1, MAX_SLOT_HASHES_ENTRIES);
    return {
      clock: { slot, epochStartTimestamp: times.epochStartTimestamp, epoch, leaderScheduleEpoch: epoch + 1, unixTimestamp: times.unixTimestamp },
      rent: this.genesis.rent,
      epochSchedule: schedule,
      recentBlockhashes: recent.slice(0, MAX_RECENT_BLOCKHASHES_SYSVAR_ENTRIES).map((e) => ({ blockhash: e.blockhash, lamportsPerSignature: e.lamportsPerSignature })),
      slotHashes: recent.map((e) => [e.slot, e.blockhash]),
      lamportsPerSignature: this.fees.lamportsPerSignature,
      stakeHistory: this.stakeHistory,
      slotHistory: () => this.blockSlots.sysvarDataAt(slot),
    };
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
    return this.processor.process(this.working, tx);
  }

  /**
   * The addresses a v0 message's lookups load at the bank at `commitment` (what Agave's RPC resolves
   * when it sanitizes a submitted transaction); throws TransactionError for a bad table or index.
   */
  loadAddresses(message: Message, commitment: Commitment): LoadedAddresses {
    const bank = this.bankAt(commitment);
    return loadMessageAddresses(message, (a) => this.getAccount(a, commitment), bank.sysvars);
  }

  /** Runs a transaction on the bank at `commitment` without keeping anything (synchronous programs only). */
  simulate(tx: Transaction, commitment: Commitment): ExecutedTransaction {
    return this.processor.simulate(this.bankAt(commitment), tx, this.queue.has(tx.id));
  }

  /** simulate for any transaction, the EVM's included. */
  simulateAsync(tx: Transaction, commitment: Commitment): Promise<ExecutedTransaction> {
    return this.processor.simulateAsync(this.bankAt(commitment), tx, this.queue.has(tx.id));
  }

  // ---- reads ----

  bankAt(commitment: Commitment): Bank {
    return commitment === 'processed' ? this.working : commitment === 'confirmed' ? this.confirmedBank : this.rootBank;
  }

  /** The SlotHistory of the bank at the commitment: the slots it covers, and which of them have a block. */
  slotHistoryAt(commitment: Commitment): { oldest: number; newest: number; hasBlock: (slot: number) => boolean } {
    const newest = this.bankAt(commitment).slot;
    const oldest = Math.max(0, newest + 1 - SLOT_HISTORY_MAX_ENTRIES);
    return { oldest, newest, hasBlock: (slot) => slot >= oldest && slot <= newest && this.blockSlots.hasBlock(slot) };
  }

  slotAt(commitment: Commitment): number {
    return this.bankAt(commitment).slot;
  }

  get processedSlot(): number {
    return this.working.slot;
  }
  get confirmedSlot(): number {
    return this.confirmedBank.slot;
  }
  get rootSlot(): number {
    return this.rootBank.slot;
  }

  /** An account at the commitment, sysvars included; null when it does not exist. */
  getAccount(address: Address, commitment: Commitment): Account | null {
    const bank = this.bankAt(commitment);
    return bank.get(address) ?? (SYSVAR_IDS.has(address) ? renderSysvar(address, bank.sysvars) : null);
  }

  /** Block height of the bank at the commitment (blocks below it; skipped slots have none). */
  blockHeightAt(commitment: Commitment): number {
    return this.bankAt(commitment).blockHeight;
  }

  /**
   * Confirmed blocks at or above `slot` (0 when it is only processed), for a slot still in memory;
   * undefined once it is rooted and forgotten.
   */
  confirmationsOf(slot: number): number | undefined {
    const bank = this.banks.get(slot);
    if (!bank) return undefined;
    return slot <= this.confirmedBank.slot ? this.confirmedBank.blockHeight - bank.blockHeight + 1 : 0;
  }

  /** The newest blockhash a bank at the commitment knows, with the last block height it stays valid at. */
  latestBlockhash(commitment: Commitment = 'processed'): { blockhash: string; slot: number; lastValidBlockHeight: number; lamportsPerSignature: number } {
    const bank = this.bankAt(commitment);
    const e = bank.blockhash ? this.blockhashes.get(bank.blockhash)! : this.blockhashes.latestAt(bank.slot)!;
    return { blockhash: e.blockhash, slot: e.slot, lastValidBlockHeight: e.blockHeight + MAX_PROCESSING_AGE, lamportsPerSignature: e.lamportsPerSignature };
  }

  /** Whether a blockhash can still be used at the commitment's bank. */
  isBlockhashValid(blockhash: string, commitment: Commitment): boolean {
    const bank = this.bankAt(commitment);
    return this.blockhashes.isValid(blockhash, bank.slot, bank.blockHeight);
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

  /** The supply; genesis supply + minted = total + burned. */
  supply(): { total: number; burned: number; minted: number } {
    return { total: this.supplyBook.total, burned: this.supplyBook.burned, minted: this.supplyBook.minted };
  }

  /** The signature of the validator's vote on `slot` (the first transaction of the next bank), if it landed. */
  voteSignature(slot: number): string | undefined {
    for (const next of this.banks.values()) {
      if (next.parentSlot === slot && next.slot !== slot) return next.voteTransactions > 0 ? next.transactions[0]?.signature : undefined;
    }
    return undefined;
  }

  /** The supply as the bank at `commitment` sees it (Bank::capitalization). */
  capitalizationAt(commitment: Commitment): number {
    return commitment === 'processed' ? this.supplyBook.total : this.bankAt(commitment).capitalization;
  }

  /** The StakeHistory sysvar's entries (newest epoch first). */
  currentStakeHistory(): StakeHistory {
    return this.stakeHistory;
  }

  /** A sealed bank still in memory (unrooted or the root). */
  bank(slot: number): Bank | undefined {
    return this.banks.get(slot);
  }

  performanceSamples(limit: number): PerformanceSample[] {
    return this.samples.newest(limit);
  }
}
