/** Confirmed account notifications made ahead, when the bank is sealed: what they send is what onBank alone sends. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SYSTEM_PROGRAM_ID } from '../../node-core/common/pubkey.ts';
import { generateKeypair } from '../../node-core/keys/keypair.ts';
import type { Bank } from '../../node-core/ledger/bank.ts';
import { AccountNotifier } from '../../node-core/pubsub/accounts.ts';
import type { SlotMemo } from '../../node-core/pubsub/slot-memo.ts';
import { Level, type AccountSub, type Subscriber } from '../../node-core/pubsub/subscriptions.ts';
import type { Account } from '../../node-core/runtime/account.ts';

class Client implements Subscriber {
  readonly subscriptions = new Set<number>();
  readonly sent: string[] = [];
  send(json: string): void {
    this.sent.push(json);
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

test('notifications of a prepared bank are the texts onBank makes itself', () => {
  const [a, b] = [generateKeypair().address, generateKeypair().address];
  const changes = new Map<string, Account | null>([[a, account(5, Uint8Array.of(1, 2, 3))], [b, null]]);
  const sent = (prepare: boolean) => {
    const level = new Level();
    const conn = new Client();
    nextId = 0;
    subscribe(level, conn, a, 'base64');
    subscribe(level, conn, a, 'base58');
    subscribe(level, conn, b, 'base64');
    const bank = bankWith(7, changes);
    const n = notifier();
    if (prepare) n.prepare(level, bank);
    n.onBank(level, bank);
    return conn.sent;
  };
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
