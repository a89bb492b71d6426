/**
 * accountNotification and programNotification. Processed subscriptions hear each transaction's
 * writes; confirmed and finalized ones hear a slot's final changes once the slot reaches that level.
 */
import { SYSTEM_PROGRAM_ID, type Address } from '../common/pubkey.ts';
import { RENT_EXEMPT_RENT_EPOCH } from '../runtime/account.ts';
import type { Bank } from '../ledger/bank.ts';
import type { Account } from '../runtime/account.ts';
import { encodeAccount, type UiAccount } from '../rpc/encoding/account.ts';
import { INVALID_REQUEST, isRpcError } from '../rpc/errors.ts';
import { matchesFilters } from '../rpc/filters.ts';
import { toRpcJson } from '../rpc/json.ts';
import { deliver, notificationText, SharedResults, withSlot } from './notification-text.ts';
import { framed, type FramedTexts } from './ws-frames.ts';
import type { SlotMemo } from './slot-memo.ts';
import { TOKEN_PROGRAM_ID } from '../runtime/programs/token/state.ts';
import type { AccountSub, Level, ProgramSub, Subscriber } from './subscriptions.ts';

/** What accountSubscribe reports for an account that no longer exists (Agave: the default account). */
const CLOSED_ACCOUNT: Account = { lamports: 0, data: new Uint8Array(0), owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: 0 };

/** Agave's text in place of base-58 data over 128 bytes (PubSub cannot refuse at subscribe time). */
const BS58_TOO_LARGE = 'error: data too large for bs58 encoding';

type Reader = (address: Address) => Account | null;

/**
 * toRpcJson(ui) for the encodings whose data is text (all but a parsed jsonParsed value), written
 * directly: a notification's account is serialized for every change a slot makes to it.
 */
export function uiAccountJson(ui: UiAccount): string {
  const d = ui.data;
  let data: string;
  if (typeof d === 'string') data = JSON.stringify(d);
  else if (Array.isArray(d)) data = `[${JSON.stringify(d[0])},"${d[1]}"]`;
  else return toRpcJson(ui);
  // u64::MAX, held as 2^64, in its exact digits (rpc/json.ts).
  const rentEpoch = ui.rentEpoch === RENT_EXEMPT_RENT_EPOCH ? '18446744073709551615' : JSON.stringify(ui.rentEpoch);
  return `{"lamports":${JSON.stringify(ui.lamports)},"data":${data},"owner":${JSON.stringify(ui.owner)},"executable":${ui.executable},"rentEpoch":${rentEpoch},"space":${ui.space}}`;
}

export function encodeForNotification(address: Address, account: Account, sub: AccountSub | ProgramSub, readAccount?: Reader): UiAccount {
  try {
    return encodeAccount(address, account, { encoding: sub.encoding, dataSlice: sub.dataSlice, readAccount });
  } catch (e) {
    // The one error encoding raises: base-58 data over 128 bytes.
    if (!isRpcError(e, INVALID_REQUEST)) throw e;
    const data = sub.encoding === 'base58' ? ([BS58_TOO_LARGE, 'base58'] as [string, 'base58']) : BS58_TOO_LARGE;
    return { lamports: account.lamports, data, owner: account.owner, executable: account.executable, rentEpoch: account.rentEpoch, space: account.data.length };
  }
}

/** `sub`'s result text for `account` (null: closed) at `slot`, made once per encoding in `results`. */
function accountText(results: SharedResults, sub: AccountSub, address: Address, account: Account | null, slot: number, read: Reader): string {
  return results.get(sub.encodingKey, () => withSlot(slot, uiAccountJson(encodeForNotification(address, account ?? CLOSED_ACCOUNT, sub, read))))!;
}

function notifyAccount(subs: Set<AccountSub>, address: Address, account: Account | null, slot: number, read: Reader, results = new SharedResults()): void {
  for (const sub of subs) deliver(sub, accountText(results, sub, address, account, slot, read));
}

function notifyProgram(subs: Set<ProgramSub>, address: Address, account: Account, slot: number, read: Reader): void {
  const results = new SharedResults();
  for (const sub of subs) {
    if (sub.filters.length && !matchesFilters(account, sub.filters)) continue;
    const text = results.get(sub.encodingKey, () => {
      const ui = encodeForNotification(address, account, sub, read);
      // As getProgramAccounts: under jsonParsed, token accounts that do not parse are left out.
      if (account.owner === TOKEN_PROGRAM_ID && (sub.encoding === 'jsonParsed' || sub.encoding === 'json') && Array.isArray(ui.data)) return null;
      return withSlot(slot, `{"pubkey":${JSON.stringify(address)},"account":${uiAccountJson(ui)}}`);
    });
    if (text) deliver(sub, text);
  }
}

/** Result texts made for a sealed bank's changed account before it is confirmed, with the state they show and the subscriptions they were made for. */
interface PreparedAccount {
  account: Account | null;
  results: SharedResults;
  subs: AccountSub[];
}

/** What `prepare` made for a bank: texts by account, and each connection's messages framed, in the order onBank sends them. */
interface Prepared {
  accounts: Map<Address, PreparedAccount>;
  byConnection: Map<Subscriber, FramedTexts>;
}

export class AccountNotifier {
  /** By sealed bank: what `prepare` made for its confirmed notifications. */
  private readonly prepared = new WeakMap<Bank, Prepared>();

