/**
 * jsonParsed for the EVM program: every instruction in Velas's names, the carried Ethereum
 * transaction decoded on the node (any type, transferToNative's recipient and lamports), and wrong or
 * truncated data falling back to the unparsed form, as Agave's parsers do. And the Ethereum side's
 * decoded fields: a receipt's revertReasonText, a transaction's transferToNative.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Connection, Keypair, PublicKey, Transaction as NativeTransaction, TransactionInstruction } from '@solana/web3.js';
import { Transaction as EthTransaction, Wallet, getBytes, hexlify, toBeHex } from 'ethers';
import bs58 from 'bs58';
import { SYSTEM_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { BRIDGE_ADDRESS, EVM_PROGRAM_ID, EVM_STATE_ID, TRANSFER_TO_NATIVE_SELECTOR } from '../../node-core/evm/constants.ts';
import { depositInstructions } from '../../node-core/evm/deposit.ts';
import { encodeEvmInstruction, type EvmInstruction } from '../../node-core/evm/instruction.ts';
import { encodeRevertReason } from '../../node-core/evm/revert.ts';
import { createEvmCommon } from '../../node-core/evm/machine.ts';
import type { EvmBlockRecord, EvmTxRecord, Hex } from '../../node-core/evm/records.ts';
import { parseInstruction } from '../../node-core/rpc/encoding/parsed/index.ts';
import { formatReceipt, formatTransaction } from '../../node-core/rpc/eth/format.ts';
import { encodeConfirmedTransaction, encodeTransactionWithMeta } from '../../node-core/rpc/encoding/transaction.ts';
import { parseTransaction } from '../../node-core/runtime/wire.ts';
import type { StoredTransaction } from '../../node-core/store/store.ts';

const CHAIN_ID = 5705;
const wallet = Wallet.createRandom();
const relayer = Keypair.generate().publicKey.toBase58();
const storage = Keypair.generate().publicKey.toBase58();
const owner = Keypair.generate().publicKey.toBase58();
const other = '0x' + '22'.repeat(20);

const parse = (ix: EvmInstruction, accounts: string[] = [EVM_STATE_ID, relayer]) => parseInstruction(EVM_PROGRAM_ID, encodeEvmInstruction(ix), accounts);
const carrying = async (fields: Parameters<Wallet['signTransaction']>[0]) => getBytes(await wallet.signTransaction({ chainId: CHAIN_ID, ...fields }));
const q = (v: bigint | number) => toBeHex(v).replace(/^0x0+(?=.)/, '0x');

/** What an Ethereum client reads from the same bytes: the fields the parsed transaction must agree with. */
function ethersView(raw: Uint8Array) {
  const t = EthTransaction.from(hexlify(raw));
  return { hash: t.hash, from: t.from!.toLowerCase(), to: t.to?.toLowerCase() ?? null, nonce: q(t.nonce), value: q(t.value), gas: q(t.gasLimit), type: q(t.type!), chainId: q(t.chainId) };
}

