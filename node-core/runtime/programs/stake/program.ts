/**
 * The Stake program (Stake111…) as the Agave 1.18 builtin runs it (stake_instruction.rs,
 * stake_state.rs) with a test validator's feature set (all features active): initialize, authorize
 * (plain, checked, with seed), delegate, split (rent-exempt destination required), withdraw,
 * deactivate, set lockup, merge, deactivate delinquent and GetMinimumDelegation (1 SOL). Redelegate,
 * MoveStake and MoveLamports are not part of that program: InvalidInstructionData. The sysvars are
 * read from the bank (the sysvar cache); instructions that name a sysvar account check its address.
 */
import { DecodeError } from '../../../common/bytes.ts';
import { STAKE_PROGRAM_ID, VOTE_PROGRAM_ID, type Address } from '../../../common/pubkey.ts';
import { ByteWriter } from '../../../common/bytes.ts';
import type { InstructionAccount, InstructionContext, Program } from '../../program.ts';
import { SYSVAR_CLOCK_ID, SYSVAR_RENT_ID, SYSVAR_STAKE_HISTORY_ID } from '../../sysvars.ts';
import { accountAt, addLamports, checkNumberOfAccounts, checkSysvarAccount, deriveWithSeed, fail, lamportsArg, optionalSigner, setData, signersOf, subLamports } from '../builtin-accounts.ts';
import { credits, decodeVoteState, type VoteState } from '../vote/state.ts';
import { decodeStakeInstruction, type LockupArgs, type StakeAuthorize } from './instruction.ts';
import {
  EPOCH_MAX,
  MINIMUM_DELEGATION,
  STAKE_STATE_SIZE,
  StakeError,
  decodeStakeState,
  defaultLockup,
  effectiveStake,
  encodeStakeState,
  lockupInForce,
  newDelegation,
  stakeActivatingAndDeactivating,
  stakeError,
  type Lockup,
  type Meta,
  type Stake,
  type StakeState,
} from './state.ts';

/** The stake program's builtin cost (DEFAULT_COMPUTE_UNITS). */
const STAKE_COMPUTE_UNITS = 750;
const MINIMUM_DELINQUENT_EPOCHS_FOR_DEACTIVATION = 5;

const history = (ctx: InstructionContext) => ctx.sysvars.stakeHistory ?? [];

function stakeAccount(ctx: InstructionContext, i: number): InstructionAccount {
  const ia = accountAt(ctx, i);
  if (ia.account.owner !== STAKE_PROGRAM_ID) throw fail('InvalidAccountOwner');
  return ia;
}

const stateOf = (ia: InstructionAccount): StakeState => decodeStakeState(ia.account.data);

function setState(ia: InstructionAccount, s: StakeState): void {
  setData(ia, STAKE_PROGRAM_ID, encodeStakeState(s, ia.account.data));
}

function checkAuthorized(meta: Meta, signers: Set<Address>, kind: StakeAuthorize): void {
  if (!signers.has(kind === 'staker' ? meta.staker : meta.withdrawer)) throw fail('MissingRequiredSignature');
}

function voteStateOf(ia: InstructionAccount): () => VoteState {
  if (ia.account.owner !== VOTE_PROGRAM_ID) throw fail('IncorrectProgramId');
  return () => {
    const s = decodeVoteState(ia.account.data);
    if (!s) throw fail('UninitializedAccount');
    return s;
  };
}

// ---- initialize / authorize / lockup --------------------------------------------------------------

function initialize(ctx: InstructionContext, ia: InstructionAccount, staker: Address, withdrawer: Address, lockup: Lockup): void {
  if (ia.account.data.length !== STAKE_STATE_SIZE) throw fail('InvalidAccountData');
  if (stateOf(ia).kind !== 'uninitialized') throw fail('InvalidAccountData');
  const rentExemptReserve = ctx.minimumBalance(ia.account.data.length);
  if (ia.account.lamports < rentExemptReserve) throw fail('InsufficientFunds');
  setState(ia, { kind: 'initialized', meta: { rentExemptReserve, staker, withdrawer, lockup } });
}

