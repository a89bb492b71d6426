/** The builtin programs this node runs, by program id. */
import type { Program, ProgramRegistry } from '../program.ts';
import { computeBudgetProgram } from './compute-budget.ts';
import { memoProgram, memoV1Program } from './memo.ts';
import { systemProgram } from './system.ts';
import { tokenProgram } from './token/program.ts';
import { associatedTokenProgram } from './associated-token.ts';
import { precompilePrograms } from './precompiles/index.ts';
import { addressLookupTableProgram } from './address-lookup-table/program.ts';

const programs: Program[] = [systemProgram, computeBudgetProgram, memoProgram, memoV1Program, tokenProgram, associatedTokenProgram];
programs.push(...precompilePrograms); // Ed25519, Secp256k1, Secp256r1 (precompiles/)

programs.push(addressLookupTableProgram);

export const builtinPrograms: ProgramRegistry = new Map(programs.map((p) => [p.id, p]));
