/**
 * The executor's step for a transaction that runs on the sBPF engine: the node has already sanitized
 * it, checked its blockhash and status, charged its fee and loaded its accounts; here the engine runs
 * its instructions and its outcome comes back in the executor's terms. The engine charges a fee of its
 * own: the fee payer goes in with that fee added back, so it comes out charged exactly the node's fee.
 */
import type { Address } from '../../common/pubkey.ts';
import type { Account } from '../account.ts';
import type { TransactionErrorValue } from '../errors.ts';
import { TransactionError } from '../errors.ts';
import type { InnerInstructions } from '../invoke.ts';
import type { ProgramRegistry, ReturnData } from '../program.ts';
import { SYSVAR_IDS, type Sysvars } from '../sysvars.ts';
import type { Transaction } from '../wire.ts';
import { SbfEngine } from './engine.ts';
import { engineTransactionError, isExecutionError } from './engine-errors.ts';
import { sbfEngineAvailability } from './load-engine.ts';
import { BPF_LOADER_IDS, isEngineProgram } from './routing.ts';

export interface EngineOutcome {
  err: TransactionErrorValue | null;
  logs: string[];
  computeUnitsConsumed: number;
  innerInstructions: InnerInstructions[];
  returnData: ReturnData | null;
  /** The accounts after a successful transaction, by address (the fee payer charged the node's fee). */
  post: Map<Address, Account>;
}

/**
 * The process's two engines, each created on first use: one for simulations (preflight,
 * simulateTransaction), one for the blocks' transactions. Preflight reads another bank than the block
 * being filled, and one engine serving both set the other bank's sysvars (clock, slot hashes) back
 * and forth every transaction; each engine now sees its banks' sysvars change once a slot.
 */
const engines = new Map<'simulation' | 'execution', SbfEngine>();

/** The engine for simulations or for execution; null where the addon does not load. */
export function sbfEngine(role: 'simulation' | 'execution'): SbfEngine | null {
  const engine = engines.get(role);
  if (engine) return engine;
  const a = sbfEngineAvailability();
  if (!a.available) return null;
  const created = new SbfEngine(a.binding);
  engines.set(role, created);
  return created;
}

export interface EngineInput {
  tx: Transaction;
  /** Every account key, static then loaded from lookup tables. */
  keys: readonly Address[];
  chargedPayer: Account;
  /** The fee the engine will charge (SbfEngine.LAMPORTS_PER_SIGNATURE per signature, plus the priority fee). */
  engineFee: number;
  read: (address: Address) => Account | null;
  sysvars: Sysvars;
  programs: ProgramRegistry;
  /** A simulation (preflight, simulateTransaction), run on the simulations' engine. */
  simulation: boolean;
}

export function executeOnEngine(input: EngineInput): EngineOutcome {
  const { tx, keys, read, programs } = input;
  const m = tx.message;
  const e = sbfEngine(input.simulation ? 'simulation' : 'execution');
  if (!e) return engineUnavailable(input);

  e.setSysvars(input.sysvars);
  const addresses = [...keys, ...(m.addressTableLookups ?? []).map((l) => l.accountKey)];
  const payer = keys[0]!;
  // The engine serves its builtins (the node's, as Agave has them), the sysvars and the loaders itself;
  // the fee payer goes in charged, below.
  e.load(addresses, read, (k) => k === payer || programs.has(k) || SYSVAR_IDS.has(k) || BPF_LOADER_IDS.has(k), input.sysvars.clock.slot);
  e.setAccount(payer, { ...input.chargedPayer, lamports: input.chargedPayer.lamports + input.engineFee });

  const run = e.simulate(tx.wire);
  let err: TransactionErrorValue | null = null;
  if (!run.ok) {
    err = engineTransactionError(run.err);
    // Failures before execution keep the transaction out of the block, as the node's own executor does.
    if (!isExecutionError(err)) throw new TransactionError(err);
  }
  const innerInstructions: InnerInstructions[] = [];
  run.innerInstructions.forEach((instructions, index) => {
    if (instructions.length > 0) innerInstructions.push({ index, instructions });
  });
  return { err, logs: run.logs, computeUnitsConsumed: run.computeUnitsConsumed, innerInstructions, returnData: run.returnData, post: run.postAccounts };
}

/** Where the addon does not load: the first engine instruction fails, saying why, and the fee is charged. */
function engineUnavailable(input: EngineInput): EngineOutcome {
  const a = sbfEngineAvailability();
  const reason = a.available ? '' : a.reason;
  const m = input.tx.message;
  const logs: string[] = [];
  let index = 0;
  for (; index < m.instructions.length; index++) {
    const id = m.accountKeys[m.instructions[index]!.programIdIndex]!;
    if (isEngineProgram(id, input.read(id), input.programs)) {
      logs.push(`Program ${id} invoke [1]`, `Program ${id} cannot run: this node's sBPF engine is unavailable (${reason})`, `Program ${id} failed: Unsupported program id`);
      break;
    }
  }
  return { err: { InstructionError: [index, 'UnsupportedProgramId'] }, logs, computeUnitsConsumed: 0, innerInstructions: [], returnData: null, post: new Map() };
}
