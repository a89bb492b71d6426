/**
 * The System program with Agave's semantics (system_processor.rs, system_instruction.rs): account
 * creation, allocation and assignment, transfers, and durable nonces. Logs and error values follow
 * Agave's; the nonce stored is the durable nonce of the bank's blockhash (see nonce-account.ts).
 */
import { MAX_SEED_LEN, SYSTEM_PROGRAM_ID, addressToBytes, createWithSeed, type Address } from '../../common/pubkey.ts';
import { MAX_PERMITTED_DATA_LENGTH } from '../account.ts';
import { InstructionError } from '../errors.ts';
import type { InstructionAccount, InstructionContext, Program } from '../program.ts';
import { SYSVAR_RECENT_BLOCKHASHES_ID, SYSVAR_RENT_ID } from '../sysvars.ts';
import { decodeNonceState, durableNonceFromBlockhash, encodeNonceState, type NonceState } from './nonce-account.ts';
import { decodeSystemInstruction } from './system-instruction.ts';

/** SystemError, returned as `Custom(code)`. */
export const SystemError = {
  AccountAlreadyInUse: 0,
  ResultWithNegativeLamports: 1,
  InvalidProgramId: 2,
  InvalidAccountDataLength: 3,
  MaxSeedLengthExceeded: 4,
  AddressWithSeedMismatch: 5,
  NonceNoRecentBlockhashes: 6,
  NonceBlockhashNotExpired: 7,
  NonceUnexpectedBlockhashValue: 8,
} as const;

const fail = (value: string) => new InstructionError(value);
const systemError = (code: number) => InstructionError.custom(code);

// ---- accounts -------------------------------------------------------------------------------

function checkAccounts(ctx: InstructionContext, n: number): void {
  if (ctx.accounts.length < n) throw fail('NotEnoughAccountKeys');
}

function at(ctx: InstructionContext, i: number): InstructionAccount {
  const ia = ctx.accounts[i];
  if (!ia) throw fail('NotEnoughAccountKeys');
  return ia;
}

function signersOf(ctx: InstructionContext): Set<Address> {
  return new Set(ctx.accounts.filter((a) => a.isSigner).map((a) => a.key));
}

/** Agave's get_sysvar_with_account_check: the account at `i` must be the sysvar itself. */
function checkSysvar(ctx: InstructionContext, i: number, id: Address): void {
  if (at(ctx, i).key !== id) throw fail('InvalidArgument');
}

/*
 * Writes go through BorrowedAccount's checks before touching the account: read-only accounts are
 * the bank's own objects, so they must fail before they are mutated, not after.
 */
const owned = (ia: InstructionAccount) => ia.account.owner === SYSTEM_PROGRAM_ID;

function setLamports(ia: InstructionAccount, lamports: number): void {
  if (!owned(ia) && lamports < ia.account.lamports) throw fail('ExternalAccountLamportSpend');
  if (!ia.isWritable) throw fail('ReadonlyLamportChange');
  ia.account.lamports = lamports;
}

function subLamports(ia: InstructionAccount, lamports: number): void {
  if (lamports > ia.account.lamports) throw fail('ArithmeticOverflow');
  setLamports(ia, ia.account.lamports - lamports);
}

function addLamports(ia: InstructionAccount, lamports: number): void {
  const sum = ia.account.lamports + lamports;
  if (sum > Number.MAX_SAFE_INTEGER) throw fail('ArithmeticOverflow');
  setLamports(ia, sum);
}

function checkDataChangeable(ia: InstructionAccount): void {
  if (ia.account.executable) throw fail('ExecutableDataModified');
  if (!ia.isWritable) throw fail('ReadonlyDataModified');
  if (!owned(ia)) throw fail('ExternalAccountDataModified');
}

function setDataLength(ia: InstructionAccount, length: number): void {
  if (length !== ia.account.data.length && !owned(ia)) throw fail('AccountDataSizeChanged');
  checkDataChangeable(ia);
  if (length === ia.account.data.length) return;
  ia.account.data = new Uint8Array(length);
}

