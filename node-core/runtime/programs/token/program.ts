/**
 * The SPL Token program (TokenkegQ…) as a builtin, with the on-chain program's semantics
 * (spl-token processor.rs): the same checks in the same order, the same TokenError codes, and the
 * same logs ("Program log: Instruction: Transfer", then "Program log: Error: …" on failure). It is a
 * BPF program on a real cluster, so it charges a fitted compute-unit figure per instruction and logs
 * its `consumed` line as BPF programs do. Token-2022 is not implemented.
 */
import { INCINERATOR_ID, SYSTEM_PROGRAM_ID, type Address } from '../../../common/pubkey.ts';
import { InstructionError } from '../../errors.ts';
import type { InstructionAccount, InstructionContext, Program } from '../../program.ts';
import { SYSVAR_RENT_ID } from '../../sysvars.ts';
import { amountToUiAmountStringTrimmed, uiAmountToAmount } from './amount.ts';
import { TokenError, tokenError, tokenErrorLog } from './errors.ts';
import { decodeTokenInstruction, instructionLogName, type AuthorityType, type TokenInstruction } from './instruction.ts';
import {
  ACCOUNT_LEN,
  MAX_SIGNERS,
  MIN_SIGNERS,
  MINT_LEN,
  MULTISIG_LEN,
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
  packAccount,
  packAccountAmount,
  packMint,
  packMultisig,
  unpackAccount,
  unpackAccountUnchecked,
  unpackMint,
  unpackMintUnchecked,
  unpackMultisig,
  unpackMultisigUnchecked,
  type TokenAccount,
} from './state.ts';

/*
 * Compute units per instruction, fitted to SPL Token 3.x on mainnet (e.g. Transfer 4,644,
 * TransferChecked 6,200, InitializeAccount3 4,188, GetAccountDataSize 1,622). A failing instruction
 * is charged the same figure: the program's cost is dominated by its entry and account parsing.
 */
const UNITS: Record<TokenInstruction['type'], number> = {
  initializeMint: 2967,
  initializeMint2: 2828,
  initializeAccount: 4524,
  initializeAccount2: 4388,
  initializeAccount3: 4188,
  initializeMultisig: 3038,
  initializeMultisig2: 2900,
  transfer: 4644,
  approve: 2904,
  revoke: 2677,
  setAuthority: 3248,
  mintTo: 4492,
  burn: 4753,
  closeAccount: 2916,
  freezeAccount: 4265,
  thawAccount: 4267,
  transferChecked: 6200,
  approveChecked: 4458,
  mintToChecked: 4538,
  burnChecked: 4794,
  syncNative: 3045,
  getAccountDataSize: 1622,
  initializeImmutableOwner: 1405,
  amountToUiAmount: 2477,
  uiAmountToAmount: 2851,
};
/** An instruction that does not unpack fails in the entrypoint. */
const INVALID_INSTRUCTION_UNITS = 1207;
const U64_MAX = (1n << 64n) - 1n;

const fail = (value: string) => new InstructionError(value);

class Accounts {
  private next = 0;
  constructor(private readonly ctx: InstructionContext) {}
  /** next_account_info: NotEnoughAccountKeys past the end. */
  take(): InstructionAccount {
    const a = this.ctx.accounts[this.next++];
    if (!a) throw fail('NotEnoughAccountKeys');
    return a;
  }
  tryTake(): InstructionAccount | null {
    return this.ctx.accounts[this.next++] ?? null;
  }
  /** account_info_iter.as_slice(): the accounts not taken yet (multisig signers). */
  rest(): readonly InstructionAccount[] {
    return this.ctx.accounts.slice(this.next);
  }
}

function checkOwner(ctx: InstructionContext, ia: InstructionAccount): void {
  if (ia.account.owner !== ctx.programId) throw fail('IncorrectProgramId');
}

/** Rent::from_account_info: the account must be the Rent sysvar. */
function rentFromAccount(ia: InstructionAccount): void {
  if (ia.key !== SYSVAR_RENT_ID) throw fail('InvalidArgument');
}

const isExempt = (ctx: InstructionContext, ia: InstructionAccount) => ia.account.lamports >= ctx.minimumBalance(ia.account.data.length);

