/** jsonParsed for vote accounts and Vote program instructions, in the shapes of Agave's `parse_vote`. */
import { DEFAULT_PUBKEY, VOTE_PROGRAM_ID } from '../../../common/pubkey.ts';
import { decodeVoteInstruction, type Vote } from '../../../runtime/programs/vote/instruction.ts';
import { decodeVoteState } from '../../../runtime/programs/vote/state.ts';
import type { AccountParser, InstructionParser } from './types.ts';

export const parseVoteAccount: AccountParser = (_address, account) => {
  if (account.owner !== VOTE_PROGRAM_ID) return null;
  const s = decodeVoteState(account.data);
  if (!s) return null;
  return {
    program: 'vote',
    parsed: {
      type: 'vote',
      info: {
        nodePubkey: s.nodePubkey,
        authorizedWithdrawer: s.authorizedWithdrawer,
        commission: s.commission,
        votes: s.votes.map((v) => ({ slot: v.slot, confirmationCount: v.confirmationCount })),
        rootSlot: s.rootSlot,
        authorizedVoters: s.authorizedVoters.map(([epoch, authorizedVoter]) => ({ epoch, authorizedVoter })),
        priorVoters: s.priorVoters.buf
          .filter((p) => p.pubkey !== DEFAULT_PUBKEY)
          .map((p) => ({ authorizedPubkey: p.pubkey, epochOfLastAuthorizedSwitch: p.start, targetEpoch: p.end })),
        epochCredits: s.epochCredits.map(([epoch, credits, previousCredits]) => ({ epoch, credits: String(credits), previousCredits: String(previousCredits) })),
        lastTimestamp: { slot: s.lastTimestamp.slot, timestamp: s.lastTimestamp.timestamp },
      },
    },
    space: account.data.length,
  };
};

const authorityType = (a: 'voter' | 'withdrawer') => (a === 'voter' ? 'Voter' : 'Withdrawer');
const uiVote = (v: Vote) => ({ slots: v.slots, hash: v.hash, timestamp: v.timestamp });

export const parseVoteInstruction: InstructionParser = (data, accounts) => {
  const ix = decodeVoteInstruction(data);
  const need = (n: number) => {
    if (accounts.length < n) throw new Error('not enough accounts');
  };
  const a = (i: number) => accounts[i]!;
  switch (ix.type) {
    case 'initialize':
      need(4);
      return {
        type: 'initialize',
        info: { voteAccount: a(0), rentSysvar: a(1), clockSysvar: a(2), node: a(3), authorizedVoter: ix.authorizedVoter, authorizedWithdrawer: ix.authorizedWithdrawer, commission: ix.commission },
      };
    case 'authorize':
      need(3);
      return { type: 'authorize', info: { voteAccount: a(0), clockSysvar: a(1), authority: a(2), newAuthority: ix.newAuthority, authorityType: authorityType(ix.authorizeType) } };
    case 'authorizeWithSeed':
      need(3);
      return {
        type: 'authorizeWithSeed',
        info: { voteAccount: a(0), clockSysvar: a(1), authorityBaseKey: a(2), authorityOwner: ix.ownerProgram, authoritySeed: ix.seed, newAuthority: ix.newAuthority, authorityType: authorityType(ix.authorizeType) },
      };
    case 'authorizeCheckedWithSeed':
      need(4);
      return {
        type: 'authorizeCheckedWithSeed',
        info: { voteAccount: a(0), clockSysvar: a(1), authorityBaseKey: a(2), authorityOwner: ix.ownerProgram, authoritySeed: ix.seed, newAuthority: a(3), authorityType: authorityType(ix.authorizeType) },
      };
    case 'vote':
      need(4);
      return { type: 'vote', info: { voteAccount: a(0), slotHashesSysvar: a(1), clockSysvar: a(2), voteAuthority: a(3), vote: uiVote(ix.vote) } };
    case 'voteSwitch':
      need(4);
      return { type: 'voteSwitch', info: { voteAccount: a(0), slotHashesSysvar: a(1), clockSysvar: a(2), voteAuthority: a(3), vote: uiVote(ix.vote), hash: ix.hash } };
    case 'withdraw':
      need(3);
      return { type: 'withdraw', info: { voteAccount: a(0), destination: a(1), withdrawAuthority: a(2), lamports: Number(ix.lamports) } };
    case 'updateValidatorIdentity':
      need(3);
      return { type: 'updateValidatorIdentity', info: { voteAccount: a(0), newValidatorIdentity: a(1), withdrawAuthority: a(2) } };
    case 'updateCommission':
      need(2);
      return { type: 'updateCommission', info: { voteAccount: a(0), withdrawAuthority: a(1), commission: ix.commission } };
    case 'authorizeChecked':
      need(4);
      return { type: 'authorizeChecked', info: { voteAccount: a(0), clockSysvar: a(1), authority: a(2), newAuthority: a(3), authorityType: authorityType(ix.authorizeType) } };
    case 'towerUpdate': {
      need(2);
      const u = ix.update;
      const ui: Record<string, unknown> = { lockouts: u.lockouts.map((l) => ({ slot: l.slot, confirmationCount: l.confirmationCount })), root: u.root, hash: u.hash, timestamp: u.timestamp };
      const tower = ix.name === 'towerSync' || ix.name === 'towerSyncSwitch';
      if (tower) ui.blockId = u.blockId;
      const info: Record<string, unknown> = { voteAccount: a(0), voteAuthority: a(1), [tower ? 'towerSync' : 'voteStateUpdate']: ui };
      if (ix.switchHash) info.hash = ix.switchHash;
      // Agave names these instruction types in lower case.
      return { type: ix.name.toLowerCase(), info };
    }
    default:
      return null;
  }
};
