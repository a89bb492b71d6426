/*
 * This file holds modified copies of the MSTORE and SLOAD handlers and of the SLOAD gas handler of
 * @ethereumjs/evm 10.1.3 (https://github.com/ethereumjs/ethereumjs-monorepo, packages/evm/src/opcodes/
 * functions.ts and gas.ts), which is
 * licensed under the Mozilla Public License 2.0. This file is therefore under the MPL 2.0 too, unlike
 * the rest of the project (MIT): a copy of the MPL is at https://mozilla.org/MPL/2.0/.
 */
/**
 * @ethereumjs's MSTORE and SLOAD (and SLOAD's gas handler) turn a stack word into 32 bytes with
 * `setLengthLeft(bigIntToBytes(word), 32)`: bigIntToBytes goes through a hex string, and setLengthLeft
 * pads with `new Uint8Array([...new Uint8Array(n), ...bytes])`, which walks both arrays' iterators
 * into a JS array first. For the small words these opcodes mostly see (memory pointers, slot
 * numbers) that is ~5 µs a word, ~4% of an eth_call of a view function here, and garbage besides.
 *
 * Installed on an EVM, the three handlers are this module's copies, which make the same 32 bytes
 * (wordBytes, compared with the original in the unit test) and do nothing else differently. They
 * are installed only when the EVM's own handlers are 10.1.3's, character for character (the
 * SHA-256 of their source below), and its EIP-2929 helper is found where 10.1.3 keeps it; any other
 * version keeps its own. The helper is not exported, so it is reached by its file, as the
 * interpreter is (interpreter-prototype.ts).
 */
import { bigIntToBytes, bytesToBigInt, setLengthLeft } from '@ethereumjs/util';
import { evmInternalModule } from './interpreter-prototype.ts';
import { sourceSha256 } from './source-hash.ts';

/** SHA-256 of @ethereumjs/evm 10.1.3's MSTORE and SLOAD handlers' toString(), the functions copied below. */
const COPIED_SOURCE_SHA256: Record<number, string> = {
  0x52: '29edc93190b4e005fccbab2a60aaa94fe903c829eca4bbeaf4c228e781f326bb',
  0x54: 'f0aad8fd616a70240813743839d63f9801d0c2d4dc1d7eb4d99cfd6a8e2baa98',
};
/** SHA-256 of 10.1.3's SLOAD gas handler's toString(), the function copied below. */
const COPIED_GAS_SOURCE_SHA256 = 'bcc3d658b9e4417bbc647ee3519c9e268bed3350762c2a5a7033570a7d127b2d';

const WORD_LIMIT = 1n << 256n;

/** A stack word as 32 big-endian bytes: what `setLengthLeft(bigIntToBytes(word), 32)` makes, without the hex string and the spreads. */
export function wordBytes(word: bigint): Uint8Array {
  // Outside a word's range the original's errors are kept (the stack never holds such values).
  if (word < 0n || word >= WORD_LIMIT) return setLengthLeft(bigIntToBytes(word), 32);
  const out = new Uint8Array(32);
  for (let i = 28; word > 0n; i -= 4) {
    const w = Number(BigInt.asUintN(32, word));
    out[i] = w >>> 24;
    out[i + 1] = (w >>> 16) & 0xff;
    out[i + 2] = (w >>> 8) & 0xff;
    out[i + 3] = w & 0xff;
    word >>= 32n;
  }
  return out;
}

type RunState = {
  stack: { popN(n: number): bigint[]; pop(): bigint; push(v: bigint): void; peek(n?: number): bigint[] };
  memory: { write(offset: number, size: number, value: Uint8Array): void };
  interpreter: { storageLoad(key: Uint8Array): Promise<Uint8Array>; getAddress(): unknown };
  env: { accessWitness: { readAccountStorage(address: unknown, key: bigint): bigint } };
};
type Common = { isActivatedEIP(eip: number): boolean };
type Handler = (runState: RunState) => unknown;
type GasHandler = (runState: RunState, gas: bigint, common: Common) => Promise<bigint>;
type AccessStorage = (runState: RunState, key: Uint8Array, isSstore: boolean, common: Common, chargeGas?: boolean) => bigint;
type OpEntry = { opHandler: Handler; gasHandler?: GasHandler };
/** What of an @ethereumjs EVM the install touches: its opcode table (one per EVM, made for its hardfork). */
type EvmTables = { _opcodeMap?: OpEntry[]; _handlers?: Map<number, Handler>; _dynamicGasHandlers?: Map<number, GasHandler> };

