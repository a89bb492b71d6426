/** StakeInstruction in its bincode encoding (solana-stake-interface instruction.rs), as web3.js's StakeProgram emits it. */
import { ByteReader, DecodeError } from '../../../common/bytes.ts';
import { bytesToAddress, type Address } from '../../../common/pubkey.ts';
import { EPOCH_MAX, U64_MAX, type Lockup } from './state.ts';

export type StakeAuthorize = 'staker' | 'withdrawer';

export interface LockupArgs {
  unixTimestamp: number | null;
  epoch: number | null;
  custodian: Address | null;
}

export type StakeInstruction =
  | { type: 'initialize'; staker: Address; withdrawer: Address; lockup: Lockup }
  | { type: 'authorize'; newAuthority: Address; stakeAuthorize: StakeAuthorize }
  | { type: 'delegate' }
  | { type: 'split'; lamports: bigint }
  | { type: 'withdraw'; lamports: bigint }
  | { type: 'deactivate' }
  | { type: 'setLockup'; lockup: LockupArgs }
  | { type: 'merge' }
  | { type: 'authorizeWithSeed'; newAuthority: Address; stakeAuthorize: StakeAuthorize; seed: string; owner: Address }
  | { type: 'initializeChecked' }
  | { type: 'authorizeChecked'; stakeAuthorize: StakeAuthorize }
  | { type: 'authorizeCheckedWithSeed'; stakeAuthorize: StakeAuthorize; seed: string; owner: Address }
  | { type: 'setLockupChecked'; unixTimestamp: number | null; epoch: number | null }
  | { type: 'getMinimumDelegation' }
  | { type: 'deactivateDelinquent' }
  | { type: 'redelegate' }
  | { type: 'moveStake'; lamports: bigint }
  | { type: 'moveLamports'; lamports: bigint };

function stakeAuthorize(r: ByteReader): StakeAuthorize {
  const t = r.u32();
  if (t === 0) return 'staker';
  if (t === 1) return 'withdrawer';
  throw new DecodeError(`StakeAuthorize ${t}`);
}

const epochOf = (v: bigint) => (v === U64_MAX ? EPOCH_MAX : Number(v));

function option<T>(r: ByteReader, read: () => T): T | null {
  const tag = r.u8();
  if (tag === 0) return null;
  if (tag !== 1) throw new DecodeError(`Option tag ${tag}`);
  return read();
}

function readString(r: ByteReader): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(r.bincodeBytes());
}

/** Throws DecodeError (or a TextDecoder error) for data that is not a StakeInstruction. */
export function decodeStakeInstruction(data: Uint8Array): StakeInstruction {
  const r = new ByteReader(data);
  const tag = r.u32();
  switch (tag) {
    case 0: {
      const staker = bytesToAddress(r.bytesN(32));
      const withdrawer = bytesToAddress(r.bytesN(32));
      const unixTimestamp = Number(r.i64());
      const epoch = epochOf(r.u64());
      return { type: 'initialize', staker, withdrawer, lockup: { unixTimestamp, epoch, custodian: bytesToAddress(r.bytesN(32)) } };
    }
    case 1:
      return { type: 'authorize', newAuthority: bytesToAddress(r.bytesN(32)), stakeAuthorize: stakeAuthorize(r) };
    case 2:
      return { type: 'delegate' };
    case 3:
      return { type: 'split', lamports: r.u64() };
    case 4:
      return { type: 'withdraw', lamports: r.u64() };
    case 5:
      return { type: 'deactivate' };
    case 6:
      return {
        type: 'setLockup',
        lockup: {
          unixTimestamp: option(r, () => Number(r.i64())),
          epoch: option(r, () => epochOf(r.u64())),
          custodian: option(r, () => bytesToAddress(r.bytesN(32))),
        },
      };
    case 7:
      return { type: 'merge' };
    case 8: {
      const newAuthority = bytesToAddress(r.bytesN(32));
      const sa = stakeAuthorize(r);
      const seed = readString(r);
      return { type: 'authorizeWithSeed', newAuthority, stakeAuthorize: sa, seed, owner: bytesToAddress(r.bytesN(32)) };
    }
    case 9:
      return { type: 'initializeChecked' };
    case 10:
      return { type: 'authorizeChecked', stakeAuthorize: stakeAuthorize(r) };
    case 11: {
      const sa = stakeAuthorize(r);
      const seed = readString(r);
      return { type: 'authorizeCheckedWithSeed', stakeAuthorize: sa, seed, owner: bytesToAddress(r.bytesN(32)) };
    }
    case 12:
      return { type: 'setLockupChecked', unixTimestamp: option(r, () => Number(r.i64())), epoch: option(r, () => epochOf(r.u64())) };
    case 13:
      return { type: 'getMinimumDelegation' };
    case 14:
      return { type: 'deactivateDelinquent' };
    case 15:
      return { type: 'redelegate' };
    case 16:
      return { type: 'moveStake', lamports: r.u64() };
    case 17:
      return { type: 'moveLamports', lamports: r.u64() };
    default:
      throw new DecodeError(`StakeInstruction ${tag}`);
  }
}
