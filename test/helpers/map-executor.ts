/** Runs a transaction with this node's executor over accounts kept in a map (differential tests beside LiteSVM). */
import type { Address } from '../../node-core/common/pubkey.ts';
import { cloneAccount, type Account } from '../../node-core/runtime/account.ts';
import { executeTransaction, type ExecutedTransaction } from '../../node-core/runtime/executor.ts';
import { builtinPrograms } from '../../node-core/runtime/programs/index.ts';
import { renderSysvar, SYSVAR_IDS, type Sysvars } from '../../node-core/runtime/sysvars.ts';
import type { Transaction } from '../../node-core/runtime/wire.ts';

/** Executes `tx` against `accounts` (sysvars rendered from `sysvars`) and writes its changes back into the map. */
export function executeOnMap(tx: Transaction, accounts: Map<Address, Account>, sysvars: Sysvars): ExecutedTransaction {
  const ours = executeTransaction(tx, {
    readAccount: (a) => accounts.get(a) ?? (SYSVAR_IDS.has(a) ? renderSysvar(a, sysvars) : null),
    sysvars,
    programs: builtinPrograms,
    simulation: false,
    durableNonce: false,
  });
  for (const [k, a] of ours.writes) (a.lamports === 0 ? accounts.delete(k) : accounts.set(k, cloneAccount(a)));
  return ours;
}
