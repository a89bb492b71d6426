/**
 * The subscription registry: integer ids from 0, and indexes by kind and commitment so a chain
 * event finds its subscribers by key (address, owner, signature, mention) instead of scanning all.
 */
import type { Address } from '../common/pubkey.ts';
import type { Commitment } from '../ledger/commitment.ts';
import type { AccountFilter } from '../rpc/filters.ts';
import type { AccountEncoding, DataSlice } from '../rpc/encoding/account.ts';
import type { TransactionDetails, TransactionEncoding } from '../rpc/encoding/transaction.ts';
import type { FramedTexts } from './ws-frames.ts';

/** What a subscription needs of its connection. */
export interface Subscriber {
  /** Queues one JSON text for the client (written when the chain event's notifications are all queued: outbox.ts). */
  send(json: string): void;
  /** send() of each of `framed.texts`, in order, whose frames were built ahead. */
  sendFramed(framed: FramedTexts): void;
  /** Ids of this connection's live subscriptions. */
  readonly subscriptions: Set<number>;
}

interface Base {
  id: number;
  conn: Subscriber;
}

export interface AccountSub extends Base {
  kind: 'account';
  address: Address;
  commitment: Commitment;
  encoding: AccountEncoding;
  dataSlice: DataSlice | null;
  /** Subscriptions with equal keys get the same `result` text. */
  encodingKey: string;
}

export interface ProgramSub extends Base {
  kind: 'program';
  program: Address;
  commitment: Commitment;
  encoding: AccountEncoding;
  dataSlice: DataSlice | null;
  filters: AccountFilter[];
  encodingKey: string;
}

export interface LogsSub extends Base {
  kind: 'logs';
  /** null: every transaction; otherwise the one address it must mention. */
  mentions: Address | null;
  withVotes: boolean;
  commitment: Commitment;
}

export interface SignatureSub extends Base {
  kind: 'signature';
  signature: string;
  commitment: Commitment;
  enableReceivedNotification: boolean;
}

export interface BlockSub extends Base {
  kind: 'block';
  mentions: Address | null;
  commitment: Exclude<Commitment, 'processed'>;
  encoding: TransactionEncoding;
  transactionDetails: TransactionDetails;
  showRewards: boolean;
  maxSupportedTransactionVersion: number | null;
  encodingKey: string;
}

export type NodeSubKind = 'slot' | 'root' | 'slotsUpdates' | 'vote';
export interface NodeSub extends Base {
  kind: NodeSubKind;
}

export type Subscription = AccountSub | ProgramSub | LogsSub | SignatureSub | BlockSub | NodeSub;
export type NewSubscription = Subscription extends infer S ? (S extends Subscription ? Omit<S, 'id'> : never) : never;

/** The subscriptions of one commitment level. */
export class Level {
  readonly accounts = new Map<Address, Set<AccountSub>>();
  readonly programs = new Map<Address, Set<ProgramSub>>();
  readonly logsAll = new Set<LogsSub>();
  readonly logsMentions = new Map<Address, Set<LogsSub>>();
  readonly signatures = new Map<string, Set<SignatureSub>>();
  readonly blocks = new Set<BlockSub>();

  get hasLogs(): boolean {
    return this.logsAll.size > 0 || this.logsMentions.size > 0;
  }
}

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}

/** Agave's default cap on active subscriptions of a node. */
export const MAX_ACTIVE_SUBSCRIPTIONS = 1_000_000;

export class Registry {
  private nextId = 0;
  private readonly byId = new Map<number, Subscription>();
  readonly levels: Readonly<Record<Commitment, Level>> = { processed: new Level(), confirmed: new Level(), finalized: new Level() };
  /** Signature subscriptions that asked for the early "receivedSignature" notification. */
  readonly receivedWatchers = new Map<string, Set<SignatureSub>>();
  readonly node: Readonly<Record<NodeSubKind, Set<NodeSub>>> = { slot: new Set(), root: new Set(), slotsUpdates: new Set(), vote: new Set() };

  constructor(private readonly maxActive = MAX_ACTIVE_SUBSCRIPTIONS) {}

  get size(): number {
    return this.byId.size;
  }

  get full(): boolean {
    return this.byId.size >= this.maxActive;
  }

  get(id: number): Subscription | undefined {
    return this.byId.get(id);
  }

  add(params: NewSubscription): Subscription {
    const sub = { ...params, id: this.nextId++ } as Subscription;
    this.byId.set(sub.id, sub);
    sub.conn.subscriptions.add(sub.id);
    this.index(sub, true);
    return sub;
  }

  /** False when the id is not a live subscription. */
  remove(id: number): boolean {
    const sub = this.byId.get(id);
    if (!sub) return false;
    this.byId.delete(id);
    sub.conn.subscriptions.delete(id);
    this.index(sub, false);
    return true;
  }

  /** Frees every subscription of a closed connection. */
  removeAll(conn: Subscriber): void {
    for (const id of [...conn.subscriptions]) this.remove(id);
  }

  private index(sub: Subscription, add: boolean): void {
    const put = add ? addTo : removeFrom;
    switch (sub.kind) {
      case 'account':
        return put(this.levels[sub.commitment].accounts, sub.address, sub);
      case 'program':
        return put(this.levels[sub.commitment].programs, sub.program, sub);
      case 'logs': {
        const level = this.levels[sub.commitment];
        if (sub.mentions !== null) return put(level.logsMentions, sub.mentions, sub);
        if (add) level.logsAll.add(sub);
        else level.logsAll.delete(sub);
        return;
      }
      case 'signature':
        put(this.levels[sub.commitment].signatures, sub.signature, sub);
        if (sub.enableReceivedNotification) put(this.receivedWatchers, sub.signature, sub);
        return;
      case 'block':
        if (add) this.levels[sub.commitment].blocks.add(sub);
        else this.levels[sub.commitment].blocks.delete(sub);
        return;
      default:
        if (add) this.node[sub.kind].add(sub);
        else this.node[sub.kind].delete(sub);
    }
  }
}
