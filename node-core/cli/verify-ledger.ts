/** `isthmus verify-ledger --ledger DIR`: runs the conservation check (node/verify-ledger.ts) and prints its report. */
import { describeResult, LedgerUnreadableError, verifyLedger } from '../node/verify-ledger.ts';

/** Exit 0 when value is conserved, 1 when not, 2 when the ledger cannot be checked. */
export async function runVerifyLedger(ledger: string, out: (text: string) => void, err: (text: string) => void): Promise<number> {
  try {
    const result = await verifyLedger(ledger);
    out(describeResult(ledger, result));
    return result.violations.length === 0 ? 0 : 1;
  } catch (e) {
    if (e instanceof LedgerUnreadableError) {
      err(`error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
