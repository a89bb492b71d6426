/**
 * The EVM program's instructions (Velas's layout, as node-core/evm/instruction.ts reads them), parsed
 * for the transaction page: the node's jsonParsed has no parser for them.
 */
import bs58 from 'bs58';

export const EVM_PROGRAM = 'EVM1111111111111111111111111111111111111111';

export interface ParsedEvmInstruction {
  type: string;
  info: Record<string, string | number>;
}

class Reader {
  private o = 0;
  private readonly v: DataView;
  constructor(private readonly b: Uint8Array) {
    this.v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  private need(n: number) {
    if (this.o + n > this.b.length) throw new Error('truncated');
  }
  u32(): number {
    this.need(4);
    const x = this.v.getUint32(this.o, true);
    this.o += 4;
    return x;
  }
  u64(): bigint {
    this.need(8);
    const x = this.v.getBigUint64(this.o, true);
    this.o += 8;
    return x;
  }
  bytes(): Uint8Array {
    const n = Number(this.u64());
    this.need(n);
    const out = this.b.subarray(this.o, this.o + n);
    this.o += n;
    return out;
  }
}

/** The instruction's base-58 data → its type and fields, or null when it is not one of the known forms. */
export function parseEvmInstruction(base58Data: string): ParsedEvmInstruction | null {
  try {
    const r = new Reader(bs58.decode(base58Data));
    switch (r.u32()) {
      case 0:
        return { type: 'evmTransaction', info: { rawTransactionBytes: r.bytes().length } };
      case 1: {
        const lamports = r.u64();
        return { type: 'swapNativeToEther', info: { lamports: lamports.toString(), evmAddress: new TextDecoder().decode(r.bytes()) } };
      }
      case 2:
        return { type: 'freeOwnership', info: {} };
      case 3: {
        const sub = r.u32();
        if (sub === 0) return { type: 'evmBigTransaction: allocate', info: { size: r.u64().toString() } };
        if (sub === 1) {
          const offset = r.u64();
          return { type: 'evmBigTransaction: write', info: { offset: offset.toString(), bytes: r.bytes().length } };
        }
        if (sub === 2) return { type: 'evmBigTransaction: execute', info: {} };
        return null;
      }
      default:
        return null;
    }
  } catch {
    return null;
  }
}
