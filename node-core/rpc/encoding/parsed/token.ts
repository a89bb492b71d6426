/**
 * jsonParsed for SPL Token (Agave's account-decoder parse_token and transaction-status parse_token)
 * and the Associated Token Account program (parse_associated_token). A token account shows its
 * amounts with its mint's decimals, so it parses only when the mint is readable; without it the
 * account falls back to base64, and the token RPC methods leave it out.
 */
import { DEFAULT_PUBKEY, type Address } from '../../../common/pubkey.ts';
import type { Account } from '../../../runtime/account.ts';
import { uiTokenAmount } from '../../../runtime/programs/token/amount.ts';
import { decodeAssociatedTokenInstruction } from '../../../runtime/programs/associated-token.ts';
import { decodeTokenInstruction } from '../../../runtime/programs/token/instruction.ts';
import {
  ACCOUNT_LEN,
  MINT_LEN,
  MULTISIG_LEN,
  TOKEN_PROGRAM_ID,
  tokenAccountMint,
  unpackAccount,
  unpackMint,
  unpackMultisig,
} from '../../../runtime/programs/token/state.ts';
import { mintDecimals } from '../../../runtime/token-balances.ts';
import type { AccountParser, InstructionParser, ParsedAccountValue } from './types.ts';

/** The `{program, parsed, space}` of a token-program account, or null when it does not parse. */
export function parseTokenAccountData(account: Account, readAccount?: (address: Address) => Account | null): ParsedAccountValue | null {
  if (account.owner !== TOKEN_PROGRAM_ID) return null;
  const data = account.data;
  const wrap = (parsed: unknown): ParsedAccountValue => ({ program: 'spl-token', parsed, space: data.length });
  try {
    if (data.length === ACCOUNT_LEN) {
      const a = unpackAccount(data);
      const mint = tokenAccountMint(data)!;
      const decimals = mintDecimals(mint, readAccount?.(mint) ?? null);
      if (decimals === null) return null;
      const info: Record<string, unknown> = { mint: a.mint, owner: a.owner, tokenAmount: uiTokenAmount(a.amount, decimals) };
      if (a.delegate !== null) info.delegate = a.delegate;
      info.state = a.state;
      info.isNative = a.isNative !== null;
      if (a.isNative !== null) info.rentExemptReserve = uiTokenAmount(a.isNative, decimals);
      if (a.delegate !== null) info.delegatedAmount = uiTokenAmount(a.delegatedAmount, decimals);
      if (a.closeAuthority !== null) info.closeAuthority = a.closeAuthority;
      return wrap({ type: 'account', info });
    }
    if (data.length === MINT_LEN) {
      const m = unpackMint(data);
      return wrap({
        type: 'mint',
        info: { mintAuthority: m.mintAuthority, supply: m.supply.toString(), decimals: m.decimals, isInitialized: m.isInitialized, freezeAuthority: m.freezeAuthority },
      });
    }
    if (data.length === MULTISIG_LEN) {
      const m = unpackMultisig(data);
      return wrap({
        type: 'multisig',
        info: { numRequiredSigners: m.m, numValidSigners: m.n, isInitialized: m.isInitialized, signers: m.signers.filter((s) => s !== DEFAULT_PUBKEY) },
      });
    }
  } catch {
    return null;
  }
  return null;
}

export const parseTokenAccount: AccountParser = (_address, account, context) => parseTokenAccountData(account, context?.readAccount);

// ---- instructions ----

type Info = Record<string, unknown>;

/**
 * parse_signers: the authority at `last` alone, or a multisig authority and its signers after it.
 */
function signers(info: Info, accounts: Address[], last: number, single: string, multisig: string): Info {
  const owner = accounts[last];
  if (accounts.length > last + 1) {
    if (owner !== undefined) info[multisig] = owner;
    info.signers = accounts.slice(last + 1);
  } else if (owner !== undefined) {
    info[single] = owner;
  }
  return info;
}

