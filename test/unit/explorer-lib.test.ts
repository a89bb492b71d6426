/** The explorer's pure parts: amounts in three units, search classification, routes, bridge checks and encodings. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import bs58 from 'bs58';
import { AmountError, convert, formatDecimal, parseDecimal, toWei } from '../../renderer/src/lib/units.ts';
import { classify, pathOf } from '../../renderer/src/lib/search.ts';
import { BridgeCheckError, checkEvmSpend, checkNativeSpend, depositInstructionData, NO_BRIDGE_INFO, nodeBridge, parseEvmPrivateKey, parseSecretKey, transferToNativeData } from '../../renderer/src/lib/bridge.ts';
import { evmHashesInLogs } from '../../renderer/src/lib/programs.ts';
import { newestSlots } from '../../renderer/src/lib/slot-history.ts';
import { skipRate, validatorRows } from '../../renderer/src/lib/validators.ts';
import { encodeEvmInstruction } from '../../node-core/evm/instruction.ts';
import { depositInstructions } from '../../node-core/evm/deposit.ts';
import { BRIDGE_ADDRESS, EVM_PROGRAM_ID, EVM_STATE_ID, TRANSFER_TO_NATIVE_SELECTOR } from '../../node-core/evm/constants.ts';

/** The bridge as isthmus_getNodeInfo names it (node-core/rpc/methods/isthmus.ts). */
const nodeInfo = { bridgeAddress: BRIDGE_ADDRESS, transferToNativeSelector: `0x${TRANSFER_TO_NATIVE_SELECTOR}`, evmProgramId: EVM_PROGRAM_ID, evmStateAccount: EVM_STATE_ID };

describe('units', () => {
  test('parses decimals exactly, refuses what is not a number or too precise', () => {
    assert.equal(parseDecimal('1.5', 9), 1_500_000_000n);
    assert.equal(parseDecimal('0.000000001', 9), 1n);
    assert.equal(parseDecimal('1,000', 0), 1000n);
    assert.equal(parseDecimal('.5', 1), 5n);
    assert.throws(() => parseDecimal('1.0000000001', 9), /At most 9 decimal places/);
    assert.throws(() => parseDecimal('abc', 9), AmountError);
    assert.throws(() => parseDecimal('', 9), /Enter an amount/);
    assert.throws(() => parseDecimal('1.5', 0), /whole number/);
    assert.throws(() => parseDecimal('-1', 9), /not a number/);
  });
  test('formats without trailing zeros, with grouping', () => {
    assert.equal(formatDecimal(1_500_000_000n, 9), '1.5');
    assert.equal(formatDecimal(1234567_000000000n, 9, true), '1,234,567');
    assert.equal(formatDecimal(-5n, 9), '-0.000000005');
    assert.equal(formatDecimal(0n, 18), '0');
  });
  test('converts between the token, lamports and wei (1 lamport = 10^9 wei)', () => {
    assert.equal(toWei('1', 'token'), 10n ** 18n);
    assert.equal(toWei('5', 'lamports'), 5_000_000_000n);
    assert.equal(toWei('7', 'wei'), 7n);
    assert.deepEqual(convert('2.5', 'token'), { wei: 2_500_000_000_000_000_000n, lamports: 2_500_000_000n, token: '2.5' });
    assert.equal(convert('1', 'wei').lamports, null);
    assert.throws(() => convert('0.0000000000000000001', 'token'), /At most 18 decimal places/);
  });
});

