/**
 * The PubSub methods: each *Subscribe checks its params with the HTTP parsers (same messages),
 * registers the subscription and answers its integer id; each *Unsubscribe answers true, or
 * -32602 "Invalid subscription id." for an id this connection does not hold (Agave's text; as in
 * Agave any unsubscribe method removes any of the connection's subscriptions).
 * Default commitment of every subscription: confirmed (the spec's `single`).
 */
import type { Address } from '../common/pubkey.ts';
import type { Commitment } from '../ledger/commitment.ts';
import type { AccountEncoding, DataSlice } from '../rpc/encoding/account.ts';
import type { TransactionDetails, TransactionEncoding } from '../rpc/encoding/transaction.ts';
import { INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, RpcError, invalidParams } from '../rpc/errors.ts';
import { accountFilters } from '../rpc/filters.ts';
import {
  ACCOUNT_ENCODINGS,
  TRANSACTION_ENCODINGS,
  address,
  bool,
  commitment,
  config,
  dataSlice,
  fail,
  oneOf,
  optional,
  parseParams,
  required,
  signature,
  u64,
  type Parse,
} from '../rpc/params.ts';
import type { MethodTable } from '../rpc/dispatcher.ts';
import type { Notifier } from './notifier.ts';
import type { NewSubscription, NodeSubKind, Registry, Subscriber } from './subscriptions.ts';

export interface PubsubContext {
  conn: Subscriber;
  registry: Registry;
  notifier: Notifier;
  enableVoteSubscription: boolean;
}

/**
 * Finalized, as Agave's PubSub and this node's HTTP methods default to. The 1.5 spec says `single`,
 * but @solana/kit strips `commitment: "finalized"` from every request on the assumption that it is
 * the server's default, so a confirmed default would notify kit's finalized subscriptions too early.
 * Clients that omit the commitment are notified later than `single` would, never wrongly.
 */
export const DEFAULT_COMMITMENT: Commitment = 'finalized';
const ALREADY_REACHED_DELAY_MS = 10;
export const VOTE_FLAG = '--rpc-pubsub-enable-vote-subscription';

const voteDisabled = () =>
  new RpcError(METHOD_NOT_FOUND, `Vote subscriptions are disabled on this node; start it with ${VOTE_FLAG} to use voteSubscribe`);

function subscribe(ctx: PubsubContext, params: NewSubscription): number {
  if (ctx.registry.full) throw new RpcError(INTERNAL_ERROR, 'Internal Error: Subscription refused. Node subscription limit reached');
  return ctx.registry.add(params).id;
}

function unsubscribe(params: unknown, ctx: PubsubContext): boolean {
  const [id] = parseParams(params, [required('subscriptionId', u64)]);
  if (!ctx.conn.subscriptions.has(id) || !ctx.registry.remove(id)) throw new RpcError(INVALID_PARAMS, 'Invalid subscription id.');
  return true;
}

const sliceKey = (s: DataSlice | undefined) => (s ? `${s.offset}:${s.length}` : '');