/** Authorized::authorize: the staker may be changed by the staker or the withdrawer; the withdrawer by the withdrawer, with the custodian while a lockup is in force. */
function authorize(ctx: InstructionContext, ia: InstructionAccount, signers: Set<Address>, newAuthority: Address, kind: StakeAuthorize, custodian: Address | null): void {
  const s = stateOf(ia);
  if (s.kind !== 'initialized' && s.kind !== 'stake') throw fail('InvalidAccountData');
  const meta = s.meta;
  if (kind === 'staker') {
    if (!signers.has(meta.staker) && !signers.has(meta.withdrawer)) throw fail('MissingRequiredSignature');
    meta.staker = newAuthority;
  } else {
    const clock = ctx.sysvars.clock;
    if (lockupInForce(meta.lockup, clock, null)) {
      if (custodian === null) throw stakeError(StakeError.CustodianMissing);
      if (!signers.has(custodian)) throw stakeError(StakeError.CustodianSignatureMissing);
      if (lockupInForce(meta.lockup, clock, custodian)) throw stakeError(StakeError.LockupInForce);
    }
    checkAuthorized(meta, signers, 'withdrawer');
    meta.withdrawer = newAuthority;
  }
  setState(ia, s);
}

function authorizeWithSeed(ctx: InstructionContext, ia: InstructionAccount, baseIndex: number, seed: string, owner: Address, newAuthority: Address, kind: StakeAuthorize, custodian: Address | null): void {
  const signers = new Set<Address>();
  const base = accountAt(ctx, baseIndex);
  if (base.isSigner) signers.add(deriveWithSeed(base.key, seed, owner));
  authorize(ctx, ia, signers, newAuthority, kind, custodian);
}

function setLockup(ctx: InstructionContext, ia: InstructionAccount, args: LockupArgs, signers: Set<Address>): void {
  const s = stateOf(ia);
  if (s.kind !== 'initialized' && s.kind !== 'stake') throw fail('InvalidAccountData');
  const meta = s.meta;
  if (lockupInForce(meta.lockup, ctx.sysvars.clock, null)) {
    if (!signers.has(meta.lockup.custodian)) throw fail('MissingRequiredSignature');
  } else if (!signers.has(meta.withdrawer)) {
    throw fail('MissingRequiredSignature');
  }
  if (args.unixTimestamp !== null) meta.lockup.unixTimestamp = args.unixTimestamp;
  if (args.epoch !== null) meta.lockup.epoch = args.epoch;
  if (args.custodian !== null) meta.lockup.custodian = args.custodian;
  setState(ia, s);
}

// ---- delegate / deactivate ---------------------------------------------------------------------------

function delegatedAmount(ia: InstructionAccount, meta: Meta): number {
  const amount = Math.max(0, ia.account.lamports - meta.rentExemptReserve);
  if (amount < MINIMUM_DELEGATION) throw stakeError(StakeError.InsufficientDelegation);
  return amount;
}

function delegate(ctx: InstructionContext, signers: Set<Address>): void {
  const voteIa = accountAt(ctx, 1);
  const voteState = voteStateOf(voteIa);
  const ia = accountAt(ctx, 0);
  const s = stateOf(ia);
  const { epoch } = ctx.sysvars.clock;
  if (s.kind === 'initialized') {
    checkAuthorized(s.meta, signers, 'staker');
    const amount = delegatedAmount(ia, s.meta);
    const stake: Stake = { delegation: newDelegation(voteIa.key, amount, epoch), creditsObserved: credits(voteState()) };
    setState(ia, { kind: 'stake', meta: s.meta, stake, flags: 0 });
    return;
  }
  if (s.kind === 'stake') {
    checkAuthorized(s.meta, signers, 'staker');
    const amount = delegatedAmount(ia, s.meta);
    const vs = voteState();
    const d = s.stake.delegation;
    if (effectiveStake(d, epoch, history(ctx)) !== 0) {
      // Re-delegating to the same vote account in the epoch it was deactivated cancels the deactivation.
      if (d.voter === voteIa.key && epoch === d.deactivationEpoch) d.deactivationEpoch = EPOCH_MAX;
      else throw stakeError(StakeError.TooSoonToRedelegate);
    } else {
      s.stake = { delegation: { ...d, voter: voteIa.key, stake: amount, activationEpoch: epoch, deactivationEpoch: EPOCH_MAX }, creditsObserved: credits(vs) };
    }
    setState(ia, s);
    return;
  }
  throw fail('InvalidAccountData');
}

