/**
 * Performance samples (Agave's SamplePerformanceService): every 60 s, the transactions (and how many
 * were not the validator's votes) and slots since the last sample; the newest 720 are kept, for
 * getRecentPerformanceSamples.
 */

export interface PerformanceSample {
  slot: number;
  numTransactions: number;
  numNonVoteTransactions: number;
  numSlots: number;
  samplePeriodSecs: number;
}

/** What the chain counts, read when a sample is taken. */
export interface SampleCounters {
  /** The working bank's slot. */
  slot: number;
  transactions: number;
  voteTransactions: number;
}

const PERFORMANCE_SAMPLE_SECS = 60;
const MAX_PERFORMANCE_SAMPLES = 720;

export class PerformanceSamples {
  private readonly samples: PerformanceSample[] = [];
  private sampleStart: { slot: number; txs: number; at: number; votes: number };
  private timer: NodeJS.Timeout | null = null;

  /** The first sample counts from `start`. */
  constructor(
    private readonly read: () => SampleCounters,
    start: SampleCounters,
  ) {
    this.sampleStart = { slot: start.slot, txs: start.transactions, at: Date.now(), votes: start.voteTransactions };
  }

  start(): void {
    this.timer = setInterval(() => this.take(), PERFORMANCE_SAMPLE_SECS * 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The chain was reset to genesis: the samples of the chain before are gone, the next counts from `start`. */
  restart(start: SampleCounters): void {
    this.samples.length = 0;
    this.sampleStart = { slot: start.slot, txs: start.transactions, at: Date.now(), votes: start.voteTransactions };
  }

  /** The newest `limit` samples, newest first. */
  newest(limit: number): PerformanceSample[] {
    return this.samples.slice(-limit).reverse();
  }

  private take(): void {
    const now = Date.now();
    const { slot, transactions: txs, voteTransactions } = this.read();
    this.samples.push({
      slot,
      numTransactions: txs - this.sampleStart.txs,
      numNonVoteTransactions: txs - this.sampleStart.txs - (voteTransactions - this.sampleStart.votes),
      numSlots: slot - this.sampleStart.slot,
      samplePeriodSecs: Math.round((now - this.sampleStart.at) / 1000),
    });
    if (this.samples.length > MAX_PERFORMANCE_SAMPLES) this.samples.shift();
    this.sampleStart = { slot, txs, at: now, votes: voteTransactions };
  }
}
