/**
 * The Vote program (Vote111…) with Agave's semantics (vote_processor.rs, vote_state/mod.rs):
 * account initialization, voter and withdrawer authorization (plain, checked, with seed), votes
 * checked against SlotHashes, whole proposed towers (UpdateVoteState, CompactUpdateVoteState,
 * TowerSync and their Switch forms), withdrawals, validator identity and commission updates. This
 * node's own validator sends `Vote`.
 */
import { VOTE_PROGRAM_ID, type Address } from '../../../common/pubkey.ts';
import { DecodeError } from '../../../common/bytes.ts';
import type { InstructionAccount, InstructionContext, Program } from '../../program.ts';
import { SYSVAR_CLOCK_ID, SYSVAR_RENT_ID, SYSVAR_SLOT_HASHES_ID } from '../../sysvars.ts';
import { accountAt, addLamports, checkNumberOfAccounts, checkSysvarAccount, deriveWithSeed, fail, lamportsArg, setData, signersOf, subLamports } from '../builtin-accounts.ts';
import { decodeVoteInstruction, type Vote, type VoteAuthorize } from './instruction.ts';
import {
  VOTE_STATE_V3_SIZE,
  VoteError,
  authorizedVoterFor,
  checkAndFilterProposedTower,
  checkSlotsAreValid,
  decodeVoteState,
  encodeVoteState,
  newVoteState,
  processNewTower,
  processNextVoteSlot,
  processTimestamp,
  setNewAuthorizedVoter,
  voteError,
  type VoteState,
} from './state.ts';

/** The vote program's builtin cost (DEFAULT_COMPUTE_UNITS). */
const VOTE_COMPUTE_UNITS = 2100;

function verifySigner(key: Address, signers: Set<Address>): void {
  if (!signers.has(key)) throw fail('MissingRequiredSignature');
}

function stateOf(ia: InstructionAccount): VoteState | null {
  return decodeVoteState(ia.account.data);
}

function initializedStateOf(ia: InstructionAccount): VoteState {
  const s = stateOf(ia);
  if (!s) throw fail('UninitializedAccount');
  return s;
}

/**
 * set_vote_account_state: the current version when the account holds (or can grow to, staying
 * rent-exempt) 3,762 bytes; otherwise the 1.14.11 layout.
 */
function storeVoteState(ctx: InstructionContext, ia: InstructionAccount, s: VoteState): void {
  const len = ia.account.data.length;
  if (len < VOTE_STATE_V3_SIZE) {
    if (ia.account.lamports >= ctx.minimumBalance(VOTE_STATE_V3_SIZE) && ia.isWritable) {
      setData(ia, VOTE_PROGRAM_ID, encodeVoteState(s, VOTE_STATE_V3_SIZE, 2));
      return;
    }
    setData(ia, VOTE_PROGRAM_ID, encodeVoteState(s, len, 1));
    return;
  }
  setData(ia, VOTE_PROGRAM_ID, encodeVoteState(s, len, 2));
}

function authorize(ctx: InstructionContext, ia: InstructionAccount, newAuthority: Address, kind: VoteAuthorize, signers: Set<Address>): void {
  const s = initializedStateOf(ia);
  const clock = ctx.sysvars.clock;
  if (kind === 'voter') {
    const withdrawerSigned = signers.has(s.authorizedWithdrawer);
    setNewAuthorizedVoter(s, newAuthority, clock.epoch, clock.leaderScheduleEpoch + 1, (epochVoter) => {
      if (!withdrawerSigned) verifySigner(epochVoter, signers);
    });
  } else {
    verifySigner(s.authorizedWithdrawer, signers);
    s.authorizedWithdrawer = newAuthority;
  }
  storeVoteState(ctx, ia, s);
}

function processVote(ctx: InstructionContext, ia: InstructionAccount, vote: Vote, signers: Set<Address>): void {
  checkSysvarAccount(ctx, 1, SYSVAR_SLOT_HASHES_ID);
  checkSysvarAccount(ctx, 2, SYSVAR_CLOCK_ID);
  const s = initializedStateOf(ia);
  const { clock, slotHashes } = ctx.sysvars;
  verifySigner(authorizedVoterFor(s, clock.epoch), signers);
  if (vote.slots.length === 0) throw voteError(VoteError.EmptySlots);
  const earliest = slotHashes.length ? slotHashes[slotHashes.length - 1]![0] : 0;
  const slots = vote.slots.filter((slot) => slot >= earliest);
  if (slots.length === 0) throw voteError(VoteError.VotesTooOldAllFiltered);
  checkSlotsAreValid(s, slots, vote.hash, slotHashes);
  for (const slot of slots) processNextVoteSlot(s, slot, clock.epoch, clock.slot);
  if (vote.timestamp !== null) processTimestamp(s, Math.max(...vote.slots), vote.timestamp);
  storeVoteState(ctx, ia, s);
}

function withdraw(ctx: InstructionContext, ia: InstructionAccount, lamports: number, signers: Set<Address>): void {
  checkNumberOfAccounts(ctx, 2);
  const s = initializedStateOf(ia);
  verifySigner(s.authorizedWithdrawer, signers);
  const remaining = ia.account.lamports - lamports;
  if (remaining < 0) throw fail('InsufficientFunds');
  if (remaining === 0) {
    const last = s.epochCredits[s.epochCredits.length - 1];
    if (last && ctx.sysvars.clock.epoch - last[0] < 2) throw voteError(VoteError.ActiveVoteAccountClose);
    setData(ia, VOTE_PROGRAM_ID, new Uint8Array(ia.account.data.length));
  } else if (remaining < ctx.minimumBalance(ia.account.data.length)) {
    throw fail('InsufficientFunds');
  }
  subLamports(ia, VOTE_PROGRAM_ID, lamports);
  addLamports(accountAt(ctx, 1), lamports);
}