/** Processor::validate_owner: the authority signs, or is a multisig with m of its signers signing. */
function validateOwner(ctx: InstructionContext, expected: Address, authority: InstructionAccount, signers: readonly InstructionAccount[]): void {
  if (expected !== authority.key) throw tokenError(TokenError.OwnerMismatch);
  if (authority.account.owner === ctx.programId && authority.account.data.length === MULTISIG_LEN) {
    const multisig = unpackMultisig(authority.account.data);
    let signed = 0;
    const matched = new Array<boolean>(MAX_SIGNERS).fill(false);
    for (const signer of signers) {
      for (let position = 0; position < multisig.n; position++) {
        if (multisig.signers[position] === signer.key && !matched[position]) {
          if (!signer.isSigner) throw fail('MissingRequiredSignature');
          matched[position] = true;
          signed++;
        }
      }
    }
    if (signed < multisig.m) throw fail('MissingRequiredSignature');
    return;
  }
  if (!authority.isSigner) throw fail('MissingRequiredSignature');
}

const ownedBySystemOrIncinerator = (a: TokenAccount) => a.owner === SYSTEM_PROGRAM_ID || a.owner === INCINERATOR_ID;

function checkedAdd(a: bigint, b: bigint): bigint {
  const s = a + b;
  if (s > U64_MAX) throw tokenError(TokenError.Overflow);
  return s;
}

function checkedSub(a: bigint, b: bigint): bigint {
  if (b > a) throw tokenError(TokenError.Overflow);
  return a - b;
}

/** Lamports are JS numbers below 2^53; a u64 amount above any balance overflows like the program's checked_sub. */
function setLamports(ia: InstructionAccount, lamports: bigint): void {
  if (lamports < 0n || lamports > BigInt(Number.MAX_SAFE_INTEGER)) throw tokenError(TokenError.Overflow);
  ia.account.lamports = Number(lamports);
}

// ---- instructions ----

function initializeMint(ctx: InstructionContext, decimals: number, mintAuthority: Address, freezeAuthority: Address | null, rentAccount: boolean): void {
  const accounts = new Accounts(ctx);
  const mintInfo = accounts.take();
  if (rentAccount) rentFromAccount(accounts.take());
  const mint = unpackMintUnchecked(mintInfo.account.data);
  if (mint.isInitialized) throw tokenError(TokenError.AlreadyInUse);
  if (!isExempt(ctx, mintInfo)) throw tokenError(TokenError.NotRentExempt);
  packMint({ mintAuthority, supply: mint.supply, decimals, isInitialized: true, freezeAuthority }, mintInfo.account.data);
}

function initializeAccount(ctx: InstructionContext, owner: Address | null, rentAccount: boolean): void {
  const accounts = new Accounts(ctx);
  const accountInfo = accounts.take();
  const mintInfo = accounts.take();
  const ownerKey = owner ?? accounts.take().key;
  if (rentAccount) rentFromAccount(accounts.take());
  const account = unpackAccountUnchecked(accountInfo.account.data);
  if (account.state !== 'uninitialized') throw tokenError(TokenError.AlreadyInUse);
  if (!isExempt(ctx, accountInfo)) throw tokenError(TokenError.NotRentExempt);
  const isNativeMint = mintInfo.key === NATIVE_MINT;
  if (!isNativeMint) {
    checkOwner(ctx, mintInfo);
    try {
      unpackMint(mintInfo.account.data);
    } catch {
      throw tokenError(TokenError.InvalidMint);
    }
  }
  let isNative: bigint | null = null;
  let amount = 0n;
  if (isNativeMint) {
    const reserve = BigInt(ctx.minimumBalance(accountInfo.account.data.length));
    isNative = reserve;
    amount = checkedSub(BigInt(accountInfo.account.lamports), reserve);
  }
  packAccount(
    { mint: mintInfo.key, owner: ownerKey, amount, delegate: null, state: 'initialized', isNative, delegatedAmount: 0n, closeAuthority: null },
    accountInfo.account.data,
  );
}

