/** Unit tests of the EVM space's parts: instruction layouts, the layered state, the state manager, revert data, the host check. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Account, Address, hexToBytes } from '@ethereumjs/util';
import { decodeEvmInstruction, encodeEvmInstruction } from '../../node-core/evm/instruction.ts';
import { decodeRevertReason, encodeRevertReason } from '../../node-core/evm/revert.ts';
import { FlatStateManager } from '../../node-core/evm/state-manager.ts';
import { EvmBaseState, EvmChanges, LayeredState, newEvmAccount } from '../../node-core/evm/state.ts';
import { parseTokenAmount, parseEvmCommand } from '../../node-core/cli/evm-command.ts';
import { hostAllowed, hostName } from '../../node-core/transport/host-check.ts';
import { cachedCall, callCacheSize } from '../../node-core/rpc/eth/call-cache.ts';
import { EXECUTION_ERROR } from '../../node-core/rpc/eth/call.ts';
import { RpcError } from '../../node-core/rpc/errors.ts';

const A = '0x00000000000000000000000000000000000000aa';
const SLOT = `0x${'0'.repeat(63)}1` as const;

describe('EVM instructions (Velas bincode layout)', () => {
  test("SwapNativeToEther is Velas's tested byte layout", () => {
    const data = encodeEvmInstruction({ kind: 'swapNativeToEther', lamports: 1_000_000_000n, evmAddress: '0x141A4802f84bb64C0320917672ef7D92658e964e' });
    const expected = Buffer.concat([
      Buffer.from('01000000', 'hex'),
      Buffer.from('00ca9a3b00000000', 'hex'),
      Buffer.from('2a00000000000000', 'hex'),
      Buffer.from('0x141a4802f84bb64c0320917672ef7d92658e964e'),
    ]);
    assert.deepEqual(Buffer.from(data), expected);
    assert.deepEqual(decodeEvmInstruction(data), { kind: 'swapNativeToEther', lamports: 1_000_000_000n, evmAddress: '0x141a4802f84bb64c0320917672ef7d92658e964e' });
  });

  test('every instruction round-trips', () => {
    for (const ix of [
      { kind: 'transaction', raw: Uint8Array.from([2, 1, 2, 3]) },
      { kind: 'freeOwnership' },
      { kind: 'allocate', size: 5000n },
      { kind: 'write', offset: 880n, data: Uint8Array.from([9, 8, 7]) },
      { kind: 'execute' },
    ] as const) {
      assert.deepEqual(decodeEvmInstruction(encodeEvmInstruction(ix)), ix);
    }
    assert.deepEqual([...encodeEvmInstruction({ kind: 'freeOwnership' })], [2, 0, 0, 0]);
    assert.deepEqual([...encodeEvmInstruction({ kind: 'execute' })], [3, 0, 0, 0, 2, 0, 0, 0]);
  });

  test('bad data is refused with a reason', () => {
    assert.throws(() => decodeEvmInstruction(Uint8Array.from([9, 0, 0, 0])), /unknown EVM instruction 9/);
    assert.throws(() => decodeEvmInstruction(Uint8Array.from([3, 0, 0, 0, 7, 0, 0, 0])), /unknown EvmBigTransaction variant 7/);
    assert.throws(() => decodeEvmInstruction(Uint8Array.from([2, 0, 0, 0, 1])), /1 bytes after the instruction/);
    const short = encodeEvmInstruction({ kind: 'swapNativeToEther', lamports: 1n, evmAddress: A }).subarray(0, 30);
    assert.throws(() => decodeEvmInstruction(short), /unexpected end of data/);
    const badAddress = Buffer.concat([Buffer.from('01000000', 'hex'), Buffer.alloc(8), Buffer.from('2a00000000000000', 'hex'), Buffer.from('0x' + 'zz'.repeat(20))]);
    assert.throws(() => decodeEvmInstruction(badAddress), /evm_address must be "0x" and 40 hex digits/);
  });
});

describe('the layered EVM state', () => {
  test('reads walk the layers; a cleared account hides the storage below it', () => {
    const base = new EvmBaseState();
    const genesis = new EvmChanges();
    genesis.accounts.set(A, newEvmAccount(5n));
    genesis.putStorage(A, SLOT, Uint8Array.of(7));
    base.fold(genesis);
    const slot = new EvmChanges();
    const view = new LayeredState([slot], base);
    assert.equal(view.account(A)!.balance, 5n);
    assert.deepEqual([...view.storage(A, SLOT)], [7]);
    slot.clearStorage(A);
    assert.deepEqual([...view.storage(A, SLOT)], []);
    slot.putStorage(A, SLOT, Uint8Array.of(8));
    assert.deepEqual([...view.storage(A, SLOT)], [8]);
    slot.accounts.set(A, null);
    assert.equal(view.account(A), null);
    // Folding applies the clear before the new writes.
    base.fold(slot);
    assert.equal(base.account(A), null);
    assert.deepEqual([...base.storage(A, SLOT)], [8]);
    assert.equal(base.storageByAddress.get(A)!.size, 1);
  });

  test('the state manager journals checkpoints: commit keeps, revert drops', async () => {
    const base = new EvmBaseState();
    const changes = new EvmChanges();
    const sm = new FlatStateManager(base, changes);
    const address = new Address(hexToBytes(A));
    await sm.putAccount(address, new Account(1n, 10n));
    await sm.checkpoint();
    await sm.putStorage(address, hexToBytes(SLOT), Uint8Array.of(0, 0, 3));
    await sm.checkpoint();
    await sm.modifyAccountFields(address, { balance: 99n });
    await sm.revert();
    assert.equal((await sm.getAccount(address))!.balance, 10n);
    await sm.commit();
    assert.deepEqual([...(await sm.getStorage(address, hexToBytes(SLOT)))], [3], 'storage values lose their leading zeros');
    assert.equal(changes.accounts.get(A)!.nonce, 1n);
    assert.deepEqual([...changes.storage.get(A)!.get(SLOT)!], [3]);
    await sm.putCode(address, Uint8Array.of(0x60, 0x00));
    assert.deepEqual([...(await sm.getCode(address))], [0x60, 0x00]);
    assert.equal(await sm.getCodeSize(address), 2);
    // The account object handed out is a copy: changing it changes nothing until it is put.
    const a = (await sm.getAccount(address))!;
    a.balance = 0n;
    assert.equal((await sm.getAccount(address))!.balance, 10n);
  });
});

describe('revert data', () => {
  test('Error(string) and Panic(uint256) decode; anything else is null', () => {
    assert.equal(decodeRevertReason(encodeRevertReason('unlucky number')), 'unlucky number');
    assert.equal(decodeRevertReason(hexToBytes('0x4e487b710000000000000000000000000000000000000000000000000000000000000011')), 'panic code 0x11');
    assert.equal(decodeRevertReason(hexToBytes('0x6ad9cdfc')), null);
    assert.equal(decodeRevertReason(hexToBytes('0x08c379a0ff')), null);
  });
});

describe('the bridge command line', () => {
  test('amounts are exact decimals with up to 9 places', () => {
    assert.equal(parseTokenAmount('1.5'), 1_500_000_000n);
    assert.equal(parseTokenAmount('0.000000001'), 1n);
    assert.equal(parseTokenAmount('12'), 12_000_000_000n);
    assert.equal(parseTokenAmount('1.0000000001'), null);
    assert.equal(parseTokenAmount('-1'), null);
    assert.equal(parseTokenAmount('1e9'), null);
  });

  test('parsing', () => {
    const ok = parseEvmCommand(['transfer-to-evm', '--lamports', '-k', '/k.json', '-u', 'http://h:1', A, '7']);
    assert.deepEqual(ok, { command: 'transfer-to-evm', evmAddress: A, lamports: 7n, keypair: '/k.json', url: 'http://h:1/' });
    assert.equal(parseEvmCommand(['bridge']).command, 'error');
    assert.equal(parseEvmCommand([]).command, 'help');
    assert.match((parseEvmCommand(['transfer-to-evm', A, '1', '--url', 'not a url']) as { message: string }).message, /--url must be a URL/);
  });
});

describe('the host check (DNS rebinding)', () => {
  test('host names are read without port or brackets', () => {
    assert.equal(hostName('LocalHost:8545'), 'localhost');
    assert.equal(hostName('[::1]:8545'), '::1');
    assert.equal(hostName('::1'), '::1');
    assert.equal(hostName('example.com'), 'example.com');
  });

  test('loopback names and IP literals pass; other names only when allowed', () => {
    for (const h of ['localhost', 'localhost:8899', '127.0.0.1:8545', '[::1]:8545', '192.168.1.7', 'app.localhost', undefined]) assert.equal(hostAllowed(h, []), true, String(h));
    for (const h of ['evil.example', 'localhost.evil.example', 'my.box:8545']) assert.equal(hostAllowed(h, []), false, h);
    assert.equal(hostAllowed('my.box:8545', ['my.box']), true);
    assert.equal(hostAllowed('anything.at.all', ['*']), true);
  });
});

describe('eth_call result cache', () => {
  const env = { number: 7n, timestamp: 1n, prevRandao: new Uint8Array(32), baseFeePerGas: 0n };
  const call = { to: '0x00000000000000000000000000000000000000aa', data: hexToBytes('0x06661abd') } as never;
  const counting = (answer: () => Uint8Array) => {
    let runs = 0;
    return { run: async () => (runs++, answer()), runs: () => runs };
  };

  test('a sealed state keeps a call asked for twice and answers it from then on; another state or caller runs again', async () => {
    const sealed = { state: new EvmBaseState(), env, immutable: true };
    const c = counting(() => Uint8Array.of(1));
    const held = callCacheSize().entries;
    assert.deepEqual(await cachedCall(call, sealed, c.run), Uint8Array.of(1));
    assert.equal(callCacheSize().entries, held, 'a call asked for once is not kept');
    assert.deepEqual(await cachedCall(call, sealed, c.run), Uint8Array.of(1));
    assert.equal(c.runs(), 2);
    for (let i = 0; i < 5; i++) assert.deepEqual(await cachedCall(call, sealed, c.run), Uint8Array.of(1));
    assert.equal(c.runs(), 2, 'kept from the second time on');
    const other = { ...(call as object), from: '0x00000000000000000000000000000000000000bb' } as never;
    await cachedCall(other, sealed, c.run);
    await cachedCall(other, sealed, c.run);
    await cachedCall(call, { ...sealed, state: new EvmBaseState() }, c.run);
    assert.equal(c.runs(), 5);
  });

  test('the working state is never cached; reverts are, other errors are not', async () => {
    const working = { state: new EvmBaseState(), env, immutable: false };
    const c = counting(() => Uint8Array.of(2));
    await cachedCall(call, working, c.run);
    await cachedCall(call, working, c.run);
    assert.equal(c.runs(), 2);
    const sealed = { state: new EvmBaseState(), env, immutable: true };
    let reverts = 0;
    const revert = async () => { reverts++; throw new RpcError(EXECUTION_ERROR, 'execution reverted'); };
    for (let i = 0; i < 4; i++) await assert.rejects(cachedCall(call, sealed, revert), /execution reverted/);
    assert.equal(reverts, 2);
    let failures = 0;
    const other = { ...sealed, state: new EvmBaseState() };
    const fail = async () => { failures++; throw new RpcError(-32000, 'insufficient funds'); };
    for (let i = 0; i < 4; i++) await assert.rejects(cachedCall(call, other, fail));
    assert.equal(failures, 4);
  });

  test('the cache is bounded in bytes across states: the oldest entries leave, and run again when asked', async () => {
    const sealed = { state: new EvmBaseState(), env, immutable: true };
    const c = counting(() => new Uint8Array(32));
    const from = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}`;
    // Each asked for twice, so that it is kept.
    for (let i = 0; i < 30_000; i++) for (let twice = 0; twice < 2; twice++) await cachedCall({ ...(call as object), from: from(i) } as never, sealed, c.run);
    const size = callCacheSize();
    assert.ok(size.bytes <= 4 * 1024 * 1024, `${size.bytes} bytes held`);
    assert.ok(size.entries > 1_000 && size.entries < 30_000, `${size.entries} entries held`);
    assert.equal(c.runs(), 60_000);
    await cachedCall({ ...(call as object), from: from(29_999) } as never, sealed, c.run);
    assert.equal(c.runs(), 60_000, 'the newest is still answered from the cache');
    await cachedCall({ ...(call as object), from: from(0) } as never, sealed, c.run);
    assert.equal(c.runs(), 60_001, 'the oldest was dropped and runs again');
    const big = counting(() => new Uint8Array(100_000));
    for (let i = 0; i < 3; i++) await cachedCall(call, sealed, big.run);
    assert.equal(big.runs(), 3, 'an answer over the entry limit is not kept');
  });
});
