/**
 * Reads for the EVM address page: balance, nonce and code, a page of the address's history in both
 * directions (sent, received, and touched inside others' calls) through Otterscan's
 * ots_searchTransactionsBefore/After, and for a contract its creator (ots_getContractCreator).
 */
import type { Connection } from './connection.ts';
import { unwrap } from './rpc.ts';

export const EVM_HISTORY_PAGE = 25;

/**
 * Where a page of history starts, as Otterscan pages: before a block (0 = from the newest) or after
 * a block (0 = from the oldest). Every page is newest first.
 */
export type HistoryCursor = { before: number } | { after: number };

export interface HistoryPage {
  txs: any[];
  receipts: any[];
  /** The page holds the newest transactions. */
  firstPage: boolean;
  /** The page holds the oldest transactions. */
  lastPage: boolean;
}

export interface ContractCreator {
  creator: string;
  hash: string;
}

export interface EvmAddressView {
  balance: bigint;
  nonce: number;
  code: string;
  history: HistoryPage | { error: string };
  /** For a contract: who created it and in which transaction (null: no transaction did, e.g. a genesis contract); undefined for an account without code. */
  creator?: ContractCreator | null | { error: string };
}

const errorOf = (e: unknown) => ({ error: e instanceof Error ? e.message : String(e) });

export function historyCall(address: string, cursor: HistoryCursor): [string, unknown[]] {
  return 'before' in cursor
    ? ['ots_searchTransactionsBefore', [address, cursor.before, EVM_HISTORY_PAGE]]
    : ['ots_searchTransactionsAfter', [address, cursor.after, EVM_HISTORY_PAGE]];
}

export async function fetchEvmAddress(c: Connection, address: string, cursor: HistoryCursor): Promise<EvmAddressView> {
  const [balance, nonce, code] = unwrap<[string, string, string]>(
    await c.evm.batch([
      ['eth_getBalance', [address, 'latest']],
      ['eth_getTransactionCount', [address, 'latest']],
      ['eth_getCode', [address, 'latest']],
    ]),
  );
  const [method, params] = historyCall(address, cursor);
  const [history, creator] = await Promise.all([
    c.evm.call<HistoryPage>(method, params).catch(errorOf),
    code === '0x' ? undefined : c.evm.call<ContractCreator | null>('ots_getContractCreator', [address]).catch(errorOf),
  ]);
  return { balance: BigInt(balance), nonce: Number(BigInt(nonce)), code, history, creator };
}

/** How a transaction of the history involves the address: it sent it, received it, or was touched inside it (an internal call or creation). */
export function directionOf(tx: { from: string; to: string | null }, receipt: { contractAddress?: string | null } | undefined, address: string): 'out' | 'in' | 'internal' {
  const a = address.toLowerCase();
  if (tx.from.toLowerCase() === a) return 'out';
  if (tx.to?.toLowerCase() === a || receipt?.contractAddress?.toLowerCase() === a) return 'in';
  return 'internal';
}

/** The cursors of the pages around one: newer is after its newest block, older before its oldest. */
export function neighbours(page: HistoryPage): { newer: HistoryCursor | null; older: HistoryCursor | null } {
  const block = (t: { blockNumber: string }) => Number(BigInt(t.blockNumber));
  if (page.txs.length === 0) return { newer: null, older: null };
  return {
    newer: page.firstPage ? null : { after: block(page.txs[0]) },
    older: page.lastPage ? null : { before: block(page.txs[page.txs.length - 1]) },
  };
}
