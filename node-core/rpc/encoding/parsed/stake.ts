/** jsonParsed for stake accounts and Stake program instructions, in the shapes of Agave's `parse_stake`. */
import { STAKE_PROGRAM_ID } from '../../../common/pubkey.ts';
import { decodeStakeInstruction } from '../../../runtime/programs/stake/instruction.ts';
import { EPOCH_MAX, tryDecodeStakeState, type Lockup, type Meta } from '../../../runtime/programs/stake/state.ts';
import type { AccountParser, InstructionParser } from './types.ts';

const U64_MAX_TEXT = '18446744073709551615';
const epochText = (e: number) => (e === EPOCH_MAX ? U64_MAX_TEXT : String(e));
const epochNumber = (e: number) => (e === EPOCH_MAX ? Number(18446744073709551615n) : e);
const uiLockup = (l: Lockup) => ({ unixTimestamp: l.unixTimestamp, epoch: epochNumber(l.epoch), custodian: l.custodian });
const uiMeta = (m: Meta) => ({ rentExemptReserve: String(m.rentExemptReserve), authorized: { staker: m.staker, withdrawer: m.withdrawer }, lockup: uiLockup(m.lockup) });

export const parseStakeAccount: AccountParser = (_address, account) => {
  if (account.owner !== STAKE_PROGRAM_ID) return null;
  const s = tryDecodeStakeState(account.data);
  if (!s) return null;
  const space = account.data.length;
  switch (s.kind) {
    case 'uninitialized':
      return { program: 'stake', parsed: { type: 'uninitialized' }, space };
    case 'rewardsPool':
      return { program: 'stake', parsed: { type: 'rewardsPool' }, space };
    case 'initialized':
      return { program: 'stake', parsed: { type: 'initialized', info: { meta: uiMeta(s.meta), stake: null } }, space };
    case 'stake': {
      const d = s.stake.delegation;
      const rate = new DataView(d.reserved.buffer, d.reserved.byteOffset, 8).getFloat64(0, true);
      return {
        program: 'stake',
        parsed: {
          type: 'delegated',
          info: {
            meta: uiMeta(s.meta),
            stake: {
              delegation: { voter: d.voter, stake: String(d.stake), activationEpoch: epochText(d.activationEpoch), deactivationEpoch: epochText(d.deactivationEpoch), warmupCooldownRate: rate },
              creditsObserved: s.stake.creditsObserved,
            },
          },
        },
        space,
      };
    }
  }
};

const authorityType = (a: 'staker' | 'withdrawer') => (a === 'staker' ? 'Staker' : 'Withdrawer');
const num = (v: bigint) => Number(v);

