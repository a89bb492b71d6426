/**
 * The Associated Token Account program (ATokenGP…) as a builtin, with the on-chain program's
 * semantics: Create, CreateIdempotent and RecoverNested, the address derived from
 * [wallet, token program, mint] under this program, and the work done through cross-program
 * invocations of the System and Token programs (ctx.invoke), so the inner instructions, logs and
 * privilege rules are those of the real program. Only SPL Token is served: a Token-2022 mint fails.
 */
import { findProgramAddress } from '../../common/pda.ts';
import { SYSTEM_PROGRAM_ID, addressToBytes, type Address } from '../../common/pubkey.ts';
import { InstructionError } from '../errors.ts';
import type { CpiInstruction, InstructionAccount, InstructionContext, Program } from '../program.ts';
import { encodeSystemInstruction } from './system-instruction.ts';
import { encodeTokenInstruction } from './token/instruction.ts';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, unpackAccount, unpackMint } from './token/state.ts';

/** AssociatedTokenAccountError::InvalidOwner. */
const INVALID_OWNER = 0;
const INVALID_OWNER_TEXT = 'Associated token account owner does not match address derivation';
/** ExtensionType::ImmutableOwner, asked of GetAccountDataSize as the program does. */
const IMMUTABLE_OWNER_EXTENSION = 7;

/*
 * Compute units of the program's own work, fitted to the mainnet program: a base per instruction
 * plus 1,500 per address tried while finding the bump (create_program_address's syscall cost).
 * Invoked programs charge their own units, and each invoke costs the caller 946 more.
 */
const CREATE_UNITS = 7_700;
const IDEMPOTENT_EXISTING_UNITS = 2_700;
const RECOVER_UNITS = 9_500;
const PDA_ATTEMPT_UNITS = 1_500;

export type AssociatedTokenInstruction = 'Create' | 'CreateIdempotent' | 'RecoverNested';
const INSTRUCTIONS: readonly AssociatedTokenInstruction[] = ['Create', 'CreateIdempotent', 'RecoverNested'];

/** Borsh: the whole data is one variant tag; empty data is the original Create. Null for anything else. */
export function decodeAssociatedTokenInstruction(data: Uint8Array): AssociatedTokenInstruction | null {
  if (data.length === 0) return 'Create';
  return (data.length === 1 && INSTRUCTIONS[data[0]!]) || null;
}

/** The instruction's data: its tag byte. */
export const encodeAssociatedTokenInstruction = (ix: AssociatedTokenInstruction): Uint8Array => Uint8Array.of(INSTRUCTIONS.indexOf(ix));

const fail = (value: string) => new InstructionError(value);

function at(ctx: InstructionContext, i: number): InstructionAccount {
  const a = ctx.accounts[i];
  if (!a) throw fail('NotEnoughAccountKeys');
  return a;
}

function invoke(ctx: InstructionContext, ix: CpiInstruction, seeds?: Uint8Array[][]): void {
  if (!ctx.invoke) throw new Error('associated token program: the executor provides no cross-program invocation');
  ctx.invoke(ix, seeds);
}

const meta = (key: Address, isWritable: boolean, isSigner = false) => ({ key, isSigner, isWritable });

/** get_associated_token_address_and_bump_seed_internal, charging the units of the search. */
function deriveAta(ctx: InstructionContext, wallet: Address, tokenProgram: Address, mint: Address) {
  const found = findProgramAddress([addressToBytes(wallet), addressToBytes(tokenProgram), addressToBytes(mint)], ctx.programId);
  ctx.consumeUnits(PDA_ATTEMPT_UNITS * found.attempts);
  return found;
}

const signerSeeds = (wallet: Address, tokenProgram: Address, mint: Address, bump: number) => [
  [addressToBytes(wallet), addressToBytes(tokenProgram), addressToBytes(mint), Uint8Array.of(bump)],
];

