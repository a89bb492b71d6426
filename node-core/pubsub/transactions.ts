/**
 * logsNotification and signatureNotification: per transaction at processed, per slot's
 * transactions at confirmed and finalized. A signature subscription ends after its one final
 * notification.
 */
import { VOTE_PROGRAM_ID } from '../common/pubkey.ts';
import type { Bank } from '../ledger/bank.ts';
import type { Chain } from '../ledger/chain.ts';
import type { Commitment } from '../ledger/commitment.ts';
import type { SignatureStatus } from '../ledger/status-cache.ts';
import { parseTransaction } from '../runtime/wire.ts';
import type { StoredTransaction } from '../store/store.ts';
import { deliver, withSlot } from './notification-text.ts';
import type { Level, Registry, SignatureSub } from './subscriptions.ts';

/** Agave's "simple vote transaction": legacy, at most two signatures, one vote-program instruction. */
export function isSimpleVote(tx: StoredTransaction): boolean {
  if (!tx.accountKeys.includes(VOTE_PROGRAM_ID)) return false;
  const { signatures, message } = parseTransaction(tx.wire);
  return (
    signatures.length < 3 &&
    message.version === 'legacy' &&
    message.instructions.length === 1 &&
    message.accountKeys[message.instructions[0]!.programIdIndex] === VOTE_PROGRAM_ID
  );
}

export class TransactionNotifier {
  constructor(
    private readonly registry: Registry,
    private readonly chain: Chain,
  ) {}

  onTransaction(level: Level, slot: number, tx: StoredTransaction): void {
    if (level.hasLogs) this.logs(level, slot, tx);
    if (level.signatures.size) this.signature(level.signatures.get(tx.signature), slot, tx.meta.err);
  }

  onBank(level: Level, bank: Bank): void {
    if (level.hasLogs) for (const tx of bank.transactions) this.logs(level, bank.slot, tx);
    if (level.signatures.size === 0) return;
    if (level.signatures.size < bank.transactions.length) {
      for (const [sig, subs] of level.signatures) {
        const status = this.chain.signatureStatus(sig);
        if (status && status.slot === bank.slot) this.signature(subs, bank.slot, status.err);
      }
    } else {
      for (const tx of bank.transactions) this.signature(level.signatures.get(tx.signature), bank.slot, tx.meta.err);
    }
  }

  /** The early "receivedSignature" notification for subscriptions that asked for it. */
  onReceived(signature: string): void {
    const subs = this.registry.receivedWatchers.get(signature);
    if (!subs) return;
    const text = withSlot(this.chain.processedSlot, '"receivedSignature"');
    for (const sub of subs) deliver(sub, text);
  }

  /**
   * A subscription to a signature that already reached its commitment is answered at once (after
   * the subscribe response). Statuses older than the status cache are looked up in the store.
   */
  notifyIfReached(sub: SignatureSub): void {
    if (this.registry.get(sub.id) !== sub) return;
    const status = this.chain.signatureStatus(sub.signature);
    if (status) {
      if (reached(this.chain, status, sub.commitment)) this.finish(sub, status.slot, status.err);
      return;
    }
    this.chain.store.getSignatureLocation(sub.signature).then(
      (loc) => {
        if (loc && this.registry.get(sub.id) === sub && reached(this.chain, loc, sub.commitment)) this.finish(sub, loc.slot, loc.err);
      },
      () => {},
    );
  }

  private logs(level: Level, slot: number, tx: StoredTransaction): void {
    let text: string | undefined;
    const result = () => (text ??= withSlot(slot, JSON.stringify({ signature: tx.signature, err: tx.meta.err, logs: tx.meta.logMessages ?? [] })));
    if (level.logsAll.size) {
      let vote: boolean | undefined;
      for (const sub of level.logsAll) {
        if (!sub.withVotes && (vote ??= isSimpleVote(tx))) continue;
        deliver(sub, result());
      }
    }
    if (level.logsMentions.size) {
      // Account keys are unique and each subscription mentions one address: no duplicates.
      for (const key of tx.accountKeys) {
        const subs = level.logsMentions.get(key);
        if (subs) for (const sub of subs) deliver(sub, result());
      }
    }
  }

  private signature(subs: Set<SignatureSub> | undefined, slot: number, err: StoredTransaction['meta']['err']): void {
    if (!subs) return;
    for (const sub of [...subs]) this.finish(sub, slot, err);
  }

  private finish(sub: SignatureSub, slot: number, err: StoredTransaction['meta']['err']): void {
    deliver(sub, withSlot(slot, JSON.stringify({ err })));
    this.registry.remove(sub.id);
  }
}

function reached(chain: Chain, status: Pick<SignatureStatus, 'slot'>, commitment: Commitment): boolean {
  if (commitment === 'processed') return true;
  return status.slot <= (commitment === 'confirmed' ? chain.confirmedSlot : chain.rootSlot);
}
