import assert from 'node:assert/strict';
import { TransactionError, type TransactionErrorValue } from '../../node-core/runtime/errors.ts';

/** Runs `fn`, expecting a TransactionError (the transaction is refused); returns its value. */
export function refused(fn: () => unknown): TransactionErrorValue {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof TransactionError, `expected TransactionError, got ${String(e)}`);
    return e.value;
  }
  assert.fail('expected the transaction to be refused');
}
