/**
 * SPL Token instructions as the program unpacks them (TokenInstruction::unpack): a tag byte, then
 * the fields; trailing bytes are ignored. Anything else is TokenError::InvalidInstruction. Encoded as
 * TokenInstruction::pack writes them, for the instructions the ATA program invokes.
 */
import { ByteWriter } from '../../../common/bytes.ts';
import { addressToBytes, bytesToAddress, type Address } from '../../../common/pubkey.ts';

export type AuthorityType = 'mintTokens' | 'freezeAccount' | 'accountOwner' | 'closeAccount';
export const AUTHORITY_TYPES: readonly AuthorityType[] = ['mintTokens', 'freezeAccount', 'accountOwner', 'closeAccount'];

export type TokenInstruction =
  | { type: 'initializeMint' | 'initializeMint2'; decimals: number; mintAuthority: Address; freezeAuthority: Address | null }
  | { type: 'initializeAccount' | 'revoke' | 'closeAccount' | 'freezeAccount' | 'thawAccount' | 'syncNative' | 'initializeImmutableOwner' }
  /**
   * extensionTypes: Token-2022's ExtensionType numbers (u16 LE each) after the tag, which the ATA
   * program sends; SPL Token ignores them, so the decoder leaves them out.
   */
  | { type: 'getAccountDataSize'; extensionTypes?: readonly number[] }
  | { type: 'initializeAccount2' | 'initializeAccount3'; owner: Address }
  | { type: 'initializeMultisig' | 'initializeMultisig2'; m: number }
  | { type: 'transfer' | 'approve' | 'mintTo' | 'burn' | 'amountToUiAmount'; amount: bigint }
  | { type: 'transferChecked' | 'approveChecked' | 'mintToChecked' | 'burnChecked'; amount: bigint; decimals: number }
  | { type: 'setAuthority'; authorityType: AuthorityType; newAuthority: Address | null }
  | { type: 'uiAmountToAmount'; uiAmount: string };

/** The name the program logs ("Instruction: TransferChecked"). */
export const instructionLogName = (type: TokenInstruction['type']): string => type[0]!.toUpperCase() + type.slice(1);