const COPIES: Record<number, Handler> = {
  // MSTORE
  0x52: function (runState) {
    const [offset, word] = runState.stack.popN(2);
    const buf = wordBytes(word!);
    const offsetNum = Number(offset);
    runState.memory.write(offsetNum, 32, buf);
  },
  // SLOAD
  0x54: async function (runState) {
    const key = runState.stack.pop();
    const keyBuf = wordBytes(key);
    const value = await runState.interpreter.storageLoad(keyBuf);
    const valueBigInt = value.length ? bytesToBigInt(value) : 0n;
    runState.stack.push(valueBigInt);
  },
};

/** SLOAD's gas handler, over 10.1.3's EIP-2929 helper. */
function sloadGas(accessStorageEIP2929: AccessStorage): GasHandler {
  return async function (runState, gas, common) {
    const key = runState.stack.peek()[0]!;
    const keyBuf = wordBytes(key);
    let charge2929Gas = true;
    if (common.isActivatedEIP(6800) || common.isActivatedEIP(7864)) {
      const address = runState.interpreter.getAddress();
      const coldAccessGas = runState.env.accessWitness.readAccountStorage(address, key);
      gas += coldAccessGas;
      charge2929Gas = coldAccessGas === 0n;
    }
    if (common.isActivatedEIP(2929)) {
      gas += accessStorageEIP2929(runState, keyBuf, false, common, charge2929Gas);
    }
    return gas;
  };
}

/** 10.1.3's accessStorageEIP2929 (opcodes/EIP2929.js), or undefined where a version keeps it elsewhere. */
let eip2929Helper: Promise<AccessStorage | undefined> | null = null;
function accessStorageHelper(): Promise<AccessStorage | undefined> {
  return (eip2929Helper ??= (async () => {
    const helper = (await evmInternalModule<{ accessStorageEIP2929?: AccessStorage }>('opcodes/EIP2929.js'))?.accessStorageEIP2929;
    return typeof helper === 'function' ? helper : undefined;
  })());
}

/**
 * Puts the copies in `evm`'s opcode table where its handlers are the copied ones; true when all
 * three were. (An EVM remakes its table only when its hardfork changes, which this node's never
 * does; a remade table simply holds @ethereumjs's own handlers again.)
 */
export async function installWordOpcodes(evm: object): Promise<boolean> {
  const { _opcodeMap: map, _handlers: handlers, _dynamicGasHandlers: gasHandlers } = evm as EvmTables;
  if (!Array.isArray(map) || !(handlers instanceof Map) || !(gasHandlers instanceof Map)) return false;
  const ops = Object.keys(COPIES).map(Number);
  if (!ops.every((op) => typeof map[op]?.opHandler === 'function' && map[op]!.opHandler === handlers.get(op) && sourceSha256(map[op]!.opHandler) === COPIED_SOURCE_SHA256[op])) return false;
  const sload = map[0x54]!;
  if (typeof sload.gasHandler !== 'function' || sload.gasHandler !== gasHandlers.get(0x54) || sourceSha256(sload.gasHandler) !== COPIED_GAS_SOURCE_SHA256) return false;
  const accessStorageEIP2929 = await accessStorageHelper();
  if (!accessStorageEIP2929) return false;
  for (const op of ops) {
    map[op]!.opHandler = COPIES[op]!;
    handlers.set(op, COPIES[op]!);
  }
  sload.gasHandler = sloadGas(accessStorageEIP2929);
  gasHandlers.set(0x54, sload.gasHandler);
  return true;
}
