/**
 * The Secp256k1 recovery precompile (Agave's secp256k1 verify, Ethereum-style): data is
 * `[count u8, count × SecpSignatureOffsets (11 bytes), …]`; each entry names a 64-byte signature
 * followed by its recovery id, a 20-byte Ethereum address and a message. The address recovered from
 * keccak256(message) must equal the one given.
 */
import { keccak256 } from '../../../common/hash.ts';
import { ecdsaRecover } from '../../../common/secp256k1.ts';
import { PrecompileError, fail } from './errors.ts';
import { dataSlice, readSecpOffsets } from './offsets.ts';

export const SECP256K1_PROGRAM_ID = 'KeccakSecp256k11111111111111111111111111111';

const OFFSETS_SIZE = 11;
const SIGNATURE_SIZE = 64;
const ETH_ADDRESS_SIZE = 20;

/** keccak256 of the 64-byte public key (without the 0x04 prefix), last 20 bytes. */
export const ethAddressOf = (uncompressedKey: Uint8Array): Uint8Array => keccak256(uncompressedKey.subarray(uncompressedKey.length - 64)).subarray(12);

export function verifySecp256k1(data: Uint8Array, instructionDatas: readonly Uint8Array[]): void {
  if (data.length === 0) fail(PrecompileError.InvalidInstructionDataSize);
  const count = data[0]!;
  if (count === 0 && data.length > 1) fail(PrecompileError.InvalidInstructionDataSize);
  if (data.length < count * OFFSETS_SIZE + 1) fail(PrecompileError.InvalidInstructionDataSize);
  for (let i = 0; i < count; i++) {
    const o = readSecpOffsets(data, 1 + i * OFFSETS_SIZE);
    if (o.signatureInstructionIndex >= instructionDatas.length) fail(PrecompileError.InvalidInstructionDataSize);
    const sigSource = instructionDatas[o.signatureInstructionIndex]!;
    const sigEnd = o.signatureOffset + SIGNATURE_SIZE;
    // The recovery id is the byte after the signature, so it must exist too.
    if (sigEnd >= sigSource.length) fail(PrecompileError.InvalidSignature);
    const signature = sigSource.subarray(o.signatureOffset, sigEnd);
    const recoveryId = sigSource[sigEnd]!;
    if (!isInRangeScalar(signature.subarray(0, 32)) || !isInRangeScalar(signature.subarray(32))) fail(PrecompileError.InvalidSignature);
    if (recoveryId > 3) fail(PrecompileError.InvalidRecoveryId);
    const ethAddress = dataSlice(null, instructionDatas, o.ethAddressInstructionIndex, o.ethAddressOffset, ETH_ADDRESS_SIZE, PrecompileError.InvalidSignature);
    const message = dataSlice(null, instructionDatas, o.messageInstructionIndex, o.messageDataOffset, o.messageDataSize, PrecompileError.InvalidSignature);
    let recovered: Uint8Array;
    try {
      recovered = ecdsaRecover(signature, recoveryId, keccak256(message), false);
    } catch {
      return fail(PrecompileError.InvalidSignature);
    }
    if (Buffer.compare(ethAddressOf(recovered), ethAddress) !== 0) fail(PrecompileError.InvalidSignature);
  }
}

const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** libsecp256k1's parse_standard: r and s below the curve order (zero is left to recovery to refuse). */
function isInRangeScalar(bytes: Uint8Array): boolean {
  return BigInt('0x' + Buffer.from(bytes).toString('hex')) < CURVE_ORDER;
}
