/** Confirmed account notifications made ahead, when the bank is sealed: what they send is what onBank alone sends. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SYSTEM_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { generateKeypair } from '../../node-core/keys/keypair.ts';
import type { Bank } from '../../node-core/ledger/bank.ts';
import { AccountNotifier } from '../../node-core/pubsub/accounts.ts';
import type { SlotMemo } from '../../node-core/pubsub/slot-memo.ts';
import { Level, type AccountSub, type Subscriber } from '../../node-core/pubsub/subscriptions.ts';
import type { FramedTexts } from '../../node-core/pubsub/ws-frames.ts';
import type { Account } from '../../node-core/runtime/account.ts';

class Client implements Subscriber {
  readonly subscriptions = new Set<number>();
  readonly sent: string[] = [];
  /** Messages that came already framed. */
  framed = 0;
  send(json: string): void {
    this.sent.push(json);
  }
  sendFramed(framed: FramedTexts): void {
    this.framed += framed.texts.length;
    for (const text of framed.texts) this.send(text);
  }
}

const account = (lamports: number, data = new Uint8Array(0)): Account => ({ lamports, data, owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: 0 });

function bankWith(slot: number, changes: Map<string, Account | null>): Bank {
  return { slot, changes, get: (a: string) => changes.get(a) ?? null } as unknown as Bank;
}

let nextId = 0;
function subscribe(level: Level, conn: Client, address: string, encoding: 'base64' | 'base58'): AccountSub {
  const sub: AccountSub = { id: nextId++, kind: 'account', conn, address, commitment: 'confirmed', encoding, dataSlice: null, encodingKey: encoding };
  const set = level.accounts.get(address) ?? new Set<AccountSub>();
  set.add(sub);
  level.accounts.set(address, set);
  return sub;
}

const notifier = () => new AccountNotifier({} as SlotMemo);

/** A bank at `slot` with `changes` confirmed (its texts prepared first, or not) to the subscriptions `subscribeAll` makes: its clients, as they were told. */
function confirmed(slot: number, changes: Map<string, Account | null>, prepare: boolean, subscribeAll: (level: Level) => Client[]): Client[] {
  const level = new Level();
  nextId = 0;
  const clients = subscribeAll(level);
  const bank = bankWith(slot, changes);
  const n = notifier();
  if (prepare) n.prepare(level, bank);
  n.onBank(level, bank);
  return clients;
}

test('notifications of a prepared bank are the texts onBank makes itself', () => {
  const [a, b] = [generateKeypair().address, generateKeypair().address];
  const changes = new Map<string, Account | null>([[a, account(5, Uint8Array.of(1, 2, 3))], [b, null]]);
  const sent = (prepare: boolean) =>
    confirmed(7, changes, prepare, (level) => {
      const conn = new Client();
      subscribe(level, conn, a, 'base64');
      subscribe(level, conn, a, 'base58');
      subscribe(level, conn, b, 'base64');
      return [conn];
    })[0]!.sent;
  const ahead = sent(true);
  assert.equal(ahead.length, 3);
  assert.deepEqual(ahead, sent(false));
  assert.match(ahead[0]!, /"context":\{"slot":7\}.*"lamports":5,"data":\["AQID","base64"\]/);
  assert.match(ahead[2]!, /"lamports":0,/);
});

/** One account with lamports 5 changed by a bank at `slot`, one base64 subscription to it, its texts prepared. */
function preparedOne(slot: number) {
  const a = generateKeypair().address;
  const changes = new Map<string, Account | null>([[a, account(5)]]);
  const level = new Level();
  const conn = new Client();
  subscribe(level, conn, a, 'base64');
  const bank = bankWith(slot, changes);
  const n = notifier();
  n.prepare(level, bank);
  return { a, changes, level, conn, bank, n };
}

test('an account written after its texts were made, and a subscription made since, get texts of the state at confirmation', () => {
  const { a, changes, level, conn, bank, n } = preparedOne(9);
  changes.set(a, account(6));
  subscribe(level, conn, a, 'base58');
  n.onBank(level, bank);
  assert.equal(conn.sent.length, 2);
  for (const text of conn.sent) assert.match(text, /"lamports":6,/);
});

test('a prepared bank\'s texts are used once: a second onBank at that level makes them again', () => {
  const { level, conn, bank, n } = preparedOne(3);
  n.onBank(level, bank);
  n.onBank(level, bank);
  assert.equal(conn.sent.length, 2);
  assert.equal(conn.sent[0], conn.sent[1]);
});

test('with nothing changed since, each connection gets its prepared messages framed, as onBank alone would send them', () => {
  const [a, b] = [generateKeypair().address, generateKeypair().address];
  const changes = new Map<string, Account | null>([[a, account(5)], [b, account(8)]]);
  const sent = (prepare: boolean) =>
    confirmed(4, changes, prepare, (level) => {
      const [one, two] = [new Client(), new Client()];
      subscribe(level, one, a, 'base64');
      subscribe(level, two, a, 'base58');
      subscribe(level, one, b, 'base58');
      subscribe(level, two, b, 'base64');
      return [one, two];
    });
  const [one, two] = sent(true);
  const [alone1, alone2] = sent(false);
  assert.equal(one!.framed, 2);
  assert.equal(two!.framed, 2);
  assert.equal(alone1!.framed, 0);
  assert.deepEqual(one!.sent, alone1!.sent);
  assert.deepEqual(two!.sent, alone2!.sent);
});

test('a subscription replaced by another since the texts were made: the new one is told, the old one not', () => {
  const { a, level, conn, bank, n } = preparedOne(5);
  const old = [...level.accounts.get(a)!][0]!;
  level.accounts.get(a)!.delete(old);
  const other = new Client();
  const replacement = subscribe(level, other, a, 'base64');
  n.onBank(level, bank);
  assert.equal(conn.sent.length, 0);
  assert.equal(other.sent.length, 1);
  assert.equal(other.framed, 0);
  assert.match(other.sent[0]!, new RegExp(`"subscription":${replacement.id}\\}`));
});

test('an account written after its texts were made: not sent framed, and told of the state at confirmation', () => {
  const { a, changes, level, conn, bank, n } = preparedOne(6);
  changes.set(a, account(7));
  n.onBank(level, bank);
  assert.equal(conn.framed, 0);
  assert.equal(conn.sent.length, 1);
  assert.match(conn.sent[0]!, /"lamports":7,/);
});
