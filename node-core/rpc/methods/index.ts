/**
 * The native JSON-RPC method table: one function per method, 1.5-era names beside today's. The
 * compiler checks each against its type in ./api.ts (@solana/kit's for the standard methods).
 */
import { checkedTable } from './api.ts';
import * as accounts from './accounts.ts';
import * as blocks from './blocks.ts';
import * as cluster from './cluster.ts';
import * as fees from './fees.ts';
import * as transactions from './transactions.ts';
import * as tokens from './tokens.ts';
import * as isthmus from './isthmus.ts';
import * as snapshots from './snapshots.ts';
import * as staking from './staking.ts';
import * as surfnet from './surfnet.ts';

export const nativeMethods = checkedTable({
  // accounts and balances
  getAccountInfo: accounts.getAccountInfo,
  getBalance: accounts.getBalance,
  getMultipleAccounts: accounts.getMultipleAccounts,
  getProgramAccounts: accounts.getProgramAccounts,
  getMinimumBalanceForRentExemption: accounts.getMinimumBalanceForRentExemption,
  getLargestAccounts: accounts.getLargestAccounts,
  getSupply: accounts.getSupply,
  requestAirdrop: accounts.requestAirdrop,
  // blocks, slots, ledger
  getSlot: cluster.getSlot,
  getBlockHeight: cluster.getBlockHeight,
  getSlotLeader: cluster.getSlotLeader,
  getSlotLeaders: cluster.getSlotLeaders,
  getLeaderSchedule: cluster.getLeaderSchedule,
  getBlockCommitment: blocks.getBlockCommitment,
  getBlockTime: blocks.getBlockTime,
  getBlock: blocks.getBlock,
  getConfirmedBlock: blocks.getConfirmedBlock,
  getBlocks: blocks.getBlocks,
  getConfirmedBlocks: blocks.getConfirmedBlocks,
  getBlocksWithLimit: blocks.getBlocksWithLimit,
  getConfirmedBlocksWithLimit: blocks.getConfirmedBlocksWithLimit,
  getSignaturesForAddress: blocks.getSignaturesForAddress,
  getConfirmedSignaturesForAddress: blocks.getConfirmedSignaturesForAddress,
  getConfirmedSignaturesForAddress2: blocks.getConfirmedSignaturesForAddress2,
  getTransaction: blocks.getTransaction,
  getConfirmedTransaction: blocks.getConfirmedTransaction,
  getSignatureStatuses: blocks.getSignatureStatuses,
  getFirstAvailableBlock: cluster.getFirstAvailableBlock,
  minimumLedgerSlot: cluster.minimumLedgerSlot,
  getMaxRetransmitSlot: cluster.getMaxRetransmitSlot,
  getMaxShredInsertSlot: cluster.getMaxShredInsertSlot,
  getSnapshotSlot: cluster.getSnapshotSlot,
  getHighestSnapshotSlot: cluster.getHighestSnapshotSlot,
  getTransactionCount: cluster.getTransactionCount,
  getGenesisHash: cluster.getGenesisHash,
  getBlockProduction: cluster.getBlockProduction,
  // fees and blockhashes
  getRecentBlockhash: fees.getRecentBlockhash,
  getLatestBlockhash: fees.getLatestBlockhash,
  getFees: fees.getFees,
  getFeeCalculatorForBlockhash: fees.getFeeCalculatorForBlockhash,
  getFeeRateGovernor: fees.getFeeRateGovernor,
  getFeeForMessage: fees.getFeeForMessage,
  isBlockhashValid: fees.isBlockhashValid,
  getRecentPrioritizationFees: fees.getRecentPrioritizationFees,
  // cluster, epoch, identity
  getClusterNodes: cluster.getClusterNodes,
  getEpochInfo: cluster.getEpochInfo,
  getEpochSchedule: cluster.getEpochSchedule,
  getHealth: cluster.getHealth,
  getIdentity: cluster.getIdentity,
  getVersion: cluster.getVersion,
  getInflationGovernor: cluster.getInflationGovernor,
  getInflationRate: cluster.getInflationRate,
  getRecentPerformanceSamples: cluster.getRecentPerformanceSamples,
  // submission
  sendTransaction: transactions.sendTransaction,
  simulateTransaction: transactions.simulateTransaction,
  // SPL Token
  getTokenAccountBalance: tokens.getTokenAccountBalance,
  getTokenSupply: tokens.getTokenSupply,
  getTokenLargestAccounts: tokens.getTokenLargestAccounts,
  getTokenAccountsByOwner: tokens.getTokenAccountsByOwner,
  getTokenAccountsByDelegate: tokens.getTokenAccountsByDelegate,
  // Isthmus's own (the explorer's node info and dev accounts)
  isthmus_getNodeInfo: isthmus.isthmus_getNodeInfo,
  isthmus_getDevAccounts: isthmus.isthmus_getDevAccounts,
  isthmus_snapshot: snapshots.isthmus_snapshot,
  isthmus_revert: snapshots.isthmus_revert,
  isthmus_getSnapshots: snapshots.isthmus_getSnapshots,
  isthmus_labelSnapshot: snapshots.isthmus_labelSnapshot,
  isthmus_deleteSnapshot: snapshots.isthmus_deleteSnapshot,
  // stake, vote and inflation rewards
  getStakeActivation: staking.getStakeActivation,
  getStakeMinimumDelegation: staking.getStakeMinimumDelegation,
  getInflationReward: staking.getInflationReward,
  getVoteAccounts: staking.getVoteAccounts,
  // Surfpool's cheatcodes (chain control, behind the gate of rpc/chain-control-gate.ts)
  surfnet_setAccount: surfnet.surfnet_setAccount,
  surfnet_setTokenAccount: surfnet.surfnet_setTokenAccount,
  surfnet_timeTravel: surfnet.surfnet_timeTravel,
  surfnet_pauseClock: surfnet.surfnet_pauseClock,
  surfnet_resumeClock: surfnet.surfnet_resumeClock,
  surfnet_resetNetwork: surfnet.surfnet_resetNetwork,
});
