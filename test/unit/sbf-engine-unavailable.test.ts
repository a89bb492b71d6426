/**
 * Where the sBPF engine cannot load (Windows has no litesvm binary; forced here with
 * ISTHMUS_SBF_ENGINE=off, read when the engine is first asked for): a transaction for a deployed program
 * fails saying why, its fee charged; builtins run as before; getVersion's status says so.
 */
process.env.ISTHMUS_SBF_ENGINE = 'off';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SYSTEM_PROGRAM_ID, type Address } from '../../node-core/common/pubkey.ts';
import { DEFAULT_RENT } from '../../node-core/ledger/genesis-config.ts';
import { generateKeypair } from '../../node-core/keys/keypair.ts';
import { minimumBalanceForRentExemption, type Account } from '../../node-core/runtime/account.ts';
import { builtinProgramAccount } from '../../node-core/runtime/executor.ts';
import { BPF_LOADER_UPGRADEABLE_ID, encodeUpgradeableState, programDataAddress, programDataBytes } from '../../node-core/runtime/programs/bpf-loader/upgradeable-state.ts';
import { sbfEngineStatus } from '../../node-core/runtime/sbf/load-engine.ts';
import type { Sysvars } from '../../node-core/runtime/sysvars.ts';
import { executeOnMap } from '../helpers/map-executor.ts';
import { buildTransaction } from '../helpers/tx-builder.ts';

const BLOCKHASH = '11111111111111111111111111111111';
const sysvars: Sysvars = {
  clock: { slot: 10, epochStartTimestamp: 0, epoch: 0, leaderScheduleEpoch: 1, unixTimestamp: 1_767_225_600 },
  rent: DEFAULT_RENT,
  epochSchedule: { slotsPerEpoch: 432_000, leaderScheduleSlotOffset: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
  recentBlockhashes: [{ blockhash: BLOCKHASH, lamportsPerSignature: 5000 }],
  slotHashes: [],
  lamportsPerSignature: 5000,
};

describe('without the sBPF engine', () => {
  const payer = generateKeypair();
  const accounts = new Map<Address, Account>();
  accounts.set(SYSTEM_PROGRAM_ID, builtinProgramAccount('system_program'));
  accounts.set(payer.address, { lamports: 10_000_000_000, data: new Uint8Array(0), owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: 0 });
  const program = generateKeypair().address;
  const pd = programDataAddress(program);
  const pdData = programDataBytes(0, null, new Uint8Array(readFileSync(new URL('../fixtures/sbf/noop.so', import.meta.url))));
  accounts.set(pd, { lamports: minimumBalanceForRentExemption(DEFAULT_RENT, pdData.length), data: pdData, owner: BPF_LOADER_UPGRADEABLE_ID, executable: false, rentEpoch: 0 });
  accounts.set(program, { lamports: 1_000_000, data: encodeUpgradeableState({ kind: 'program', programData: pd }), owner: BPF_LOADER_UPGRADEABLE_ID, executable: true, rentEpoch: 0 });

  it('reports the engine unavailable, with the reason', () => {
    assert.equal(sbfEngineStatus(), 'unavailable (disabled by ISTHMUS_SBF_ENGINE=off)');
  });

  it('a deployed program fails with a clear log and UnsupportedProgramId; the fee is charged', () => {
    const r = executeOnMap(buildTransaction(payer, [{ programId: program, data: [] }], BLOCKHASH), accounts, sysvars);
    assert.deepEqual(r.err, { InstructionError: [0, 'UnsupportedProgramId'] });
    assert.deepEqual(r.logs, [
      `Program ${program} invoke [1]`,
      `Program ${program} cannot run: this node's sBPF engine is unavailable (disabled by ISTHMUS_SBF_ENGINE=off)`,
      `Program ${program} failed: Unsupported program id`,
    ]);
    assert.equal(accounts.get(payer.address)!.lamports, 10_000_000_000 - 5000);
  });

  it('builtins run as before', () => {
    const to = generateKeypair().address;
    const data = new Uint8Array(12);
    new DataView(data.buffer).setUint32(0, 2, true);
    new DataView(data.buffer).setBigUint64(4, 1_000_000n, true);
    const r = executeOnMap(buildTransaction(payer, [{ programId: SYSTEM_PROGRAM_ID, accounts: [{ key: payer.address, signer: true, writable: true }, { key: to, writable: true }], data }], BLOCKHASH), accounts, sysvars);
    assert.equal(r.err, null);
    assert.equal(accounts.get(to)!.lamports, 1_000_000);
  });
});
