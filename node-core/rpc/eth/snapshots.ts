/**
 * evm_snapshot and evm_revert (Anvil's anvil_snapshot/anvil_revert beside them) on the EVM port, and
 * the native port through it: one snapshot is the whole chain, both spaces (ledger/snapshots.ts).
 *
 * Answers as Anvil's: ids are hex quantities from 0x0; a revert answers true and deletes that
 * snapshot and every later one; reverting to one of those later ones answers the error
 * "Resource not found" (-32001) when the EVM block it was taken at is gone, else false, and false
 * after that; an id never issued answers false. Nothing changes unless the answer is true.
 */
import { EVM_EXTENSION } from '../../evm/program.ts';
import type { EvmSpaceMeta } from '../../evm/space.ts';
import type { ChainSnapshots, Snapshot } from '../../ledger/snapshots.ts';
import type { MethodTable } from '../dispatcher.ts';
import { RpcError } from '../errors.ts';
import { fail, parseParams, required, type Parse } from '../params.ts';
import type { EvmRpcContext } from './context.ts';
import { gated } from '../chain-control-gate.ts';

type Method = (params: unknown, ctx: EvmRpcContext) => unknown;

/** Anvil's code and text for a snapshot whose block no longer exists. */
export const RESOURCE_NOT_FOUND = -32001;

/** A snapshot id as Anvil takes it: a number or a hex quantity (a decimal string too). */
export const snapshotId: Parse<number> = (v, name) => {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]{1,13}|[0-9]{1,15})$/.test(v)) return Number(v);
  return fail(name, 'a snapshot id (a hex quantity or a non-negative integer)', v);
};

export const snapshotIdHex = (id: number): string => `0x${id.toString(16)}`;

/** The EVM block a snapshot was taken at. */
export const evmHeadOf = (s: Snapshot): EvmSpaceMeta['head'] | null => (s.extensions[EVM_EXTENSION] as EvmSpaceMeta | undefined)?.head ?? null;

export function snapshotsOf(ctx: { snapshots?: ChainSnapshots }): ChainSnapshots {
  if (!ctx.snapshots) throw new RpcError(-32601, 'snapshots are not available on this server');
  return ctx.snapshots;
}

const evm_snapshot: Method = async (p, ctx) => {
  parseParams(p, []);
  return snapshotIdHex((await snapshotsOf(ctx).take()).id);
};

const evm_revert: Method = async (p, ctx) => {
  const [id] = parseParams(p, [required('id', snapshotId)]);
  const outcome = await snapshotsOf(ctx).revert(id);
  if ('reverted' in outcome) return true;
  if ('unknown' in outcome) return false;
  const head = evmHeadOf(outcome.gone);
  const block = head ? await ctx.space.block(head.number) : null;
  if (head && block?.hash === head.hash) return false;
  throw new RpcError(RESOURCE_NOT_FOUND, 'Resource not found');
};

export const snapshotMethods: MethodTable<EvmRpcContext> = {
  evm_snapshot: gated('evm_snapshot', evm_snapshot),
  evm_revert: gated('evm_revert', evm_revert),
  anvil_snapshot: gated('anvil_snapshot', evm_snapshot),
  anvil_revert: gated('anvil_revert', evm_revert),
};
