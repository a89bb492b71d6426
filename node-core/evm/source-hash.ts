/**
 * The SHA-256 of a function's source text: the guarded copies of @ethereumjs code (frame-result-shape.ts,
 * sync-steps.ts, word-opcodes.ts) install only where the library's function is, character for character,
 * the one they were copied from.
 */
import { createHash } from 'node:crypto';

export const sourceSha256 = (f: unknown): string => createHash('sha256').update(String(f)).digest('hex');
