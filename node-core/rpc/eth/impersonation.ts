/**
 * Anvil's impersonation: eth_sendTransaction sends for an impersonated address without its key. The
 * transaction is signed by a throwaway key and handed to the EVM space's decoder as sent by the
 * impersonated address (evm/transaction.ts), so the relay admits it and the EVM runs it from that
 * address, as Anvil does. The set lives in memory only (Anvil's does too).
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import { randomBytes } from 'node:crypto';
import type { Hex } from '../../evm/records.ts';
import type { DecodedTransaction, TransactionDecoder } from '../../evm/transaction.ts';

export class Impersonation {
  private readonly addresses = new Set<string>();
  /** anvil_autoImpersonateAccount: every address is impersonated. */
  auto = false;

  constructor(private readonly decoder: TransactionDecoder) {}

  start(address: string): void {
    this.addresses.add(address.toLowerCase());
  }

  stop(address: string): void {
    this.addresses.delete(address.toLowerCase());
  }

  has(address: string): boolean {
    return this.auto || this.addresses.has(address.toLowerCase());
  }

  /** A throwaway key to sign a transaction of `address` with, when it is impersonated. */
  signerFor(address: string): { privateKey: Uint8Array } | undefined {
    return this.has(address) ? { privateKey: new Uint8Array(randomBytes(32)) } : undefined;
  }

  /** The transaction signed by the throwaway key, taken as sent by `from`. */
  adopt(signed: TypedTransaction, from: Hex): DecodedTransaction {
    return this.decoder.impersonate(signed, from);
  }
}
