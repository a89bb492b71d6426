/**
 * The EVM program: a builtin of the native runtime whose instructions carry Ethereum transactions
 * and move value between the spaces (instruction.ts has the layouts). It runs each transaction on
 * the slot's EVM machine against the bank's EVM layer; the changes stay in the native
 * transaction's scope and are kept only if the whole native transaction succeeds.
 *
 * Value: the EVM state account's lamports back every EVM balance, so (wei in the EVM space) =
 * (its lamports − its rent-exempt reserve) × 10^9 at all times. Deposits move lamports in;
 * withdrawals (the bridge precompile) and the base fee move them out, the base fee to the native
 * fee payer that relayed the transaction (Velas's refund to the relayer); priority fees stay in the
 * EVM space with the block's miner.
 */
import { bytesToHex } from '@ethereumjs/util';
import { SYSTEM_PROGRAM_ID } from '../common/pubkey.ts';
import { InstructionError, TransactionError } from '../runtime/errors.ts';
import type { InstructionAccount, InstructionContext, Program, TransactionExtension } from '../runtime/program.ts';
import type { EvmBankLayer } from './bank-layer.ts';
import { bridgeAddressKey, recordedWithdrawals } from './bridge-precompile.ts';
import { BASE_FEE_PER_GAS, BLOCK_GAS_LIMIT, EVM_PROGRAM_ID, EVM_STATE_ID, WEI_PER_LAMPORT } from './constants.ts';
import { decodeEvmInstruction, type EvmInstruction } from './instruction.ts';
import type { EvmMachine } from './machine.ts';
import { NO_REVERT_DATA, type EvmTxRecord, type Hex } from './records.ts';
import { EvmChanges, LayeredState, newEvmAccount } from './state.ts';
import { encodeDeposit, InvalidTransaction, type DecodedTransaction, type TransactionDecoder } from './transaction.ts';

/** The name the EVM space's per-bank layer is kept under (bank extensions, transaction scope). */
export const EVM_EXTENSION = 'evm';

type PendingRecord = Omit<EvmTxRecord, 'cumulativeGasUsed' | 'index' | 'blockNumber'>;

/** One native transaction's EVM changes and executed EVM transactions, kept or dropped with it. */
class EvmTransactionScope implements TransactionExtension {
  readonly changes = new EvmChanges();
  readonly records: PendingRecord[] = [];
  constructor(private readonly layer: EvmBankLayer) {}

  commit(): void {
    const layer = this.layer;
    layer.changes.absorb(this.changes);
    for (const r of this.records) {
      layer.gasUsed += BigInt(r.gasUsed);
      layer.transactions.push({ ...r, cumulativeGasUsed: Number(layer.gasUsed), index: layer.transactions.length, blockNumber: Number(layer.blockNumber) });
    }
  }

  rollback(): void {}
}

export interface EvmProgramHost {
  machine: EvmMachine;
  decoder: TransactionDecoder;
}

const fail = (ctx: InstructionContext, error: string, line: string): never => {
  ctx.log(line);
  throw new InstructionError(error);
};

function evmStateAccount(ctx: InstructionContext): InstructionAccount {
  const a = ctx.accounts[0];
  if (!a || a.key !== EVM_STATE_ID || !a.isWritable) throw new InstructionError('MissingAccount');
  return a;
}

function signer(ctx: InstructionContext, index: number): InstructionAccount {
  const a = ctx.accounts[index];
  if (!a) throw new InstructionError('NotEnoughAccountKeys');
  if (!a.isSigner) throw new InstructionError('MissingRequiredSignature');
  return a;
}

function moveLamports(from: InstructionAccount, to: InstructionAccount, lamports: bigint): void {
  const n = Number(lamports);
  if (from.account.lamports < n) throw new InstructionError('InsufficientFunds');
  from.account.lamports -= n;
  to.account.lamports += n;
}

