/**
 * A streamed struct-logger run stopped half-way (its reader gone) leaves nothing behind on the
 * tracing machine: @ethereumjs clears transient storage only when the outermost message ends, and
 * a run stopped mid-message never gets there, so the next run on the machine must not read it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesToHex } from '@ethereumjs/util';
import { ReaderGone } from '../../node-core/common/piece-channel.ts';
import { EvmChanges } from '../../node-core/evm/state.ts';
import { StructLogger } from '../../node-core/evm/trace/struct-logger.ts';
import { machineWithContract } from '../helpers/evm-machine.ts';

/**
 * With calldata: TSTORE(0, 1), then loop until the gas is gone. Without: return TLOAD(0).
 * 0 CALLDATASIZE, PUSH1 15, JUMPI; PUSH1 0, TLOAD, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN;
 * 15 JUMPDEST, PUSH1 1, PUSH1 0, TSTORE; 21 JUMPDEST, PUSH1 21, JUMP.
 */
const CODE = Uint8Array.from(Buffer.from('36600f5760005c60005260206000f35b600160005d5b601556', 'hex'));
const KEY = new Uint8Array(32).fill(9);
const CONTRACT = '0x' + '22'.repeat(20);

test('a run stopped by its reader leaves no transient storage for the next run on the machine', async () => {
  const { machine, base, env, transaction } = await machineWithContract(CODE, KEY, CONTRACT);
  const run = async (data: string, logger: StructLogger) => machine.runListened({ tx: await transaction({ data, gasLimit: 200_000n }), env, below: base, changes: new EvmChanges(), canCredit: () => false }, logger.listeners);

  // The reader takes the first chunk and goes away.
  let chunks = 0;
  const gone = new StructLogger({}, undefined, { write: () => (chunks++, false), ready: () => Promise.reject(new ReaderGone()) });
  await assert.rejects(run('0x01', gone), ReaderGone);
  assert.equal(chunks, 1, 'stopped at its first chunk');

  const read = await run('0x', new StructLogger({}));
  assert.equal(read.execResult.exceptionError, undefined);
  assert.equal(bytesToHex(read.execResult.returnValue), '0x' + '00'.repeat(32), 'slot 0 of the transient storage is empty again');
});