function setOwner(ia: InstructionAccount, owner: Address): void {
  if (!owned(ia) || !ia.isWritable || ia.account.executable || !ia.account.data.every((b) => b === 0)) {
    throw fail('ModifiedProgramId');
  }
  ia.account.owner = owner;
}

// ---- addresses ------------------------------------------------------------------------------

/** An address that may have been derived from a seed, in Rust's `{:?}` form for logs. */
interface SeededAddress {
  address: Address;
  base: Address | null;
}

const debugAddress = (a: SeededAddress) => `Address { address: ${a.address}, base: ${a.base === null ? 'None' : `Some(${a.base})`} }`;

const PDA_MARKER = new TextEncoder().encode('ProgramDerivedAddress');

/**
 * Pubkey::create_with_seed. Its PubkeyError reaches the instruction through Agave's blanket
 * `From<T: ToPrimitive>` conversion, so it surfaces as the PubkeyError discriminant: Custom(0) for
 * MaxSeedLengthExceeded, Custom(2) for IllegalOwner (not SystemError's codes).
 */
function deriveWithSeed(base: Address, seed: string, owner: Address): Address {
  if (new TextEncoder().encode(seed).length > MAX_SEED_LEN) throw InstructionError.custom(0);
  const ownerBytes = addressToBytes(owner);
  const tail = ownerBytes.subarray(ownerBytes.length - PDA_MARKER.length);
  if (tail.every((b, i) => b === PDA_MARKER[i])) throw InstructionError.custom(2);
  return createWithSeed(base, seed, owner);
}

function seededAddress(ctx: InstructionContext, address: Address, seed: { base: Address; seed: string; owner: Address } | null): SeededAddress {
  if (!seed) return { address, base: null };
  const derived = deriveWithSeed(seed.base, seed.seed, seed.owner);
  if (derived !== address) {
    ctx.logRaw(`Create: address ${address} does not match derived address ${derived}`);
    throw systemError(SystemError.AddressWithSeedMismatch);
  }
  return { address, base: seed.base };
}

const isSigned = (a: SeededAddress, signers: Set<Address>) => signers.has(a.base ?? a.address);

// ---- create / allocate / assign / transfer --------------------------------------------------

function allocate(ctx: InstructionContext, ia: InstructionAccount, address: SeededAddress, space: bigint, signers: Set<Address>): void {
  if (!isSigned(address, signers)) {
    ctx.logRaw(`Allocate: 'to' account ${debugAddress(address)} must sign`);
    throw fail('MissingRequiredSignature');
  }
  if (ia.account.data.length !== 0 || !owned(ia)) {
    ctx.logRaw(`Allocate: account ${debugAddress(address)} already in use`);
    throw systemError(SystemError.AccountAlreadyInUse);
  }
  if (space > BigInt(MAX_PERMITTED_DATA_LENGTH)) {
    ctx.logRaw(`Allocate: requested ${space}, max allowed ${MAX_PERMITTED_DATA_LENGTH}`);
    throw systemError(SystemError.InvalidAccountDataLength);
  }
  setDataLength(ia, Number(space));
}

function assign(ctx: InstructionContext, ia: InstructionAccount, address: SeededAddress, owner: Address, signers: Set<Address>): void {
  if (ia.account.owner === owner) return;
  if (!isSigned(address, signers)) {
    ctx.logRaw(`Assign: account ${debugAddress(address)} must sign`);
    throw fail('MissingRequiredSignature');
  }
  setOwner(ia, owner);
}

