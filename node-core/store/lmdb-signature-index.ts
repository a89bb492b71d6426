/**
 * Where each stored transaction sits, by its signature: `sigs` entries [the signature's first 48 bits,
 * slot, index] → how it ended (0: it succeeded). A lookup reads the transaction at each position under
 * the prefix and keeps the one whose signature it is (two signatures can share 48 bits; a revert can
 * leave an entry whose position now holds another transaction or none).
 *
 * Keyed by the whole signature (88 characters of base-58), each slot's entries landed on every page of
 * the table and each commit copied most of it: after 22,000 transfers `sigs` took 3.3 MiB of pages,
 * rewritten by every commit of the burst; these entries are a fifth of the size. Ledgers written
 * before keep entries under the base-58 signature: they are read, and removed, as they are.
 */
import type { Database } from 'lmdb';
import { bytesEqual } from '../common/bytes.ts';
import { tryDecodeBase58 } from '../common/base58.ts';
import type { TransactionErrorValue } from '../runtime/errors.ts';
import { firstSignatureBytes, type SigRecord, type TxRecord } from './lmdb-codec.ts';

type SignatureKey = string | [number, number, number];

/** The first 48 bits of a signature: a safe integer. */
const prefixOf = (signature: Uint8Array): number =>
  signature[0]! * 2 ** 40 + signature[1]! * 2 ** 32 + (((signature[2]! << 24) | (signature[3]! << 16) | (signature[4]! << 8) | signature[5]!) >>> 0);

export class SignatureIndex {
  constructor(
    private readonly db: Database<unknown, SignatureKey>,
    private readonly txs: Pick<Database<TxRecord, [number, number]>, 'get'>,
  ) {}

  /** The entry of the transaction at (slot, index), whose wire is `wire`, in the open write transaction. */
  put(wire: Uint8Array, slot: number, index: number, err: TransactionErrorValue | null): void {
    this.db.putSync([prefixOf(firstSignatureBytes(wire)), slot, index], err ?? 0);
  }

  /** Where the transaction signed `signature` sits and how it ended, or undefined. */
  get(signature: string): SigRecord | undefined {
    return this.find(signature)?.location;
  }

  /**
   * get's answer with the transaction's record when the lookup read it (an entry of an older ledger
   * names the position without reading it: record undefined).
   */
  find(signature: string): { location: SigRecord; record?: TxRecord } | undefined {
    const bytes = tryDecodeBase58(signature);
    if (bytes?.length === 64) {
      const prefix = prefixOf(bytes);
      for (const { key, value } of this.db.getRange({ start: [prefix], end: [prefix + 1] })) {
        const [, slot, index] = key as [number, number, number];
        const record = this.txs.get([slot, index]);
        if (record && (record[0] !== null ? record[0] === signature : bytesEqual(firstSignatureBytes(record[1]), bytes))) {
          return { location: [slot, index, value === 0 ? null : (value as TransactionErrorValue)], record };
        }
      }
    }
    const older = this.db.get(signature) as SigRecord | undefined;
    return older && { location: older };
  }

  /** Removes the entry of `signature` at (slot, index), in the open write transaction (an entry of it elsewhere stays). */
  remove(signature: string, slot: number, index: number): void {
    const bytes = tryDecodeBase58(signature);
    if (bytes?.length === 64) this.db.removeSync([prefixOf(bytes), slot, index]);
    const older = this.db.get(signature) as SigRecord | undefined;
    if (older && older[0] === slot && older[1] === index) this.db.removeSync(signature);
  }
}
