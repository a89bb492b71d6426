/**
 * The Control page's calls, through the node's chain-control methods like any client: Isthmus's
 * snapshot methods (isthmus_snapshot, isthmus_revert, …) and Surfpool's clock methods
 * (surfnet_pauseClock, surfnet_resumeClock, surfnet_timeTravel) on the native port. The page checks
 * only the form of what is typed; whether it makes sense (a time in the past, an id that is gone) is
 * the node's to say, and its error is shown as it answers.
 */
import { writable } from 'svelte/store';
import { dateTime } from './format.ts';
import { errorText, type RpcClient } from './rpc.ts';
import { groupDigits } from './units.ts';

/** A snapshot as isthmus_getSnapshots answers it. */
export interface SnapshotInfo {
  /** Hex quantity, as evm_snapshot answers. */
  id: string;
  label: string | null;
  slot: number;
  blockHeight: number;
  /** Unix seconds. */
  blockTime: number;
  evmBlockNumber: number | null;
  evmBlockHash: string | null;
  /** Unix milliseconds. */
  takenAt: number;
}

export interface RevertOutcome {
  snapshot: SnapshotInfo;
  discardedSlots: number;
}

/** What the calls need of a Connection: the node's JSON-RPC client. */
export interface ControlSource {
  rpc: RpcClient;
}

/** What the Control page shows. */
export interface ControlView {
  snapshots: SnapshotInfo[];
  clockPaused: boolean;
  /** The processed slot and its epoch. */
  slot: number;
  epoch: number;
}

/** What was typed cannot be sent (the node is not asked). */
export class ControlInputError extends Error {}

export type TravelKind = 'slot' | 'epoch' | 'timestamp' | 'date';
export type TimeTravelConfig = { absoluteSlot: number } | { absoluteEpoch: number } | { absoluteTimestamp: number };

function wholeNumber(text: string, what: string): number {
  const t = text.trim().replace(/[,_\s]/g, '');
  if (t === '') throw new ControlInputError(`Enter ${what}`);
  if (!/^\d+$/.test(t)) throw new ControlInputError(`${what[0]!.toUpperCase()}${what.slice(1)} is a whole number, not ${JSON.stringify(text.trim())}`);
  const n = Number(t);
  if (!Number.isSafeInteger(n)) throw new ControlInputError(`${text.trim()} is too large`);
  return n;
}

/**
 * surfnet_timeTravel's config for what was typed: a slot, an epoch, a unix timestamp in seconds or a
 * date and time (an <input type="datetime-local"> value, read in this browser's time zone). The node
 * takes the timestamp in milliseconds.
 */
export function timeTravelConfig(kind: TravelKind, text: string): TimeTravelConfig {
  switch (kind) {
    case 'slot':
      return { absoluteSlot: wholeNumber(text, 'a slot') };
    case 'epoch':
      return { absoluteEpoch: wholeNumber(text, 'an epoch') };
    case 'timestamp': {
      const seconds = wholeNumber(text, 'a unix timestamp (seconds)');
      if (!Number.isSafeInteger(seconds * 1000)) throw new ControlInputError(`${seconds} is too large`);
      return { absoluteTimestamp: seconds * 1000 };
    }
    case 'date': {
      if (text.trim() === '') throw new ControlInputError('Enter a date and time');
      const ms = new Date(text.trim()).getTime();
      if (!Number.isFinite(ms) || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text.trim())) throw new ControlInputError(`${JSON.stringify(text)} is not a date and time`);
      if (ms < 0) throw new ControlInputError('A date before 1970 is not a unix time');
      return { absoluteTimestamp: ms };
    }
  }
}

/** A snapshot id as typed (decimal, or hex with 0x) → the hex quantity the node answers ids as. */
export function parseSnapshotId(text: string): string {
  const t = text.trim();
  if (/^0x[0-9a-fA-F]{1,13}$/.test(t)) return `0x${BigInt(t).toString(16)}`;
  if (/^\d{1,15}$/.test(t)) return `0x${BigInt(t).toString(16)}`;
  throw new ControlInputError(t === '' ? 'Enter a snapshot id' : `${JSON.stringify(t)} is not a snapshot id (a number, or hex with 0x)`);
}

/** An empty label clears it. */
export const labelOrNull = (text: string): string | null => (text.trim() === '' ? null : text.trim());

export const snapshotName = (s: Pick<SnapshotInfo, 'id' | 'label'>): string => (s.label ? `${s.id} “${s.label}”` : s.id);

export const takenAtText = (s: Pick<SnapshotInfo, 'takenAt'>): string => dateTime(Math.floor(s.takenAt / 1000));

export function describeRevert(o: RevertOutcome): string {
  const n = o.discardedSlots;
  return `Reverted to snapshot ${snapshotName(o.snapshot)} at slot ${groupDigits(o.snapshot.slot)}: ${groupDigits(n)} stored slot${n === 1 ? '' : 's'} discarded`;
}

export async function fetchControlView(c: ControlSource): Promise<ControlView> {
  const [snapshots, info, epoch] = await Promise.all([
    c.rpc.call<SnapshotInfo[]>('isthmus_getSnapshots'),
    c.rpc.call<{ clockPaused?: boolean }>('isthmus_getNodeInfo'),
    c.rpc.call<{ absoluteSlot: number; epoch: number }>('getEpochInfo', [{ commitment: 'processed' }]),
  ]);
  return { snapshots, clockPaused: info.clockPaused === true, slot: epoch.absoluteSlot, epoch: epoch.epoch };
}

export const takeSnapshot = (c: ControlSource, label: string): Promise<SnapshotInfo> => c.rpc.call('isthmus_snapshot', [labelOrNull(label)]);
export const labelSnapshot = (c: ControlSource, id: string, label: string): Promise<SnapshotInfo> => c.rpc.call('isthmus_labelSnapshot', [id, labelOrNull(label)]);
export const revertToSnapshot = (c: ControlSource, id: string): Promise<RevertOutcome> => c.rpc.call('isthmus_revert', [id]);
export const deleteSnapshot = (c: ControlSource, id: string): Promise<boolean> => c.rpc.call('isthmus_deleteSnapshot', [id]);

export interface EpochInfo {
  absoluteSlot: number;
  epoch: number;
}
export const pauseClock = (c: ControlSource): Promise<EpochInfo> => c.rpc.call('surfnet_pauseClock', []);
export const resumeClock = (c: ControlSource): Promise<EpochInfo> => c.rpc.call('surfnet_resumeClock', []);
export const timeTravel = (c: ControlSource, config: TimeTravelConfig): Promise<EpochInfo> => c.rpc.call('surfnet_timeTravel', [config]);

/**
 * The outcome of the page's last revert. A revert makes the explorer reload the page shown (see
 * status.ts, rewinds), the Control page with it, so the outcome is kept here to be shown after.
 */
export const lastRevert = writable<string | null>(null);

/** The message to show for a failed action: what the node answered, or what is wrong with the input. */
export const actionError = (e: unknown): string => (e instanceof ControlInputError ? e.message : errorText(e));