export function createEvmProgram(host: EvmProgramHost): Program {
  async function execute(ctx: InstructionContext, raw: Uint8Array, feeRecipient: InstructionAccount): Promise<void> {
    const layer = ctx.bankExtension<EvmBankLayer>(EVM_EXTENSION);
    if (!layer) throw new InstructionError('InvalidAccountData');
    const state = evmStateAccount(ctx);
    let decoded: DecodedTransaction;
    try {
      decoded = host.decoder.decode(raw);
    } catch (e) {
      if (!(e instanceof InvalidTransaction)) throw e;
      return fail(ctx, 'InvalidArgument', `EvmTransaction: invalid transaction: ${e.message}`);
    }
    const scope = ctx.scope.extension(EVM_EXTENSION, () => new EvmTransactionScope(layer));
    // A block holds at most its gas limit: a transaction that may not fit waits for the next slot.
    const reserved = layer.gasUsed + scope.records.reduce((n, r) => n + BigInt(r.gasUsed), 0n);
    if (reserved + decoded.tx.gasLimit > BLOCK_GAS_LIMIT && layer.transactions.length + scope.records.length > 0) throw new TransactionError('WouldExceedMaxBlockCostLimit');
    const writable = new Map(ctx.accounts.filter((a) => a.isWritable && a.key !== EVM_STATE_ID).map((a) => [a.key, a]));
    let result;
    try {
      result = await host.machine.run({ tx: decoded.tx, env: layer.env, below: layer, changes: scope.changes, canCredit: (r) => writable.has(r) });
    } catch (e) {
      return fail(ctx, 'InvalidArgument', `EvmTransaction: transaction execution error: ${(e as Error).message.split(' -> ')[0]}`);
    }
    const gasUsed = result.totalGasSpent;
    const exec = result.execResult;
    const status: 0 | 1 = exec.exceptionError ? 0 : 1;
    // The base fee leaves the EVM space: whole lamports to the relayer that paid the native fee.
    moveLamports(state, feeRecipient, (gasUsed * BASE_FEE_PER_GAS) / WEI_PER_LAMPORT);
    const bridgeSlots = scope.changes.storage.get(bridgeAddressKey);
    for (const [recipient, lamports] of recordedWithdrawals(bridgeSlots)) {
      moveLamports(state, writable.get(recipient)!, lamports);
      ctx.log(`transferToNative: ${lamports} lamports to ${recipient}`);
    }
    // The withdrawal records are paid: they never reach the state.
    scope.changes.storage.delete(bridgeAddressKey);

    const tx = decoded.tx;
    const effectiveGasPrice = 'maxFeePerGas' in tx ? BASE_FEE_PER_GAS + minBig(tx.maxPriorityFeePerGas, tx.maxFeePerGas - BASE_FEE_PER_GAS) : (tx as { gasPrice: bigint }).gasPrice;
    scope.records.push({
      hash: decoded.hash,
      raw: decoded.raw,
      from: decoded.from,
      deposit: false,
      status,
      gasUsed: Number(gasUsed),
      effectiveGasPrice,
      contractAddress: result.createdAddress && status === 1 ? result.createdAddress.toString() : null,
      logs: (exec.logs ?? []).map(([address, topics, data]) => ({ address: bytesToHex(address), topics: topics.map((t) => bytesToHex(t)), data: bytesToHex(data) })),
      revertData: status === 0 ? exec.returnValue : NO_REVERT_DATA,
      nativeSignature: ctx.signature,
      created: status === 1 ? result.created : [],
      internal: internalAddresses(result.touched, decoded.from, decoded.tx.to?.toString(), result.created),
    });
    ctx.log(`EVM transaction ${decoded.hash}`);
    if (status === 0) ctx.log(`EVM execution failed: ${exec.exceptionError!.error}`);
  }

  function deposit(ctx: InstructionContext, ix: Extract<EvmInstruction, { kind: 'swapNativeToEther' }>): void {
    if (ix.lamports === 0n) return;
    const layer = ctx.bankExtension<EvmBankLayer>(EVM_EXTENSION);
    if (!layer) throw new InstructionError('InvalidAccountData');
    const evmState = evmStateAccount(ctx);
    const owner = signer(ctx, 1);
    if (ix.lamports > BigInt(owner.account.lamports)) throw new InstructionError('InsufficientFunds');
    moveLamports(owner, evmState, ix.lamports);
    const scope = ctx.scope.extension(EVM_EXTENSION, () => new EvmTransactionScope(layer));
    const view = new LayeredState([scope.changes], layer);
    const read = (address: string) => view.account(address);
    const to = ix.evmAddress as Hex;
    const wei = ix.lamports * WEI_PER_LAMPORT;
    const recipient = read(to) ?? newEvmAccount();
    scope.changes.accounts.set(to, { ...recipient, balance: recipient.balance + wei });
    const bridge = read(bridgeAddressKey) ?? newEvmAccount();
    scope.changes.accounts.set(bridgeAddressKey, { ...bridge, nonce: bridge.nonce + 1n });
    const { raw, hash } = encodeDeposit(bridge.nonce, to, wei, host.decoder.chainId);
    scope.records.push({
      hash, raw, from: bridgeAddressKey as Hex, deposit: true, status: 1, gasUsed: 0, effectiveGasPrice: 0n, contractAddress: null, logs: [],
      revertData: NO_REVERT_DATA, nativeSignature: ctx.signature, created: [], internal: [],
    });
    ctx.log(`SwapNativeToEther: ${ix.lamports} lamports from ${owner.key} to ${to}`);
    ctx.log(`EVM transaction ${hash}`);
  }

  function freeOwnership(ctx: InstructionContext): void {
    evmStateAccount(ctx);
    const owner = signer(ctx, 1);
    if (owner.account.owner !== EVM_PROGRAM_ID || owner.key === EVM_STATE_ID) throw new InstructionError('InvalidError');
    owner.account.owner = SYSTEM_PROGRAM_ID;
  }

  /** The storage account of a big transaction: owned by this program, signed for. */
  function storageAccount(ctx: InstructionContext): InstructionAccount {
    evmStateAccount(ctx);
    const storage = signer(ctx, 1);
    if (storage.account.owner !== EVM_PROGRAM_ID || !storage.isWritable) throw new InstructionError('InvalidAccountOwner');
    return storage;
  }

  async function process(ctx: InstructionContext): Promise<void> {
    let ix: EvmInstruction;
    try {
      ix = decodeEvmInstruction(ctx.data);
    } catch (e) {
      return fail(ctx, 'InvalidInstructionData', `EVM instruction: ${(e as Error).message}`);
    }
    switch (ix.kind) {
      case 'transaction':
        return execute(ctx, ix.raw, signer(ctx, 1));
      case 'swapNativeToEther':
        return deposit(ctx, ix);
      case 'freeOwnership':
        return freeOwnership(ctx);
      case 'allocate': {
        const storage = storageAccount(ctx);
        if (ix.size !== BigInt(storage.account.data.length)) {
          return fail(ctx, 'InvalidArgument', `EvmBigTransaction: expected storage size ${ix.size}, but available ${storage.account.data.length}`);
        }
        storage.account.data = new Uint8Array(storage.account.data.length);
        return;
      }
      case 'write': {
        const storage = storageAccount(ctx);
        const end = ix.offset + BigInt(ix.data.length);
        if (end > BigInt(storage.account.data.length)) {
          return fail(ctx, 'InvalidArgument', `EvmBigTransaction: storage out of bound: index ${end} > data size ${storage.account.data.length}`);
        }
        storage.account.data.set(ix.data, Number(ix.offset));
        return;
      }
      case 'execute': {
        const storage = storageAccount(ctx);
        const payer = ctx.accounts[2];
        if (!payer || !payer.isWritable) throw new InstructionError('NotEnoughAccountKeys');
        await execute(ctx, storage.account.data.slice(), payer);
        // The storage account is spent: its rent goes back to the payer and it closes.
        storage.account.data = new Uint8Array(0);
        moveLamports(storage, payer, BigInt(storage.account.lamports));
        return;
      }
    }
  }

  return { id: EVM_PROGRAM_ID, name: 'evm', computeUnits: 0, async: true, process };
}

const minBig = (a: bigint, b: bigint) => (a < b ? a : b);

/** What a transaction's frames touched beyond what its record already names (sender, recipient, created contracts). */
function internalAddresses(touched: Set<string>, from: string, to: string | undefined, created: Array<{ address: string }>): Hex[] {
  const named = new Set([from, to, ...created.map((c) => c.address)]);
  return [...touched].filter((a) => !named.has(a)) as Hex[];
}