function deactivate(ctx: InstructionContext, ia: InstructionAccount, signers: Set<Address>): void {
  const s = stateOf(ia);
  if (s.kind !== 'stake') throw fail('InvalidAccountData');
  checkAuthorized(s.meta, signers, 'staker');
  if (s.stake.delegation.deactivationEpoch !== EPOCH_MAX) throw stakeError(StakeError.AlreadyDeactivated);
  s.stake.delegation.deactivationEpoch = ctx.sysvars.clock.epoch;
  setState(ia, s);
}

function acceptableReferenceEpochCredits(epochCredits: VoteState['epochCredits'], currentEpoch: number): boolean {
  const from = epochCredits.length - MINIMUM_DELINQUENT_EPOCHS_FOR_DEACTIVATION;
  if (from < 0) return false;
  let epoch = currentEpoch;
  for (let i = epochCredits.length - 1; i >= from; i--) {
    if (epochCredits[i]![0] !== epoch) return false;
    epoch = Math.max(0, epoch - 1);
  }
  return true;
}

function eligibleForDeactivateDelinquent(epochCredits: VoteState['epochCredits'], currentEpoch: number): boolean {
  const last = epochCredits[epochCredits.length - 1];
  if (!last) return true;
  const minimumEpoch = currentEpoch - MINIMUM_DELINQUENT_EPOCHS_FOR_DEACTIVATION;
  return minimumEpoch >= 0 && last[0] <= minimumEpoch;
}

function deactivateDelinquent(ctx: InstructionContext, ia: InstructionAccount): void {
  checkNumberOfAccounts(ctx, 3);
  const delinquentIa = accountAt(ctx, 1);
  const delinquent = voteStateOf(delinquentIa)();
  const reference = voteStateOf(accountAt(ctx, 2))();
  const { epoch } = ctx.sysvars.clock;
  if (!acceptableReferenceEpochCredits(reference.epochCredits, epoch)) throw stakeError(StakeError.InsufficientReferenceVotes);
  const s = stateOf(ia);
  if (s.kind !== 'stake') throw fail('InvalidAccountData');
  if (s.stake.delegation.voter !== delinquentIa.key) throw stakeError(StakeError.VoteAddressMismatch);
  if (!eligibleForDeactivateDelinquent(delinquent.epochCredits, epoch)) throw stakeError(StakeError.MinimumDelinquentEpochsForDeactivationNotMet);
  if (s.stake.delegation.deactivationEpoch !== EPOCH_MAX) throw stakeError(StakeError.AlreadyDeactivated);
  s.stake.delegation.deactivationEpoch = epoch;
  setState(ia, s);
}

// ---- split ---------------------------------------------------------------------------------------------