describe('search', () => {
  const sig = bs58.encode(new Uint8Array(64).fill(7));
  const addr = bs58.encode(new Uint8Array(32).fill(9));
  test('each kind of key by its shape', () => {
    assert.deepEqual(classify('123'), [{ kind: 'slot', slot: 123 }, { kind: 'evm-block-number', number: 123 }]);
    assert.deepEqual(classify(' 1,234 '), [{ kind: 'slot', slot: 1234 }, { kind: 'evm-block-number', number: 1234 }]);
    assert.deepEqual(classify('evm:7'), [{ kind: 'evm-block-number', number: 7 }]);
    assert.deepEqual(classify(sig), [{ kind: 'signature', signature: sig }]);
    assert.deepEqual(classify(addr), [{ kind: 'address', address: addr }]);
    assert.deepEqual(classify('0x' + 'AB'.repeat(20)), [{ kind: 'evm-address', address: '0x' + 'ab'.repeat(20) }]);
    assert.deepEqual(classify('0x' + 'cd'.repeat(32)), [{ kind: 'evm-hash', hash: '0x' + 'cd'.repeat(32) }]);
    assert.deepEqual(classify('0x123'), []);
    assert.deepEqual(classify('hello world'), []);
    assert.deepEqual(classify(bs58.encode(new Uint8Array(20))), []);
    assert.deepEqual(classify(''), []);
  });
  test('paths of the pages', () => {
    assert.equal(pathOf({ kind: 'slot', slot: 5 }), '/block/5');
    assert.equal(pathOf({ kind: 'signature', signature: sig }), `/tx/${sig}`);
    assert.equal(pathOf({ kind: 'evm-block-number', number: 3 }), '/evm/block/3');
  });
});

describe('bridge', () => {
  test('the deposit instruction data equals what the node and the CLI build', () => {
    const owner = bs58.encode(new Uint8Array(32).fill(3));
    const evm = '0x' + '12'.repeat(20);
    const mine = depositInstructionData(2_500_000_000n, evm, nodeBridge(nodeInfo));
    const node = depositInstructions(owner, evm, 2_500_000_000n);
    assert.deepEqual([...mine.assign], Array.from(node[0]!.data as Uint8Array));
    assert.deepEqual([...mine.swap], Array.from(node[1]!.data as Uint8Array));
    assert.deepEqual([...mine.free], Array.from(node[2]!.data as Uint8Array));
    assert.deepEqual([...mine.swap], [...encodeEvmInstruction({ kind: 'swapNativeToEther', lamports: 2_500_000_000n, evmAddress: evm })]);
  });
  test('transferToNative call data: selector and the recipient as bytes32', () => {
    const recipient = new Uint8Array(32).map((_, i) => i);
    const data = transferToNativeData(bs58.encode(recipient), nodeBridge(nodeInfo));
    assert.equal(data, '0xb1d6927a' + Buffer.from(recipient).toString('hex'));
    assert.throws(() => transferToNativeData(bs58.encode(new Uint8Array(20)), nodeBridge(nodeInfo)), BridgeCheckError);
  });
  test('the bridge comes from the node: a node that does not name it gets no transfer built', () => {
    assert.deepEqual(nodeBridge({ ...nodeInfo, bridgeAddress: BRIDGE_ADDRESS.toUpperCase().replace('0X', '0x') }), nodeInfo);
    assert.throws(() => nodeBridge(null), (e: Error) => e instanceof BridgeCheckError && e.message === NO_BRIDGE_INFO);
    assert.throws(() => nodeBridge({ ...nodeInfo, evmProgramId: undefined }), (e: Error) => e.message === NO_BRIDGE_INFO);
    assert.match(NO_BRIDGE_INFO, /does not tell its bridge/);
    assert.throws(() => nodeBridge({ ...nodeInfo, transferToNativeSelector: 'b1d6927a' }), /in a form the explorer does not read/);
    assert.throws(() => nodeBridge({ ...nodeInfo, bridgeAddress: '0x1234' }), /in a form the explorer does not read/);
  });
  test('native spends: whole lamports, balance with the fee, and the rent-exempt rest', () => {
    const c = { balance: 10_000_000_000n, fee: 5_000n, rentMinimum: 890_880n };
    assert.equal(checkNativeSpend(1_000_000_000n * 10n ** 9n, c), 1_000_000_000n);
    assert.throws(() => checkNativeSpend(0n, c), /more than zero/);
    assert.throws(() => checkNativeSpend(1n, c), /whole number of lamports/);
    assert.throws(() => checkNativeSpend(10_000_000_000n * 10n ** 9n, c), /Insufficient balance/);
    assert.throws(() => checkNativeSpend((10_000_000_000n - 5_000n - 100n) * 10n ** 9n, c), /rent-exempt minimum/);
    assert.equal(checkNativeSpend((10_000_000_000n - 5_000n) * 10n ** 9n, c), 10_000_000_000n - 5_000n);
  });
  test('EVM spends: whole lamports and value plus gas within the balance', () => {
    assert.doesNotThrow(() => checkEvmSpend(10n ** 9n, 10n ** 18n, 21_000n * 10n ** 9n));
    assert.throws(() => checkEvmSpend(5n, 10n ** 18n, 0n), /whole lamports/);
    assert.throws(() => checkEvmSpend(10n ** 18n, 10n ** 18n, 1n), /Insufficient balance/);
  });
  test('imported keys: Solana CLI JSON or base58, EVM hex', () => {
    const kp = new Uint8Array(64).map((_, i) => i);
    assert.deepEqual(parseSecretKey(JSON.stringify([...kp])), kp);
    assert.deepEqual(parseSecretKey(bs58.encode(kp)), kp);
    assert.throws(() => parseSecretKey('[1,2,3]'), /64 bytes/);
    assert.throws(() => parseSecretKey('[1,2,'), /not valid JSON/);
    assert.equal(parseEvmPrivateKey('0x' + 'AA'.repeat(32)), '0x' + 'aa'.repeat(32));
    assert.throws(() => parseEvmPrivateKey('0x1234'), /64 hex digits/);
  });
  test('EVM transaction hashes named in native logs', () => {
    const h = '0x' + 'ef'.repeat(32);
    assert.deepEqual(evmHashesInLogs(['Program EVM1111111111111111111111111111111111111111 invoke [1]', `Program log: EVM transaction ${h}`]), [h]);
    assert.deepEqual(evmHashesInLogs(null), []);
  });
});