describe('jsonParsed EVM program instructions', () => {
  test('EvmTransaction: the carried transaction decoded, for every type the program runs', async () => {
    const auth = await wallet.authorize({ address: other, nonce: 0n, chainId: BigInt(CHAIN_ID) });
    const cases: Array<[string, Uint8Array, Record<string, string>]> = [
      ['legacy', await carrying({ type: 0, nonce: 3, gasPrice: 2_000_000_000n, gasLimit: 21_000, to: other, value: 7n }), { gasPrice: '0x77359400' }],
      ['EIP-2930', await carrying({ type: 1, nonce: 4, gasPrice: 1_500_000_000n, gasLimit: 30_000, to: other, value: 0n, accessList: [{ address: other, storageKeys: [] }] }), { gasPrice: '0x59682f00' }],
      ['EIP-1559', await carrying({ type: 2, nonce: 5, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 2n, gasLimit: 50_000, to: other, value: 10n ** 18n, data: '0x1234' }), { maxFeePerGas: '0xb2d05e00', maxPriorityFeePerGas: '0x2' }],
      ['EIP-7702', await carrying({ type: 4, nonce: 6, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1n, gasLimit: 100_000, to: other, authorizationList: [auth] }), { maxFeePerGas: '0x77359400', maxPriorityFeePerGas: '0x1' }],
      ['a deployment', await carrying({ type: 2, nonce: 7, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n, gasLimit: 200_000, data: '0x6000' }), { maxFeePerGas: '0x77359400', maxPriorityFeePerGas: '0x0' }],
    ];
    for (const [name, raw, fees] of cases) {
      const p = parse({ kind: 'transaction', raw });
      assert.ok(p, name);
      assert.equal(p.program, 'evm');
      const parsed = p.parsed as { type: string; info: { evmStateAccount: string; relayerAccount: string; transaction: Record<string, unknown> } };
      assert.equal(parsed.type, 'evmTransaction');
      assert.equal(parsed.info.evmStateAccount, EVM_STATE_ID);
      assert.equal(parsed.info.relayerAccount, relayer);
      const t = parsed.info.transaction;
      for (const [k, v] of Object.entries({ ...ethersView(raw), ...fees })) assert.equal(t[k], v, `${name}: ${k}`);
      assert.equal(t.input, hexlify(EthTransaction.from(hexlify(raw)).data), name);
      assert.ok(!('transferToNative' in t), name);
      assert.ok(!('blockHash' in t), `${name}: no block fields outside a block`);
    }
    const withAuth = (parse({ kind: 'transaction', raw: cases[3]![1] })!.parsed as unknown as { info: { transaction: { authorizationList: Array<{ address: string }> } } }).info.transaction;
    assert.equal(withAuth.authorizationList[0]!.address, other);
  });

  test('EvmTransaction calling the bridge: transferToNative recipient and lamports', async () => {
    const recipient = Keypair.generate().publicKey;
    const data = `0x${TRANSFER_TO_NATIVE_SELECTOR}${Buffer.from(recipient.toBytes()).toString('hex')}`;
    const base = { type: 2, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n, gasLimit: 100_000, to: BRIDGE_ADDRESS, data } as const;
    const info = (p: ReturnType<typeof parse>) => (p!.parsed as unknown as { info: { transaction: Record<string, unknown> } }).info.transaction;
    const whole = info(parse({ kind: 'transaction', raw: await carrying({ ...base, nonce: 1, value: 2n * 10n ** 18n }) }, [EVM_STATE_ID, relayer, recipient.toBase58()]));
    assert.deepEqual(whole.transferToNative, { nativeRecipient: recipient.toBase58(), lamports: q(2_000_000_000n) });
    // The bridge refuses a value that is not whole lamports; the parser says so with null.
    const partial = info(parse({ kind: 'transaction', raw: await carrying({ ...base, nonce: 2, value: 5n }) }));
    assert.deepEqual(partial.transferToNative, { nativeRecipient: recipient.toBase58(), lamports: null });
    // Other calldata to the bridge, or the selector sent elsewhere, is no transferToNative.
    assert.ok(!('transferToNative' in info(parse({ kind: 'transaction', raw: await carrying({ ...base, nonce: 3, value: 0n, data: '0xdeadbeef' }) }))));
    assert.ok(!('transferToNative' in info(parse({ kind: 'transaction', raw: await carrying({ ...base, nonce: 4, value: 0n, to: other }) }))));
  });

  test('the bridge deposit and FreeOwnership, in Velas names with every account', () => {
    const evmAddress = '0x' + 'ab'.repeat(20);
    assert.deepEqual(parse({ kind: 'swapNativeToEther', lamports: 2_500_000_000n, evmAddress }, [EVM_STATE_ID, owner]), {
      program: 'evm',
      parsed: { type: 'swapNativeToEvm', info: { evmStateAccount: EVM_STATE_ID, fromNativeAccount: owner, toEvmAccount: evmAddress, lamports: 2_500_000_000 } },
    });
    assert.deepEqual(parse({ kind: 'freeOwnership' }, [EVM_STATE_ID, owner]), {
      program: 'evm',
      parsed: { type: 'freeOwnership', info: { evmStateAccount: EVM_STATE_ID, nativeAccount: owner } },
    });
  });

  test('EvmBigTransaction: allocate, write (data in base64) and execute with the storage account', () => {
    const chunk = Uint8Array.from({ length: 40 }, (_, i) => i);
    assert.deepEqual(parse({ kind: 'allocate', size: 1_500n }, [EVM_STATE_ID, storage])!.parsed, {
      type: 'evmBigTransactionAllocate',
      info: { evmStateAccount: EVM_STATE_ID, storageAccount: storage, size: 1_500 },
    });
    assert.deepEqual(parse({ kind: 'write', offset: 880n, data: chunk }, [EVM_STATE_ID, storage])!.parsed, {
      type: 'evmBigTransactionWrite',
      info: { evmStateAccount: EVM_STATE_ID, storageAccount: storage, offset: 880, data: Buffer.from(chunk).toString('base64') },
    });
    assert.deepEqual(parse({ kind: 'execute' }, [EVM_STATE_ID, storage, relayer])!.parsed, {
      type: 'evmBigTransactionExecute',
      info: { evmStateAccount: EVM_STATE_ID, storageAccount: storage, relayerAccount: relayer },
    });
  });

  test('wrong or truncated data, missing accounts and undecodable transactions stay unparsed', async () => {
    const raw = (bytes: number[]) => parseInstruction(EVM_PROGRAM_ID, Uint8Array.from(bytes), [EVM_STATE_ID, relayer, storage]);
    const good = encodeEvmInstruction({ kind: 'swapNativeToEther', lamports: 1n, evmAddress: other });
    assert.equal(raw([]), null, 'empty');
    assert.equal(raw([9, 0, 0, 0]), null, 'unknown instruction');
    assert.equal(raw([3, 0, 0, 0, 7, 0, 0, 0]), null, 'unknown EvmBigTransaction variant');
    assert.equal(raw([...good].slice(0, good.length - 1)), null, 'truncated');
    assert.equal(raw([...good, 0]), null, 'a byte after the instruction');
    assert.equal(raw([0, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]), null, 'a length past the data');
    assert.equal(raw([...encodeEvmInstruction({ kind: 'swapNativeToEther', lamports: 1n, evmAddress: '0x12345' as string })]), null, 'not an EVM address');
    assert.equal(parse({ kind: 'freeOwnership' }, [EVM_STATE_ID]), null, 'one account');
    assert.equal(parse({ kind: 'execute' }, [EVM_STATE_ID, storage]), null, 'execute without its payer');

    const signed = await carrying({ type: 2, nonce: 1, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n, gasLimit: 21_000, to: other });
    assert.equal(parse({ kind: 'transaction', raw: Uint8Array.from([0xde, 0xad, 0xbe, 0xef]) }), null, 'not RLP');
    assert.equal(parse({ kind: 'transaction', raw: signed.subarray(0, signed.length - 3) }), null, 'a cut transaction');
    const unsigned = getBytes(EthTransaction.from({ type: 2, chainId: CHAIN_ID, nonce: 1, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n, gasLimit: 21_000, to: other }).unsignedSerialized);
    assert.equal(parse({ kind: 'transaction', raw: unsigned }), null, 'unsigned');
    const unprotected = getBytes(await wallet.signTransaction({ type: 0, chainId: 0, nonce: 0, gasPrice: 1_000_000_000n, gasLimit: 21_000, to: other }));
    assert.equal(parse({ kind: 'transaction', raw: unprotected }), null, 'no EIP-155 replay protection, which the program refuses');
    const badSignature = EthTransaction.from(hexlify(signed));
    badSignature.signature = { r: '0x' + 'ff'.repeat(32), s: '0x' + '01'.repeat(32), yParity: 0 } as never;
    assert.equal(parse({ kind: 'transaction', raw: getBytes(badSignature.serialized) }), null, 'a signature that recovers no key');
  });

  test('getTransaction jsonParsed: the deposit parsed beside System, bad data unparsed, web3.js reads it', async () => {
    const payer = Keypair.generate();
    const evmAddress = '0x' + 'cd'.repeat(20);
    const specs = depositInstructions(payer.publicKey.toBase58(), evmAddress, 1_000_000_000n);
    const tx = new NativeTransaction({ feePayer: payer.publicKey, recentBlockhash: bs58.encode(new Uint8Array(32).fill(5)) });
    for (const s of specs) {
      tx.add(new TransactionInstruction({ programId: new PublicKey(s.programId), keys: s.accounts!.map((a) => ({ pubkey: new PublicKey(a.key), isSigner: !!a.signer, isWritable: !!a.writable })), data: Buffer.from(s.data!) }));
    }
    const broken = Uint8Array.from([1, 0, 0, 0, 5]);
    tx.add(new TransactionInstruction({ programId: new PublicKey(EVM_PROGRAM_ID), keys: [{ pubkey: new PublicKey(EVM_STATE_ID), isSigner: false, isWritable: true }, { pubkey: payer.publicKey, isSigner: true, isWritable: true }], data: Buffer.from(broken) }));
    tx.sign(payer);
    const wire = new Uint8Array(tx.serialize());
    const message = parseTransaction(wire).message;
    const stored: StoredTransaction = {
      signature: parseTransaction(wire).id,
      wire,
      meta: {
        err: null, fee: 5000, preBalances: message.accountKeys.map(() => 1), postBalances: message.accountKeys.map(() => 1), logMessages: [], computeUnitsConsumed: 0,
        preTokenBalances: [], postTokenBalances: [], innerInstructions: [], loadedAddresses: { writable: [], readonly: [] },
      },
      accountKeys: message.accountKeys,
      memo: null,
    };
    const instructions = (encodeTransactionWithMeta(stored, 'jsonParsed').transaction as { message: { instructions: Array<Record<string, unknown>> } }).message.instructions;
    const me = payer.publicKey.toBase58();
    assert.deepEqual(instructions, [
      { program: 'system', programId: SYSTEM_PROGRAM_ID, parsed: { type: 'assign', info: { account: me, owner: EVM_PROGRAM_ID } }, stackHeight: null },
      {
        program: 'evm', programId: EVM_PROGRAM_ID, stackHeight: null,
        parsed: { type: 'swapNativeToEvm', info: { evmStateAccount: EVM_STATE_ID, fromNativeAccount: me, toEvmAccount: evmAddress, lamports: 1_000_000_000 } },
      },
      { program: 'evm', programId: EVM_PROGRAM_ID, parsed: { type: 'freeOwnership', info: { evmStateAccount: EVM_STATE_ID, nativeAccount: me } }, stackHeight: null },
      { programId: EVM_PROGRAM_ID, accounts: [EVM_STATE_ID, me], data: bs58.encode(broken), stackHeight: null },
    ]);

    // web3.js's own response schema accepts the shape.
    const body = JSON.parse(JSON.stringify(encodeConfirmedTransaction({ slot: 3, blockTime: 1, transaction: stored }, 'jsonParsed', {})));
    const fetch = async (_url: unknown, init: { body: string }) =>
      new Response(JSON.stringify({ jsonrpc: '2.0', id: (JSON.parse(init.body) as { id: string }).id, result: body }), { headers: { 'content-type': 'application/json' } });
    const parsed = await new Connection('http://127.0.0.1:1', { fetch: fetch as never, disableRetryOnRateLimit: true }).getParsedTransaction(stored.signature);
    const swap = parsed!.transaction.message.instructions[1] as { program: string; parsed: { type: string; info: { lamports: number } } };
    assert.equal(swap.program, 'evm');
    assert.equal(swap.parsed.info.lamports, 1_000_000_000);
    assert.ok('data' in parsed!.transaction.message.instructions[3]!);
  });
});

