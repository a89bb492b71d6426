/**
 * The LMDB record layouts that leave out what the wire already holds: a transaction record keeps no
 * signature and no account keys (read back from the wire and the loaded addresses), an address-index
 * entry keeps its signature as bytes; records of ledgers written before still read as they are.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeBase58 } from '../../node-core/common/base58.ts';
import { serializeMessage, serializeTransaction } from '../../node-core/runtime/wire.ts';
import { addressEntrySignature, decodeTx, encodeAddressEntry, encodeTx, type TxRecord } from '../../node-core/store/lmdb-codec.ts';
import type { StoredTransaction } from '../../node-core/store/store.ts';
import { address, hash, signature, transaction } from '../helpers/store-fixtures.ts';

/** A v0 transaction with two static keys and one writable and one read-only key loaded from a table. */
function v0Transaction(): StoredTransaction {
  const statics = [address(1), address(2)];
  const loadedAddresses = { writable: [address(3)], readonly: [address(4)] };
  const message = serializeMessage(
    {
      version: 0,
      header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
      accountKeys: statics,
      recentBlockhash: hash(9),
      instructions: [{ programIdIndex: 1, accounts: [0, 2, 3], data: new Uint8Array([1, 2]) }],
      addressTableLookups: [{ accountKey: address(5), writableIndexes: [0], readonlyIndexes: [1] }],
    },
    decodeBase58,
  );
  const sig = signature(9, 0);
  const base = transaction(9, 0, [...statics, ...loadedAddresses.writable, ...loadedAddresses.readonly]);
  return { ...base, signature: sig, wire: serializeTransaction([decodeBase58(sig)], message), meta: { ...base.meta, loadedAddresses } };
}

describe('transaction records', () => {
  it('store neither the signature nor the account keys, and read both back from the wire (v0 with loaded addresses)', () => {
    const tx = v0Transaction();
    const record = encodeTx(tx);
    assert.equal(record[0], null);
    assert.equal(record[3], null);
    const read = decodeTx(record);
    assert.equal(read.signature, tx.signature);
    assert.deepEqual(read.accountKeys, [address(1), address(2), address(3), address(4)]);
    assert.deepEqual({ ...read }, tx);
  });

  it('read records of ledgers written before (signature and keys stored) as they are', () => {
    const tx = transaction(3, 1, [address(7), address(8)], { memo: 'm' });
    const old: TxRecord = [tx.signature, tx.wire, encodeTx(tx)[2], tx.accountKeys, tx.memo];
    assert.deepEqual(decodeTx(old), tx);
  });
});

describe('token balances in a transaction record', () => {
  const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
  const balance = (accountIndex: number, amount: string, uiAmount: number, uiAmountString: string, programId = TOKEN) => ({
    accountIndex,
    mint: address(5),
    uiTokenAmount: { uiAmount, decimals: 3, amount, uiAmountString },
    owner: address(6),
    programId,
  });

  it('are kept as [index, mint, owner, amount, decimals] and read back whole, the program id only when not SPL Token\'s', () => {
    const tx = transaction(3, 0, [address(7), address(8)]);
    tx.meta.preTokenBalances = [balance(1, '1500', 1.5, '1.5')];
    tx.meta.postTokenBalances = [balance(1, '0', 0, '0'), balance(2, '12345678901234567890', 12345678901234568, '12345678901234567.89', address(9))];
    const record = encodeTx(tx);
    assert.deepEqual(record[2][6], [[1, address(5), address(6), '1500', 3]]);
    assert.deepEqual(record[2][7], [[1, address(5), address(6), '0', 3], [2, address(5), address(6), '12345678901234567890', 3, address(9)]]);
    const read = decodeTx(record).meta;
    assert.deepEqual(read.preTokenBalances, tx.meta.preTokenBalances);
    assert.deepEqual(read.postTokenBalances, tx.meta.postTokenBalances);
  });

  it('of ledgers written before (whole objects) read as they are', () => {
    const tx = transaction(3, 0, [address(7), address(8)]);
    const record = encodeTx(tx);
    record[2][6] = [balance(1, '1500', 1.5, '1.5')];
    assert.deepEqual(decodeTx(record).meta.preTokenBalances, [balance(1, '1500', 1.5, '1.5')]);
  });
});

describe('address index entries', () => {
  it('keep the signature as 64 bytes and read it as text; entries written before hold the text', () => {
    const tx = transaction(4, 2, [address(1)], { memo: 'memo' });
    const sig = tx.signature;
    const entry = encodeAddressEntry(tx);
    assert.ok(entry[0] instanceof Uint8Array && entry[0].length === 64);
    assert.equal(addressEntrySignature(entry), sig);
    assert.equal(addressEntrySignature([sig, null, null]), sig);
    assert.deepEqual(entry.slice(1), [null, 'memo']);
  });
});
