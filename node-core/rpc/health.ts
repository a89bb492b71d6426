/**
 * Node health as Agave's RpcHealth judges it with known validators: `ok` without any, or while the
 * node's confirmed slot is above the highest known validator's minus HEALTH_CHECK_SLOT_DISTANCE;
 * `behind` (by how many slots) otherwise; `unknown` when no known validator has answered.
 * getHealth turns the last two into -32005 errors with Agave's messages and `numSlotsBehind` data.
 */
import { NODE_UNHEALTHY, RpcError } from './errors.ts';

/** Solana's HEALTH_CHECK_SLOT_DISTANCE (validator default --health-check-slot-distance). */
export const HEALTH_CHECK_SLOT_DISTANCE = 150;

export type HealthStatus = { kind: 'ok' } | { kind: 'behind'; numSlots: number } | { kind: 'unknown' };

/**
 * `knownHighest`: undefined when no known validators are configured, null when none has a slot.
 */
export function healthStatus(mySlot: number, knownHighest: number | null | undefined, distance = HEALTH_CHECK_SLOT_DISTANCE): HealthStatus {
  if (knownHighest === undefined) return { kind: 'ok' };
  if (knownHighest === null) return { kind: 'unknown' };
  if (mySlot > Math.max(0, knownHighest - distance)) return { kind: 'ok' };
  return { kind: 'behind', numSlots: knownHighest - mySlot };
}

/** The body of GET /health. */
export const healthText = (s: HealthStatus): 'ok' | 'behind' | 'unknown' => (s.kind === 'ok' ? 'ok' : s.kind);

/** getHealth's error for an unhealthy node (RpcCustomError::NodeUnhealthy); null when healthy. */
export function healthError(s: HealthStatus): RpcError | null {
  if (s.kind === 'ok') return null;
  if (s.kind === 'unknown') return new RpcError(NODE_UNHEALTHY, 'Node is unhealthy', { numSlotsBehind: null });
  return new RpcError(NODE_UNHEALTHY, `Node is behind by ${s.numSlots} slots`, { numSlotsBehind: s.numSlots });
}
