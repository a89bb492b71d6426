/**
 * The one gate of the methods that edit the chain (state edits, time, mining, snapshots and revert):
 * they answer only on a node bound to a loopback address, unless it was started with
 * --allow-chain-control. Any other caller gets CHAIN_CONTROL_REFUSED. Both ports' tables wrap their
 * chain-control methods with `gated`, and isthmus_getNodeInfo reports `allowed` so the explorer shows
 * its controls only then.
 */
import { RpcError } from './errors.ts';

/** Isthmus's own code for a chain-control method the node refuses. */
export const CHAIN_CONTROL_REFUSED = -32091;

export const CHAIN_CONTROL_FLAG = '--allow-chain-control';

export function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || /^127\./.test(address);
}

export class ChainControlGate {
  constructor(
    readonly bindAddress: string,
    /** --allow-chain-control: the node answers them on any bind address. */
    readonly explicitlyAllowed = false,
  ) {}

  get allowed(): boolean {
    return this.explicitlyAllowed || isLoopback(this.bindAddress);
  }

  /** Throws the refusal when the node does not allow `method`. */
  check(method: string): void {
    if (this.allowed) return;
    throw new RpcError(
      CHAIN_CONTROL_REFUSED,
      `${method} edits the chain: this node listens on ${this.bindAddress}, not a loopback address, and was not started with ${CHAIN_CONTROL_FLAG}`,
    );
  }
}

/** What a context must carry for its methods to be gated. */
export interface ChainControlContext {
  chainControl?: ChainControlGate;
}

/**
 * `fn` behind the gate: the check runs before the params are read, so a refused call learns nothing.
 * A context without a gate (a server that did not set one) refuses too. Properties of `fn` (a native
 * method's `params` schema) are kept.
 */
export function gated<F extends (params: unknown, ctx: any, ...rest: any[]) => unknown>(name: string, fn: F): F {
  const wrapper = (params: unknown, ctx: ChainControlContext, ...rest: unknown[]) => {
    if (!ctx.chainControl) throw new RpcError(CHAIN_CONTROL_REFUSED, `${name} is not available on this server`);
    ctx.chainControl.check(name);
    return fn(params, ctx, ...rest);
  };
  return Object.assign(wrapper, fn) as unknown as F;
}