function initializeMultisig(ctx: InstructionContext, m: number, rentAccount: boolean): void {
  const accounts = new Accounts(ctx);
  const multisigInfo = accounts.take();
  if (rentAccount) rentFromAccount(accounts.take());
  const multisig = unpackMultisigUnchecked(multisigInfo.account.data);
  if (multisig.isInitialized) throw tokenError(TokenError.AlreadyInUse);
  if (!isExempt(ctx, multisigInfo)) throw tokenError(TokenError.NotRentExempt);
  const signerInfos = accounts.rest();
  // `n` is stored as a u8: the count wraps before it is checked, as `len() as u8` does.
  const n = signerInfos.length & 0xff;
  if (n < MIN_SIGNERS || n > MAX_SIGNERS) throw tokenError(TokenError.InvalidNumberOfProvidedSigners);
  if (m < MIN_SIGNERS || m > MAX_SIGNERS) throw tokenError(TokenError.InvalidNumberOfRequiredSigners);
  const signers = multisig.signers.slice();
  signerInfos.forEach((s, i) => (signers[i] = s.key));
  packMultisig({ m, n, isInitialized: true, signers }, multisigInfo.account.data);
}

function transfer(ctx: InstructionContext, amount: bigint, expectedDecimals: number | null): void {
  const accounts = new Accounts(ctx);
  const sourceInfo = accounts.take();
  const mintInfo = expectedDecimals === null ? null : accounts.take();
  const destinationInfo = accounts.take();
  const authorityInfo = accounts.take();
  const source = unpackAccount(sourceInfo.account.data);
  const destination = unpackAccount(destinationInfo.account.data);
  if (source.state === 'frozen' || destination.state === 'frozen') throw tokenError(TokenError.AccountFrozen);
  if (source.amount < amount) throw tokenError(TokenError.InsufficientFunds);
  if (source.mint !== destination.mint) throw tokenError(TokenError.MintMismatch);
  if (mintInfo) {
    if (mintInfo.key !== source.mint) throw tokenError(TokenError.MintMismatch);
    if (unpackMint(mintInfo.account.data).decimals !== expectedDecimals) throw tokenError(TokenError.MintDecimalsMismatch);
  }
  const selfTransfer = sourceInfo.key === destinationInfo.key;
  const byDelegate = source.delegate !== null && authorityInfo.key === source.delegate;
  if (byDelegate) {
    validateOwner(ctx, source.delegate!, authorityInfo, accounts.rest());
    if (source.delegatedAmount < amount) throw tokenError(TokenError.InsufficientFunds);
    if (!selfTransfer) {
      source.delegatedAmount = checkedSub(source.delegatedAmount, amount);
      if (source.delegatedAmount === 0n) source.delegate = null;
    }
  } else {
    validateOwner(ctx, source.owner, authorityInfo, accounts.rest());
  }
  if (selfTransfer || amount === 0n) {
    checkOwner(ctx, sourceInfo);
    checkOwner(ctx, destinationInfo);
  }
  if (selfTransfer) return;
  source.amount = checkedSub(source.amount, amount);
  destination.amount = checkedAdd(destination.amount, amount);
  if (source.isNative !== null) {
    setLamports(sourceInfo, checkedSub(BigInt(sourceInfo.account.lamports), amount));
    setLamports(destinationInfo, checkedAdd(BigInt(destinationInfo.account.lamports), amount));
  }
  // Packing an account just unpacked writes back the bytes it read: only the amounts differ, unless a
  // delegate spent its allowance.
  if (byDelegate) packAccount(source, sourceInfo.account.data);
  else packAccountAmount(source.amount, sourceInfo.account.data);
  packAccountAmount(destination.amount, destinationInfo.account.data);
}

function approve(ctx: InstructionContext, amount: bigint, expectedDecimals: number | null): void {
  const accounts = new Accounts(ctx);
  const sourceInfo = accounts.take();
  const mintInfo = expectedDecimals === null ? null : accounts.take();
  const delegateInfo = accounts.take();
  const ownerInfo = accounts.take();
  const source = unpackAccount(sourceInfo.account.data);
  if (source.state === 'frozen') throw tokenError(TokenError.AccountFrozen);
  if (mintInfo) {
    if (mintInfo.key !== source.mint) throw tokenError(TokenError.MintMismatch);
    if (unpackMint(mintInfo.account.data).decimals !== expectedDecimals) throw tokenError(TokenError.MintDecimalsMismatch);
  }
  validateOwner(ctx, source.owner, ownerInfo, accounts.rest());
  source.delegate = delegateInfo.key;
  source.delegatedAmount = amount;
  packAccount(source, sourceInfo.account.data);
}