class Unpack {
  offset = 1;
  constructor(private readonly d: Uint8Array) {}
  u8(): number {
    const v = this.d[this.offset];
    if (v === undefined) throw new RangeError('short');
    this.offset++;
    return v;
  }
  u64(): bigint {
    if (this.offset + 8 > this.d.length) throw new RangeError('short');
    const v = new DataView(this.d.buffer, this.d.byteOffset + this.offset, 8).getBigUint64(0, true);
    this.offset += 8;
    return v;
  }
  key(): Address {
    if (this.offset + 32 > this.d.length) throw new RangeError('short');
    const k = bytesToAddress(this.d.subarray(this.offset, this.offset + 32));
    this.offset += 32;
    return k;
  }
  keyOption(): Address | null {
    const tag = this.u8();
    if (tag === 0) return null;
    if (tag === 1) return this.key();
    throw new RangeError('bad option');
  }
  rest(): Uint8Array {
    return this.d.subarray(this.offset);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The instruction, or null where the program answers InvalidInstruction. */
export function decodeTokenInstruction(data: Uint8Array): TokenInstruction | null {
  if (data.length === 0) return null;
  const r = new Unpack(data);
  try {
    switch (data[0]) {
      case 0:
      case 20: {
        const decimals = r.u8();
        const mintAuthority = r.key();
        return { type: data[0] === 0 ? 'initializeMint' : 'initializeMint2', decimals, mintAuthority, freezeAuthority: r.keyOption() };
      }
      case 1:
        return { type: 'initializeAccount' };
      case 2:
        return { type: 'initializeMultisig', m: r.u8() };
      case 3:
        return { type: 'transfer', amount: r.u64() };
      case 4:
        return { type: 'approve', amount: r.u64() };
      case 5:
        return { type: 'revoke' };
      case 6: {
        const authorityType = AUTHORITY_TYPES[r.u8()];
        if (!authorityType) return null;
        return { type: 'setAuthority', authorityType, newAuthority: r.keyOption() };
      }
      case 7:
        return { type: 'mintTo', amount: r.u64() };
      case 8:
        return { type: 'burn', amount: r.u64() };
      case 9:
        return { type: 'closeAccount' };
      case 10:
        return { type: 'freezeAccount' };
      case 11:
        return { type: 'thawAccount' };
      case 12:
        return { type: 'transferChecked', amount: r.u64(), decimals: r.u8() };
      case 13:
        return { type: 'approveChecked', amount: r.u64(), decimals: r.u8() };
      case 14:
        return { type: 'mintToChecked', amount: r.u64(), decimals: r.u8() };
      case 15:
        return { type: 'burnChecked', amount: r.u64(), decimals: r.u8() };
      case 16:
        return { type: 'initializeAccount2', owner: r.key() };
      case 17:
        return { type: 'syncNative' };
      case 18:
        return { type: 'initializeAccount3', owner: r.key() };
      case 19:
        return { type: 'initializeMultisig2', m: r.u8() };
      case 21:
        return { type: 'getAccountDataSize' };
      case 22:
        return { type: 'initializeImmutableOwner' };
      case 23:
        return { type: 'amountToUiAmount', amount: r.u64() };
      case 24:
        return { type: 'uiAmountToAmount', uiAmount: utf8.decode(r.rest()) };
      default:
        return null;
    }
  } catch {
    return null;
  }
}

const TAGS: Record<TokenInstruction['type'], number> = {
  initializeMint: 0,
  initializeAccount: 1,
  initializeMultisig: 2,
  transfer: 3,
  approve: 4,
  revoke: 5,
  setAuthority: 6,
  mintTo: 7,
  burn: 8,
  closeAccount: 9,
  freezeAccount: 10,
  thawAccount: 11,
  transferChecked: 12,
  approveChecked: 13,
  mintToChecked: 14,
  burnChecked: 15,
  initializeAccount2: 16,
  syncNative: 17,
  initializeAccount3: 18,
  initializeMultisig2: 19,
  initializeMint2: 20,
  getAccountDataSize: 21,
  initializeImmutableOwner: 22,
  amountToUiAmount: 23,
  uiAmountToAmount: 24,
};

/** COption<Pubkey> as the instruction packs it: 0, or 1 then the key. */
function keyOption(w: ByteWriter, key: Address | null): ByteWriter {
  return key === null ? w.u8(0) : w.u8(1).bytes(addressToBytes(key));
}

/** Encodes SPL Token instruction data (what decodeTokenInstruction reads back). */
export function encodeTokenInstruction(ix: TokenInstruction): Uint8Array {
  const w = new ByteWriter(67).u8(TAGS[ix.type]);
  switch (ix.type) {
    case 'initializeMint':
    case 'initializeMint2':
      return keyOption(w.u8(ix.decimals).bytes(addressToBytes(ix.mintAuthority)), ix.freezeAuthority).finish();
    case 'initializeAccount':
    case 'revoke':
    case 'closeAccount':
    case 'freezeAccount':
    case 'thawAccount':
    case 'syncNative':
    case 'initializeImmutableOwner':
      return w.finish();
    case 'getAccountDataSize':
      for (const t of ix.extensionTypes ?? []) w.u16(t);
      return w.finish();
    case 'initializeAccount2':
    case 'initializeAccount3':
      return w.bytes(addressToBytes(ix.owner)).finish();
    case 'initializeMultisig':
    case 'initializeMultisig2':
      return w.u8(ix.m).finish();
    case 'transfer':
    case 'approve':
    case 'mintTo':
    case 'burn':
    case 'amountToUiAmount':
      return w.u64(ix.amount).finish();
    case 'transferChecked':
    case 'approveChecked':
    case 'mintToChecked':
    case 'burnChecked':
      return w.u64(ix.amount).u8(ix.decimals).finish();
    case 'setAuthority':
      return keyOption(w.u8(AUTHORITY_TYPES.indexOf(ix.authorityType)), ix.newAuthority).finish();
    case 'uiAmountToAmount':
      return w.bytes(new TextEncoder().encode(ix.uiAmount)).finish();
  }
}
