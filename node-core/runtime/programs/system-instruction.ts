/**
 * System program instruction data: bincode, a u32 LE variant tag then the fields (u64 LE integers,
 * 32-byte pubkeys, strings as u64 length + UTF-8). Decoded for the program and jsonParsed, encoded for
 * everything in the node that sends one (airdrops, cross-program invocations, the bridge).
 */
import { ByteReader, ByteWriter, DecodeError } from '../../common/bytes.ts';
import { SYSTEM_PROGRAM_ID, addressToBytes, bytesToAddress, type Address } from '../../common/pubkey.ts';
import type { InstructionSpec } from '../message-builder.ts';

export type SystemInstruction =
  | { type: 'createAccount'; lamports: bigint; space: bigint; owner: Address }
  | { type: 'assign'; owner: Address }
  | { type: 'transfer'; lamports: bigint }
  | { type: 'createAccountWithSeed'; base: Address; seed: string; lamports: bigint; space: bigint; owner: Address }
  | { type: 'advanceNonceAccount' }
  | { type: 'withdrawNonceAccount'; lamports: bigint }
  | { type: 'initializeNonceAccount'; authority: Address }
  | { type: 'authorizeNonceAccount'; authority: Address }
  | { type: 'allocate'; space: bigint }
  | { type: 'allocateWithSeed'; base: Address; seed: string; space: bigint; owner: Address }
  | { type: 'assignWithSeed'; base: Address; seed: string; owner: Address }
  | { type: 'transferWithSeed'; lamports: bigint; fromSeed: string; fromOwner: Address }
  | { type: 'upgradeNonceAccount' };

export interface DecodeOptions {
  /**
   * Accept bytes after the instruction. Agave's `limited_deserialize` (the processor) and the
   * jsonParsed parser both use bincode with trailing bytes allowed; the default here is strict.
   */
  allowTrailingBytes?: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function pubkey(r: ByteReader): Address {
  return bytesToAddress(r.bytesN(32));
}

function string(r: ByteReader): string {
  const bytes = r.bincodeBytes();
  try {
    return utf8.decode(bytes);
  } catch {
    throw new DecodeError('invalid utf-8');
  }
}

function read(r: ByteReader): SystemInstruction | null {
  switch (r.u32()) {
    case 0:
      return { type: 'createAccount', lamports: r.u64(), space: r.u64(), owner: pubkey(r) };
    case 1:
      return { type: 'assign', owner: pubkey(r) };
    case 2:
      return { type: 'transfer', lamports: r.u64() };
    case 3:
      return { type: 'createAccountWithSeed', base: pubkey(r), seed: string(r), lamports: r.u64(), space: r.u64(), owner: pubkey(r) };
    case 4:
      return { type: 'advanceNonceAccount' };
    case 5:
      return { type: 'withdrawNonceAccount', lamports: r.u64() };
    case 6:
      return { type: 'initializeNonceAccount', authority: pubkey(r) };
    case 7:
      return { type: 'authorizeNonceAccount', authority: pubkey(r) };
    case 8:
      return { type: 'allocate', space: r.u64() };
    case 9:
      return { type: 'allocateWithSeed', base: pubkey(r), seed: string(r), space: r.u64(), owner: pubkey(r) };
    case 10:
      return { type: 'assignWithSeed', base: pubkey(r), seed: string(r), owner: pubkey(r) };
    case 11:
      return { type: 'transferWithSeed', lamports: r.u64(), fromSeed: string(r), fromOwner: pubkey(r) };
    case 12:
      return { type: 'upgradeNonceAccount' };
    default:
      return null;
  }
}

/** Decodes System program instruction data; null when malformed (or, unless allowed, with trailing bytes). */
export function decodeSystemInstruction(data: Uint8Array, options: DecodeOptions = {}): SystemInstruction | null {
  try {
    const r = new ByteReader(data);
    const ix = read(r);
    if (!ix) return null;
    return r.remaining === 0 || options.allowTrailingBytes ? ix : null;
  } catch (e) {
    if (e instanceof DecodeError) return null;
    throw e;
  }
}

const utf8Encoder = new TextEncoder();

/** The variant tag and a writer with room for the fields that follow. */
const tagged = (tag: number, fieldBytes: number) => new ByteWriter(4 + fieldBytes).u32(tag);
const seedBytes = (seed: string) => utf8Encoder.encode(seed);

/** Encodes System program instruction data (what decodeSystemInstruction reads back). */
export function encodeSystemInstruction(ix: SystemInstruction): Uint8Array {
  switch (ix.type) {
    case 'createAccount':
      return tagged(0, 48).u64(ix.lamports).u64(ix.space).bytes(addressToBytes(ix.owner)).finish();
    case 'assign':
      return tagged(1, 32).bytes(addressToBytes(ix.owner)).finish();
    case 'transfer':
      return tagged(2, 8).u64(ix.lamports).finish();
    case 'createAccountWithSeed': {
      const seed = seedBytes(ix.seed);
      return tagged(3, 88 + seed.length).bytes(addressToBytes(ix.base)).bincodeBytes(seed).u64(ix.lamports).u64(ix.space).bytes(addressToBytes(ix.owner)).finish();
    }
    case 'advanceNonceAccount':
      return tagged(4, 0).finish();
    case 'withdrawNonceAccount':
      return tagged(5, 8).u64(ix.lamports).finish();
    case 'initializeNonceAccount':
      return tagged(6, 32).bytes(addressToBytes(ix.authority)).finish();
    case 'authorizeNonceAccount':
      return tagged(7, 32).bytes(addressToBytes(ix.authority)).finish();
    case 'allocate':
      return tagged(8, 8).u64(ix.space).finish();
    case 'allocateWithSeed': {
      const seed = seedBytes(ix.seed);
      return tagged(9, 80 + seed.length).bytes(addressToBytes(ix.base)).bincodeBytes(seed).u64(ix.space).bytes(addressToBytes(ix.owner)).finish();
    }
    case 'assignWithSeed': {
      const seed = seedBytes(ix.seed);
      return tagged(10, 72 + seed.length).bytes(addressToBytes(ix.base)).bincodeBytes(seed).bytes(addressToBytes(ix.owner)).finish();
    }
    case 'transferWithSeed': {
      const seed = seedBytes(ix.fromSeed);
      return tagged(11, 48 + seed.length).u64(ix.lamports).bincodeBytes(seed).bytes(addressToBytes(ix.fromOwner)).finish();
    }
    case 'upgradeNonceAccount':
      return tagged(12, 0).finish();
  }
}

/** system_instruction::transfer: `from` signs and pays `lamports` to `to`. */
export function systemTransferInstruction(from: Address, to: Address, lamports: bigint | number): InstructionSpec {
  return {
    programId: SYSTEM_PROGRAM_ID,
    accounts: [
      { key: from, signer: true, writable: true },
      { key: to, writable: true },
    ],
    data: encodeSystemInstruction({ type: 'transfer', lamports: BigInt(lamports) }),
  };
}