export const parseTokenInstruction: InstructionParser = (data, accounts) => {
  const ix = decodeTokenInstruction(data);
  if (!ix) return null;
  const a = (i: number) => accounts[i]!;
  const need = (n: number) => accounts.length >= n;
  const out = (type: string, info: Info) => ({ type, info });
  switch (ix.type) {
    case 'initializeMint': {
      if (!need(2)) return null;
      const info: Info = { mint: a(0), decimals: ix.decimals, mintAuthority: ix.mintAuthority, rentSysvar: a(1) };
      if (ix.freezeAuthority !== null) info.freezeAuthority = ix.freezeAuthority;
      return out('initializeMint', info);
    }
    case 'initializeMint2': {
      if (!need(1)) return null;
      const info: Info = { mint: a(0), decimals: ix.decimals, mintAuthority: ix.mintAuthority };
      if (ix.freezeAuthority !== null) info.freezeAuthority = ix.freezeAuthority;
      return out('initializeMint2', info);
    }
    case 'initializeAccount':
      return need(4) ? out('initializeAccount', { account: a(0), mint: a(1), owner: a(2), rentSysvar: a(3) }) : null;
    case 'initializeAccount2':
      return need(3) ? out('initializeAccount2', { account: a(0), mint: a(1), owner: ix.owner, rentSysvar: a(2) }) : null;
    case 'initializeAccount3':
      return need(2) ? out('initializeAccount3', { account: a(0), mint: a(1), owner: ix.owner }) : null;
    case 'initializeMultisig':
      return need(3) ? out('initializeMultisig', { multisig: a(0), rentSysvar: a(1), signers: accounts.slice(2), m: ix.m }) : null;
    case 'initializeMultisig2':
      return need(2) ? out('initializeMultisig2', { multisig: a(0), signers: accounts.slice(1), m: ix.m }) : null;
    case 'transfer':
      return need(3) ? out('transfer', signers({ source: a(0), destination: a(1), amount: ix.amount.toString() }, accounts, 2, 'authority', 'multisigAuthority')) : null;
    case 'approve':
      return need(3) ? out('approve', signers({ source: a(0), delegate: a(1), amount: ix.amount.toString() }, accounts, 2, 'owner', 'multisigOwner')) : null;
    case 'revoke':
      return need(2) ? out('revoke', signers({ source: a(0) }, accounts, 1, 'owner', 'multisigOwner')) : null;
    case 'setAuthority': {
      if (!need(2)) return null;
      const owned = ix.authorityType === 'mintTokens' || ix.authorityType === 'freezeAccount' ? 'mint' : 'account';
      return out('setAuthority', signers({ [owned]: a(0), authorityType: ix.authorityType, newAuthority: ix.newAuthority }, accounts, 1, 'authority', 'multisigAuthority'));
    }
    case 'mintTo':
      return need(3) ? out('mintTo', signers({ mint: a(0), account: a(1), amount: ix.amount.toString() }, accounts, 2, 'mintAuthority', 'multisigMintAuthority')) : null;
    case 'burn':
      return need(3) ? out('burn', signers({ account: a(0), mint: a(1), amount: ix.amount.toString() }, accounts, 2, 'authority', 'multisigAuthority')) : null;
    case 'closeAccount':
      return need(3) ? out('closeAccount', signers({ account: a(0), destination: a(1) }, accounts, 2, 'owner', 'multisigOwner')) : null;
    case 'freezeAccount':
    case 'thawAccount':
      return need(3) ? out(ix.type, signers({ account: a(0), mint: a(1) }, accounts, 2, 'freezeAuthority', 'multisigFreezeAuthority')) : null;
    case 'transferChecked':
      return need(4)
        ? out('transferChecked', signers({ source: a(0), mint: a(1), destination: a(2), tokenAmount: uiTokenAmount(ix.amount, ix.decimals) }, accounts, 3, 'authority', 'multisigAuthority'))
        : null;
    case 'approveChecked':
      return need(4)
        ? out('approveChecked', signers({ source: a(0), mint: a(1), delegate: a(2), tokenAmount: uiTokenAmount(ix.amount, ix.decimals) }, accounts, 3, 'owner', 'multisigOwner'))
        : null;
    case 'mintToChecked':
      return need(3)
        ? out('mintToChecked', signers({ mint: a(0), account: a(1), tokenAmount: uiTokenAmount(ix.amount, ix.decimals) }, accounts, 2, 'mintAuthority', 'multisigMintAuthority'))
        : null;
    case 'burnChecked':
      return need(3)
        ? out('burnChecked', signers({ account: a(0), mint: a(1), tokenAmount: uiTokenAmount(ix.amount, ix.decimals) }, accounts, 2, 'authority', 'multisigAuthority'))
        : null;
    case 'syncNative':
      return need(1) ? out('syncNative', { account: a(0) }) : null;
    case 'getAccountDataSize': {
      if (!need(1)) return null;
      // Agave decodes with Token-2022's unpack, which reads the extension types the program ignores.
      const extensionTypes = extensionTypesOf(data.subarray(1));
      if (extensionTypes === null) return null;
      return out('getAccountDataSize', extensionTypes.length ? { mint: a(0), extensionTypes } : { mint: a(0) });
    }
    case 'initializeImmutableOwner':
      return need(1) ? out('initializeImmutableOwner', { account: a(0) }) : null;
    case 'amountToUiAmount':
      return need(1) ? out('amountToUiAmount', { mint: a(0), amount: ix.amount.toString() }) : null;
    case 'uiAmountToAmount':
      return need(1) ? out('uiAmountToAmount', { mint: a(0), uiAmount: ix.uiAmount }) : null;
  }
};