function revoke(ctx: InstructionContext): void {
  const accounts = new Accounts(ctx);
  const sourceInfo = accounts.take();
  const source = unpackAccount(sourceInfo.account.data);
  const ownerInfo = accounts.take();
  if (source.state === 'frozen') throw tokenError(TokenError.AccountFrozen);
  validateOwner(ctx, source.owner, ownerInfo, accounts.rest());
  source.delegate = null;
  source.delegatedAmount = 0n;
  packAccount(source, sourceInfo.account.data);
}

function setAuthority(ctx: InstructionContext, authorityType: AuthorityType, newAuthority: Address | null): void {
  const accounts = new Accounts(ctx);
  const accountInfo = accounts.take();
  const authorityInfo = accounts.take();
  const data = accountInfo.account.data;
  if (data.length === ACCOUNT_LEN) {
    const account = unpackAccount(data);
    if (account.state === 'frozen') throw tokenError(TokenError.AccountFrozen);
    if (authorityType === 'accountOwner') {
      validateOwner(ctx, account.owner, authorityInfo, accounts.rest());
      if (newAuthority === null) throw tokenError(TokenError.InvalidInstruction);
      account.owner = newAuthority;
      account.delegate = null;
      account.delegatedAmount = 0n;
      if (account.isNative !== null) account.closeAuthority = null;
    } else if (authorityType === 'closeAccount') {
      validateOwner(ctx, account.closeAuthority ?? account.owner, authorityInfo, accounts.rest());
      account.closeAuthority = newAuthority;
    } else {
      throw tokenError(TokenError.AuthorityTypeNotSupported);
    }
    packAccount(account, data);
  } else if (data.length === MINT_LEN) {
    const mint = unpackMint(data);
    if (authorityType === 'mintTokens') {
      if (mint.mintAuthority === null) throw tokenError(TokenError.FixedSupply);
      validateOwner(ctx, mint.mintAuthority, authorityInfo, accounts.rest());
      mint.mintAuthority = newAuthority;
    } else if (authorityType === 'freezeAccount') {
      if (mint.freezeAuthority === null) throw tokenError(TokenError.MintCannotFreeze);
      validateOwner(ctx, mint.freezeAuthority, authorityInfo, accounts.rest());
      mint.freezeAuthority = newAuthority;
    } else {
      throw tokenError(TokenError.AuthorityTypeNotSupported);
    }
    packMint(mint, data);
  } else {
    throw fail('InvalidArgument');
  }
}

function mintTo(ctx: InstructionContext, amount: bigint, expectedDecimals: number | null): void {
  const accounts = new Accounts(ctx);
  const mintInfo = accounts.take();
  const destinationInfo = accounts.take();
  const ownerInfo = accounts.take();
  const destination = unpackAccount(destinationInfo.account.data);
  if (destination.state === 'frozen') throw tokenError(TokenError.AccountFrozen);
  if (destination.isNative !== null) throw tokenError(TokenError.NativeNotSupported);
  if (mintInfo.key !== destination.mint) throw tokenError(TokenError.MintMismatch);
  const mint = unpackMint(mintInfo.account.data);
  if (expectedDecimals !== null && expectedDecimals !== mint.decimals) throw tokenError(TokenError.MintDecimalsMismatch);
  if (mint.mintAuthority === null) throw tokenError(TokenError.FixedSupply);
  validateOwner(ctx, mint.mintAuthority, ownerInfo, accounts.rest());
  if (amount === 0n) {
    checkOwner(ctx, mintInfo);
    checkOwner(ctx, destinationInfo);
  }
  destination.amount = checkedAdd(destination.amount, amount);
  mint.supply = checkedAdd(mint.supply, amount);
  packAccount(destination, destinationInfo.account.data);
  packMint(mint, mintInfo.account.data);
}