function split(ctx: InstructionContext, lamports: number, signers: Set<Address>): void {
  const dest = accountAt(ctx, 1);
  if (dest.account.owner !== STAKE_PROGRAM_ID) throw fail('IncorrectProgramId');
  if (dest.account.data.length !== STAKE_STATE_SIZE) throw fail('InvalidAccountData');
  if (stateOf(dest).kind !== 'uninitialized') throw fail('InvalidAccountData');
  const destBalance = dest.account.lamports;
  const source = accountAt(ctx, 0);
  if (lamports > source.account.lamports) throw fail('InsufficientFunds');
  const s = stateOf(source);

  /** validate_split_amount */
  const validate = (meta: Meta, additionalRequired: number, sourceIsActive: boolean) => {
    const sourceLamports = source.account.lamports;
    if (lamports === 0) throw fail('InsufficientFunds');
    if (lamports > sourceLamports) throw fail('InsufficientFunds');
    const sourceRemaining = sourceLamports - lamports;
    if (sourceRemaining !== 0 && sourceRemaining < meta.rentExemptReserve + additionalRequired) throw fail('InsufficientFunds');
    const destReserve = ctx.minimumBalance(dest.account.data.length);
    if (sourceIsActive && sourceRemaining !== 0 && destBalance < destReserve) throw fail('InsufficientFunds');
    if (lamports < Math.max(0, destReserve + additionalRequired - destBalance)) throw fail('InsufficientFunds');
    return { sourceRemaining, destReserve };
  };

  if (s.kind === 'stake') {
    checkAuthorized(s.meta, signers, 'staker');
    const isActive = effectiveStake(s.stake.delegation, ctx.sysvars.clock.epoch, history(ctx)) > 0;
    const v = validate(s.meta, MINIMUM_DELEGATION, isActive);
    let remainingDelta: number;
    let splitStake: number;
    if (v.sourceRemaining === 0) {
      remainingDelta = Math.max(0, lamports - s.meta.rentExemptReserve);
      splitStake = remainingDelta;
    } else {
      if (Math.max(0, s.stake.delegation.stake - lamports) < MINIMUM_DELEGATION) throw stakeError(StakeError.InsufficientDelegation);
      remainingDelta = lamports;
      splitStake = Math.max(0, lamports - Math.max(0, v.destReserve - destBalance));
    }
    if (splitStake < MINIMUM_DELEGATION) throw stakeError(StakeError.InsufficientDelegation);
    if (remainingDelta > s.stake.delegation.stake) throw stakeError(StakeError.InsufficientStake);
    s.stake.delegation.stake -= remainingDelta;
    const destStake: Stake = { delegation: { ...s.stake.delegation, stake: splitStake, reserved: s.stake.delegation.reserved.slice() }, creditsObserved: s.stake.creditsObserved };
    setState(source, s);
    setState(dest, { kind: 'stake', meta: { ...s.meta, lockup: { ...s.meta.lockup }, rentExemptReserve: v.destReserve }, stake: destStake, flags: s.flags });
  } else if (s.kind === 'initialized') {
    checkAuthorized(s.meta, signers, 'staker');
    const v = validate(s.meta, 0, false);
    setState(dest, { kind: 'initialized', meta: { ...s.meta, lockup: { ...s.meta.lockup }, rentExemptReserve: v.destReserve } });
  } else if (s.kind === 'uninitialized') {
    if (!signers.has(source.key)) throw fail('MissingRequiredSignature');
  } else {
    throw fail('InvalidAccountData');
  }
  if (lamports === source.account.lamports) setState(source, { kind: 'uninitialized' });
  addLamports(dest, lamports);
  subLamports(source, STAKE_PROGRAM_ID, lamports);
}

// ---- withdraw ------------------------------------------------------------------------------------------

