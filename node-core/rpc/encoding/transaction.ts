/**
 * Transactions with status meta and blocks as getTransaction / getBlock (and the 1.5 names
 * getConfirmedTransaction / getConfirmedBlock) return them, following Agave's transaction-status
 * encoders and their serde skip rules:
 * - json/base58/base64 meta carries `loadedAddresses`; jsonParsed meta does not;
 * - meta `rewards` is `[]` when rewards are shown and `null` otherwise (absent in `accounts` mode);
 * - `version` appears only when the client sent `maxSupportedTransactionVersion`, and a v0
 *   transaction without it (or above it) is refused with -32015.
 * Top-level instructions report `stackHeight: null` (Agave 1.16–2.x).
 */
import { decodeBase58, encodeBase58 } from '../../common/base58.ts';
import type { Address } from '../../common/pubkey.ts';
import type { TransactionErrorValue } from '../../runtime/errors.ts';
import { BPF_LOADER_UPGRADEABLE_ID } from '../../runtime/programs/bpf-loader/upgradeable-state.ts';
import { isSignerIndex, isWritableIndex, parseTransaction, type Message, type TransactionVersion } from '../../runtime/wire.ts';
import type { Reward, StoredBlock, StoredTransaction, TransactionStatusMeta } from '../../store/store.ts';
import { toBase64 } from './account.ts';
import { unsupportedTransactionVersion } from '../errors.ts';
import { parseInstruction } from './parsed/index.ts';
import type { ParsedInstructionValue } from './parsed/types.ts';

export type TransactionEncoding = 'json' | 'jsonParsed' | 'base58' | 'base64' | 'binary';
export type TransactionDetails = 'full' | 'signatures' | 'none' | 'accounts';

export const TRANSACTION_ENCODINGS: ReadonlySet<string> = new Set<TransactionEncoding>(['json', 'jsonParsed', 'base58', 'base64', 'binary']);
export const TRANSACTION_DETAILS: ReadonlySet<string> = new Set<TransactionDetails>(['full', 'signatures', 'none', 'accounts']);

export interface TransactionEncodeOptions {
  maxSupportedTransactionVersion?: number | null;
  /** Defaults to true (getTransaction always shows them). */
  showRewards?: boolean;
  /** 1.5-era methods (getConfirmedTransaction/Block): never report `version`. */
  legacy?: boolean;
}

/**
 * The stored form of `TransactionStatusMeta.innerInstructions` entries this module reads
 * (`data` as bytes or already base-58).
 */
export interface StoredInnerInstructions {
  index: number;
  instructions: Array<{ programIdIndex: number; accounts: number[]; data: Uint8Array | string; stackHeight?: number | null }>;
}

export interface UiCompiledInstruction {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number | null;
}

export type UiParsedInstruction =
  | { program: string; programId: Address; parsed: ParsedInstructionValue; stackHeight: number | null }
  | { programId: Address; accounts: Address[]; data: string; stackHeight: number | null };

