/**
 * Program derived addresses (Pubkey::create_program_address / find_program_address): sha256 of the
 * seeds, the program id and "ProgramDerivedAddress", accepted only when the hash is not a point on
 * the ed25519 curve (so no private key can sign for it).
 */
import { Point } from '@noble/ed25519';
import { sha256 } from './hash.ts';
import { addressToBytes, bytesToAddress, type Address } from './pubkey.ts';

export const MAX_SEEDS = 16;
export const MAX_SEED_BYTES = 32;
const PDA_MARKER = new TextEncoder().encode('ProgramDerivedAddress');

/** Whether 32 bytes decompress to a curve point, as curve25519-dalek's `decompress().is_some()` (non-canonical y accepted). */
export function isOnCurve(bytes: Uint8Array): boolean {
  try {
    Point.fromBytes(bytes, true);
    return true;
  } catch {
    return false;
  }
}

/** The address for `seeds` under `programId`, or null when the seeds are invalid or the hash lies on the curve. */
export function createProgramAddress(seeds: readonly Uint8Array[], programId: Address): Address | null {
  if (seeds.length > MAX_SEEDS || seeds.some((s) => s.length > MAX_SEED_BYTES)) return null;
  const hash = sha256(...seeds, addressToBytes(programId), PDA_MARKER);
  return isOnCurve(hash) ? null : bytesToAddress(hash);
}

/**
 * find_program_address: the first bump from 255 down whose address is off the curve, with the
 * number of addresses tried (on-chain each try costs compute units).
 */
export function findProgramAddress(seeds: readonly Uint8Array[], programId: Address): { address: Address; bump: number; attempts: number } {
  const bumpSeed = new Uint8Array(1);
  for (let bump = 255, attempts = 1; bump >= 0; bump--, attempts++) {
    bumpSeed[0] = bump;
    const address = createProgramAddress([...seeds, bumpSeed], programId);
    if (address !== null) return { address, bump, attempts };
  }
  throw new Error('findProgramAddress: no viable bump seed');
}
