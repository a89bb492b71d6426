/**
 * SPL Token instructions as the program unpacks them (TokenInstruction::unpack): a tag byte, then
 * the fields; trailing bytes are ignored. Anything else is TokenError::InvalidInstruction.
 */
import { bytesToAddress, type Address } from '../../../common/pubkey.ts';

export type AuthorityType = 'mintTokens' | 'freezeAccount' | 'accountOwner' | 'closeAccount';
export const AUTHORITY_TYPES: readonly AuthorityType[] = ['mintTokens', 'freezeAccount', 'accountOwner', 'closeAccount'];

export type TokenInstruction =
  | { type: 'initializeMint' | 'initializeMint2'; decimals: number; mintAuthority: Address; freezeAuthority: Address | null }
  | { type: 'initializeAccount' | 'revoke' | 'closeAccount' | 'freezeAccount' | 'thawAccount' | 'syncNative' | 'getAccountDataSize' | 'initializeImmutableOwner' }
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