function transferVerified(ctx: InstructionContext, from: InstructionAccount, to: InstructionAccount, lamports: bigint): void {
  if (from.account.data.length !== 0) {
    ctx.logRaw('Transfer: `from` must not carry data');
    throw fail('InvalidArgument');
  }
  // Balances are below 2^53, so a larger amount is simply more than any account holds.
  if (lamports > BigInt(from.account.lamports)) {
    ctx.logRaw(`Transfer: insufficient lamports ${from.account.lamports}, need ${lamports}`);
    throw systemError(SystemError.ResultWithNegativeLamports);
  }
  const amount = Number(lamports);
  subLamports(from, amount);
  addLamports(to, amount);
}

function transfer(ctx: InstructionContext, fromIndex: number, toIndex: number, lamports: bigint): void {
  const from = at(ctx, fromIndex);
  if (!from.isSigner) {
    ctx.logRaw(`Transfer: \`from\` account ${from.key} must sign`);
    throw fail('MissingRequiredSignature');
  }
  transferVerified(ctx, from, at(ctx, toIndex), lamports);
}

function createAccount(
  ctx: InstructionContext,
  address: SeededAddress,
  lamports: bigint,
  space: bigint,
  owner: Address,
  signers: Set<Address>,
): void {
  const to = at(ctx, 1);
  if (to.account.lamports > 0) {
    ctx.logRaw(`Create Account: account ${debugAddress(address)} already in use`);
    throw systemError(SystemError.AccountAlreadyInUse);
  }
  allocate(ctx, to, address, space, signers);
  assign(ctx, to, address, owner, signers);
  transfer(ctx, 0, 1, lamports);
}

function transferWithSeed(ctx: InstructionContext, lamports: bigint, fromSeed: string, fromOwner: Address): void {
  const from = at(ctx, 0);
  const base = at(ctx, 1);
  if (!base.isSigner) {
    ctx.logRaw(`Transfer: 'from' account ${base.key} must sign`);
    throw fail('MissingRequiredSignature');
  }
  const derived = deriveWithSeed(base.key, fromSeed, fromOwner);
  if (from.key !== derived) {
    ctx.logRaw(`Transfer: 'from' address ${from.key} does not match derived address ${derived}`);
    throw systemError(SystemError.AddressWithSeedMismatch);
  }
  transferVerified(ctx, from, at(ctx, 2), lamports);
}

// ---- durable nonces -------------------------------------------------------------------------

function getNonceState(ia: InstructionAccount): NonceState {
  const state = decodeNonceState(ia.account.data);
  if (!state) throw fail('InvalidAccountData');
  return state;
}

/** BorrowedAccount::set_state: serialize over the start of the existing data. */
function setNonceState(ia: InstructionAccount, state: NonceState): void {
  checkDataChangeable(ia);
  const bytes = encodeNonceState(state);
  if (bytes.length > ia.account.data.length) throw fail('AccountDataTooSmall');
  ia.account.data.set(bytes);
}

function requireWritable(ctx: InstructionContext, ia: InstructionAccount, what: string): void {
  if (!ia.isWritable) {
    ctx.logRaw(`${what}: Account ${ia.key} must be writeable`);
    throw fail('InvalidArgument');
  }
}

/** The durable nonce a nonce advances to (from the bank's newest blockhash), and its fee. */
function currentBlockhash(ctx: InstructionContext) {
  const newest = ctx.sysvars.recentBlockhashes[0];
  return newest ? { blockhash: durableNonceFromBlockhash(newest.blockhash), lamportsPerSignature: newest.lamportsPerSignature } : null;
}

function requireRecentBlockhashes(ctx: InstructionContext, what: string): void {
  if (ctx.sysvars.recentBlockhashes.length === 0) {
    ctx.logRaw(`${what}: recent blockhash list is empty`);
    throw systemError(SystemError.NonceNoRecentBlockhashes);
  }
}

/**
 * The nonce account at index 0, writable, initialized and signed for by its authority; Agave words
 * the missing signature differently per instruction (`signVerb`).
 */
