/** Runs one builtin instruction on a fake InstructionContext over a map of accounts (program unit tests). */
import type { TransactionInstruction } from '@solana/web3.js';
import type { Address } from '../../node-core/common/pubkey.ts';
import { SYSTEM_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { cloneAccount, minimumBalanceForRentExemption, newAccount, type Account, type RentConfig } from '../../node-core/runtime/account.ts';
import { InstructionError, type InstructionErrorValue } from '../../node-core/runtime/errors.ts';
import type { InstructionAccount, InstructionContext, Program } from '../../node-core/runtime/program.ts';
import type { Sysvars } from '../../node-core/runtime/sysvars.ts';

export const TEST_RENT: RentConfig = { lamportsPerByteYear: 3480, exemptionThreshold: 2, burnPercent: 50 };

export function testSysvars(over: Partial<Sysvars> = {}): Sysvars {
  return {
    clock: { slot: 100, epochStartTimestamp: 0, epoch: 3, leaderScheduleEpoch: 4, unixTimestamp: 1_700_000_000 },
    rent: TEST_RENT,
    epochSchedule: { slotsPerEpoch: 32, leaderScheduleSlotOffset: 32, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
    recentBlockhashes: [],
    slotHashes: [],
    lamportsPerSignature: 5000,
    stakeHistory: [],
    ...over,
  };
}

export interface RunResult {
  error: InstructionErrorValue | null;
  logs: string[];
  returnData: Uint8Array | null;
}

/**
 * Runs `ix` with `program`; accounts missing from `state` start as empty system accounts. Changes are
 * written back to `state` only when the instruction succeeds (as a transaction would keep them).
 */
export function runInstruction(program: Program, ix: { keys: TransactionInstruction['keys']; data: Uint8Array | Buffer }, state: Map<Address, Account>, sysvars: Sysvars = testSysvars()): RunResult {
  const logs: string[] = [];
  let returnData: Uint8Array | null = null;
  const copies = new Map<Address, Account>();
  const indexOf = new Map<Address, number>();
  const accounts: InstructionAccount[] = ix.keys.map((k) => {
    const key = k.pubkey.toBase58();
    let account = copies.get(key);
    if (!account) {
      account = cloneAccount(state.get(key) ?? newAccount(0, 0, SYSTEM_PROGRAM_ID));
      copies.set(key, account);
    }
    if (!indexOf.has(key)) indexOf.set(key, indexOf.size);
    return { index: indexOf.get(key)!, key, isSigner: k.isSigner, isWritable: k.isWritable, account };
  });
  const ctx: InstructionContext = {
    programId: program.id,
    data: Uint8Array.from(ix.data),
    accounts,
    instructionIndex: 0,
    sysvars,
    scope: { extension: () => { throw new Error('unused'); } },
    simulation: false,
    log: (m) => logs.push(`Program log: ${m}`),
    logRaw: (l) => logs.push(l),
    consumeUnits: () => undefined,
    minimumBalance: (len) => minimumBalanceForRentExemption(sysvars.rent, len),
    bankExtension: () => undefined,
    feePayer: SYSTEM_PROGRAM_ID,
    signature: '1111111111111111111111111111111111111111111111111111111111111111',
    setReturnData: (d) => {
      returnData = d;
    },
  };
  try {
    program.process(ctx);
  } catch (e) {
    if (!(e instanceof InstructionError)) throw e;
    return { error: e.value, logs, returnData };
  }
  for (const [k, a] of copies) state.set(k, a);
  return { error: null, logs, returnData };
}