function burn(ctx: InstructionContext, amount: bigint, expectedDecimals: number | null): void {
  const accounts = new Accounts(ctx);
  const sourceInfo = accounts.take();
  const mintInfo = accounts.take();
  const authorityInfo = accounts.take();
  const source = unpackAccount(sourceInfo.account.data);
  const mint = unpackMint(mintInfo.account.data);
  if (source.state === 'frozen') throw tokenError(TokenError.AccountFrozen);
  if (source.isNative !== null) throw tokenError(TokenError.NativeNotSupported);
  if (source.amount < amount) throw tokenError(TokenError.InsufficientFunds);
  if (mintInfo.key !== source.mint) throw tokenError(TokenError.MintMismatch);
  if (expectedDecimals !== null && expectedDecimals !== mint.decimals) throw tokenError(TokenError.MintDecimalsMismatch);
  if (!ownedBySystemOrIncinerator(source)) {
    if (source.delegate !== null && authorityInfo.key === source.delegate) {
      validateOwner(ctx, source.delegate, authorityInfo, accounts.rest());
      if (source.delegatedAmount < amount) throw tokenError(TokenError.InsufficientFunds);
      source.delegatedAmount = checkedSub(source.delegatedAmount, amount);
      if (source.delegatedAmount === 0n) source.delegate = null;
    } else {
      validateOwner(ctx, source.owner, authorityInfo, accounts.rest());
    }
  }
  if (amount === 0n) {
    checkOwner(ctx, sourceInfo);
    checkOwner(ctx, mintInfo);
  }
  source.amount = checkedSub(source.amount, amount);
  mint.supply = checkedSub(mint.supply, amount);
  packAccount(source, sourceInfo.account.data);
  packMint(mint, mintInfo.account.data);
}

function closeAccount(ctx: InstructionContext): void {
  const accounts = new Accounts(ctx);
  const sourceInfo = accounts.take();
  const destinationInfo = accounts.take();
  const authorityInfo = accounts.take();
  if (sourceInfo.key === destinationInfo.key) throw fail('InvalidAccountData');
  const source = unpackAccount(sourceInfo.account.data);
  if (source.isNative === null && source.amount !== 0n) throw tokenError(TokenError.NonNativeHasBalance);
  const authority = source.closeAuthority ?? source.owner;
  if (!ownedBySystemOrIncinerator(source)) validateOwner(ctx, authority, authorityInfo, accounts.rest());
  else if (destinationInfo.key !== INCINERATOR_ID) throw fail('InvalidAccountData');
  setLamports(destinationInfo, checkedAdd(BigInt(destinationInfo.account.lamports), BigInt(sourceInfo.account.lamports)));
  sourceInfo.account.lamports = 0;
  // delete_account: back to the System program with no data.
  sourceInfo.account.owner = SYSTEM_PROGRAM_ID;
  sourceInfo.account.data = new Uint8Array(0);
}

function toggleFreeze(ctx: InstructionContext, freeze: boolean): void {
  const accounts = new Accounts(ctx);
  const sourceInfo = accounts.take();
  const mintInfo = accounts.take();
  const authorityInfo = accounts.take();
  const source = unpackAccount(sourceInfo.account.data);
  if (freeze === (source.state === 'frozen')) throw tokenError(TokenError.InvalidState);
  if (source.isNative !== null) throw tokenError(TokenError.NativeNotSupported);
  if (mintInfo.key !== source.mint) throw tokenError(TokenError.MintMismatch);
  const mint = unpackMint(mintInfo.account.data);
  if (mint.freezeAuthority === null) throw tokenError(TokenError.MintCannotFreeze);
  validateOwner(ctx, mint.freezeAuthority, authorityInfo, accounts.rest());
  source.state = freeze ? 'frozen' : 'initialized';
  packAccount(source, sourceInfo.account.data);
}

function syncNative(ctx: InstructionContext): void {
  const accounts = new Accounts(ctx);
  const nativeInfo = accounts.take();
  checkOwner(ctx, nativeInfo);
  const rentInfo = accounts.tryTake();
  if (rentInfo) rentFromAccount(rentInfo);
  const reserve = BigInt(ctx.minimumBalance(nativeInfo.account.data.length));
  const native = unpackAccount(nativeInfo.account.data);
  if (native.isNative === null) throw tokenError(TokenError.NonNativeNotSupported);
  native.amount = checkedSub(BigInt(nativeInfo.account.lamports), reserve);
  native.isNative = reserve;
  packAccount(native, nativeInfo.account.data);
}

/** A mint this program owns that unpacks, else InvalidMint. */
function validMint(ctx: InstructionContext, mintInfo: InstructionAccount) {
  checkOwner(ctx, mintInfo);
  try {
    return unpackMint(mintInfo.account.data);
  } catch {
    throw tokenError(TokenError.InvalidMint);
  }
}

function setReturnData(ctx: InstructionContext, data: Uint8Array): void {
  if (!ctx.setReturnData) throw new Error('token program: the executor provides no return data');
  ctx.setReturnData(data);
}

