/** VoteInstruction in its bincode encoding (solana-vote-interface instruction.rs): decoding, and the Vote the validator sends. */
import { ByteReader, ByteWriter, DecodeError } from '../../../common/bytes.ts';
import { encodeBase58 } from '../../../common/base58.ts';
import { addressToBytes, bytesToAddress, type Address } from '../../../common/pubkey.ts';

export type VoteAuthorize = 'voter' | 'withdrawer';

export interface Vote {
  slots: number[];
  hash: string;
  timestamp: number | null;
}

export type VoteInstruction =
  | { type: 'initialize'; nodePubkey: Address; authorizedVoter: Address; authorizedWithdrawer: Address; commission: number }
  | { type: 'authorize'; newAuthority: Address; authorizeType: VoteAuthorize }
  | { type: 'vote'; vote: Vote }
  | { type: 'voteSwitch'; vote: Vote; hash: string }
  | { type: 'withdraw'; lamports: bigint }
  | { type: 'updateValidatorIdentity' }
  | { type: 'updateCommission'; commission: number }
  | { type: 'authorizeChecked'; authorizeType: VoteAuthorize }
  | { type: 'authorizeWithSeed'; authorizeType: VoteAuthorize; ownerProgram: Address; seed: string; newAuthority: Address }
  | { type: 'authorizeCheckedWithSeed'; authorizeType: VoteAuthorize; ownerProgram: Address; seed: string }
  /** UpdateVoteState, CompactUpdateVoteState, TowerSync and their Switch forms: a whole proposed tower. */
  | { type: 'towerUpdate'; name: TowerUpdateName; update: TowerUpdate; switchHash?: string };

export type TowerUpdateName = 'updateVoteState' | 'updateVoteStateSwitch' | 'compactUpdateVoteState' | 'compactUpdateVoteStateSwitch' | 'towerSync' | 'towerSyncSwitch';

export interface TowerUpdate {
  /** Oldest first. */
  lockouts: Array<{ slot: number; confirmationCount: number }>;
  root: number | null;
  hash: string;
  timestamp: number | null;
  /** TowerSync only. */
  blockId?: string;
}

const U64_MAX = 18446744073709551615n;

/** VoteStateUpdate: lockouts as a bincode VecDeque, root and timestamp as Options. */
function readVoteStateUpdate(r: ByteReader): TowerUpdate {
  const n = Number(r.u64());
  if (n > 1024) throw new DecodeError('too many lockouts');
  const lockouts: TowerUpdate['lockouts'] = [];
  for (let i = 0; i < n; i++) lockouts.push({ slot: Number(r.u64()), confirmationCount: r.u32() });
  const root = r.u8() === 1 ? Number(r.u64()) : null;
  const hash = encodeBase58(r.bytesN(32));
  const timestamp = r.u8() === 1 ? Number(r.i64()) : null;
  return { lockouts, root, hash, timestamp };
}

/** serde_varint's u64: 7 bits a byte, least significant first. */
function readVarint(r: ByteReader): bigint {
  let v = 0n;
  for (let shift = 0n; shift < 70n; shift += 7n) {
    const b = r.u8();
    v |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return v;
  }
  throw new DecodeError('varint too long');
}

/** The compact forms: root (u64::MAX for none), then slots as offsets from the previous one. */
function readCompact(r: ByteReader, withBlockId: boolean): TowerUpdate {
  const rawRoot = r.u64();
  const root = rawRoot === U64_MAX ? null : Number(rawRoot);
  const n = r.shortVec();
  let slot = BigInt(root ?? 0);
  const lockouts: TowerUpdate['lockouts'] = [];
  for (let i = 0; i < n; i++) {
    slot += readVarint(r);
    lockouts.push({ slot: Number(slot), confirmationCount: r.u8() });
  }
  const hash = encodeBase58(r.bytesN(32));
  const timestamp = r.u8() === 1 ? Number(r.i64()) : null;
  const update: TowerUpdate = { lockouts, root, hash, timestamp };
  if (withBlockId) update.blockId = encodeBase58(r.bytesN(32));
  return update;
}