function authorizedNonce(ctx: InstructionContext, what: string, signers: Set<Address>, signVerb: 'must be a signer' | 'must sign') {
  const me = at(ctx, 0);
  requireWritable(ctx, me, what);
  const state = getNonceState(me);
  if (state.state !== 'initialized') {
    ctx.logRaw(`${what}: Account ${me.key} state is invalid`);
    throw fail('InvalidAccountData');
  }
  if (!signers.has(state.data.authority)) {
    ctx.logRaw(`${what}: Account ${state.data.authority} ${signVerb}`);
    throw fail('MissingRequiredSignature');
  }
  return { me, state };
}

function advanceNonce(ctx: InstructionContext, signers: Set<Address>): void {
  const what = 'Advance nonce account';
  const { me, state } = authorizedNonce(ctx, what, signers, 'must be a signer');
  const next = currentBlockhash(ctx)!;
  if (state.data.blockhash === next.blockhash) {
    ctx.logRaw(`${what}: nonce can only advance once per slot`);
    throw systemError(SystemError.NonceBlockhashNotExpired);
  }
  setNonceState(me, {
    version: 'current',
    state: 'initialized',
    data: { authority: state.data.authority, blockhash: next.blockhash, lamportsPerSignature: next.lamportsPerSignature },
  });
}

function withdrawNonce(ctx: InstructionContext, lamports: bigint, signers: Set<Address>): void {
  const from = at(ctx, 0);
  const what = 'Withdraw nonce account';
  requireWritable(ctx, from, what);
  const state = getNonceState(from);
  const balance = BigInt(from.account.lamports);
  let signer: Address;
  if (state.state === 'uninitialized') {
    if (lamports > balance) {
      ctx.logRaw(`${what}: insufficient lamports ${balance}, need ${lamports}`);
      throw fail('InsufficientFunds');
    }
    signer = from.key;
  } else {
    if (lamports === balance) {
      if (state.data.blockhash === currentBlockhash(ctx)?.blockhash) {
        ctx.logRaw(`${what}: nonce can only advance once per slot`);
        throw systemError(SystemError.NonceBlockhashNotExpired);
      }
      setNonceState(from, { version: 'current', state: 'uninitialized' });
    } else {
      const amount = lamports + BigInt(ctx.minimumBalance(from.account.data.length));
      if (amount > balance) {
        ctx.logRaw(`${what}: insufficient lamports ${balance}, need ${amount}`);
        throw fail('InsufficientFunds');
      }
    }
    signer = state.data.authority;
  }
  if (!signers.has(signer)) {
    ctx.logRaw(`${what}: Account ${signer} must sign`);
    throw fail('MissingRequiredSignature');
  }
  const amount = Number(lamports);
  subLamports(from, amount);
  addLamports(at(ctx, 1), amount);
}

function initializeNonce(ctx: InstructionContext, authority: Address): void {
  const me = at(ctx, 0);
  const what = 'Initialize nonce account';
  requireWritable(ctx, me, what);
  const state = getNonceState(me);
  if (state.state !== 'uninitialized') {
    ctx.logRaw(`${what}: Account ${me.key} state is invalid`);
    throw fail('InvalidAccountData');
  }
  const minBalance = ctx.minimumBalance(me.account.data.length);
  if (me.account.lamports < minBalance) {
    ctx.logRaw(`${what}: insufficient lamports ${me.account.lamports}, need ${minBalance}`);
    throw fail('InsufficientFunds');
  }
  const current = currentBlockhash(ctx)!;
  setNonceState(me, {
    version: 'current',
    state: 'initialized',
    data: { authority, blockhash: current.blockhash, lamportsPerSignature: current.lamportsPerSignature },
  });
}

function authorizeNonce(ctx: InstructionContext, newAuthority: Address, signers: Set<Address>): void {
  const { me, state } = authorizedNonce(ctx, 'Authorize nonce account', signers, 'must sign');
  setNonceState(me, { ...state, data: { ...state.data, authority: newAuthority } });
}