/** get_account_len: GetAccountDataSize through the token program, read back from its return data. */
function accountLength(ctx: InstructionContext, mint: Address, tokenProgram: Address): number {
  const data = encodeTokenInstruction({ type: 'getAccountDataSize', extensionTypes: [IMMUTABLE_OWNER_EXTENSION] });
  invoke(ctx, { programId: tokenProgram, accounts: [meta(mint, false)], data });
  const ret = ctx.getReturnData?.() ?? null;
  if (!ret) throw fail('InvalidInstructionData');
  if (ret.programId !== tokenProgram) throw fail('IncorrectProgramId');
  if (ret.data.length !== 8) throw fail('InvalidInstructionData');
  return Number(new DataView(ret.data.buffer, ret.data.byteOffset, 8).getBigUint64(0, true));
}

/** create_pda_account: fund, allocate and assign the new account, signed for by its seeds. */
function createPdaAccount(ctx: InstructionContext, funder: Address, account: InstructionAccount, space: number, owner: Address, seeds: Uint8Array[][]): void {
  const required = Math.max(ctx.minimumBalance(space), 1);
  if (account.account.lamports > 0) {
    const topUp = Math.max(required - account.account.lamports, 0);
    if (topUp > 0) {
      const data = encodeSystemInstruction({ type: 'transfer', lamports: BigInt(topUp) });
      invoke(ctx, { programId: SYSTEM_PROGRAM_ID, accounts: [meta(funder, true, true), meta(account.key, true)], data });
    }
    invoke(ctx, { programId: SYSTEM_PROGRAM_ID, accounts: [meta(account.key, true, true)], data: encodeSystemInstruction({ type: 'allocate', space: BigInt(space) }) }, seeds);
    invoke(ctx, { programId: SYSTEM_PROGRAM_ID, accounts: [meta(account.key, true, true)], data: encodeSystemInstruction({ type: 'assign', owner }) }, seeds);
    return;
  }
  const data = encodeSystemInstruction({ type: 'createAccount', lamports: BigInt(required), space: BigInt(space), owner });
  invoke(ctx, { programId: SYSTEM_PROGRAM_ID, accounts: [meta(funder, true, true), meta(account.key, true, true)], data }, seeds);
}

function create(ctx: InstructionContext, idempotent: boolean): void {
  const funder = at(ctx, 0);
  const ata = at(ctx, 1);
  const wallet = at(ctx, 2);
  const mint = at(ctx, 3);
  at(ctx, 4);
  const tokenProgram = at(ctx, 5).key;
  const { address, bump } = deriveAta(ctx, wallet.key, tokenProgram, mint.key);
  if (address !== ata.key) {
    ctx.log('Error: Associated address does not match seed derivation');
    throw fail('InvalidSeeds');
  }
  if (idempotent && ata.account.owner === tokenProgram) {
    let existing = null;
    try {
      existing = unpackAccount(ata.account.data);
    } catch {
      // Not a token account: fall through to the ownership check below.
    }
    if (existing) {
      ctx.consumeUnits(IDEMPOTENT_EXISTING_UNITS);
      if (existing.owner !== wallet.key) {
        ctx.log(INVALID_OWNER_TEXT);
        throw InstructionError.custom(INVALID_OWNER);
      }
      if (existing.mint !== mint.key) throw fail('InvalidAccountData');
      return;
    }
  }
  if (ata.account.owner !== SYSTEM_PROGRAM_ID) throw fail('IllegalOwner');
  ctx.consumeUnits(CREATE_UNITS);
  if (tokenProgram === TOKEN_2022_PROGRAM_ID) ctx.log('Token-2022 is not available on this node; only SPL Token (TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA) is');
  const seeds = signerSeeds(wallet.key, tokenProgram, mint.key, bump);
  const space = accountLength(ctx, mint.key, tokenProgram);
  createPdaAccount(ctx, funder.key, ata, space, tokenProgram, seeds);
  ctx.log('Initialize the associated token account');
  invoke(ctx, { programId: tokenProgram, accounts: [meta(ata.key, true)], data: encodeTokenInstruction({ type: 'initializeImmutableOwner' }) });
  const init = encodeTokenInstruction({ type: 'initializeAccount3', owner: wallet.key });
  invoke(ctx, { programId: tokenProgram, accounts: [meta(ata.key, true), meta(mint.key, false)], data: init });
}