function authorizeType(r: ByteReader): VoteAuthorize {
  const t = r.u32();
  if (t === 0) return 'voter';
  if (t === 1) return 'withdrawer';
  throw new DecodeError(`VoteAuthorize ${t}`);
}

function readString(r: ByteReader): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(r.bincodeBytes());
}

function readVote(r: ByteReader): Vote {
  const n = Number(r.u64());
  if (n > 1024) throw new DecodeError('too many vote slots');
  const slots: number[] = [];
  for (let i = 0; i < n; i++) slots.push(Number(r.u64()));
  const hash = encodeBase58(r.bytesN(32));
  const timestamp = r.u8() === 1 ? Number(r.i64()) : null;
  return { slots, hash, timestamp };
}

/** Throws DecodeError (or RangeError from TextDecoder) for data that is not a VoteInstruction. */
export function decodeVoteInstruction(data: Uint8Array): VoteInstruction {
  const r = new ByteReader(data);
  const tag = r.u32();
  switch (tag) {
    case 0:
      return { type: 'initialize', nodePubkey: bytesToAddress(r.bytesN(32)), authorizedVoter: bytesToAddress(r.bytesN(32)), authorizedWithdrawer: bytesToAddress(r.bytesN(32)), commission: r.u8() };
    case 1:
      return { type: 'authorize', newAuthority: bytesToAddress(r.bytesN(32)), authorizeType: authorizeType(r) };
    case 2:
      return { type: 'vote', vote: readVote(r) };
    case 3:
      return { type: 'withdraw', lamports: r.u64() };
    case 4:
      return { type: 'updateValidatorIdentity' };
    case 5:
      return { type: 'updateCommission', commission: r.u8() };
    case 6: {
      const vote = readVote(r);
      return { type: 'voteSwitch', vote, hash: encodeBase58(r.bytesN(32)) };
    }
    case 7:
      return { type: 'authorizeChecked', authorizeType: authorizeType(r) };
    case 10: {
      const t = authorizeType(r);
      const ownerProgram = bytesToAddress(r.bytesN(32));
      const seed = readString(r);
      return { type: 'authorizeWithSeed', authorizeType: t, ownerProgram, seed, newAuthority: bytesToAddress(r.bytesN(32)) };
    }
    case 11: {
      const t = authorizeType(r);
      const ownerProgram = bytesToAddress(r.bytesN(32));
      return { type: 'authorizeCheckedWithSeed', authorizeType: t, ownerProgram, seed: readString(r) };
    }
    case 8:
      return { type: 'towerUpdate', name: 'updateVoteState', update: readVoteStateUpdate(r) };
    case 9: {
      const update = readVoteStateUpdate(r);
      return { type: 'towerUpdate', name: 'updateVoteStateSwitch', update, switchHash: encodeBase58(r.bytesN(32)) };
    }
    case 12:
      return { type: 'towerUpdate', name: 'compactUpdateVoteState', update: readCompact(r, false) };
    case 13: {
      const update = readCompact(r, false);
      return { type: 'towerUpdate', name: 'compactUpdateVoteStateSwitch', update, switchHash: encodeBase58(r.bytesN(32)) };
    }
    case 14:
      return { type: 'towerUpdate', name: 'towerSync', update: readCompact(r, true) };
    case 15: {
      const update = readCompact(r, true);
      return { type: 'towerUpdate', name: 'towerSyncSwitch', update, switchHash: encodeBase58(r.bytesN(32)) };
    }
    default:
      throw new DecodeError(`VoteInstruction ${tag}`);
  }
}

/** VoteInstruction::Vote data. */
export function encodeVoteInstruction(vote: Vote): Uint8Array {
  const w = new ByteWriter(64 + vote.slots.length * 8).u32(2).u64(vote.slots.length);
  for (const s of vote.slots) w.u64(s);
  w.bytes(addressToBytes(vote.hash));
  if (vote.timestamp === null) w.u8(0);
  else w.u8(1).i64(vote.timestamp);
  return w.finish();
}