function withdraw(ctx: InstructionContext, lamports: bigint): void {
  const authority = accountAt(ctx, 4);
  if (!authority.isSigner) throw fail('MissingRequiredSignature');
  const signers = new Set([authority.key]);
  const ia = accountAt(ctx, 0);
  const clock = ctx.sysvars.clock;
  const s = stateOf(ia);
  let lockup: Lockup;
  let reserve: number;
  let isStaked: boolean;
  if (s.kind === 'stake') {
    checkAuthorized(s.meta, signers, 'withdrawer');
    const d = s.stake.delegation;
    const staked = clock.epoch >= d.deactivationEpoch ? effectiveStake(d, clock.epoch, history(ctx)) : d.stake;
    lockup = s.meta.lockup;
    reserve = staked + s.meta.rentExemptReserve;
    isStaked = staked !== 0;
  } else if (s.kind === 'initialized') {
    checkAuthorized(s.meta, signers, 'withdrawer');
    lockup = s.meta.lockup;
    reserve = s.meta.rentExemptReserve;
    isStaked = false;
  } else if (s.kind === 'uninitialized') {
    if (!signers.has(ia.key)) throw fail('MissingRequiredSignature');
    lockup = defaultLockup();
    reserve = 0;
    isStaked = false;
  } else {
    throw fail('InvalidAccountData');
  }
  const custodianIa = ctx.accounts[5];
  const custodian = custodianIa && custodianIa.isSigner ? custodianIa.key : null;
  if (lockupInForce(lockup, clock, custodian)) throw stakeError(StakeError.LockupInForce);
  const amount = lamportsArg(lamports, 'InsufficientFunds');
  const balance = ia.account.lamports;
  const amountAndReserve = amount + reserve;
  if (isStaked && amountAndReserve > balance) throw fail('InsufficientFunds');
  if (amount !== balance && amountAndReserve > balance) throw fail('InsufficientFunds');
  if (amount === balance) setState(ia, { kind: 'uninitialized' });
  subLamports(ia, STAKE_PROGRAM_ID, amount);
  addLamports(accountAt(ctx, 1), amount);
}

// ---- merge -----------------------------------------------------------------------------------------------

type MergeKind =
  | { kind: 'inactive'; meta: Meta; lamports: number; flags: number }
  | { kind: 'activationEpoch'; meta: Meta; stake: Stake; flags: number }
  | { kind: 'fullyActive'; meta: Meta; stake: Stake };

function mergeKindOf(ctx: InstructionContext, s: StakeState, lamports: number): MergeKind {
  if (s.kind === 'initialized') return { kind: 'inactive', meta: s.meta, lamports, flags: 0 };
  if (s.kind !== 'stake') throw fail('InvalidAccountData');
  const st = stakeActivatingAndDeactivating(s.stake.delegation, ctx.sysvars.clock.epoch, history(ctx));
  if (st.effective === 0 && st.activating === 0 && st.deactivating === 0) return { kind: 'inactive', meta: s.meta, lamports, flags: s.flags };
  if (st.effective === 0) return { kind: 'activationEpoch', meta: s.meta, stake: s.stake, flags: s.flags };
  if (st.activating === 0 && st.deactivating === 0) return { kind: 'fullyActive', meta: s.meta, stake: s.stake };
  ctx.log('stake account with transient stake cannot be merged');
  throw stakeError(StakeError.MergeTransientStake);
}

const sameLockup = (a: Lockup, b: Lockup) => a.unixTimestamp === b.unixTimestamp && a.epoch === b.epoch && a.custodian === b.custodian;

function mergeStakeAndCredits(stake: Stake, absorbedLamports: number, absorbedCredits: number): void {
  if (stake.creditsObserved !== absorbedCredits) {
    const total = BigInt(stake.delegation.stake) + BigInt(absorbedLamports);
    const weighted = BigInt(stake.creditsObserved) * BigInt(stake.delegation.stake) + BigInt(absorbedCredits) * BigInt(absorbedLamports);
    stake.creditsObserved = Number((weighted + total - 1n) / total);
  }
  stake.delegation.stake += absorbedLamports;
}