function upgradeNonce(ctx: InstructionContext): void {
  const me = at(ctx, 0);
  if (!owned(me)) throw fail('InvalidAccountOwner');
  if (!me.isWritable) throw fail('InvalidArgument');
  const state = getNonceState(me);
  // Only an initialized legacy account upgrades; its blockhash moves into the durable-nonce domain.
  if (state.version !== 'legacy' || state.state !== 'initialized') throw fail('InvalidArgument');
  setNonceState(me, { ...state, version: 'current', data: { ...state.data, blockhash: durableNonceFromBlockhash(state.data.blockhash) } });
}

// ---- entry ----------------------------------------------------------------------------------

function processInstruction(ctx: InstructionContext): void {
  const ix = decodeSystemInstruction(ctx.data, { allowTrailingBytes: true });
  if (!ix) throw fail('InvalidInstructionData');
  const signers = signersOf(ctx);
  switch (ix.type) {
    case 'createAccount': {
      checkAccounts(ctx, 2);
      const address = seededAddress(ctx, at(ctx, 1).key, null);
      return createAccount(ctx, address, ix.lamports, ix.space, ix.owner, signers);
    }
    case 'createAccountWithSeed': {
      checkAccounts(ctx, 2);
      const address = seededAddress(ctx, at(ctx, 1).key, ix);
      return createAccount(ctx, address, ix.lamports, ix.space, ix.owner, signers);
    }
    case 'assign': {
      checkAccounts(ctx, 1);
      const ia = at(ctx, 0);
      return assign(ctx, ia, seededAddress(ctx, ia.key, null), ix.owner, signers);
    }
    case 'assignWithSeed': {
      checkAccounts(ctx, 1);
      const ia = at(ctx, 0);
      return assign(ctx, ia, seededAddress(ctx, ia.key, ix), ix.owner, signers);
    }
    case 'allocate': {
      checkAccounts(ctx, 1);
      const ia = at(ctx, 0);
      return allocate(ctx, ia, seededAddress(ctx, ia.key, null), ix.space, signers);
    }
    case 'allocateWithSeed': {
      checkAccounts(ctx, 1);
      const ia = at(ctx, 0);
      const address = seededAddress(ctx, ia.key, ix);
      allocate(ctx, ia, address, ix.space, signers);
      return assign(ctx, ia, address, ix.owner, signers);
    }
    case 'transfer':
      checkAccounts(ctx, 2);
      return transfer(ctx, 0, 1, ix.lamports);
    case 'transferWithSeed':
      checkAccounts(ctx, 3);
      return transferWithSeed(ctx, ix.lamports, ix.fromSeed, ix.fromOwner);
    case 'advanceNonceAccount':
      checkAccounts(ctx, 1);
      checkSysvar(ctx, 1, SYSVAR_RECENT_BLOCKHASHES_ID);
      requireRecentBlockhashes(ctx, 'Advance nonce account');
      return advanceNonce(ctx, signers);
    case 'withdrawNonceAccount':
      checkAccounts(ctx, 2);
      checkSysvar(ctx, 2, SYSVAR_RECENT_BLOCKHASHES_ID);
      checkSysvar(ctx, 3, SYSVAR_RENT_ID);
      return withdrawNonce(ctx, ix.lamports, signers);
    case 'initializeNonceAccount':
      checkAccounts(ctx, 1);
      checkSysvar(ctx, 1, SYSVAR_RECENT_BLOCKHASHES_ID);
      requireRecentBlockhashes(ctx, 'Initialize nonce account');
      checkSysvar(ctx, 2, SYSVAR_RENT_ID);
      return initializeNonce(ctx, ix.authority);
    case 'authorizeNonceAccount':
      checkAccounts(ctx, 1);
      return authorizeNonce(ctx, ix.authority, signers);
    case 'upgradeNonceAccount':
      checkAccounts(ctx, 1);
      return upgradeNonce(ctx);
  }
}

export const systemProgram: Program = {
  id: SYSTEM_PROGRAM_ID,
  name: 'system',
  computeUnits: 150,
  process: processInstruction,
};