/** Commission increases only in the first half of an epoch (decreases at any time). */
function commissionUpdateAllowed(ctx: InstructionContext): boolean {
  const { slotsPerEpoch, firstNormalSlot } = ctx.sysvars.epochSchedule;
  const slot = ctx.sysvars.clock.slot;
  if (slot < firstNormalSlot) return true;
  return ((slot - firstNormalSlot) % slotsPerEpoch) * 2 <= slotsPerEpoch;
}

function authorizeWithSeed(ctx: InstructionContext, ia: InstructionAccount, kind: VoteAuthorize, owner: Address, seed: string, newAuthority: Address): void {
  checkSysvarAccount(ctx, 1, SYSVAR_CLOCK_ID);
  const base = accountAt(ctx, 2);
  const expected = new Set<Address>();
  if (base.isSigner) expected.add(deriveWithSeed(base.key, seed, owner));
  authorize(ctx, ia, newAuthority, kind, expected);
}

function process(ctx: InstructionContext): void {
  let ix;
  try {
    ix = decodeVoteInstruction(ctx.data);
  } catch (e) {
    if (e instanceof DecodeError || e instanceof RangeError || e instanceof TypeError) throw fail('InvalidInstructionData');
    throw e;
  }
  const me = accountAt(ctx, 0);
  if (me.account.owner !== VOTE_PROGRAM_ID) throw fail('InvalidAccountOwner');
  const signers = signersOf(ctx);
  switch (ix.type) {
    case 'initialize': {
      checkSysvarAccount(ctx, 1, SYSVAR_RENT_ID);
      if (me.account.lamports < ctx.minimumBalance(me.account.data.length)) throw fail('InsufficientFunds');
      checkSysvarAccount(ctx, 2, SYSVAR_CLOCK_ID);
      if (me.account.data.length !== VOTE_STATE_V3_SIZE) throw fail('InvalidAccountData');
      if (stateOf(me)) throw fail('AccountAlreadyInitialized');
      verifySigner(ix.nodePubkey, signers);
      storeVoteState(ctx, me, newVoteState(ix, ctx.sysvars.clock.epoch));
      return;
    }
    case 'authorize':
      checkSysvarAccount(ctx, 1, SYSVAR_CLOCK_ID);
      authorize(ctx, me, ix.newAuthority, ix.authorizeType, signers);
      return;
    case 'authorizeChecked': {
      checkNumberOfAccounts(ctx, 4);
      const authority = accountAt(ctx, 3);
      if (!authority.isSigner) throw fail('MissingRequiredSignature');
      checkSysvarAccount(ctx, 1, SYSVAR_CLOCK_ID);
      authorize(ctx, me, authority.key, ix.authorizeType, signers);
      return;
    }
    case 'authorizeWithSeed':
      checkNumberOfAccounts(ctx, 3);
      authorizeWithSeed(ctx, me, ix.authorizeType, ix.ownerProgram, ix.seed, ix.newAuthority);
      return;
    case 'authorizeCheckedWithSeed': {
      checkNumberOfAccounts(ctx, 4);
      const authority = accountAt(ctx, 3);
      if (!authority.isSigner) throw fail('MissingRequiredSignature');
      authorizeWithSeed(ctx, me, ix.authorizeType, ix.ownerProgram, ix.seed, authority.key);
      return;
    }
    case 'vote':
    case 'voteSwitch':
      processVote(ctx, me, ix.vote, signers);
      return;
    case 'withdraw':
      withdraw(ctx, me, lamportsArg(ix.lamports, 'InsufficientFunds'), signers);
      return;
    case 'updateValidatorIdentity': {
      checkNumberOfAccounts(ctx, 2);
      const node = accountAt(ctx, 1).key;
      const s = initializedStateOf(me);
      verifySigner(s.authorizedWithdrawer, signers);
      verifySigner(node, signers);
      s.nodePubkey = node;
      storeVoteState(ctx, me, s);
      return;
    }
    case 'updateCommission': {
      const s = stateOf(me);
      const increase = !s || ix.commission > s.commission;
      if (increase && !commissionUpdateAllowed(ctx)) throw voteError(VoteError.CommissionUpdateTooLate);
      if (!s) throw fail('UninitializedAccount');
      verifySigner(s.authorizedWithdrawer, signers);
      s.commission = ix.commission;
      storeVoteState(ctx, me, s);
      return;
    }
    case 'towerUpdate': {
      // The sysvars come from the bank (the sysvar cache): these forms name no sysvar accounts.
      const s = initializedStateOf(me);
      const { clock, slotHashes } = ctx.sysvars;
      verifySigner(authorizedVoterFor(s, clock.epoch), signers);
      const proposal = { ...ix.update, lockouts: ix.update.lockouts.map((l) => ({ ...l })) };
      checkAndFilterProposedTower(s, proposal, slotHashes);
      processNewTower(s, proposal, clock.epoch, clock.slot);
      storeVoteState(ctx, me, s);
      return;
    }
  }
}

export const voteProgram: Program = {
  id: VOTE_PROGRAM_ID,
  name: 'vote',
  computeUnits: VOTE_COMPUTE_UNITS,
  process,
};
