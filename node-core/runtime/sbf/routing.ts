/**
 * Which transactions run on the sBPF engine: those with an instruction for a deployed program (an
 * executable account owned by a BPF loader that is not one of the node's builtins) or for a BPF loader
 * itself. The node's Token, ATA and Memo are accounts of BPF Loader 2 too, but builtins here.
 */
import { BPF_LOADER_2_ID, COMPUTE_BUDGET_PROGRAM_ID, SYSTEM_PROGRAM_ID, type Address } from '../../common/pubkey.ts';
import type { Account } from '../account.ts';
import type { ProgramRegistry } from '../program.ts';
import { BPF_LOADER_DEPRECATED_ID, BPF_LOADER_UPGRADEABLE_ID } from '../programs/bpf-loader/upgradeable-state.ts';
import type { Message } from '../wire.ts';

export const BPF_LOADER_IDS: ReadonlySet<Address> = new Set([BPF_LOADER_2_ID, BPF_LOADER_UPGRADEABLE_ID, BPF_LOADER_DEPRECATED_ID]);

/** Whether `programId` names a program the engine runs (a deployed program, or a BPF loader's own instructions). */
export function isEngineProgram(programId: Address, account: Account | null, programs: ProgramRegistry): boolean {
  if (programs.has(programId)) return false;
  if (BPF_LOADER_IDS.has(programId)) return true;
  return !!account && account.executable && BPF_LOADER_IDS.has(account.owner);
}

/** Whether any top-level instruction of `message` invokes an engine program. */
export function runsOnEngine(message: Message, read: (address: Address) => Account | null, programs: ProgramRegistry): boolean {
  for (const ix of message.instructions) {
    const id = message.accountKeys[ix.programIdIndex]!;
    if (!programs.has(id) && isEngineProgram(id, read(id), programs)) return true;
  }
  return false;
}

/**
 * The programs the engine counts as builtins when it sizes a transaction's default compute-unit limit
 * (3,000 units each instead of 200,000; measured on litesvm 1.4.1, whose Address Lookup Table, Vote and
 * Stake are counted as programs): a transaction that runs on the engine gets its fee from the same limit.
 */
export const ENGINE_BUILTIN_PROGRAM_IDS: ReadonlySet<Address> = new Set([
  SYSTEM_PROGRAM_ID,
  COMPUTE_BUDGET_PROGRAM_ID,
  ...BPF_LOADER_IDS,
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
]);
