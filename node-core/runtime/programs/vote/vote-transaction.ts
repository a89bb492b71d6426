/**
 * The validator's own vote transaction: a Vote on one slot, its blockhash as the recent blockhash,
 * paid and signed by the identity. Ed25519 is deterministic, so the same inputs give the same bytes:
 * the vote loop casts it with this, and the store rebuilds a compactly stored vote with it.
 */
import { VOTE_PROGRAM_ID, type Address } from '../../../common/pubkey.ts';
import type { Keypair } from '../../../keys/keypair.ts';
import { compileMessage, signTransaction } from '../../message-builder.ts';
import { SYSVAR_CLOCK_ID, SYSVAR_SLOT_HASHES_ID } from '../../sysvars.ts';
import type { Transaction } from '../../wire.ts';
import { encodeVoteInstruction } from './instruction.ts';

export interface Voter {
  identity: Keypair;
  voteAccount: Address;
}

export interface VotedBlock {
  slot: number;
  blockhash: string;
  /** The vote's timestamp; null leaves it out. */
  blockTime: number | null;
}

/**
 * A Vote for `slot` (its blockhash and, unless null, its block time as the vote's timestamp), with the
 * blockhash as the transaction's recent blockhash.
 */
export function voteTransaction(voter: Voter, voted: VotedBlock): Transaction {
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
