/**
 * The one loader of the sBPF engine: npm `litesvm`'s native addon (Agave's SVM), required on first use.
 * It has binaries for Linux and macOS only; where it cannot load (Windows, a missing binary, or
 * ISTHMUS_SBF_ENGINE=off, which tests use to force it), the node runs its builtins and reports why
 * deployed programs cannot run.
 */
import { createRequire } from 'node:module';

/** The part of litesvm's generated binding (dist/internal.d.ts) the engine uses. */
export type LiteSvmBinding = typeof import('litesvm/dist/internal.js');

export type EngineAvailability = { available: true; name: string; binding: LiteSvmBinding } | { available: false; reason: string };

let loaded: EngineAvailability | null = null;

/** Whether the engine loads, loading it the first time (synchronously: the executor is synchronous). */
export function sbfEngineAvailability(): EngineAvailability {
  if (loaded) return loaded;
  if (process.env.ISTHMUS_SBF_ENGINE === 'off') return (loaded = { available: false, reason: 'disabled by ISTHMUS_SBF_ENGINE=off' });
  try {
    const require = createRequire(import.meta.url);
    const binding = require('litesvm/dist/internal.js') as LiteSvmBinding;
    const version = (require('litesvm/package.json') as { version: string }).version;
    loaded = { available: true, name: `litesvm ${version}`, binding };
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0]! : String(e);
    loaded = { available: false, reason: `the litesvm addon does not load on ${process.platform}-${process.arch}: ${why}` };
  }
  return loaded;
}

/** One line for the start-up banner, getVersion and health details. */
export function sbfEngineStatus(): string {
  const a = sbfEngineAvailability();
  return a.available ? a.name : `unavailable (${a.reason})`;
}