describe('Ethereum JSON: revert reasons and transferToNative decoded on the node', () => {
  const block = {
    number: 9, hash: `0x${'09'.repeat(32)}`, parentHash: `0x${'08'.repeat(32)}`, stateRoot: `0x${'00'.repeat(32)}`, transactionsRoot: `0x${'00'.repeat(32)}`,
    receiptsRoot: `0x${'00'.repeat(32)}`, logsBloom: new Uint8Array(256), gasUsed: 30_000, timestamp: 1_700_000_000, mixHash: `0x${'00'.repeat(32)}`,
    baseFeePerGas: 1_000_000_000n, size: 600, nativeSlot: 90, nativeBlockhash: bs58.encode(new Uint8Array(32).fill(1)), transactions: [],
  } as EvmBlockRecord;
  const record = async (revertData: Uint8Array, fields: Parameters<Wallet['signTransaction']>[0] = {}): Promise<EvmTxRecord> => {
    const raw = await carrying({ type: 2, nonce: 1, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n, gasLimit: 100_000, to: other, ...fields });
    return {
      hash: EthTransaction.from(hexlify(raw)).hash as Hex, raw, from: wallet.address.toLowerCase() as Hex, deposit: false, status: revertData.length ? 0 : 1, gasUsed: 30_000,
      cumulativeGasUsed: 30_000, effectiveGasPrice: 1_000_000_000n, contractAddress: null, logs: [], revertData, nativeSignature: bs58.encode(new Uint8Array(64).fill(2)), blockNumber: 9, index: 0, created: [], internal: [],
    };
  };

  test('a failed receipt carries Besu\'s revertReason and, beside it, revertReasonText', async () => {
    const error = encodeRevertReason('unlucky number');
    const receipt = formatReceipt(await record(error), block, 0);
    assert.equal(receipt.revertReason, hexlify(error));
    assert.equal(receipt.revertReasonText, 'unlucky number');
    const panic = getBytes('0x4e487b71' + '11'.padStart(64, '0'));
    assert.equal(formatReceipt(await record(panic), block, 0).revertReasonText, 'panic code 0x11');
    // A custom error is revert data without a text: the raw data only.
    const custom = formatReceipt(await record(getBytes('0x6ad9cdfc' + '00'.repeat(32))), block, 0);
    assert.equal(custom.revertReason, '0x6ad9cdfc' + '00'.repeat(32));
    assert.ok(!('revertReasonText' in custom));
    const ok = formatReceipt(await record(new Uint8Array(0)), block, 0);
    assert.ok(!('revertReason' in ok) && !('revertReasonText' in ok));
  });

  test('a mined call of the bridge carries transferToNative beside nativeSignature', async () => {
    const recipient = Keypair.generate().publicKey;
    const data = `0x${TRANSFER_TO_NATIVE_SELECTOR}${Buffer.from(recipient.toBytes()).toString('hex')}`;
    const common = createEvmCommon(CHAIN_ID);
    const call = formatTransaction(await record(new Uint8Array(0), { to: BRIDGE_ADDRESS, data, value: 3n * 10n ** 9n }), block, common);
    assert.deepEqual(call.transferToNative, { nativeRecipient: recipient.toBase58(), lamports: '0x3' });
    assert.equal(call.to, BRIDGE_ADDRESS);
    assert.ok(!('transferToNative' in formatTransaction(await record(new Uint8Array(0)), block, common)));
  });
});
