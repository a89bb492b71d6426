/**
 * @ethereumjs/evm's Interpreter prototype, for the two places that patch it (jump-analysis-cache.ts,
 * trace/light-step-events.ts). The class is not exported, so it is reached by its file; if a later
 * version moves it, this answers undefined and the patches are simply absent.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export async function interpreterPrototype<T extends object>(): Promise<T | undefined> {
  try {
    const entry = createRequire(import.meta.url).resolve('@ethereumjs/evm');
    const file = path.join(path.dirname(entry), '..', 'esm', 'interpreter.js');
    const { Interpreter } = (await import(pathToFileURL(file).href)) as { Interpreter?: { prototype: T } };
    return Interpreter?.prototype;
  } catch {
    return undefined;
  }
}