function recoverNested(ctx: InstructionContext): void {
  const nested = at(ctx, 0);
  const nestedMint = at(ctx, 1);
  const destination = at(ctx, 2);
  const ownerAta = at(ctx, 3);
  const ownerMint = at(ctx, 4);
  const wallet = at(ctx, 5);
  const tokenProgram = at(ctx, 6).key;
  const owner = deriveAta(ctx, wallet.key, tokenProgram, ownerMint.key);
  if (owner.address !== ownerAta.key) {
    ctx.log('Error: Owner associated address does not match seed derivation');
    throw fail('InvalidSeeds');
  }
  if (deriveAta(ctx, ownerAta.key, tokenProgram, nestedMint.key).address !== nested.key) {
    ctx.log('Error: Nested associated address does not match seed derivation');
    throw fail('InvalidSeeds');
  }
  if (deriveAta(ctx, wallet.key, tokenProgram, nestedMint.key).address !== destination.key) {
    ctx.log('Error: Destination associated address does not match seed derivation');
    throw fail('InvalidSeeds');
  }
  ctx.consumeUnits(RECOVER_UNITS);
  if (!wallet.isSigner) {
    ctx.log('Wallet of the owner associated token account must sign');
    throw fail('MissingRequiredSignature');
  }
  if (ownerMint.account.owner !== tokenProgram) {
    ctx.log('Owner mint not owned by provided token program');
    throw fail('IllegalOwner');
  }
  if (ownerAta.account.owner !== tokenProgram) {
    ctx.log('Owner associated token account not owned by provided token program, recreate the owner associated token account first');
    throw fail('IllegalOwner');
  }
  if (unpackAccount(ownerAta.account.data).owner !== wallet.key) {
    ctx.log('Owner associated token account not owned by provided wallet');
    throw InstructionError.custom(INVALID_OWNER);
  }
  if (nested.account.owner !== tokenProgram) {
    ctx.log('Nested associated token account not owned by provided token program');
    throw fail('IllegalOwner');
  }
  const nestedAccount = unpackAccount(nested.account.data);
  if (nestedAccount.owner !== ownerAta.key) {
    ctx.log('Nested associated token account not owned by provided associated token account');
    throw InstructionError.custom(INVALID_OWNER);
  }
  if (nestedMint.account.owner !== tokenProgram) {
    ctx.log('Nested mint account not owned by provided token program');
    throw fail('IllegalOwner');
  }
  const decimals = unpackMint(nestedMint.account.data).decimals;
  const seeds = signerSeeds(wallet.key, tokenProgram, ownerMint.key, owner.bump);
  const transfer = encodeTokenInstruction({ type: 'transferChecked', amount: nestedAccount.amount, decimals });
  invoke(
    ctx,
    { programId: tokenProgram, accounts: [meta(nested.key, true), meta(nestedMint.key, false), meta(destination.key, true), meta(ownerAta.key, false, true)], data: transfer },
    seeds,
  );
  invoke(ctx, { programId: tokenProgram, accounts: [meta(nested.key, true), meta(wallet.key, true), meta(ownerAta.key, false, true)], data: encodeTokenInstruction({ type: 'closeAccount' }) }, seeds);
}

function processInstruction(ctx: InstructionContext): void {
  const ix = decodeAssociatedTokenInstruction(ctx.data);
  if (!ix) throw fail('InvalidInstructionData');
  ctx.log(ix);
  if (ix === 'RecoverNested') recoverNested(ctx);
  else create(ctx, ix === 'CreateIdempotent');
}

export const associatedTokenProgram: Program = {
  id: ASSOCIATED_TOKEN_PROGRAM_ID,
  name: 'spl-associated-token-account',
  computeUnits: 0,
  logsConsumption: true,
  process: processInstruction,
};
