/**
 * jsonParsed for the BPF loaders against the shapes of Agave's account decoder and transaction-status
 * parsers (parse_bpf_loader.rs in each, and their tests): the bytes here are written by hand from the
 * bincode layouts, not by the node's encoders.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Keypair } from '@solana/web3.js';
import { parseAccountData, parseInstruction } from '../../node-core/rpc/encoding/parsed/index.ts';
import type { Account } from '../../node-core/runtime/account.ts';

const LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';
const LOADER_2 = 'BPFLoader2111111111111111111111111111111111';
const RENT = 'SysvarRent111111111111111111111111111111111';
const CLOCK = 'SysvarC1ock11111111111111111111111111111111';
const SYSTEM = '11111111111111111111111111111111';
const key = () => Keypair.generate().publicKey;
const addr = () => key().toBase58();

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: number | bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};
const account = (data: Buffer, owner = LOADER): Account => ({ lamports: 1, data: new Uint8Array(data), owner, executable: false, rentEpoch: 0 });
const parsedOf = (data: Buffer, owner = LOADER) => parseAccountData(addr(), account(data, owner));

describe('upgradeable loader accounts (account-decoder parse_bpf_upgradeable_loader)', () => {
  const program = Buffer.alloc(64, 7);

  test('uninitialized, buffer with and without authority', () => {
    assert.deepEqual(parsedOf(u32(0)), { program: 'bpf-upgradeable-loader', parsed: { type: 'uninitialized' }, space: 4 });
    const authority = key();
    const buffer = Buffer.concat([u32(1), Buffer.from([1]), authority.toBuffer(), program]);
    assert.deepEqual(parsedOf(buffer), {
      program: 'bpf-upgradeable-loader',
      parsed: { type: 'buffer', info: { authority: authority.toBase58(), data: [program.toString('base64'), 'base64'] } },
      space: 37 + 64,
    });
    const noAuthority = Buffer.concat([u32(1), Buffer.from([0]), program]);
    assert.deepEqual(parsedOf(noAuthority)!.parsed, { type: 'buffer', info: { authority: null, data: [program.toString('base64'), 'base64'] } });
  });

  test('program', () => {
    const programData = key();
    assert.deepEqual(parsedOf(Buffer.concat([u32(2), programData.toBuffer()])), {
      program: 'bpf-upgradeable-loader',
      parsed: { type: 'program', info: { programData: programData.toBase58() } },
      space: 36,
    });
  });

  test('programData: slot, authority, data after the 45-byte metadata', () => {
    const authority = key();
    const bytes = Buffer.concat([u32(3), u64(42), Buffer.from([1]), authority.toBuffer(), program]);
    assert.deepEqual(parsedOf(bytes)!.parsed, { type: 'programData', info: { slot: 42, authority: authority.toBase58(), data: [program.toString('base64'), 'base64'] } });
  });

  test('programData after SetAuthority to None: authority null, data from byte 13, the old key included (as Agave)', () => {
    const old = key();
    const bytes = Buffer.concat([u32(3), u64(7), Buffer.from([0]), old.toBuffer(), program]);
    const info = (parsedOf(bytes)!.parsed as { info: { slot: number; authority: null; data: [string, string] } }).info;
    assert.equal(info.authority, null);
    assert.equal(info.slot, 7);
    assert.deepEqual(Buffer.from(info.data[0], 'base64'), Buffer.concat([old.toBuffer(), program]));
  });

  test('not the loader\'s layout, or another owner: not parsed', () => {
    assert.equal(parsedOf(u32(4)), null, 'unknown tag');
    assert.equal(parsedOf(Buffer.concat([u32(2), Buffer.alloc(10)])), null, 'program too short');
    assert.equal(parsedOf(Buffer.concat([u32(3), u64(1), Buffer.from([2])])), null, 'bad Option tag');
    assert.equal(parsedOf(Buffer.concat([u32(2), key().toBuffer()]), LOADER_2), null, 'BPF Loader 2 accounts have no state');
  });
});

describe('upgradeable loader instructions (transaction-status parse_bpf_upgradeable_loader)', () => {
  const parse = (data: Buffer, accounts: string[]) => parseInstruction(LOADER, new Uint8Array(data), accounts);
  const [a, b, c, d, e] = [addr(), addr(), addr(), addr(), addr()];

  test('initializeBuffer, with and without its authority', () => {
    assert.deepEqual(parse(u32(0), [a, b]), { program: 'bpf-upgradeable-loader', parsed: { type: 'initializeBuffer', info: { account: a, authority: b } } });
    assert.deepEqual(parse(u32(0), [a])!.parsed, { type: 'initializeBuffer', info: { account: a } });
    assert.equal(parse(u32(0), []), null);
  });

  test('write: offset, bytes in base64, account, authority', () => {
    const bytes = Buffer.alloc(99, 8);
    const data = Buffer.concat([u32(1), u32(4242), u64(99), bytes]);
    assert.deepEqual(parse(data, [a, b])!.parsed, { type: 'write', info: { offset: 4242, bytes: bytes.toString('base64'), account: a, authority: b } });
    assert.equal(parse(data, [a]), null, 'too few accounts');
    assert.equal(parse(Buffer.concat([u32(1), u32(0), u64(100), bytes]), [a, b]), null, 'length past the data');
  });

  test('deployWithMaxDataLen and upgrade name every account', () => {
    const keys = [a, b, c, d, RENT, CLOCK, SYSTEM, e];
    assert.deepEqual(parse(Buffer.concat([u32(2), u64(54321)]), keys)!.parsed, {
      type: 'deployWithMaxDataLen',
      info: { maxDataLen: 54321, payerAccount: a, programDataAccount: b, programAccount: c, bufferAccount: d, rentSysvar: RENT, clockSysvar: CLOCK, systemProgram: SYSTEM, authority: e },
    });
    assert.equal(parse(Buffer.concat([u32(2), u64(54321)]), keys.slice(0, 7)), null);
    const up = [a, b, c, d, RENT, CLOCK, e];
    assert.deepEqual(parse(u32(3), up)!.parsed, {
      type: 'upgrade',
      info: { programDataAccount: a, programAccount: b, bufferAccount: c, spillAccount: d, rentSysvar: RENT, clockSysvar: CLOCK, authority: e },
    });
    assert.equal(parse(u32(3), up.slice(0, 6)), null);
  });

  test('setAuthority (newAuthority null when absent), setAuthorityChecked', () => {
    assert.deepEqual(parse(u32(4), [a, b, c])!.parsed, { type: 'setAuthority', info: { account: a, authority: b, newAuthority: c } });
    assert.deepEqual(parse(u32(4), [a, b])!.parsed, { type: 'setAuthority', info: { account: a, authority: b, newAuthority: null } });
    assert.deepEqual(parse(u32(7), [a, b, c])!.parsed, { type: 'setAuthorityChecked', info: { account: a, authority: b, newAuthority: c } });
    assert.equal(parse(u32(7), [a, b]), null);
  });

  test('close (programAccount null when absent)', () => {
    assert.deepEqual(parse(u32(5), [a, b, c, d])!.parsed, { type: 'close', info: { account: a, recipient: b, authority: c, programAccount: d } });
    assert.deepEqual(parse(u32(5), [a, b, c])!.parsed, { type: 'close', info: { account: a, recipient: b, authority: c, programAccount: null } });
    assert.equal(parse(u32(5), [a, b]), null);
  });

  test('extendProgram, extendProgramChecked, migrate', () => {
    assert.deepEqual(parse(Buffer.concat([u32(6), u32(10240)]), [a, b, SYSTEM, c])!.parsed, {
      type: 'extendProgram',
      info: { additionalBytes: 10240, programDataAccount: a, programAccount: b, systemProgram: SYSTEM, payerAccount: c },
    });
    assert.deepEqual(parse(Buffer.concat([u32(6), u32(1)]), [a, b])!.parsed, {
      type: 'extendProgram',
      info: { additionalBytes: 1, programDataAccount: a, programAccount: b, systemProgram: null, payerAccount: null },
    });
    assert.deepEqual(parse(Buffer.concat([u32(9), u32(5)]), [a, b, c])!.parsed, {
      type: 'extendProgramChecked',
      info: { additionalBytes: 5, programDataAccount: a, programAccount: b, authority: c, systemProgram: null, payerAccount: null },
    });
    assert.deepEqual(parse(u32(8), [a, b, c])!.parsed, { type: 'migrate', info: { programDataAccount: a, programAccount: b, authority: c } });
  });

  test('an unknown tag or short data is left unparsed', () => {
    assert.equal(parse(u32(10), [a, b, c]), null);
    assert.equal(parse(Buffer.from([1, 0]), [a, b]), null);
    assert.equal(parse(Buffer.concat([u32(6), Buffer.from([1])]), [a, b]), null);
  });
});

describe('BPF Loader 2 instructions (parse_bpf_loader)', () => {
  const parse = (data: Buffer, accounts: string[]) => parseInstruction(LOADER_2, new Uint8Array(data), accounts);
  const [a, b] = [addr(), addr()];

  test('write and finalize', () => {
    const bytes = Buffer.alloc(99, 8);
    assert.deepEqual(parse(Buffer.concat([u32(0), u32(4242), u64(99), bytes]), [a]), {
      program: 'bpf-loader',
      parsed: { type: 'write', info: { offset: 4242, bytes: bytes.toString('base64'), account: a } },
    });
    assert.deepEqual(parse(u32(1), [a, b])!.parsed, { type: 'finalize', info: { account: a } });
    assert.equal(parse(u32(1), [a]), null, 'finalize needs two accounts');
    assert.equal(parse(Buffer.concat([u32(0), u32(0), u64(0)]), []), null, 'no accounts');
    assert.equal(parse(u32(2), [a, b]), null, 'only two variants');
  });
});