function merge(ctx: InstructionContext, signers: Set<Address>): void {
  const source = accountAt(ctx, 1);
  if (source.account.owner !== STAKE_PROGRAM_ID) throw fail('IncorrectProgramId');
  const dest = accountAt(ctx, 0);
  if (source.index === dest.index) throw fail('InvalidArgument');
  ctx.log('Checking if destination stake is mergeable');
  const destKind = mergeKindOf(ctx, stateOf(dest), dest.account.lamports);
  checkAuthorized(destKind.meta, signers, 'staker');
  ctx.log('Checking if source stake is mergeable');
  const sourceKind = mergeKindOf(ctx, stateOf(source), source.account.lamports);
  ctx.log('Merging stake accounts');
  const clock = ctx.sysvars.clock;
  const lockupsMerge = sameLockup(destKind.meta.lockup, sourceKind.meta.lockup) || (!lockupInForce(destKind.meta.lockup, clock, null) && !lockupInForce(sourceKind.meta.lockup, clock, null));
  if (destKind.meta.staker !== sourceKind.meta.staker || destKind.meta.withdrawer !== sourceKind.meta.withdrawer || !lockupsMerge) {
    ctx.log('Unable to merge due to metadata mismatch');
    throw stakeError(StakeError.MergeMismatch);
  }
  if (destKind.kind !== 'inactive' && sourceKind.kind !== 'inactive') {
    const a = destKind.stake.delegation;
    const b = sourceKind.stake.delegation;
    if (a.voter !== b.voter) {
      ctx.log('Unable to merge due to voter mismatch');
      throw stakeError(StakeError.MergeMismatch);
    }
    if (a.deactivationEpoch !== EPOCH_MAX || b.deactivationEpoch !== EPOCH_MAX) {
      ctx.log('Unable to merge due to stake deactivation');
      throw stakeError(StakeError.MergeMismatch);
    }
  }
  let merged: StakeState | null;
  if (destKind.kind === 'inactive' && (sourceKind.kind === 'inactive' || sourceKind.kind === 'activationEpoch')) merged = null;
  else if (destKind.kind === 'activationEpoch' && sourceKind.kind === 'inactive') {
    destKind.stake.delegation.stake += sourceKind.lamports;
    merged = { kind: 'stake', meta: destKind.meta, stake: destKind.stake, flags: destKind.flags | sourceKind.flags };
  } else if (destKind.kind === 'activationEpoch' && sourceKind.kind === 'activationEpoch') {
    mergeStakeAndCredits(destKind.stake, sourceKind.meta.rentExemptReserve + sourceKind.stake.delegation.stake, sourceKind.stake.creditsObserved);
    merged = { kind: 'stake', meta: destKind.meta, stake: destKind.stake, flags: destKind.flags | sourceKind.flags };
  } else if (destKind.kind === 'fullyActive' && sourceKind.kind === 'fullyActive') {
    mergeStakeAndCredits(destKind.stake, sourceKind.stake.delegation.stake, sourceKind.stake.creditsObserved);
    merged = { kind: 'stake', meta: destKind.meta, stake: destKind.stake, flags: 0 };
  } else {
    throw stakeError(StakeError.MergeMismatch);
  }
  if (merged) setState(dest, merged);
  setState(source, { kind: 'uninitialized' });
  const lamports = source.account.lamports;
  subLamports(source, STAKE_PROGRAM_ID, lamports);
  addLamports(dest, lamports);
}

// ---- entry -------------------------------------------------------------------------------------------------

