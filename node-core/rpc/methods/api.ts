/**
 * The native JSON-RPC API as types, and the check that the method table (./index.ts) serves it: for
 * each method, the compiler checks that its params schema accepts every argument list a client may
 * send (and parses every config key it may send), and that its answer has the type a client expects.
 * Standard methods are typed by @solana/kit's `SolanaRpcApi` (kit 8.4, read through ./kit-wire.ts as
 * JSON), with the corrections below where kit and the node differ; the 1.x names kit no longer has,
 * and Isthmus's own methods, by interfaces beside their handlers.
 */
import type { Commitment, JsonParsedTokenAccount, SolanaRpcApi, SolanaRpcResponse, TokenBalance, TransactionError, TransactionForAccounts } from '@solana/kit';
import type { TransactionErrorValue } from '../../runtime/errors.ts';
import type { AcceptedParams, Schema } from '../params.ts';
import type { AnyOf, OverloadArgs, OverloadResults, Patch, UnparsedKeys, Wire } from './kit-wire.ts';
import type { NativeMethod } from './method.ts';
import type { FeeCalculatorForBlockhashJson, FeeRateGovernorJson, FeesJson, RecentBlockhashJson } from './fees.ts';
import type { DevAccountsJson, NodeInfoJson } from './isthmus.ts';
import type { SnapshotJson, SnapshotRevertJson } from './snapshots.ts';
import type { StakeActivationJson } from './staking.ts';
import type { SurfnetApi } from './surfnet.ts';

/** What a method takes (every argument list a client may send) and answers, as JSON. */
export interface MethodSpec {
  args: readonly unknown[];
  result: unknown;
}

type KitMethod = keyof SolanaRpcApi;

/**
 * Kit types the node's own types describe more loosely, compared as the node's (see `Wire`). Each
 * is a place where the check is weaker than kit's type, until the node's type is made as precise:
 * - TransactionError: runtime/errors.ts types the unit variants as any string, where kit lists the
 *   names it knows;
 * - jsonParsed account data: encoding/parsed/types.ts types what a parser makes as unknown;
 * - token balances of a transaction's meta: encoding/transaction.ts types them as unknown[].
 */
type Coarser =
  | [TransactionError, TransactionErrorValue]
  // Kit's shape for jsonParsed account data and for a parsed instruction alike; an instruction's is
  // the node's ParsedInstructionValue, which kit's misses one form of: memo's, a plain string.
  | [{ info?: object; type: string }, unknown]
  | [{ info: JsonParsedTokenAccount; type: 'account' }, unknown]
  | [TokenBalance, unknown];

/**
 * Fields kit declares never null that Agave sends as null: an instruction's `stackHeight` (null for
 * the top-level ones, 1.16 to 2.x), and a meta's `preTokenBalances`, `postTokenBalances` and
 * `innerInstructions` (OptionSerializer fields: null when the status did not record them, and
 * simulateTransaction's `innerInstructions` when they were not asked for).
 */
type NullInAgave = 'stackHeight' | 'preTokenBalances' | 'postTokenBalances' | 'innerInstructions';

/** A method as kit types it: one argument list per overload, and one shape admitting every overload's result. */
type FromKit<K extends KitMethod> = { args: Wire<OverloadArgs<SolanaRpcApi[K]>>; result: AnyOf<Wire<OverloadResults<SolanaRpcApi[K]>, Coarser, NullInAgave>> };

type KitArgs<K extends KitMethod> = FromKit<K>['args'];
type KitResult<K extends KitMethod> = FromKit<K>['result'];
type WithContext<T> = Wire<SolanaRpcResponse<T>>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * Kit 8.4 methods this node does not serve: getAgGenesisCert (Alpenglow's genesis certificate, a
 * consensus this node does not run) and getTransactionsForAddress (a provider's extension, not Agave's).
 */
type NotServed = 'getAgGenesisCert' | 'getTransactionsForAddress';
type StandardMethod = Exclude<KitMethod, NotServed>;

/** The standard methods the node serves, as kit types them, with the corrections below. */
type StandardApi = Omit<{ [K in StandardMethod]: FromKit<K> }, keyof CorrectedApi> & CorrectedApi;

/**
 * Where kit 8.4's type and the node's answer differ. Each says why:
 * - kit misdeclares: Agave (and the node) answer otherwise than kit's type says;
 * - later Agave: kit describes a later Agave than the 1.18 generation this node answers as
 *   (getVersion's solana-core), with fields the node does not send;
 * - unproven: the node is right, but its types cannot show it, so the check is weaker there.
 */