describe('validators', () => {
  const account = (vote: string, node: string, stake: number, credits: Array<[number, number, number]>) => ({
    votePubkey: vote, nodePubkey: node, activatedStake: stake, commission: 10, lastVote: 90, rootSlot: 60, epochCredits: credits,
  });
  test('rows by stake with share, this epoch\'s credits, block production and the skip rate', () => {
    const { rows, totalStake } = validatorRows(
      { current: [account('V1', 'N1', 100, [[2, 50, 40], [3, 64, 50]])], delinquent: [account('V2', 'N2', 300, [[2, 7, 0]])] },
      { N1: [8, 8], N2: [24, 0] },
      3,
      'N1',
    );
    assert.equal(totalStake, 400);
    assert.deepEqual(rows.map((r) => [r.vote, r.share, r.credits, r.delinquent, r.thisNode, skipRate(r)]), [
      ['V2', 0.75, 0, true, false, 1],
      ['V1', 0.25, 14, false, true, 0],
    ]);
    assert.equal(skipRate({ leaderSlots: null, blocks: null }), null);
    assert.deepEqual(validatorRows({ current: [], delinquent: [] }, {}, 0, null), { rows: [], totalStake: 0 });
  });
});

describe('slot history', () => {
  test('the newest slots, newest first, from the bits; none before slot 0', () => {
    const bits = '1101' + '0'.repeat(60);
    assert.deepEqual(newestSlots({ nextSlot: 4, bits }, 10), [
      { slot: 3, block: true },
      { slot: 2, block: false },
      { slot: 1, block: true },
      { slot: 0, block: true },
    ]);
    // Past the wrap: slot 64 + 1 sits at bit 1.
    assert.deepEqual(newestSlots({ nextSlot: 66, bits }, 2), [{ slot: 65, block: true }, { slot: 64, block: true }]);
  });
});

test('formatBytes: disk sizes in powers of 1000, as file managers show them', async () => {
  const { formatBytes } = await import('../../renderer/src/lib/format.ts');
  const cases: Array<[number, string]> = [[0, '0 bytes'], [999, '999 bytes'], [1000, '1.0 kB'], [426_000, '426 kB'], [1_234_567, '1.2 MB'], [25_000_000, '25 MB'], [3.2e12, '3.2 TB'], [4.5e15, '4500 TB']];
  for (const [bytes, text] of cases) {
    assert.equal(formatBytes(bytes), text, String(bytes));
  }
});
