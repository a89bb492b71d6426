/**
 * The transaction wire format: signatures, then a legacy or v0 message
 * (https://docs.solana.com/developing/programming-model/transactions). Parsing keeps the exact message
 * bytes, since they are what the signatures cover.
 */
import { ByteReader, ByteWriter, DecodeError } from '../common/bytes.ts';
import { encodeBase58 } from '../common/base58.ts';
import type { Address } from '../common/pubkey.ts';
import { TransactionError } from './errors.ts';

/** IPv6 minimum MTU minus IPv6 and UDP headers: the largest transaction a packet carries. */
export const PACKET_DATA_SIZE = 1232;
export const SIGNATURE_LENGTH = 64;

export interface MessageHeader {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

export interface CompiledInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

export interface AddressTableLookup {
  accountKey: Address;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export type TransactionVersion = 'legacy' | 0;

export interface Message {
  version: TransactionVersion;
  header: MessageHeader;
  accountKeys: Address[];
  recentBlockhash: string;
  instructions: CompiledInstruction[];
  addressTableLookups: AddressTableLookup[];
  /** The serialized message: the bytes every signature signs. */
  bytes: Uint8Array;
}

export interface Transaction {
  signatures: Uint8Array[];
  /** Base-58 of signatures[0]: the transaction's id. */
  id: string;
  message: Message;
  wire: Uint8Array;
}

function readIndexList(r: ByteReader): number[] {
  const n = r.shortVec();
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = r.u8();
  return out;
}

/**
 * How parsing names 32-byte keys and signatures: base-58 (encodeBase58). The submission worker hands
 * the event loop the names it already computed (rpc/submission-decoder.ts): the parse asks for them
 * in a fixed order (the message's keys, its blockhash, its lookup tables' keys, then the signature).
 */
export type Namer = (bytes: Uint8Array) => string;

export function parseMessage(bytes: Uint8Array, name: Namer = encodeBase58): Message {
  const r = new ByteReader(bytes);
  let version: TransactionVersion = 'legacy';
  const first = r.u8();
  let numRequiredSignatures = first;
  if (first & 0x80) {
    const v = first & 0x7f;
    if (v !== 0) throw new DecodeError(`unsupported transaction version: ${v}`);
    version = 0;
    numRequiredSignatures = r.u8();
  }
  const header: MessageHeader = {
    numRequiredSignatures,
    numReadonlySignedAccounts: r.u8(),
    numReadonlyUnsignedAccounts: r.u8(),
  };
  const keyCount = r.shortVec();
  const accountKeys = new Array<Address>(keyCount);
  for (let i = 0; i < keyCount; i++) accountKeys[i] = name(r.bytesN(32));
  const recentBlockhash = name(r.bytesN(32));
  const ixCount = r.shortVec();
  const instructions = new Array<CompiledInstruction>(ixCount);
  for (let i = 0; i < ixCount; i++) {
    const programIdIndex = r.u8();
    const accounts = readIndexList(r);
    const data = r.bytesN(r.shortVec());
    instructions[i] = { programIdIndex, accounts, data };
  }
  const addressTableLookups: AddressTableLookup[] = [];
  if (version === 0) {
    const n = r.shortVec();
    for (let i = 0; i < n; i++) {
      const accountKey = name(r.bytesN(32));
      addressTableLookups.push({ accountKey, writableIndexes: readIndexList(r), readonlyIndexes: readIndexList(r) });
    }
  }
  if (r.remaining !== 0) throw new DecodeError('trailing bytes after message');
  return { version, header, accountKeys, recentBlockhash, instructions, addressTableLookups, bytes };
}

/** Parses wire bytes; throws DecodeError with a client-facing reason. */
export function parseTransaction(wire: Uint8Array, name: Namer = encodeBase58): Transaction {
  if (wire.length > PACKET_DATA_SIZE) {
    throw new DecodeError(`transaction too large: ${wire.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`);
  }
  const r = new ByteReader(wire);
  const sigCount = r.shortVec();
  if (sigCount === 0) throw new DecodeError('transaction has no signatures');
  const signatures = new Array<Uint8Array>(sigCount);
  for (let i = 0; i < sigCount; i++) signatures[i] = r.bytesN(SIGNATURE_LENGTH);
  const message = parseMessage(wire.subarray(r.offset), name);
  return { signatures, id: name(signatures[0]!), message, wire };
}

export function isSignerIndex(m: Message, i: number): boolean {
  return i < m.header.numRequiredSignatures;
}

/** Write permission as the message header grants it (static keys only). */
export function isWritableIndex(m: Message, i: number): boolean {
  const h = m.header;
  if (i < h.numRequiredSignatures) return i < h.numRequiredSignatures - h.numReadonlySignedAccounts;
  return i < m.accountKeys.length - h.numReadonlyUnsignedAccounts;
}

/**
 * Structural checks every message must pass before it is loaded (Message::sanitize).
 * Throws TransactionError("SanitizeFailure") or ("AccountLoadedTwice").
 */
export function sanitizeTransaction(tx: Transaction): void {
  const m = tx.message;
  const h = m.header;
  const keys = m.accountKeys.length;
  const fail = () => {
    throw new TransactionError('SanitizeFailure');
  };
  if (tx.signatures.length !== h.numRequiredSignatures) fail();
  if (h.numRequiredSignatures === 0 || h.numRequiredSignatures > keys) fail();
  if (h.numReadonlySignedAccounts >= h.numRequiredSignatures) fail();
  if (h.numReadonlyUnsignedAccounts > keys - h.numRequiredSignatures) fail();
  let totalKeys = keys;
  for (const l of m.addressTableLookups) {
    // Each lookup table must load at least one account (v0::Message::sanitize).
    if (l.writableIndexes.length + l.readonlyIndexes.length === 0) fail();
    totalKeys += l.writableIndexes.length + l.readonlyIndexes.length;
  }
  if (totalKeys > 256) fail();
  for (const ix of m.instructions) {
    if (ix.programIdIndex === 0 || ix.programIdIndex >= keys) fail();
    for (const a of ix.accounts) if (a >= totalKeys) fail();
  }
  if (new Set(m.accountKeys).size !== keys) throw new TransactionError('AccountLoadedTwice');
}

/** Serializes a message (used by tests, the faucet and tools that build transactions in the node). */
export function serializeMessage(m: Omit<Message, 'bytes'>, toBytes: (a: string) => Uint8Array): Uint8Array {
  const w = new ByteWriter();
  if (m.version === 0) w.u8(0x80);
  w.u8(m.header.numRequiredSignatures).u8(m.header.numReadonlySignedAccounts).u8(m.header.numReadonlyUnsignedAccounts);
  w.shortVec(m.accountKeys.length);
  for (const k of m.accountKeys) w.bytes(toBytes(k));
  w.bytes(toBytes(m.recentBlockhash));
  w.shortVec(m.instructions.length);
  for (const ix of m.instructions) {
    w.u8(ix.programIdIndex).shortVec(ix.accounts.length);
    for (const a of ix.accounts) w.u8(a);
    w.shortVec(ix.data.length).bytes(ix.data);
  }
  if (m.version === 0) {
    w.shortVec(m.addressTableLookups.length);
    for (const l of m.addressTableLookups) {
      w.bytes(toBytes(l.accountKey)).shortVec(l.writableIndexes.length);
      for (const i of l.writableIndexes) w.u8(i);
      w.shortVec(l.readonlyIndexes.length);
      for (const i of l.readonlyIndexes) w.u8(i);
    }
  }
  return w.finish();
}

export function serializeTransaction(signatures: Uint8Array[], message: Uint8Array): Uint8Array {
  const w = new ByteWriter(message.length + 1 + signatures.length * 64);
  w.shortVec(signatures.length);
  for (const s of signatures) w.bytes(s);
  w.bytes(message);
  return w.finish();
}
