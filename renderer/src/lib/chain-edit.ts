/**
 * The explorer's account edits, through the node's chain-control methods like any client:
 * Surfpool's surfnet_setAccount on the native port, Anvil's anvil_setBalance on the EVM port. The
 * node answers them only when it allows chain control (isthmus_getNodeInfo's chainControlAllowed).
 */
import type { Connection } from './connection.ts';
import { AmountError, parseDecimal } from './units.ts';

export interface NativeEdit {
  /** Balance in tokens (9 decimals); empty: unchanged. */
  balance: string;
  /** Account data as hex; empty: unchanged. */
  data: string;
  /** Owner program; empty: unchanged. */
  owner: string;
}

export const chainControlAllowed = (c: Connection | null): boolean => c?.info?.chainControlAllowed === true;

/** Sets the given fields of a native account; resolves with the slot the edit entered. */
export async function editNativeAccount(c: Connection, address: string, edit: NativeEdit): Promise<number> {
  const update: Record<string, unknown> = {};
  if (edit.balance.trim() !== '') {
    const lamports = parseDecimal(edit.balance, 9);
    if (lamports > BigInt(Number.MAX_SAFE_INTEGER)) throw new AmountError('That is more lamports than an account holds here');
    update.lamports = Number(lamports);
  }
  if (edit.data.trim() !== '') update.data = edit.data.trim();
  if (edit.owner.trim() !== '') update.owner = edit.owner.trim();
  if (Object.keys(update).length === 0) throw new AmountError('Enter a balance, data or an owner to set');
  const answer = await c.rpc.call<{ context: { slot: number } }>('surfnet_setAccount', [address, update]);
  return answer.context.slot;
}

/** Sets an EVM balance, given in tokens (18 decimals). */
export async function setEvmBalance(c: Connection, address: string, balance: string): Promise<void> {
  const wei = parseDecimal(balance, 18);
  await c.evm.call('anvil_setBalance', [address, `0x${wei.toString(16)}`]);
}