interface CorrectedApi {
  /**
   * Kit misdeclares: the commitment as `Omit<Commitment, 'processed'>` (an object type no string
   * is; it means Exclude); `blockTime` and `blockHeight` as never null (Agave's UiConfirmedBlock has
   * both as Option); a reward's `commission` as absent or a number (Agave's Reward has it as
   * Option<u8>, null for fee and rent rewards); a jsonParsed v0 transaction's account keys as all of
   * `source: 'transaction'` (its versioned TransactionForFullJsonParsed reuses the legacy key type;
   * Agave marks the looked-up ones 'lookupTable'). Unproven: that `blockHeight` is always there
   * (encodeBlock's type leaves it optional for getConfirmedBlock, which never sends it). The
   * transactions: see TransactionAsEncoded.
   */
  getBlock: {
    args: Patch<KitArgs<'getBlock'>, '1.commitment', { set: 'confirmed' | 'finalized' }>;
    result: Patch<
      Patch<
        Patch<Patch<Patch<KitResult<'getBlock'>, 'blockTime', { widen: null }>, 'blockHeight', { widen: null }>, '', { optional: 'blockHeight' }>,
        'rewards.[].commission',
        { widen: null }
      >,
      'transactions.[]',
      {
        set: Patch<
          TransactionAsEncoded<NonNullable<NonNullable<KitResult<'getBlock'>>['transactions']>[number]>,
          'transaction.message.accountKeys.[].source',
          { widen: 'lookupTable' }
        >;
      }
    >;
  };
  /**
   * Kit misdeclares `maxSupportedTransactionVersion` as any TransactionVersion, 'legacy' included;
   * Agave's is an Option<u8>, and refuses 'legacy' as the node does. The transaction and its meta:
   * see TransactionAsEncoded.
   */
  getTransaction: {
    args: Patch<KitArgs<'getTransaction'>, '1.maxSupportedTransactionVersion', { set: number | undefined }>;
    result: TransactionAsEncoded<KitResult<'getTransaction'>>;
  };
  /** Kit misdeclares `commission` as never null; Agave's RpcInflationReward has it as Option<u8>. */
  getInflationReward: { args: KitArgs<'getInflationReward'>; result: Patch<KitResult<'getInflationReward'>, '[].commission', { widen: null }> };
  /** Kit sends no `binary` encoding, which the node, as Agave, also answers: data as one base-58 string. */
  getMultipleAccounts: { args: KitArgs<'getMultipleAccounts'>; result: Patch<KitResult<'getMultipleAccounts'>, 'value.[].data', { widen: string }> };
  /** Later Agave: the sockets added after 1.18. */
  getClusterNodes: {
    args: KitArgs<'getClusterNodes'>;
    result: Patch<KitResult<'getClusterNodes'>, '[]', { optional: 'clientId' | 'serveRepair' | 'tpuForwards' | 'tpuForwardsQuic' | 'tpuVote' | 'tvu' }>;
  };
  /**
   * Later Agave: the fee, balances and loaded addresses of the simulation (2.x). Unproven:
   * that no account comes back base-58 (encodeAccount's type covers every encoding; the handler
   * refuses base58 and binary, as Agave does).
   */
  simulateTransaction: {
    args: KitArgs<'simulateTransaction'>;
    result: Patch<
      Patch<
        KitResult<'simulateTransaction'>,
        'value',
        { optional: 'fee' | 'loadedAddresses' | 'preBalances' | 'postBalances' | 'preTokenBalances' | 'postTokenBalances' }
      >,
      'value.accounts.[].data',
      { widen: string | [string, 'base58'] }
    >;
  };
}

/**
 * A transaction with its meta as getTransaction and getBlock send it. Kit sends no `binary`
 * encoding, which the node, as Agave, also answers: the transaction as one base-58 string. Kit
 * misdeclares a jsonParsed message with a `header` (Agave's UiParsedMessage has none) and a
 * reward's `commission` (see getBlock). Unproven: that the meta's
 * `logMessages`, `rewards`, `innerInstructions` and `loadedAddresses` are there whenever kit's
 * overload says, and that getTransaction never answers getBlock's accounts-only form
 * (encoding/transaction.ts has one type of each for every detail mode and version).
 */
type TransactionAsEncoded<T> = Patch<
  Patch<
    Patch<Patch<T, 'transaction', { widen: string | AccountsOnlyTransaction }>, 'transaction.message', { optional: 'header' }>,
    'meta.rewards.[].commission',
    { widen: null }
  >,
  'meta',
  { optional: 'logMessages' | 'rewards' | 'innerInstructions' | 'loadedAddresses' }
