/** Lookup-table transactions for benchmarks: a table's setup and pre-signed v0 transfers through it. */
import { SYSTEM_PROGRAM_ID, addressToBytes, type Address } from '../../node-core/common/pubkey.ts';
import { sign, type Keypair } from '../../node-core/keys/keypair.ts';
import { compileMessage } from '../../node-core/runtime/message-builder.ts';
import { deriveLookupTableAddress, encodeLookupTableInstruction } from '../../node-core/runtime/programs/address-lookup-table/instruction.ts';
import { ADDRESS_LOOKUP_TABLE_PROGRAM_ID } from '../../node-core/runtime/programs/address-lookup-table/state.ts';
import { encodeSystemInstruction } from '../../node-core/runtime/programs/system-instruction.ts';
import { serializeMessage, serializeTransaction } from '../../node-core/runtime/wire.ts';

/** Addresses one ExtendLookupTable transaction carries comfortably within a packet. */
const EXTEND_CHUNK = 20;

function signedLegacy(payer: Keypair, blockhash: string, ix: Parameters<typeof compileMessage>[1]): Uint8Array {
  const message = serializeMessage(compileMessage(payer.address, ix, blockhash), addressToBytes);
  return serializeTransaction([sign(payer, message)], message);
}

/** Create (at `recentSlot`) and extend a table owned by `authority` (which pays) with `entries`. */
export function lookupTableSetup(authority: Keypair, blockhash: string, recentSlot: number, entries: Address[]): { table: Address; wires: Uint8Array[] } {
  const { address: table, bump } = deriveLookupTableAddress(authority.address, recentSlot);
  const metas = [
    { key: table, writable: true },
    { key: authority.address, signer: true },
    { key: authority.address, signer: true, writable: true },
    { key: SYSTEM_PROGRAM_ID },
  ];
  const wires = [signedLegacy(authority, blockhash, [{ programId: ADDRESS_LOOKUP_TABLE_PROGRAM_ID, accounts: metas, data: encodeLookupTableInstruction({ type: 'createLookupTable', recentSlot: BigInt(recentSlot), bumpSeed: bump }) }])];
  for (let i = 0; i < entries.length; i += EXTEND_CHUNK) {
    const data = encodeLookupTableInstruction({ type: 'extendLookupTable', newAddresses: entries.slice(i, i + EXTEND_CHUNK) });
    wires.push(signedLegacy(authority, blockhash, [{ programId: ADDRESS_LOOKUP_TABLE_PROGRAM_ID, accounts: metas, data }]));
  }
  return { table, wires };
}

/**
 * `count` distinct v0 transfers from `payer` to the table's entries in turn: the payer and the System
 * program are static keys, the recipient one writable index into the table.
 */
export function presignLookupTransfers(payer: Keypair, blockhash: string, table: Address, entryCount: number, count: number, lamports = 1_000_000): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const message = serializeMessage(
      {
        version: 0,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
        accountKeys: [payer.address, SYSTEM_PROGRAM_ID],
        recentBlockhash: blockhash,
        instructions: [{ programIdIndex: 1, accounts: [0, 2], data: encodeSystemInstruction({ type: 'transfer', lamports: BigInt(lamports + i) }) }],
        addressTableLookups: [{ accountKey: table, writableIndexes: [i % entryCount], readonlyIndexes: [] }],
      },
      addressToBytes,
    );
    out.push(serializeTransaction([sign(payer, message)], message));
  }
  return out;
}
