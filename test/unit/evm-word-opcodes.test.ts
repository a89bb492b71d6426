import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEVM, type EVM } from '@ethereumjs/evm';
import { Address, bigIntToBytes, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { createEvmCommon } from '../../node-core/evm/evm-common.ts';
import { installWordOpcodes, wordBytes } from '../../node-core/evm/word-opcodes.ts';

test('wordBytes makes the 32 bytes setLengthLeft(bigIntToBytes(word), 32) makes, for words of every length', () => {
  const words = [0n, 1n, 0x80n, 0xffn, 0x100n, 0xffff_ffffn, 1n << 32n, (1n << 64n) - 1n, 1n << 64n, (1n << 128n) + 5n, (1n << 255n) + 12345n, (1n << 256n) - 1n];
  for (let bits = 1; bits <= 256; bits += 7) words.push((1n << BigInt(bits)) - 3n, 1n << BigInt(bits - 1));
  for (const word of words) {
    if (word < 0n) continue;
    assert.deepEqual(wordBytes(word), setLengthLeft(bigIntToBytes(word), 32), `word 0x${word.toString(16)}`);
  }
  // Outside a word's range it fails as the original does.
  assert.throws(() => setLengthLeft(bigIntToBytes(1n << 256n), 32));
  assert.throws(() => wordBytes(1n << 256n));
});

const CONTRACT = new Address(hexToBytes(`0x${'42'.repeat(20)}`));
const CALLER = new Address(hexToBytes(`0x${'33'.repeat(20)}`));
const BIG = `${'fe'.repeat(31)}01`;
/** SLOAD slot 5 (cold), MSTORE it at 0, MSTORE a 32-byte word at 0x20, SLOAD an unset slot and MSTORE it at 0x40, SLOAD slot 5 again (warm), RETURN 0x60 bytes. */
const CODE = hexToBytes(`0x600554600052${'7f' + BIG}60205261077754604052600554${'50'}60606000f3`);

async function evmWithContract(patched: boolean): Promise<{ evm: EVM; installed: boolean }> {
  const evm = await createEVM({ common: createEvmCommon(5705) });
  await evm.stateManager.putCode(CONTRACT, CODE);
  await evm.stateManager.putStorage(CONTRACT, setLengthLeft(hexToBytes('0x05'), 32), hexToBytes('0x1234'));
  return { evm, installed: patched && (await installWordOpcodes(evm)) };
}

type Tables = { _opcodeMap: Array<{ opHandler: unknown; gasHandler?: unknown }> };

test("with the copies installed, a run's return data and gas (cold and warm SLOAD) are @ethereumjs's own handlers'", async () => {
  const own = await evmWithContract(false);
  const copied = await evmWithContract(true);
  assert.equal(copied.installed, true, "this @ethereumjs version's MSTORE, SLOAD and SLOAD gas handlers are the ones copied");
  const ownMap = (own.evm as unknown as Tables)._opcodeMap;
  const copiedMap = (copied.evm as unknown as Tables)._opcodeMap;
  assert.notEqual(copiedMap[0x52]!.opHandler, ownMap[0x52]!.opHandler);
  assert.notEqual(copiedMap[0x54]!.opHandler, ownMap[0x54]!.opHandler);
  assert.notEqual(copiedMap[0x54]!.gasHandler, ownMap[0x54]!.gasHandler);
  const run = (evm: EVM) => evm.runCall({ caller: CALLER, to: CONTRACT, gasLimit: 100_000n, skipBalance: true });
  const a = await run(own.evm);
  const b = await run(copied.evm);
  assert.equal(a.execResult.exceptionError, undefined);
  assert.equal(bytesToHex(a.execResult.returnValue), `0x${'0'.repeat(60)}1234${BIG}${'0'.repeat(64)}`);
  assert.equal(bytesToHex(b.execResult.returnValue), bytesToHex(a.execResult.returnValue));
  assert.equal(b.execResult.executionGasUsed, a.execResult.executionGasUsed);
});

test('the copies go in only over the handlers they copy (a second install finds its own and does nothing)', async () => {
  const { evm, installed } = await evmWithContract(true);
  assert.equal(installed, true);
  assert.equal(await installWordOpcodes(evm), false);
  assert.equal(await installWordOpcodes({}), false);
});
