/**
 * EVM program instruction data, in Velas's 1.5-era bincode layout (u32 LE enum tags), so its
 * SwapNativeToEther/FreeOwnership encoders apply as they are. One deliberate difference: Velas's
 * EvmTransaction carried a legacy transaction as hex-string fields; here it carries the raw
 * Ethereum transaction bytes (legacy, EIP-2930, EIP-1559, EIP-7702), as a bincode Vec<u8>.
 *
 *   0 EvmTransaction { raw: Vec<u8> }
 *   1 SwapNativeToEther { lamports: u64, evm_address: H160 as the 42-byte string "0x…" }
 *   2 FreeOwnership {}
 *   3 EvmBigTransaction(0 Allocate { size: u64 } | 1 Write { offset: u64, data: Vec<u8> } | 2 Execute {})
 */
import { ByteReader, ByteWriter, DecodeError } from '../common/bytes.ts';

export type EvmInstruction =
  | { kind: 'transaction'; raw: Uint8Array }
  | { kind: 'swapNativeToEther'; lamports: bigint; evmAddress: string }
  | { kind: 'freeOwnership' }
  | { kind: 'allocate'; size: bigint }
  | { kind: 'write'; offset: bigint; data: Uint8Array }
  | { kind: 'execute' };

const ADDRESS_TEXT = /^0x[0-9a-f]{40}$/;

export function decodeEvmInstruction(data: Uint8Array): EvmInstruction {
  const r = new ByteReader(data);
  const tag = r.u32();
  let ix: EvmInstruction;
  switch (tag) {
    case 0:
      ix = { kind: 'transaction', raw: r.bincodeBytes() };
      break;
    case 1: {
      const lamports = r.u64();
      const text = new TextDecoder().decode(r.bincodeBytes());
      // Velas writes H160 lowercase; accept any case, as its serde parser does.
      const evmAddress = text.toLowerCase();
      if (!ADDRESS_TEXT.test(evmAddress)) throw new DecodeError(`evm_address must be "0x" and 40 hex digits, got ${JSON.stringify(text.slice(0, 50))}`);
      ix = { kind: 'swapNativeToEther', lamports, evmAddress };
      break;
    }
    case 2:
      ix = { kind: 'freeOwnership' };
      break;
    case 3: {
      const sub = r.u32();
      if (sub === 0) ix = { kind: 'allocate', size: r.u64() };
      else if (sub === 1) ix = { kind: 'write', offset: r.u64(), data: r.bincodeBytes() };
      else if (sub === 2) ix = { kind: 'execute' };
      else throw new DecodeError(`unknown EvmBigTransaction variant ${sub}`);
      break;
    }
    default:
      throw new DecodeError(`unknown EVM instruction ${tag}`);
  }
  if (r.remaining !== 0) throw new DecodeError(`${r.remaining} bytes after the instruction`);
  return ix;
}

export function encodeEvmInstruction(ix: EvmInstruction): Uint8Array {
  const w = new ByteWriter(64);
  switch (ix.kind) {
    case 'transaction':
      return w.u32(0).bincodeBytes(ix.raw).finish();
    case 'swapNativeToEther':
      return w.u32(1).u64(ix.lamports).bincodeBytes(new TextEncoder().encode(ix.evmAddress.toLowerCase())).finish();
    case 'freeOwnership':
      return w.u32(2).finish();
    case 'allocate':
      return w.u32(3).u32(0).u64(ix.size).finish();
    case 'write':
      return w.u32(3).u32(1).u64(ix.offset).bincodeBytes(ix.data).finish();
    case 'execute':
      return w.u32(3).u32(2).finish();
  }
}