  /** `processed` reads the working bank (a token account's mint under jsonParsed). */
  constructor(
    private readonly memo: SlotMemo,
    private readonly processed: Reader = () => null,
  ) {}

  /** Processed level: the accounts one transaction wrote. */
  onTransaction(level: Level, slot: number, writes: ReadonlyArray<[Address, Account]>): void {
    if (level.accounts.size === 0 && level.programs.size === 0) return;
    for (const [address, account] of writes) {
      const accountSubs = level.accounts.get(address);
      if (accountSubs) notifyAccount(accountSubs, address, account.lamports === 0 ? null : account, slot, this.processed);
      const programSubs = level.programs.get(account.owner);
      if (programSubs) notifyProgram(programSubs, address, account, slot, this.processed);
    }
  }

  /** Processed level: accounts the seal itself changed (the leader's fee deposit), not a transaction. */
  onSealed(level: Level, bank: Bank): void {
    if (level.accounts.size === 0 && level.programs.size === 0) return;
    const writes: Array<[Address, Account]> = [];
    for (const r of bank.rewards) {
      const account = bank.changes.get(r.pubkey);
      if (account) writes.push([r.pubkey, account]);
    }
    this.onTransaction(level, bank.slot, writes);
  }

  /**
   * Every level: the states a revert put back (ledger/snapshots.ts), context = the slot reverted to.
   * An account that did not exist then is reported closed to its subscribers.
   */
  onReverted(level: Level, slot: number, restored: ReadonlyArray<[Address, Account | null]>): void {
    if (level.accounts.size === 0 && level.programs.size === 0) return;
    for (const [address, account] of restored) {
      const accountSubs = level.accounts.get(address);
      if (accountSubs) notifyAccount(accountSubs, address, account, slot, this.processed);
      const programSubs = account && level.programs.get(account.owner);
      if (programSubs) notifyProgram(programSubs, address, account, slot, this.processed);
    }
  }

  /**
   * Makes the result texts of `level`'s account notifications for a sealed bank, before the bank
   * reaches that level: its changes are final once sealed, and the texts are then most of the work
   * left when it is confirmed (a thousand subscribed accounts: a thousand texts at that moment).
   */
  prepare(level: Level, bank: Bank): void {
    if (level.accounts.size === 0) return;
    const read: Reader = (a) => bank.get(a);
    const accounts = new Map<Address, PreparedAccount>();
    const messages = new Map<Subscriber, string[]>();
    this.forChangedAccounts(level, bank, (subs, address, account) => {
      const results = new SharedResults();
      const order: AccountSub[] = [];
      for (const sub of subs) {
        const text = notificationText(sub, accountText(results, sub, address, account, bank.slot, read));
        order.push(sub);
        const list = messages.get(sub.conn);
        if (list) list.push(text);
        else messages.set(sub.conn, [text]);
      }
      accounts.set(address, { account, results, subs: order });
    });
    const byConnection = new Map<Subscriber, FramedTexts>();
    for (const [conn, texts] of messages) byConnection.set(conn, framed(texts));
    this.prepared.set(bank, { accounts, byConnection });
  }

  /**
   * Whether `prepared` still holds exactly what onBank would send: the same changed accounts with
   * subscriptions, each in the state its texts show, with the same subscriptions in the same order.
   */
  private unchangedSince(prepared: Prepared, level: Level, bank: Bank): boolean {
    let same = true;
    let seen = 0;
    this.forChangedAccounts(level, bank, (subs, address, account) => {
      seen++;
      const made = prepared.accounts.get(address);
      if (!made || made.account !== account || made.subs.length !== subs.size) {
        same = false;
        return;
      }
      let i = 0;
      for (const sub of subs) if (sub !== made.subs[i++]) same = false;
    });
    return same && seen === prepared.accounts.size;
  }

  /** Calls `visit` for each account `bank` changed that `level` has subscriptions to (null: closed). */
  private forChangedAccounts(level: Level, bank: Bank, visit: (subs: Set<AccountSub>, address: Address, account: Account | null) => void): void {
    const changes = bank.changes;
    if (level.accounts.size < changes.size) {
      for (const [address, subs] of level.accounts) {
        const account = changes.get(address);
        if (account !== undefined) visit(subs, address, account);
      }
    } else {
      for (const [address, account] of changes) {
        const subs = level.accounts.get(address);
        if (subs) visit(subs, address, account);
      }
    }
  }

  /** Confirmed or finalized level: a slot's final changes, context = that slot. */
  onBank(level: Level, bank: Bank): void {
    const changes = bank.changes;
    const read: Reader = (a) => bank.get(a);
    if (level.accounts.size) {
      const prepared = this.prepared.get(bank);
      this.prepared.delete(bank);
      if (prepared && this.unchangedSince(prepared, level, bank)) {
        for (const [conn, messages] of prepared.byConnection) conn.sendFramed(messages);
      } else {
        this.forChangedAccounts(level, bank, (subs, address, account) => {
          // Texts made for another state of the account (none should be) or encodings subscribed since are made now.
          const made = prepared?.accounts.get(address);
          notifyAccount(subs, address, account, bank.slot, read, made && made.account === account ? made.results : undefined);
        });
      }
    }
    if (level.programs.size) {
      for (const [address, changed] of changes) {
        const account = changed ?? this.memo.closedAccount(bank.slot, address);
        if (!account) continue;
        const subs = level.programs.get(account.owner);
        if (subs) notifyProgram(subs, address, account, bank.slot, read);
      }
    }
  }
}
