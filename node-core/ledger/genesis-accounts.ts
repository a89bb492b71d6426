/**
 * Data of the bootstrap validator's vote and stake accounts, in the layouts of Solana's vote and
 * stake programs (VoteState 1.14.11 and StakeState::Stake), so explorers and clients that parse
 * them see a real validator. The programs that change these accounts come with a later issue.
 */
import { ByteWriter } from '../common/bytes.ts';
import { addressToBytes, type Address } from '../common/pubkey.ts';

export const VOTE_STATE_SIZE = 3731;
export const STAKE_STATE_SIZE = 200;
const U64_MAX = (1n << 64n) - 1n;

export function voteStateData(node: Address, withdrawer: Address, commission: number): Uint8Array {
  const w = new ByteWriter(VOTE_STATE_SIZE)
    .u32(1) // VoteStateVersions::V1_14_11
    .bytes(addressToBytes(node))
    .bytes(addressToBytes(withdrawer))
    .u8(commission)
    .u64(0) // votes
    .u8(0) // root_slot: None
    .u64(1) // authorized_voters: {epoch 0: node}
    .u64(0)
    .bytes(addressToBytes(node))
    .bytes(new Uint8Array(32 * 48)) // prior_voters ring buffer
    .u64(31) // its index
    .u8(1) // is_empty
    .u64(0) // epoch_credits
    .u64(0) // last_timestamp.slot
    .i64(0); // last_timestamp.timestamp
  const out = new Uint8Array(VOTE_STATE_SIZE);
  out.set(w.finish());
  return out;
}

export function stakeStateData(p: { rentExemptReserve: number; authority: Address; voter: Address; stake: number }): Uint8Array {
  const rate = new Uint8Array(8);
  new DataView(rate.buffer).setFloat64(0, 0.25, true);
  const w = new ByteWriter(STAKE_STATE_SIZE)
    .u32(2) // StakeState::Stake
    .u64(p.rentExemptReserve)
    .bytes(addressToBytes(p.authority)) // staker
    .bytes(addressToBytes(p.authority)) // withdrawer
    .i64(0) // lockup.unix_timestamp
    .u64(0) // lockup.epoch
    .bytes(new Uint8Array(32)) // lockup.custodian
    .bytes(addressToBytes(p.voter))
    .u64(p.stake)
    .u64(U64_MAX) // activation_epoch: bootstrap stake is active from the start
    .u64(U64_MAX) // deactivation_epoch
    .bytes(rate)
    .u64(0) // credits_observed
    .u8(0); // stake_flags
  const out = new Uint8Array(STAKE_STATE_SIZE);
  out.set(w.finish());
  return out;
}
