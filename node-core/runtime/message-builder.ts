/**
 * Building transactions from instructions (program id, account metas, data): a legacy message
 * compiled as web3.js orders its keys, and signing it with node keypairs.
 */
import { addressToBytes, type Address } from '../common/pubkey.ts';
import { sign, type Keypair } from '../keys/keypair.ts';
import { parseTransaction, serializeMessage, serializeTransaction, type Message, type Transaction } from './wire.ts';

export interface MetaSpec {
  key: Address;
  signer?: boolean;
  writable?: boolean;
}

export interface InstructionSpec {
  programId: Address;
  accounts?: MetaSpec[];
  data?: Uint8Array | number[];
}

export type UnsignedMessage = Omit<Message, 'bytes'>;

/**
 * Compiles a legacy message: payer first, then signer-writable, signer-readonly, writable,
 * read-only keys (each group in first-seen order), as web3.js orders them.
 */
export function compileMessage(payer: Address, instructions: InstructionSpec[], recentBlockhash: string): UnsignedMessage {
  const metas = new Map<Address, { signer: boolean; writable: boolean }>();
  const add = (key: Address, signer: boolean, writable: boolean) => {
    const m = metas.get(key);
    if (m) {
      m.signer ||= signer;
      m.writable ||= writable;
    } else metas.set(key, { signer, writable });
  };
  add(payer, true, true);
  for (const ix of instructions) {
    for (const a of ix.accounts ?? []) add(a.key, !!a.signer, !!a.writable);
    add(ix.programId, false, false);
  }
  const all = [...metas];
  const group = (signer: boolean, writable: boolean) => all.filter(([, m]) => m.signer === signer && m.writable === writable).map(([k]) => k);
  const accountKeys = [...group(true, true), ...group(true, false), ...group(false, true), ...group(false, false)];
  const index = new Map(accountKeys.map((k, i) => [k, i]));
  return {
    version: 'legacy',
    header: {
      numRequiredSignatures: group(true, true).length + group(true, false).length,
      numReadonlySignedAccounts: group(true, false).length,
      numReadonlyUnsignedAccounts: group(false, false).length,
    },
    accountKeys,
    recentBlockhash,
    instructions: instructions.map((ix) => ({
      programIdIndex: index.get(ix.programId)!,
      accounts: (ix.accounts ?? []).map((a) => index.get(a.key)!),
      data: ix.data instanceof Uint8Array ? ix.data : Uint8Array.from(ix.data ?? []),
    })),
    addressTableLookups: [],
  };
}

/** Signs a compiled message with every required signer; throws when one is missing. */
export function signTransaction(message: UnsignedMessage, signers: Keypair[]): Transaction {
  const bytes = serializeMessage(message, addressToBytes);
  const byAddress = new Map(signers.map((k) => [k.address, k]));
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < message.header.numRequiredSignatures; i++) {
    const kp = byAddress.get(message.accountKeys[i]!);
    if (!kp) throw new Error(`missing signer ${message.accountKeys[i]}`);
    signatures.push(sign(kp, bytes));
  }
  return parseTransaction(serializeTransaction(signatures, bytes));
}
