/**
 * What the chain carries from epoch to epoch: the StakeHistory sysvar's entries and the stakes each
 * epoch's leader schedule is drawn from. An epoch's first bank brings them up to date and pays the
 * ended epoch's inflation (Bank::process_new_epoch, ledger/epoch-rewards.ts).
 */
import { SYSVAR_STAKE_HISTORY_ID } from '../runtime/sysvars.ts';
import { decodeStakeHistory, type StakeHistory } from '../runtime/programs/stake/state.ts';
import type { ChainMeta } from '../store/store.ts';
import type { AccountsDb, Bank } from './bank.ts';
import { epochOf } from './epoch.ts';
import { processEpochBoundary } from './epoch-rewards.ts';
import type { GenesisConfig } from './genesis-config.ts';
import { LeaderSchedules, stakedNodesOf } from './leader-schedule.ts';

export class EpochStakes {
  /** The StakeHistory sysvar's entries (newest epoch first). */
  history: StakeHistory;
  /** Who leads each slot. */
  readonly leaders: LeaderSchedules;

  constructor(
    private readonly genesis: GenesisConfig,
    accounts: AccountsDb,
    epochStakes: ChainMeta['epochStakes'],
    /** Schedules drawn before (a revert): kept when drawn from the same stakes, as drawing an epoch's takes a while. */
    previous?: LeaderSchedules,
  ) {
    const history = accounts.get(SYSVAR_STAKE_HISTORY_ID);
    this.history = history ? decodeStakeHistory(history.data) : [];
    const same = previous && JSON.stringify(previous.toJSON()) === JSON.stringify(epochStakes ?? []);
    this.leaders = same ? previous : new LeaderSchedules(genesis.epochSchedule, genesis.identity, epochStakes ?? []);
  }

  /**
   * A ledger without epoch stakes (a new genesis, or one made before the schedule came from stake):
   * the current epoch and the next are scheduled by the stake effective now, as a genesis bank does.
   */
  snapshotAtStart(bank: Bank): void {
    const { epoch } = epochOf(this.genesis.epochSchedule, bank.slot);
    const nodes = stakedNodesOf(bank, epoch, this.history);
    this.leaders.record(epoch, nodes);
    this.leaders.record(epoch + 1, nodes);
  }

  /**
   * A bank opened over `parent`: when it is the first bank of an epoch, the ended epoch's stake
   * history entry and inflation rewards, the next epoch's stakes. Returns the lamports the rewards
   * minted, or null when the bank is in its parent's epoch.
   */
  bankOpened(bank: Bank, parent: Bank, capitalization: number): number | null {
    const schedule = this.genesis.epochSchedule;
    const endedEpoch = epochOf(schedule, parent.slot).epoch;
    const epoch = epochOf(schedule, bank.slot).epoch;
    if (epoch <= endedEpoch) return null;
    const result = processEpochBoundary({ bank, genesis: this.genesis, endedEpoch, epoch, history: this.history, capitalization });
    this.leaders.record(epoch + 1, result.stakedNodes);
    this.history = result.stakeHistory;
    bank.sysvars.stakeHistory = result.stakeHistory;
    return result.minted;
  }
}