export interface UiAddressTableLookup {
  accountKey: Address;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface UiParsedAccountKey {
  pubkey: Address;
  writable: boolean;
  signer: boolean;
  source: 'transaction' | 'lookupTable';
}

export interface UiRawMessage {
  header: Message['header'];
  accountKeys: Address[];
  recentBlockhash: string;
  instructions: UiCompiledInstruction[];
  addressTableLookups?: UiAddressTableLookup[];
}

export interface UiParsedMessage {
  accountKeys: UiParsedAccountKey[];
  recentBlockhash: string;
  instructions: UiParsedInstruction[];
  addressTableLookups?: UiAddressTableLookup[];
}

export type UiTransaction =
  | { signatures: string[]; message: UiRawMessage | UiParsedMessage }
  | [string, 'base58' | 'base64']
  | string;

export interface UiTransactionStatusMeta {
  err: TransactionErrorValue | null;
  status: { Ok: null } | { Err: TransactionErrorValue };
  fee: number;
  preBalances: number[];
  postBalances: number[];
  innerInstructions?: Array<{ index: number; instructions: Array<UiCompiledInstruction | UiParsedInstruction> }> | null;
  logMessages?: string[] | null;
  preTokenBalances?: unknown[] | null;
  postTokenBalances?: unknown[] | null;
  rewards?: Reward[] | null;
  loadedAddresses?: { writable: Address[]; readonly: Address[] };
  returnData?: UiReturnData;
  computeUnitsConsumed?: number;
}

/** Return data as Agave shows it: the program and `[base64, "base64"]`. */
export interface UiReturnData {
  programId: Address;
  data: [string, 'base64'];
}

export const uiReturnData = (r: { programId: Address; data: Uint8Array }): UiReturnData => ({ programId: r.programId, data: [toBase64(r.data), 'base64'] });

export interface EncodedTransactionWithMeta {
  transaction: UiTransaction | { signatures: string[]; accountKeys: UiParsedAccountKey[] };
  meta: UiTransactionStatusMeta;
  version?: TransactionVersion;
}

/** Keys no transaction may write-lock (ReservedAccountKeys::new_all_activated): shown read-only in jsonParsed. */
const RESERVED_ACCOUNT_KEYS: ReadonlySet<Address> = new Set(
  (
    'AddressLookupTab1e1111111111111111111111111 BPFLoader1111111111111111111111111111111111 ' +
    'BPFLoader2111111111111111111111111111111111 BPFLoaderUpgradeab1e11111111111111111111111 ' +
    'ComputeBudget111111111111111111111111111111 Config1111111111111111111111111111111111111 ' +
    'Ed25519SigVerify111111111111111111111111111 Feature111111111111111111111111111111111111 ' +
    'LoaderV411111111111111111111111111111111111 KeccakSecp256k11111111111111111111111111111 ' +
    'Secp256r1SigVerify1111111111111111111111111 StakeConfig11111111111111111111111111111111 ' +
    'Stake11111111111111111111111111111111111111 11111111111111111111111111111111 ' +
    'Vote111111111111111111111111111111111111111 ZkE1Gama1Proof11111111111111111111111111111 ' +
    'ZkTokenProof1111111111111111111111111111111 SysvarC1ock11111111111111111111111111111111 ' +
    'SysvarEpochRewards1111111111111111111111111 SysvarEpochSchedu1e111111111111111111111111 ' +
    'SysvarFees111111111111111111111111111111111 Sysvar1nstructions1111111111111111111111111 ' +
    'SysvarLastRestartS1ot1111111111111111111111 SysvarRecentB1ockHashes11111111111111111111 ' +
    'SysvarRent111111111111111111111111111111111 SysvarRewards111111111111111111111111111111 ' +
    'SysvarS1otHashes111111111111111111111111111 SysvarS1otHistory11111111111111111111111111 ' +
    'SysvarStakeHistory1111111111111111111111111 NativeLoader1111111111111111111111111111111 ' +
    'Sysvar1111111111111111111111111111111111111'
  ).split(' '),
);

/** Version to report, or undefined to omit it; throws -32015 for a version the client cannot take. */
function checkVersion(version: TransactionVersion, opts: TransactionEncodeOptions): TransactionVersion | undefined {
  const max = opts.maxSupportedTransactionVersion;
  if (version !== 'legacy' && (max == null || version > max)) throw unsupportedTransactionVersion(version);
  return max == null || opts.legacy ? undefined : version;
}

/** Static keys, then the looked-up writable and read-only ones. */
function allAccountKeys(m: Message, meta: TransactionStatusMeta): Address[] {
  if (m.version === 'legacy') return m.accountKeys;
  return [...m.accountKeys, ...meta.loadedAddresses.writable, ...meta.loadedAddresses.readonly];
}

/** parse_legacy_message_accounts / parse_v0_message_accounts, reserved keys and called programs demoted. */
function parsedAccountKeys(m: Message, meta: TransactionStatusMeta): UiParsedAccountKey[] {
  const keys = allAccountKeys(m, meta);
  const upgradeableLoaderPresent = keys.includes(BPF_LOADER_UPGRADEABLE_ID);
  const programIndexes = new Set(m.instructions.map((ix) => ix.programIdIndex));
  const demoted = (i: number, key: Address) =>
    RESERVED_ACCOUNT_KEYS.has(key) || (programIndexes.has(i) && !upgradeableLoaderPresent);
  const staticCount = m.accountKeys.length;
  const loadedWritableEnd = staticCount + (m.version === 'legacy' ? 0 : meta.loadedAddresses.writable.length);
  return keys.map((pubkey, i) => {
    const isStatic = i < staticCount;
    const writable = (isStatic ? isWritableIndex(m, i) : i < loadedWritableEnd) && !demoted(i, pubkey);
    return { pubkey, writable, signer: isStatic && isSignerIndex(m, i), source: isStatic ? 'transaction' : 'lookupTable' };
  });
}

function uiAddressTableLookups(m: Message): UiAddressTableLookup[] {
  return m.addressTableLookups.map((l) => ({
    accountKey: l.accountKey,
    writableIndexes: l.writableIndexes,
    readonlyIndexes: l.readonlyIndexes,
  }));
}

function parsedInstruction(
  programIdIndex: number,
  accountIndexes: number[],
  data: Uint8Array,
  keys: Address[],
  stackHeight: number | null,
): UiParsedInstruction {
  // Stored transactions passed sanitize, so every index resolves.
  const programId = keys[programIdIndex]!;
  const accounts = accountIndexes.map((i) => keys[i]!);
  const p = parseInstruction(programId, data, accounts);
  if (p) return { program: p.program, programId, parsed: p.parsed, stackHeight };
  return { programId, accounts, data: encodeBase58(data), stackHeight };
}

function rawMessage(m: Message): UiRawMessage {
  const out: UiRawMessage = {
    header: {
      numRequiredSignatures: m.header.numRequiredSignatures,
      numReadonlySignedAccounts: m.header.numReadonlySignedAccounts,
      numReadonlyUnsignedAccounts: m.header.numReadonlyUnsignedAccounts,
    },
    accountKeys: m.accountKeys,
    recentBlockhash: m.recentBlockhash,
    instructions: m.instructions.map((ix) => ({
      programIdIndex: ix.programIdIndex,
      accounts: ix.accounts,
      data: encodeBase58(ix.data),
      stackHeight: null,
    })),
  };
  if (m.version !== 'legacy') out.addressTableLookups = uiAddressTableLookups(m);
  return out;
}

function parsedMessage(m: Message, meta: TransactionStatusMeta): UiParsedMessage {
  const keys = allAccountKeys(m, meta);
  const out: UiParsedMessage = {
    accountKeys: parsedAccountKeys(m, meta),
    recentBlockhash: m.recentBlockhash,
    instructions: m.instructions.map((ix) => parsedInstruction(ix.programIdIndex, ix.accounts, ix.data, keys, null)),
  };
  if (m.version !== 'legacy') out.addressTableLookups = uiAddressTableLookups(m);
  return out;
}

const statusOf = (err: TransactionErrorValue | null) => (err === null ? { Ok: null } : { Err: err });

function innerInstructions(meta: TransactionStatusMeta, parsedKeys: Address[] | null): UiTransactionStatusMeta['innerInstructions'] {
  return (meta.innerInstructions as StoredInnerInstructions[]).map((inner) => ({
    index: inner.index,
    instructions: inner.instructions.map((ix) => {
      const stackHeight = ix.stackHeight ?? null;
      if (parsedKeys) {
        const data = typeof ix.data === 'string' ? decodeBase58(ix.data) : ix.data;
        return parsedInstruction(ix.programIdIndex, ix.accounts, data, parsedKeys, stackHeight);
      }
      const data = typeof ix.data === 'string' ? ix.data : encodeBase58(ix.data);
      return { programIdIndex: ix.programIdIndex, accounts: ix.accounts, data, stackHeight };
    }),
  }));
}

/** Inner instructions in the jsonParsed form (simulateTransaction's `innerInstructions: true`). */
export function parsedInnerInstructions(inner: StoredInnerInstructions[], keys: Address[]): UiTransactionStatusMeta['innerInstructions'] {
  return innerInstructions({ innerInstructions: inner } as TransactionStatusMeta, keys);
}

/** Full meta; `parsedKeys` (all account keys) selects the jsonParsed form. */
function uiMeta(meta: TransactionStatusMeta, showRewards: boolean, parsedKeys: Address[] | null): UiTransactionStatusMeta {
  const out: UiTransactionStatusMeta = {
    err: meta.err,
    status: statusOf(meta.err),
    fee: meta.fee,
    preBalances: meta.preBalances,
    postBalances: meta.postBalances,
    innerInstructions: innerInstructions(meta, parsedKeys),
    logMessages: meta.logMessages,
    preTokenBalances: meta.preTokenBalances,
    postTokenBalances: meta.postTokenBalances,
    rewards: showRewards ? [] : null,
  };
  if (!parsedKeys) out.loadedAddresses = { writable: meta.loadedAddresses.writable, readonly: meta.loadedAddresses.readonly };
  if (meta.returnData) out.returnData = uiReturnData(meta.returnData);
  out.computeUnitsConsumed = meta.computeUnitsConsumed;
  return out;
}

/** One transaction of getTransaction / getBlock (`full` details): `{transaction, meta, version?}`. */
export function encodeTransactionWithMeta(
  stored: StoredTransaction,
  encoding: TransactionEncoding = 'json',
  opts: TransactionEncodeOptions = {},
): EncodedTransactionWithMeta {
  const tx = parseTransaction(stored.wire);
  const m = tx.message;
  const version = checkVersion(m.version, opts);
  const showRewards = opts.showRewards ?? true;
  let transaction: UiTransaction;
  let meta: UiTransactionStatusMeta;
  switch (encoding) {
    case 'json':
      transaction = { signatures: tx.signatures.map(encodeBase58), message: rawMessage(m) };
      meta = uiMeta(stored.meta, showRewards, null);
      break;
    case 'jsonParsed':
      transaction = { signatures: tx.signatures.map(encodeBase58), message: parsedMessage(m, stored.meta) };
      meta = uiMeta(stored.meta, showRewards, allAccountKeys(m, stored.meta));
      break;
    case 'base58':
      transaction = [encodeBase58(stored.wire), 'base58'];
      meta = uiMeta(stored.meta, showRewards, null);
      break;
    case 'base64':
      transaction = [toBase64(stored.wire), 'base64'];
      meta = uiMeta(stored.meta, showRewards, null);
      break;
    case 'binary':
      transaction = encodeBase58(stored.wire);
      meta = uiMeta(stored.meta, showRewards, null);
      break;
  }
  const out: EncodedTransactionWithMeta = { transaction, meta };
  if (version !== undefined) out.version = version;
  return out;
}

/** getBlock's `accounts` details: signatures, annotated account keys and a reduced meta. */
export function encodeTransactionAccounts(stored: StoredTransaction, opts: TransactionEncodeOptions = {}): EncodedTransactionWithMeta {
  const tx = parseTransaction(stored.wire);
  const version = checkVersion(tx.message.version, opts);
  const m = stored.meta;
  const meta: UiTransactionStatusMeta = {
    err: m.err,
    status: statusOf(m.err),
    fee: m.fee,
    preBalances: m.preBalances,
    postBalances: m.postBalances,
    preTokenBalances: m.preTokenBalances,
    postTokenBalances: m.postTokenBalances,
  };
  if (opts.showRewards ?? true) meta.rewards = [];
  const out: EncodedTransactionWithMeta = {
    transaction: { signatures: tx.signatures.map(encodeBase58), accountKeys: parsedAccountKeys(tx.message, m) },
    meta,
  };
  if (version !== undefined) out.version = version;
  return out;
}

/** getTransaction / getConfirmedTransaction: `{slot, transaction, meta, version?, blockTime}`. */
export function encodeConfirmedTransaction(
  located: { slot: number; blockTime: number | null; transaction: StoredTransaction },
  encoding: TransactionEncoding = 'json',
  opts: TransactionEncodeOptions = {},
) {
  const { transaction, meta, version } = encodeTransactionWithMeta(located.transaction, encoding, { ...opts, showRewards: true });
  return version === undefined
    ? { slot: located.slot, transaction, meta, blockTime: located.blockTime }
    : { slot: located.slot, transaction, meta, version, blockTime: located.blockTime };
}

export interface BlockEncodeOptions {
  encoding?: TransactionEncoding;
  transactionDetails?: TransactionDetails;
  /** Block and per-transaction rewards; default true. */
  rewards?: boolean;
  maxSupportedTransactionVersion?: number | null;
  /** getConfirmedBlock (1.5): no `blockHeight`, no `version`. */
  legacy?: boolean;
}

export interface UiConfirmedBlock {
  previousBlockhash: string;
  blockhash: string;
  parentSlot: number;
  transactions?: EncodedTransactionWithMeta[];
  signatures?: string[];
  rewards?: Reward[];
  blockTime: number | null;
  blockHeight?: number | null;
}

export const uiReward = (r: Reward): Reward => ({
  pubkey: r.pubkey,
  lamports: r.lamports,
  postBalance: r.postBalance,
  rewardType: r.rewardType,
  commission: r.commission,
});

/** getBlock / getConfirmedBlock. Throws unsupportedTransactionVersion (-32015) as Agave does. */
export function encodeBlock(block: StoredBlock, opts: BlockEncodeOptions = {}): UiConfirmedBlock {
  const showRewards = opts.rewards ?? true;
  const txOpts: TransactionEncodeOptions = {
    maxSupportedTransactionVersion: opts.maxSupportedTransactionVersion,
    showRewards,
    legacy: opts.legacy,
  };
  // Built in Agave's field order: details and rewards before blockTime and blockHeight.
  const out = {
    previousBlockhash: block.previousBlockhash,
    blockhash: block.blockhash,
    parentSlot: block.parentSlot,
  } as UiConfirmedBlock;
  switch (opts.transactionDetails ?? 'full') {
    case 'full':
      out.transactions = block.transactions.map((t) => encodeTransactionWithMeta(t, opts.encoding ?? 'json', txOpts));
      break;
    case 'signatures':
      out.signatures = block.transactions.map((t) => t.signature);
      break;
    case 'accounts':
      out.transactions = block.transactions.map((t) => encodeTransactionAccounts(t, txOpts));
      break;
    case 'none':
      break;
  }
  if (showRewards) out.rewards = block.rewards.map(uiReward);
  out.blockTime = block.blockTime;
  if (!opts.legacy) out.blockHeight = block.blockHeight;
  return out;
}