/** Token-2022's ExtensionType values as Agave names them (UiExtensionType), by u16 value. */
const EXTENSION_TYPES = (
  'uninitialized transferFeeConfig transferFeeAmount mintCloseAuthority confidentialTransferMint confidentialTransferAccount ' +
  'defaultAccountState immutableOwner memoTransfer nonTransferable interestBearingConfig cpiGuard permanentDelegate ' +
  'nonTransferableAccount transferHook transferHookAccount confidentialTransferFeeConfig confidentialTransferFeeAmount ' +
  'metadataPointer tokenMetadata groupPointer groupMemberPointer tokenGroup tokenGroupMember confidentialMintBurn ' +
  'scaledUiAmount pausable pausableAccount'
).split(' ');

/** u16 little-endian extension types; null when a chunk is short or unknown (the instruction is then not parsable). */
function extensionTypesOf(rest: Uint8Array): string[] | null {
  const out: string[] = [];
  for (let i = 0; i < rest.length; i += 2) {
    if (i + 1 >= rest.length) return null;
    const name = EXTENSION_TYPES[rest[i]! | (rest[i + 1]! << 8)];
    if (name === undefined) return null;
    out.push(name);
  }
  return out;
}

const ATA_NAMES = { Create: 'create', CreateIdempotent: 'createIdempotent', RecoverNested: 'recoverNested' } as const;

export const parseAssociatedTokenInstruction: InstructionParser = (data, accounts) => {
  const ix = decodeAssociatedTokenInstruction(data);
  if (!ix) return null;
  const type = ATA_NAMES[ix];
  const a = (i: number) => accounts[i]!;
  if (type === 'recoverNested') {
    if (accounts.length < 7) return null;
    return {
      type,
      info: { nestedSource: a(0), nestedMint: a(1), destination: a(2), nestedOwner: a(3), ownerMint: a(4), wallet: a(5), tokenProgram: a(6) },
    };
  }
  if (accounts.length < 6) return null;
  return { type, info: { source: a(0), account: a(1), wallet: a(2), mint: a(3), systemProgram: a(4), tokenProgram: a(5) } };
};
