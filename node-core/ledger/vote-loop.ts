/**
 * The validator's votes: as Agave's validator does, it votes on each slot it seals with a Vote
 * transaction (vote account, SlotHashes, Clock, authorized voter), paid and signed by its identity,
 * which enters the next slot's block first. The vote program then keeps the vote account's tower,
 * root and credits as on a real cluster.
 */
import { decodeVoteState } from '../runtime/programs/vote/state.ts';
import { voteTransaction, type Voter } from '../runtime/programs/vote/vote-transaction.ts';
import type { Transaction } from '../runtime/wire.ts';
import type { Bank } from './bank.ts';

export { voteTransaction, type Voter };

/**
 * The timestamp a vote may carry (Tower::maybe_timestamp): the block time unless the clock went back
 * behind the vote account's last timestamp, which the vote program would refuse (TimestampTooOld).
 */
export function voteTimestamp(voteAccountData: Uint8Array | undefined, blockTime: number): number | null {
  if (!voteAccountData) return blockTime;
  try {
    const state = decodeVoteState(voteAccountData);
    return state && blockTime < state.lastTimestamp.timestamp ? null : blockTime;
  } catch {
    return blockTime;
  }
}

/** Casts the validator's vote on each slot it seals into the next bank, and counts the votes that land. */
export class VoteLoop {
  /** Votes processed since the start. */
  count = 0;
  private failureLogged = false;

  constructor(
    private readonly voter: Voter,
    /** Executes into the working bank; throws when the transaction cannot enter it. */
    private readonly process: (tx: Transaction) => void,
  ) {}

  /** The validator's vote on the slot it just sealed enters the new bank first. */
  vote(voted: Bank, working: Bank): void {
    if (!voted.blockhash) return;
    try {
      const blockTime = voteTimestamp(working.get(this.voter.voteAccount)?.data, voted.blockTime);
      this.process(voteTransaction(this.voter, { slot: voted.slot, blockhash: voted.blockhash, blockTime }));
      working.voteTransactions++;
      this.count++;
    } catch (e) {
      if (!this.failureLogged) console.error(`isthmus: the validator's vote on slot ${voted.slot} was not processed:`, e instanceof Error ? e.message : e);
      this.failureLogged = true;
    }
  }
}