export const parseStakeInstruction: InstructionParser = (data, accounts) => {
  const ix = decodeStakeInstruction(data);
  const need = (n: number) => {
    if (accounts.length < n) throw new Error('not enough accounts');
  };
  const a = (i: number) => accounts[i]!;
  switch (ix.type) {
    case 'initialize':
      need(2);
      return { type: 'initialize', info: { stakeAccount: a(0), rentSysvar: a(1), authorized: { staker: ix.staker, withdrawer: ix.withdrawer }, lockup: uiLockup(ix.lockup) } };
    case 'authorize': {
      need(3);
      const info: Record<string, unknown> = { stakeAccount: a(0), clockSysvar: a(1), authority: a(2), newAuthority: ix.newAuthority, authorityType: authorityType(ix.stakeAuthorize) };
      if (accounts.length >= 4) info.custodian = a(3);
      return { type: 'authorize', info };
    }
    case 'delegate':
      need(6);
      return { type: 'delegate', info: { stakeAccount: a(0), voteAccount: a(1), clockSysvar: a(2), stakeHistorySysvar: a(3), stakeConfigAccount: a(4), stakeAuthority: a(5) } };
    case 'split':
      need(3);
      return { type: 'split', info: { stakeAccount: a(0), newSplitAccount: a(1), stakeAuthority: a(2), lamports: num(ix.lamports) } };
    case 'withdraw': {
      need(5);
      const info: Record<string, unknown> = { stakeAccount: a(0), destination: a(1), clockSysvar: a(2), stakeHistorySysvar: a(3), withdrawAuthority: a(4), lamports: num(ix.lamports) };
      if (accounts.length >= 6) info.custodian = a(5);
      return { type: 'withdraw', info };
    }
    case 'deactivate':
      need(3);
      return { type: 'deactivate', info: { stakeAccount: a(0), clockSysvar: a(1), stakeAuthority: a(2) } };
    case 'setLockup': {
      need(2);
      const lockup: Record<string, unknown> = {};
      if (ix.lockup.unixTimestamp !== null) lockup.unixTimestamp = ix.lockup.unixTimestamp;
      if (ix.lockup.epoch !== null) lockup.epoch = epochNumber(ix.lockup.epoch);
      if (ix.lockup.custodian !== null) lockup.custodian = ix.lockup.custodian;
      return { type: 'setLockup', info: { stakeAccount: a(0), custodian: a(1), lockup } };
    }
    case 'merge':
      need(5);
      return { type: 'merge', info: { destination: a(0), source: a(1), clockSysvar: a(2), stakeHistorySysvar: a(3), stakeAuthority: a(4) } };
    case 'authorizeWithSeed': {
      need(2);
      const info: Record<string, unknown> = { stakeAccount: a(0), authorityBase: a(1), newAuthorized: ix.newAuthority, authorityType: authorityType(ix.stakeAuthorize), authoritySeed: ix.seed, authorityOwner: ix.owner };
      if (accounts.length >= 3) info.clockSysvar = a(2);
      if (accounts.length >= 4) info.custodian = a(3);
      return { type: 'authorizeWithSeed', info };
    }
    case 'initializeChecked':
      need(4);
      return { type: 'initializeChecked', info: { stakeAccount: a(0), rentSysvar: a(1), staker: a(2), withdrawer: a(3) } };
    case 'authorizeChecked': {
      need(4);
      const info: Record<string, unknown> = { stakeAccount: a(0), clockSysvar: a(1), authority: a(2), newAuthority: a(3), authorityType: authorityType(ix.stakeAuthorize) };
      if (accounts.length >= 5) info.custodian = a(4);
      return { type: 'authorizeChecked', info };
    }
    case 'authorizeCheckedWithSeed': {
      need(4);
      const info: Record<string, unknown> = { stakeAccount: a(0), authorityBase: a(1), clockSysvar: a(2), newAuthorized: a(3), authorityType: authorityType(ix.stakeAuthorize), authoritySeed: ix.seed, authorityOwner: ix.owner };
      if (accounts.length >= 5) info.custodian = a(4);
      return { type: 'authorizeCheckedWithSeed', info };
    }
    case 'setLockupChecked': {
      need(2);
      const lockup: Record<string, unknown> = {};
      if (ix.unixTimestamp !== null) lockup.unixTimestamp = ix.unixTimestamp;
      if (ix.epoch !== null) lockup.epoch = epochNumber(ix.epoch);
      if (accounts.length >= 3) lockup.custodian = a(2);
      return { type: 'setLockupChecked', info: { stakeAccount: a(0), custodian: a(1), lockup } };
    }
    case 'getMinimumDelegation':
      return { type: 'getMinimumDelegation', info: {} };
    case 'deactivateDelinquent':
      need(3);
      return { type: 'deactivateDelinquent', info: { stakeAccount: a(0), voteAccount: a(1), referenceVoteAccount: a(2) } };
    default:
      return null;
  }
};

/** The stake config account (Config program): Agave's parse_config shows it as `stakeConfig`. */
export const parseStakeConfigAccount: AccountParser = (address, account) => {
  if (address !== 'StakeConfig11111111111111111111111111111111' || account.data.length < 10 || account.data[0] !== 0) return null;
  const view = new DataView(account.data.buffer, account.data.byteOffset, account.data.byteLength);
  return { program: 'config', parsed: { type: 'stakeConfig', info: { warmupCooldownRate: view.getFloat64(1, true), slashPenalty: account.data[9]! } }, space: account.data.length };
};
