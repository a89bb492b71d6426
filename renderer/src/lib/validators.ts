/** The validators page's data: vote accounts with their stake and credits, and each identity's block production this epoch. */
import type { RpcClient } from './rpc.ts';
import { unwrap } from './rpc.ts';

export interface RpcVoteAccount {
  votePubkey: string;
  nodePubkey: string;
  activatedStake: number;
  commission: number;
  lastVote: number;
  rootSlot: number;
  epochCredits: Array<[number, number, number]>;
}

export interface ValidatorRow {
  identity: string;
  vote: string;
  stake: number;
  /** Share of the active stake, 0..1. */
  share: number;
  commission: number;
  lastVote: number;
  /** Vote credits earned in the current epoch. */
  credits: number;
  delinquent: boolean;
  /** Leader slots so far this epoch and blocks made in them (null: the identity led none). */
  leaderSlots: number | null;
  blocks: number | null;
  thisNode: boolean;
}

export interface ValidatorsView {
  epoch: number;
  slotIndex: number;
  slotsInEpoch: number;
  totalStake: number;
  rows: ValidatorRow[];
}

/** Rows by stake, largest first, then by vote account. */
export function validatorRows(
  accounts: { current: RpcVoteAccount[]; delinquent: RpcVoteAccount[] },
  production: Record<string, [number, number]>,
  epoch: number,
  self: string | null,
): { rows: ValidatorRow[]; totalStake: number } {
  const all = [...accounts.current.map((a) => ({ a, delinquent: false })), ...accounts.delinquent.map((a) => ({ a, delinquent: true }))];
  const totalStake = all.reduce((n, { a }) => n + a.activatedStake, 0);
  const rows = all.map(({ a, delinquent }) => {
    const entry = a.epochCredits.find(([e]) => e === epoch);
    const produced = production[a.nodePubkey];
    return {
      identity: a.nodePubkey,
      vote: a.votePubkey,
      stake: a.activatedStake,
      share: totalStake > 0 ? a.activatedStake / totalStake : 0,
      commission: a.commission,
      lastVote: a.lastVote,
      credits: entry ? entry[1] - entry[2] : 0,
      delinquent,
      leaderSlots: produced ? produced[0] : null,
      blocks: produced ? produced[1] : null,
      thisNode: a.nodePubkey === self,
    };
  });
  rows.sort((x, y) => y.stake - x.stake || (x.vote < y.vote ? -1 : 1));
  return { rows, totalStake };
}

/** Skipped share of an identity's leader slots, 0..1; null when it led none. */
export const skipRate = (r: Pick<ValidatorRow, 'leaderSlots' | 'blocks'>): number | null =>
  r.leaderSlots ? (r.leaderSlots - (r.blocks ?? 0)) / r.leaderSlots : null;

export async function fetchValidators(rpc: RpcClient): Promise<ValidatorsView> {
  const [info, accounts, production, identity] = unwrap<[any, { current: RpcVoteAccount[]; delinquent: RpcVoteAccount[] }, any, { identity: string }]>(
    await rpc.batch([
      ['getEpochInfo', [{ commitment: 'confirmed' }]],
      ['getVoteAccounts', [{ commitment: 'confirmed' }]],
      ['getBlockProduction', [{ commitment: 'confirmed' }]],
      ['getIdentity', []],
    ]),
  );
  const { rows, totalStake } = validatorRows(accounts, production.value.byIdentity, info.epoch, identity.identity);
  return { epoch: info.epoch, slotIndex: info.slotIndex, slotsInEpoch: info.slotsInEpoch, totalStake, rows };
}