function process(ctx: InstructionContext): void {
  let ix;
  try {
    ix = decodeStakeInstruction(ctx.data);
  } catch (e) {
    if (e instanceof DecodeError || e instanceof TypeError || e instanceof RangeError) throw fail('InvalidInstructionData');
    throw e;
  }
  const signers = signersOf(ctx);
  if (ix.type === 'getMinimumDelegation') {
    ctx.setReturnData?.(new ByteWriter(8).u64(MINIMUM_DELEGATION).finish());
    return;
  }
  const me = stakeAccount(ctx, 0);
  switch (ix.type) {
    case 'initialize':
      checkSysvarAccount(ctx, 1, SYSVAR_RENT_ID);
      initialize(ctx, me, ix.staker, ix.withdrawer, ix.lockup);
      return;
    case 'authorize':
      checkSysvarAccount(ctx, 1, SYSVAR_CLOCK_ID);
      checkNumberOfAccounts(ctx, 3);
      authorize(ctx, me, signers, ix.newAuthority, ix.stakeAuthorize, optionalSigner(ctx, 3));
      return;
    case 'authorizeWithSeed':
      checkNumberOfAccounts(ctx, 2);
      checkSysvarAccount(ctx, 2, SYSVAR_CLOCK_ID);
      authorizeWithSeed(ctx, me, 1, ix.seed, ix.owner, ix.newAuthority, ix.stakeAuthorize, optionalSigner(ctx, 3));
      return;
    case 'delegate':
      checkNumberOfAccounts(ctx, 2);
      checkSysvarAccount(ctx, 2, SYSVAR_CLOCK_ID);
      checkSysvarAccount(ctx, 3, SYSVAR_STAKE_HISTORY_ID);
      checkNumberOfAccounts(ctx, 5);
      delegate(ctx, signers);
      return;
    case 'split':
      checkNumberOfAccounts(ctx, 2);
      split(ctx, lamportsArg(ix.lamports, 'InsufficientFunds'), signers);
      return;
    case 'merge':
      checkNumberOfAccounts(ctx, 2);
      checkSysvarAccount(ctx, 2, SYSVAR_CLOCK_ID);
      checkSysvarAccount(ctx, 3, SYSVAR_STAKE_HISTORY_ID);
      merge(ctx, signers);
      return;
    case 'withdraw':
      checkNumberOfAccounts(ctx, 2);
      checkSysvarAccount(ctx, 2, SYSVAR_CLOCK_ID);
      checkSysvarAccount(ctx, 3, SYSVAR_STAKE_HISTORY_ID);
      checkNumberOfAccounts(ctx, 5);
      withdraw(ctx, ix.lamports);
      return;
    case 'deactivate':
      checkSysvarAccount(ctx, 1, SYSVAR_CLOCK_ID);
      deactivate(ctx, me, signers);
      return;
    case 'setLockup':
      setLockup(ctx, me, ix.lockup, signers);
      return;
    case 'initializeChecked': {
      checkNumberOfAccounts(ctx, 4);
      const staker = accountAt(ctx, 2).key;
      const withdrawer = accountAt(ctx, 3);
      if (!withdrawer.isSigner) throw fail('MissingRequiredSignature');
      checkSysvarAccount(ctx, 1, SYSVAR_RENT_ID);
      initialize(ctx, me, staker, withdrawer.key, defaultLockup());
      return;
    }
    case 'authorizeChecked': {
      checkSysvarAccount(ctx, 1, SYSVAR_CLOCK_ID);
      checkNumberOfAccounts(ctx, 4);
      const authority = accountAt(ctx, 3);
      if (!authority.isSigner) throw fail('MissingRequiredSignature');
      authorize(ctx, me, signers, authority.key, ix.stakeAuthorize, optionalSigner(ctx, 4));
      return;
    }
    case 'authorizeCheckedWithSeed': {
      checkNumberOfAccounts(ctx, 2);
      checkSysvarAccount(ctx, 2, SYSVAR_CLOCK_ID);
      checkNumberOfAccounts(ctx, 4);
      const authority = accountAt(ctx, 3);
      if (!authority.isSigner) throw fail('MissingRequiredSignature');
      authorizeWithSeed(ctx, me, 1, ix.seed, ix.owner, authority.key, ix.stakeAuthorize, optionalSigner(ctx, 4));
      return;
    }
    case 'setLockupChecked': {
      const custodian = optionalSigner(ctx, 2);
      setLockup(ctx, me, { unixTimestamp: ix.unixTimestamp, epoch: ix.epoch, custodian }, signers);
      return;
    }
    case 'deactivateDelinquent':
      deactivateDelinquent(ctx, me);
      return;
    case 'redelegate':
    case 'moveStake':
    case 'moveLamports':
      throw fail('InvalidInstructionData');
  }
}

export const stakeProgram: Program = {
  id: STAKE_PROGRAM_ID,
  name: 'stake',
  computeUnits: STAKE_COMPUTE_UNITS,
  process,
};