const accountConfig = config({ commitment, encoding: oneOf(ACCOUNT_ENCODINGS), dataSlice });
const programConfig = config({ commitment, encoding: oneOf(ACCOUNT_ENCODINGS), dataSlice, filters: accountFilters });
const logsConfig = config({ commitment });
const signatureConfig = config({ commitment, enableReceivedNotification: bool });
const TRANSACTION_DETAILS = ['full', 'signatures', 'none', 'accounts'] as const;
const blockConfig = config({
  commitment,
  encoding: oneOf(TRANSACTION_ENCODINGS),
  transactionDetails: oneOf(TRANSACTION_DETAILS),
  showRewards: bool,
  maxSupportedTransactionVersion: u64,
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const logsFilter: Parse<{ mentions: Address | null; withVotes: boolean }> = (v, name) => {
  if (v === 'all') return { mentions: null, withVotes: false };
  if (v === 'allWithVotes') return { mentions: null, withVotes: true };
  if (isObject(v) && 'mentions' in v) {
    const m = v.mentions;
    if (!Array.isArray(m)) return fail(`${name}.mentions`, 'an array of one base-58 public key', m);
    if (m.length !== 1) throw invalidParams('Invalid Request: Only 1 address supported');
    // Agave filters simple votes only out of `all`.
    return { mentions: address(m[0], `${name}.mentions[0]`), withVotes: true };
  }
  return fail(name, '"all", "allWithVotes" or {"mentions": [<pubkey>]}', v);
};

const blockFilter: Parse<Address | null> = (v, name) => {
  if (v === 'all') return null;
  if (isObject(v) && 'mentionsAccountOrProgram' in v) return address(v.mentionsAccountOrProgram, `${name}.mentionsAccountOrProgram`);
  return fail(name, '"all" or {"mentionsAccountOrProgram": <pubkey>}', v);
};

function nodeSubscribe(kind: NodeSubKind) {
  return (params: unknown, ctx: PubsubContext): number => {
    parseParams(params, []);
    return subscribe(ctx, { kind, conn: ctx.conn });
  };
}

export const pubsubMethods: MethodTable<PubsubContext> = {
  accountSubscribe(params, ctx) {
    const [pubkey, cfg = {}] = parseParams(params, [required('pubkey', address), optional('config', accountConfig)]);
    const encoding: AccountEncoding = cfg.encoding ?? 'binary';
    return subscribe(ctx, {
      kind: 'account',
      conn: ctx.conn,
      address: pubkey,
      commitment: cfg.commitment ?? DEFAULT_COMMITMENT,
      encoding,
      dataSlice: cfg.dataSlice ?? null,
      encodingKey: `${encoding}|${sliceKey(cfg.dataSlice)}`,
    });
  },
  accountUnsubscribe: unsubscribe,

  programSubscribe(params, ctx) {
    const [program, cfg = {}] = parseParams(params, [required('programId', address), optional('config', programConfig)]);
    const encoding: AccountEncoding = cfg.encoding ?? 'binary';
    return subscribe(ctx, {
      kind: 'program',
      conn: ctx.conn,
      program,
      commitment: cfg.commitment ?? DEFAULT_COMMITMENT,
      encoding,
      dataSlice: cfg.dataSlice ?? null,
      filters: cfg.filters ?? [],
      encodingKey: `${encoding}|${sliceKey(cfg.dataSlice)}`,
    });
  },
  programUnsubscribe: unsubscribe,

  logsSubscribe(params, ctx) {
    const [filter, cfg = {}] = parseParams(params, [required('filter', logsFilter), optional('config', logsConfig)]);
    return subscribe(ctx, { kind: 'logs', conn: ctx.conn, ...filter, commitment: cfg.commitment ?? DEFAULT_COMMITMENT });
  },
  logsUnsubscribe: unsubscribe,

  signatureSubscribe(params, ctx) {
    const [sig, cfg = {}] = parseParams(params, [required('signature', signature), optional('config', signatureConfig)]);
    const id = subscribe(ctx, {
      kind: 'signature',
      conn: ctx.conn,
      signature: sig,
      commitment: cfg.commitment ?? DEFAULT_COMMITMENT,
      enableReceivedNotification: cfg.enableReceivedNotification ?? false,
    });
    const sub = ctx.registry.get(id);
    // Already at its commitment: notify a little after the response, because @solana/kit attaches
    // its listener only once it has processed the response and drops a notification read with it.
    setTimeout(() => {
      if (sub?.kind === 'signature') ctx.notifier.transactions.notifyIfReached(sub);
    }, ALREADY_REACHED_DELAY_MS);
    return id;
  },
  signatureUnsubscribe: unsubscribe,

  blockSubscribe(params, ctx) {
    const [mentions, cfg = {}] = parseParams(params, [required('filter', blockFilter), optional('config', blockConfig)]);
    const level = cfg.commitment ?? DEFAULT_COMMITMENT;
    if (level === 'processed') throw new RpcError(INVALID_PARAMS, 'Method does not support commitment below `confirmed`');
    // Agave's defaults for blockSubscribe: base64, full details, no rewards.
    const encoding: TransactionEncoding = cfg.encoding ?? 'base64';
    const transactionDetails: TransactionDetails = cfg.transactionDetails ?? 'full';
    const showRewards = cfg.showRewards ?? false;
    const maxSupportedTransactionVersion = cfg.maxSupportedTransactionVersion ?? null;
    return subscribe(ctx, {
      kind: 'block',
      conn: ctx.conn,
      mentions,
      commitment: level,
      encoding,
      transactionDetails,
      showRewards,
      maxSupportedTransactionVersion,
      encodingKey: `${encoding}|${transactionDetails}|${showRewards}|${maxSupportedTransactionVersion}`,
    });
  },
  blockUnsubscribe: unsubscribe,

  slotSubscribe: nodeSubscribe('slot'),
  slotUnsubscribe: unsubscribe,
  slotsUpdatesSubscribe: nodeSubscribe('slotsUpdates'),
  slotsUpdatesUnsubscribe: unsubscribe,
  rootSubscribe: nodeSubscribe('root'),
  rootUnsubscribe: unsubscribe,

  voteSubscribe(params, ctx) {
    if (!ctx.enableVoteSubscription) throw voteDisabled();
    return nodeSubscribe('vote')(params, ctx);
  },
  voteUnsubscribe(params, ctx) {
    if (!ctx.enableVoteSubscription) throw voteDisabled();
    return unsubscribe(params, ctx);
  },
};
