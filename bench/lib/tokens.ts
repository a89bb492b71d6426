/** SPL Token transactions for benchmarks, built with the node's own wire code and signer. */
import { findProgramAddress } from '../../node-core/common/pda.ts';
import { SYSTEM_PROGRAM_ID, addressToBytes, type Address } from '../../node-core/common/pubkey.ts';
import { generateKeypair, type Keypair } from '../../node-core/keys/keypair.ts';
import { encodeAssociatedTokenInstruction } from '../../node-core/runtime/programs/associated-token.ts';
import { encodeSystemInstruction } from '../../node-core/runtime/programs/system-instruction.ts';
import { encodeTokenInstruction } from '../../node-core/runtime/programs/token/instruction.ts';
import { ASSOCIATED_TOKEN_PROGRAM_ID, MINT_LEN, TOKEN_PROGRAM_ID } from '../../node-core/runtime/programs/token/state.ts';
import { buildTransaction, type InstructionSpec } from '../../test/helpers/tx-builder.ts';

export const associatedTokenAddress = (owner: Address, mint: Address): Address =>
  findProgramAddress([addressToBytes(owner), addressToBytes(TOKEN_PROGRAM_ID), addressToBytes(mint)], ASSOCIATED_TOKEN_PROGRAM_ID).address;

const createAta = (payer: Address, owner: Address, mint: Address): InstructionSpec => ({
  programId: ASSOCIATED_TOKEN_PROGRAM_ID,
  accounts: [
    { key: payer, signer: true, writable: true },
    { key: associatedTokenAddress(owner, mint), writable: true },
    { key: owner },
    { key: mint },
    { key: SYSTEM_PROGRAM_ID },
    { key: TOKEN_PROGRAM_ID },
  ],
  data: encodeAssociatedTokenInstruction('CreateIdempotent'),
});

export const tokenTransferIx = (source: Address, destination: Address, authority: Address, amount: number): InstructionSpec => ({
  programId: TOKEN_PROGRAM_ID,
  accounts: [
    { key: source, writable: true },
    { key: destination, writable: true },
    { key: authority, signer: true },
  ],
  data: encodeTokenInstruction({ type: 'transfer', amount: BigInt(amount) }),
});

export interface TokenSetup {
  mint: Keypair;
  source: Address;
  destinations: Address[];
  /** Wire bytes, to send in order (each may depend on the ones before). */
  wires: Uint8Array[];
}

/**
 * A mint with `owner` as its authority, `owner`'s ATA holding `supply`, and `destinationCount`
 * ATAs of fresh wallets to send to. `rentOf(len)` is the rent-exempt minimum.
 */
export function tokenSetup(owner: Keypair, blockhash: string, destinationCount: number, supply: number, rentOf: (len: number) => number): TokenSetup {
  const mint = generateKeypair();
  const source = associatedTokenAddress(owner.address, mint.address);
  const wires: Uint8Array[] = [];
  const createMint: InstructionSpec = {
    programId: SYSTEM_PROGRAM_ID,
    accounts: [
      { key: owner.address, signer: true, writable: true },
      { key: mint.address, signer: true, writable: true },
    ],
    data: encodeSystemInstruction({ type: 'createAccount', lamports: BigInt(rentOf(MINT_LEN)), space: BigInt(MINT_LEN), owner: TOKEN_PROGRAM_ID }),
  };
  const initMint: InstructionSpec = {
    programId: TOKEN_PROGRAM_ID,
    accounts: [{ key: mint.address, writable: true }],
    data: encodeTokenInstruction({ type: 'initializeMint2', decimals: 0, mintAuthority: owner.address, freezeAuthority: null }),
  };
  const mintTo: InstructionSpec = {
    programId: TOKEN_PROGRAM_ID,
    accounts: [
      { key: mint.address, writable: true },
      { key: source, writable: true },
      { key: owner.address, signer: true },
    ],
    data: encodeTokenInstruction({ type: 'mintTo', amount: BigInt(supply) }),
  };
  wires.push(buildTransaction(owner, [createMint, initMint, createAta(owner.address, owner.address, mint.address), mintTo], blockhash, [mint]).wire);
  const destinations: Address[] = [];
  const perTx = 4;
  for (let i = 0; i < destinationCount; i += perTx) {
    const ixs: InstructionSpec[] = [];
    for (let k = i; k < Math.min(destinationCount, i + perTx); k++) {
      const wallet = generateKeypair().address;
      destinations.push(associatedTokenAddress(wallet, mint.address));
      ixs.push(createAta(owner.address, wallet, mint.address));
    }
    wires.push(buildTransaction(owner, ixs, blockhash).wire);
  }
  return { mint, source, destinations, wires };
}

/** `count` distinct token transfers from the setup's source, signed by its owner (amounts first + 1, first + 2, …). */
export function presignTokenTransfers(owner: Keypair, setup: TokenSetup, blockhash: string, count: number, first = 0): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = first; i < first + count; i++) {
    const to = setup.destinations[i % setup.destinations.length]!;
    out.push(buildTransaction(owner, [tokenTransferIx(setup.source, to, owner.address, i + 1)], blockhash).wire);
  }
  return out;
}
