/**
 * Instruction-account access for the builtins that own state accounts (Stake, Vote), with Agave's
 * BorrowedAccount checks made before a change: read-only accounts are the bank's own objects, so a
 * write to one must fail before it touches them.
 */
import { MAX_SEED_LEN, addressToBytes, createWithSeed, type Address } from '../../common/pubkey.ts';
import { InstructionError } from '../errors.ts';
import type { InstructionAccount, InstructionContext } from '../program.ts';

export const fail = (value: string) => new InstructionError(value);

export function accountAt(ctx: InstructionContext, i: number): InstructionAccount {
  const ia = ctx.accounts[i];
  if (!ia) throw fail('NotEnoughAccountKeys');
  return ia;
}

export function checkNumberOfAccounts(ctx: InstructionContext, n: number): void {
  if (ctx.accounts.length < n) throw fail('NotEnoughAccountKeys');
}

export function signersOf(ctx: InstructionContext): Set<Address> {
  const out = new Set<Address>();
  for (const a of ctx.accounts) if (a.isSigner) out.add(a.key);
  return out;
}

/** get_sysvar_with_account_check: the account at `i` must exist and be the sysvar. */
export function checkSysvarAccount(ctx: InstructionContext, i: number, id: Address): void {
  if (accountAt(ctx, i).key !== id) throw fail('InvalidArgument');
}

/** The key at `i` when that account signed (get_optional_pubkey with a signer check); absent: null. */
export function optionalSigner(ctx: InstructionContext, i: number): Address | null {
  const ia = ctx.accounts[i];
  if (!ia) return null;
  if (!ia.isSigner) throw fail('MissingRequiredSignature');
  return ia.key;
}

/** Writes account data owned by `programId` (same length unless `resize`). */
export function setData(ia: InstructionAccount, programId: Address, data: Uint8Array): void {
  if (ia.account.owner !== programId) throw fail('ExternalAccountDataModified');
  if (!ia.isWritable) throw fail('ReadonlyDataModified');
  if (ia.account.executable) throw fail('ExecutableDataModified');
  ia.account.data = data;
}

export function subLamports(ia: InstructionAccount, programId: Address, lamports: number): void {
  if (lamports === 0) return;
  if (ia.account.owner !== programId) throw fail('ExternalAccountLamportSpend');
  if (!ia.isWritable) throw fail('ReadonlyLamportChange');
  if (lamports > ia.account.lamports) throw fail('ArithmeticOverflow');
  ia.account.lamports -= lamports;
}

export function addLamports(ia: InstructionAccount, lamports: number): void {
  if (lamports === 0) return;
  if (!ia.isWritable) throw fail('ReadonlyLamportChange');
  if (ia.account.executable) throw fail('ExecutableLamportChange');
  const sum = ia.account.lamports + lamports;
  if (sum > Number.MAX_SAFE_INTEGER) throw fail('ArithmeticOverflow');
  ia.account.lamports = sum;
}

/** Pubkey::create_with_seed as the stake and vote programs call it (its PubkeyError as Custom). */
export function deriveWithSeed(base: Address, seed: string, owner: Address): Address {
  if (new TextEncoder().encode(seed).length > MAX_SEED_LEN) throw InstructionError.custom(0);
  const marker = new TextEncoder().encode('ProgramDerivedAddress');
  const tail = addressToBytes(owner).subarray(32 - marker.length);
  if (tail.every((b, i) => b === marker[i])) throw InstructionError.custom(2);
  return createWithSeed(base, seed, owner);
}

/** A u64 amount from instruction data as lamports; one beyond any balance fails as `onTooLarge`. */
export function lamportsArg(v: bigint, onTooLarge: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw fail(onTooLarge);
  return Number(v);
}
