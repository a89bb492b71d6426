import { TransactionError, type TransactionErrorValue } from '../../node-core/runtime/errors.ts';
import { thrownBy } from './thrown.ts';

/** Runs `fn`, expecting a TransactionError (the transaction is refused); returns its value. */
export function refused(fn: () => unknown): TransactionErrorValue {
  return thrownBy(fn, TransactionError).value;
}
