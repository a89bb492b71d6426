/**
 * A native method: the schema of its positional params and the function that answers them. The
 * dispatcher calls it with the raw params; the schema stays on it, so the compiler can compare what
 * it accepts with the method's API type (./api.ts).
 */
import type { RpcContext } from '../context.ts';
import type { RequestInfo } from '../dispatcher.ts';
import { parseParams, type ParamValues, type Schema } from '../params.ts';

/** `R` is what the answering function returns: the result, or a promise of it. */
export interface NativeMethod<P extends Schema, R> {
  (params: unknown, ctx: RpcContext, request?: RequestInfo): R;
  readonly params: P;
}

/**
 * `answer` gets the params parsed by `params`; `arrange`, when given, first reorders the raw params
 * of a method whose optional parameter may be left out from the middle (the config in its place).
 */
export function method<const P extends Schema, R>(
  params: P,
  answer: (args: ParamValues<P>, ctx: RpcContext, request?: RequestInfo) => R,
  arrange?: (raw: unknown) => unknown,
): NativeMethod<P, R> {
  const call = (raw: unknown, ctx: RpcContext, request?: RequestInfo) => answer(parseParams(arrange ? arrange(raw) : raw, params), ctx, request);
  return Object.assign(call, { params });
}
