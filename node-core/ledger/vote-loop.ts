/**
 * The validator's votes: as Agave's validator does, it votes on each slot it seals with a Vote
 * transaction (vote account, SlotHashes, Clock, authorized voter), paid and signed by its identity,
 * which enters the next slot's block first. The vote program then keeps the vote account's tower,
 * root and credits as on a real cluster.
 */
import { VOTE_PROGRAM_ID, type Address } from '../common/pubkey.ts';
import type { Keypair } from '../keys/keypair.ts';
import { compileMessage, signTransaction } from '../runtime/message-builder.ts';
import { encodeVoteInstruction } from '../runtime/programs/vote/instruction.ts';
import { decodeVoteState } from '../runtime/programs/vote/state.ts';
import { SYSVAR_CLOCK_ID, SYSVAR_SLOT_HASHES_ID } from '../runtime/sysvars.ts';
import type { Transaction } from '../runtime/wire.ts';
import type { Bank } from './bank.ts';

export interface Voter {
  identity: Keypair;
  voteAccount: Address;
}

/**
 * A Vote for `slot` (its blockhash and, unless null, its block time as the vote's timestamp), with the
 * blockhash as the transaction's recent blockhash.
 */
export function voteTransaction(voter: Voter, voted: { slot: number; blockhash: string; blockTime: number | null }): Transaction {
  const data = encodeVoteInstruction({ slots: [voted.slot], hash: voted.blockhash, timestamp: voted.blockTime });
  const message = compileMessage(
    voter.identity.address,
    [
      {
        programId: VOTE_PROGRAM_ID,
        accounts: [
          { key: voter.voteAccount, writable: true },
          { key: SYSVAR_SLOT_HASHES_ID },
          { key: SYSVAR_CLOCK_ID },
          { key: voter.identity.address, signer: true },
        ],
        data,
      },
    ],
    voted.blockhash,
  );
  return signTransaction(message, [voter.identity]);
}

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
