/**
 * @ethereumjs/evm's Interpreter prototype, for the places that patch it (jump-analysis-cache.ts,
 * trace/light-step-events.ts, frame-result-shape.ts, sync-steps.ts), and any other module of the
 * package that it does not export (evmInternalModule). They are reached by their files; if a later
 * version moves them, these answer undefined and the patches are simply absent.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The module at `file` under @ethereumjs/evm's dist/esm (e.g. 'opcodes/EIP2929.js'), or undefined. */
export async function evmInternalModule<T extends object>(file: string): Promise<T | undefined> {
  try {
    const entry = createRequire(import.meta.url).resolve('@ethereumjs/evm');
    return (await import(pathToFileURL(path.join(path.dirname(entry), '..', 'esm', file)).href)) as T;
  } catch {
    return undefined;
  }
}

export async function interpreterPrototype<T extends object>(): Promise<T | undefined> {
  return (await evmInternalModule<{ Interpreter?: { prototype: T } }>('interpreter.js'))?.Interpreter?.prototype;
}