function getAccountDataSize(ctx: InstructionContext): void {
  validMint(ctx, new Accounts(ctx).take());
  const size = new Uint8Array(8);
  new DataView(size.buffer).setBigUint64(0, BigInt(ACCOUNT_LEN), true);
  setReturnData(ctx, size);
}

function initializeImmutableOwner(ctx: InstructionContext): void {
  const account = unpackAccountUnchecked(new Accounts(ctx).take().account.data);
  if (account.state !== 'uninitialized') throw tokenError(TokenError.AlreadyInUse);
  ctx.log('Please upgrade to SPL Token 2022 for immutable owner support');
}

function amountToUiAmount(ctx: InstructionContext, amount: bigint): void {
  const mint = validMint(ctx, new Accounts(ctx).take());
  setReturnData(ctx, new TextEncoder().encode(amountToUiAmountStringTrimmed(amount, mint.decimals)));
}

function uiAmountToAmountIx(ctx: InstructionContext, ui: string): void {
  const mint = validMint(ctx, new Accounts(ctx).take());
  const amount = uiAmountToAmount(ui, mint.decimals);
  if (amount === null) throw fail('InvalidArgument');
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, amount, true);
  setReturnData(ctx, out);
}

function run(ctx: InstructionContext, ix: TokenInstruction): void {
  switch (ix.type) {
    case 'initializeMint':
    case 'initializeMint2':
      return initializeMint(ctx, ix.decimals, ix.mintAuthority, ix.freezeAuthority, ix.type === 'initializeMint');
    case 'initializeAccount':
      return initializeAccount(ctx, null, true);
    case 'initializeAccount2':
      return initializeAccount(ctx, ix.owner, true);
    case 'initializeAccount3':
      return initializeAccount(ctx, ix.owner, false);
    case 'initializeMultisig':
    case 'initializeMultisig2':
      return initializeMultisig(ctx, ix.m, ix.type === 'initializeMultisig');
    case 'transfer':
      return transfer(ctx, ix.amount, null);
    case 'transferChecked':
      return transfer(ctx, ix.amount, ix.decimals);
    case 'approve':
      return approve(ctx, ix.amount, null);
    case 'approveChecked':
      return approve(ctx, ix.amount, ix.decimals);
    case 'revoke':
      return revoke(ctx);
    case 'setAuthority':
      return setAuthority(ctx, ix.authorityType, ix.newAuthority);
    case 'mintTo':
      return mintTo(ctx, ix.amount, null);
    case 'mintToChecked':
      return mintTo(ctx, ix.amount, ix.decimals);
    case 'burn':
      return burn(ctx, ix.amount, null);
    case 'burnChecked':
      return burn(ctx, ix.amount, ix.decimals);
    case 'closeAccount':
      return closeAccount(ctx);
    case 'freezeAccount':
      return toggleFreeze(ctx, true);
    case 'thawAccount':
      return toggleFreeze(ctx, false);
    case 'syncNative':
      return syncNative(ctx);
    case 'getAccountDataSize':
      return getAccountDataSize(ctx);
    case 'initializeImmutableOwner':
      return initializeImmutableOwner(ctx);
    case 'amountToUiAmount':
      return amountToUiAmount(ctx, ix.amount);
    case 'uiAmountToAmount':
      return uiAmountToAmountIx(ctx, ix.uiAmount);
  }
}

function processInstruction(ctx: InstructionContext): void {
  const ix = decodeTokenInstruction(ctx.data);
  try {
    if (!ix) {
      ctx.consumeUnits(INVALID_INSTRUCTION_UNITS);
      throw tokenError(TokenError.InvalidInstruction);
    }
    ctx.consumeUnits(UNITS[ix.type]);
    ctx.log(`Instruction: ${instructionLogName(ix.type)}`);
    run(ctx, ix);
  } catch (e) {
    // The entrypoint prints the error before returning it; running out of units ends the program first.
    if (e instanceof InstructionError && e.value !== 'ComputationalBudgetExceeded') ctx.log(tokenErrorLog(e.value));
    throw e;
  }
}

export const tokenProgram: Program = {
  id: TOKEN_PROGRAM_ID,
  name: 'spl-token',
  computeUnits: 0,
  logsConsumption: true,
  process: processInstruction,
};
