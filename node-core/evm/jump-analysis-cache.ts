/**
 * @ethereumjs's interpreter analyses a contract's code (jump destinations, PUSH values, opcode
 * table) on every call into it: a tenth of an eth_call's time here and much of its garbage. The
 * analysis depends only on the code and the EVM's opcode table, so it is cached per EVM and per code
 * object (the flat state hands out one Uint8Array per contract code). The interpreter class is not
 * exported, so it is reached by its file; if a later version moves it, the cache is simply absent.
 */
import { interpreterPrototype } from './interpreter-prototype.ts';

type Analysis = { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] };
interface InterpreterLike {
  _evm: object;
  _getValidJumpDestinations(code: Uint8Array): Analysis;
}

let installed: Promise<boolean> | null = null;

export function installJumpAnalysisCache(): Promise<boolean> {
  return (installed ??= (async () => {
    const proto = await interpreterPrototype<InterpreterLike>();
    if (!proto || typeof proto._getValidJumpDestinations !== 'function') return false;
    const analyse = proto._getValidJumpDestinations;
    const byEvm = new WeakMap<object, WeakMap<Uint8Array, Analysis>>();
    proto._getValidJumpDestinations = function (this: InterpreterLike, code: Uint8Array): Analysis {
      let byCode = byEvm.get(this._evm);
      if (!byCode) byEvm.set(this._evm, (byCode = new WeakMap()));
      let analysis = byCode.get(code);
      if (!analysis) byCode.set(code, (analysis = analyse.call(this, code)));
      return analysis;
    };
    return true;
  })());
}