>;
/** getBlock's `accounts` details: the signatures and annotated account keys only. */
type AccountsOnlyTransaction = Wire<TransactionForAccounts<0>['transaction']>;

/** The 1.x names kit does not type, each by the current method it shares its shape with, or its own interface. */
interface LegacyApi {
  /** getBlock's 1.x name: never a `blockHeight` (nor a transaction `version`). */
  getConfirmedBlock: { args: CorrectedApi['getBlock']['args']; result: DistributiveOmit<CorrectedApi['getBlock']['result'], 'blockHeight'> };
  getConfirmedBlocks: FromKit<'getBlocks'>;
  getConfirmedBlocksWithLimit: FromKit<'getBlocksWithLimit'>;
  /** getSignaturesForAddress's 1.x name: no `confirmationStatus`. */
  getConfirmedSignaturesForAddress2: { args: KitArgs<'getSignaturesForAddress'>; result: Array<Omit<KitResult<'getSignaturesForAddress'>[number], 'confirmationStatus'>> };
  /** The 1.5 form: the signatures of [startSlot, endSlot], oldest first. */
  getConfirmedSignaturesForAddress: { args: [address: string, startSlot: number, endSlot: number]; result: string[] };
  /** getTransaction's 1.x name: never a `version`. */
  getConfirmedTransaction: { args: CorrectedApi['getTransaction']['args']; result: DistributiveOmit<CorrectedApi['getTransaction']['result'], 'version'> };
  getRecentBlockhash: { args: KitArgs<'getLatestBlockhash'>; result: WithContext<RecentBlockhashJson> };
  getFees: { args: KitArgs<'getLatestBlockhash'>; result: WithContext<FeesJson> };
  getFeeCalculatorForBlockhash: { args: KitArgs<'isBlockhashValid'>; result: WithContext<FeeCalculatorForBlockhashJson> };
  getFeeRateGovernor: { args: []; result: WithContext<FeeRateGovernorJson> };
  /** getHighestSnapshotSlot's 1.x name: the full snapshot's slot alone. */
  getSnapshotSlot: { args: []; result: number };
  getStakeActivation: {
    args: [pubkey: string, config?: { commitment?: Commitment; epoch?: number; minContextSlot?: number } | null];
    result: StakeActivationJson;
  };
}

/** Isthmus's own methods, for the explorer. */
interface IsthmusApi {
  isthmus_getNodeInfo: { args: []; result: NodeInfoJson };
  isthmus_getDevAccounts: { args: []; result: DevAccountsJson };
  isthmus_snapshot: { args: [label?: string | null]; result: SnapshotJson };
  isthmus_revert: { args: [id: string | number]; result: SnapshotRevertJson };
  isthmus_getSnapshots: { args: []; result: SnapshotJson[] };
  isthmus_labelSnapshot: { args: [id: string | number, label: string | null]; result: SnapshotJson };
  isthmus_deleteSnapshot: { args: [id: string | number]; result: boolean };
}

export type NativeApi = StandardApi & LegacyApi & IsthmusApi & SurfnetApi;

// ---- the check ----

/**
 * `M` itself when it serves `S`; otherwise a type that `M` is not assignable to and whose name
 * says what is wrong: argument lists a client may send that the params do not accept, config keys
 * they would ignore, or (through NativeMethod's return type) the answer kit's type does not admit.
 */
type Serving<M, S extends MethodSpec> =
  M extends NativeMethod<infer P extends Schema, unknown>
    ? [Exclude<S['args'], AcceptedParams<P>>] extends [never]
      ? [UnparsedKeys<S['args'], AcceptedParams<P>>] extends [never]
        ? NativeMethod<P, S['result'] | Promise<S['result']>>
        : { 'config keys a client may send that these params do not parse': UnparsedKeys<S['args'], AcceptedParams<P>> }
      : { 'argument lists a client may send that these params refuse': Exclude<S['args'], AcceptedParams<P>> }
    : 'not a NativeMethod';

export type CheckedTable<T> = { [K in keyof T]: K extends keyof NativeApi ? Serving<T[K], NativeApi[K]> : 'a method NativeApi has no type for' } & {
  [K in keyof NativeApi]: unknown;
};

/** The table as given, once the compiler has checked each method against NativeApi. */
export const checkedTable = <T extends CheckedTable<T>>(table: T): T => table;
