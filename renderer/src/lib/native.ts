/** Reads for the native pages: one batch each where the node allows, never the whole ledger. */
import type { Connection } from './connection.ts';
import { RpcError, TransportError, unwrap, type RpcClient } from './rpc.ts';
import { TOKEN_PROGRAM_ID } from './programs.ts';

/** Not there yet (a slot ahead of the chain, a transaction not yet confirmed): the loader tries again. */
export class NotYet extends TransportError {
  readonly retryMs = 600;
}

export const HISTORY_PAGE = 25;

/** The name main.ts starts a block page's first read under (lib/early.ts), for the page to take. */
export const earlyBlockName = (slot: number) => `block ${slot}`;

/** A slot's block, or `block: null` for a slot whose leader made none (skipped); `leader` from the schedule. */
export async function fetchBlock(c: { rpc: RpcClient }, slot: number): Promise<{ block: any | null; leader: string | null; confirmed: number; finalized: number }> {
  const blockCall: [string, unknown[]] = ['getBlock', [slot, { encoding: 'jsonParsed', transactionDetails: 'full', rewards: true, maxSupportedTransactionVersion: 0, commitment: 'confirmed' }]];
  // One round trip for the common case: the slots, the block and its leader together.
  const answers = await c.rpc.batch([['getSlot', [{ commitment: 'confirmed' }]], ['getSlot', [{ commitment: 'finalized' }]], blockCall, ['getSlotLeaders', [slot, 1]]]);
  const [confirmed, finalized] = unwrap<[number, number]>(answers.slice(0, 2));
  let [block, leaders] = answers.slice(2);
  if (slot > confirmed) throw new NotYet(`Slot ${slot} is not confirmed yet (the chain is at ${confirmed}); waiting for it…`);
  // A node need not answer a batch's calls in order: "not available" may predate the slot's confirmation. Ask again.
  if (block instanceof RpcError && block.code === -32004) block = (await c.rpc.batch([blockCall]))[0];
  const leader = Array.isArray(leaders) ? (leaders[0] as string) : null;
  // Rooted and empty: -32007. Confirmed and empty: -32004 (a node with no forks will not fill it later).
  if (block instanceof RpcError && (block.code === -32007 || block.code === -32004)) return { block: null, leader, confirmed, finalized };
  if (block instanceof Error) throw block;
  if (block === null) throw new RpcError(-32004, `Block not available for slot ${slot}`);
  return { block, leader, confirmed, finalized };
}

export async function fetchTransaction(c: Connection, signature: string): Promise<{ tx: any; status: any }> {
  const [tx, statuses] = unwrap<[any, any]>(
    await c.rpc.batch([
      ['getTransaction', [signature, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }]],
      ['getSignatureStatuses', [[signature], { searchTransactionHistory: true }]],
    ]),
  );
  const status = statuses?.value?.[0] ?? null;
  if (!tx) {
    if (status) throw new NotYet(`Transaction seen (${status.confirmationStatus ?? 'processed'}), waiting for it to be confirmed…`);
    throw new NotYet('Transaction not found (yet). This page keeps looking for it…');
  }
  return { tx, status };
}

export async function fetchAccount(c: Connection, address: string, before?: string) {
  const answers = await c.rpc.batch([
    ['getAccountInfo', [address, { encoding: 'jsonParsed', commitment: 'confirmed' }]],
    ['getAccountInfo', [address, { encoding: 'base64', commitment: 'confirmed', dataSlice: { offset: 0, length: 4096 } }]],
    ['getTokenAccountsByOwner', [address, { programId: TOKEN_PROGRAM_ID }, { encoding: 'jsonParsed', commitment: 'confirmed' }]],
    ['getSignaturesForAddress', [address, { limit: HISTORY_PAGE, ...(before ? { before } : {}), commitment: 'confirmed' }]],
  ]);
  const [parsed, raw, tokens, history] = answers as any[];
  if (parsed instanceof Error) throw parsed;
  if (history instanceof Error) throw history;
  return {
    account: parsed.value as any,
    slot: parsed.context.slot as number,
    rawData: raw instanceof Error || !raw.value ? null : (raw.value.data[0] as string),
    tokens: tokens instanceof Error ? null : (tokens.value as any[]),
    history: history as any[],
  };
}
