/**
 * Snapshots on the native port, for scripts and the explorer's Control page. Surfpool has no
 * snapshot methods of its own (its surfnet_exportSnapshot exports accounts, it does not rewind), so
 * these are Isthmus's, in the id space evm_snapshot shares (rpc/eth/snapshots.ts; evm_snapshot and
 * evm_revert are answered on this port too). Unlike evm_revert, an unknown id is an error here.
 */
import type { ChainSnapshots, Snapshot } from '../../ledger/snapshots.ts';
import { MAX_LABEL_LENGTH } from '../../ledger/snapshots.ts';
import type { RpcContext } from '../context.ts';
import { invalidParams } from '../errors.ts';
import { evmHeadOf, snapshotId, snapshotIdHex, snapshotsOf } from '../eth/snapshots.ts';
import { fail, optional, required, type Parse } from '../params.ts';
import { method } from './method.ts';
import { gated } from '../chain-control-gate.ts';

/** A snapshot as the native methods show it. */
export interface SnapshotJson {
  /** The id evm_revert and isthmus_revert take (a hex quantity, as evm_snapshot answers). */
  id: string;
  label: string | null;
  /** The native slot it returns to, with that slot's block height and block time (unix seconds). */
  slot: number;
  blockHeight: number;
  blockTime: number;
  /** The newest EVM block then. */
  evmBlockNumber: number | null;
  evmBlockHash: string | null;
  /** When it was taken (unix milliseconds). */
  takenAt: number;
}

export interface SnapshotRevertJson {
  /** The snapshot reverted to (deleted now, with every later one). */
  snapshot: SnapshotJson;
  /** How many stored slots the revert discarded. */
  discardedSlots: number;
}

export function snapshotJson(s: Snapshot): SnapshotJson {
  const head = evmHeadOf(s);
  return { id: snapshotIdHex(s.id), label: s.label, slot: s.slot, blockHeight: s.blockHeight, blockTime: s.blockTime, evmBlockNumber: head?.number ?? null, evmBlockHash: head?.hash ?? null, takenAt: s.takenAt };
}

const label: Parse<string | null, string | null> = (v, name) => {
  if (v === null) return null;
  if (typeof v !== 'string') return fail(name, 'a string or null', v);
  if (v.length > MAX_LABEL_LENGTH) throw invalidParams(`Invalid params: ${name} is longer than ${MAX_LABEL_LENGTH} characters`);
  return v;
};
const id: Parse<number, string | number> = snapshotId;

const unknownSnapshot = (n: number) => invalidParams(`Invalid params: snapshot ${snapshotIdHex(n)} does not exist (never taken, deleted, or removed by a revert or a reset)`);
const snapshots = (ctx: RpcContext): ChainSnapshots => snapshotsOf(ctx);

export const isthmus_snapshot = gated('isthmus_snapshot', method([optional('label', label)], async ([l], ctx): Promise<SnapshotJson> => snapshotJson(await snapshots(ctx).take(l ?? null))));

export const isthmus_revert = gated('isthmus_revert', method([required('id', id)], async ([n], ctx): Promise<SnapshotRevertJson> => {
  const outcome = await snapshots(ctx).revert(n);
  if (!('reverted' in outcome)) throw unknownSnapshot(n);
  return { snapshot: snapshotJson(outcome.reverted), discardedSlots: outcome.discardedSlots };
}));

export const isthmus_getSnapshots = gated('isthmus_getSnapshots', method([], (_, ctx): SnapshotJson[] => snapshots(ctx).list().map(snapshotJson)));

export const isthmus_labelSnapshot = gated('isthmus_labelSnapshot', method([required('id', id), required('label', label)], async ([n, l], ctx): Promise<SnapshotJson> => {
  const s = await snapshots(ctx).label(n, l);
  if (!s) throw unknownSnapshot(n);
  return snapshotJson(s);
}));

export const isthmus_deleteSnapshot = gated('isthmus_deleteSnapshot', method([required('id', id)], async ([n], ctx): Promise<boolean> => {
  if (!(await snapshots(ctx).delete(n))) throw unknownSnapshot(n);
  return true;
}));
