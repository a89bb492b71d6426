/**
 * Ed25519 keys (and signature R values) of small order, which ed25519-dalek's verify_strict refuses
 * and OpenSSL's cofactorless check would accept (R = A, S = 0 for any message). Every 32-byte
 * encoding that decompresses to such a point: y in {0, 1, -1, ±c} (c the y of the order-8 points),
 * y + p where that stays below 2^255, each with either sign bit. A byte lookup is ~1000x cheaper
 * than decompressing the point in JS.
 */
const SMALL_ORDER_Y = [
  '0000000000000000000000000000000000000000000000000000000000000000', // 0 (order 4)
  '0100000000000000000000000000000000000000000000000000000000000000', // 1 (the identity)
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // p - 1 (order 2)
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // p = 0, not canonical
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // p + 1 = 1, not canonical
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', // c (order 8)
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', // p - c (order 8)
];

export const SMALL_ORDER_ENCODINGS: ReadonlySet<string> = new Set(
  SMALL_ORDER_Y.flatMap((hex) => {
    const signed = Buffer.from(hex, 'hex');
    signed[31]! |= 0x80;
    return [hex, signed.toString('hex')];
  }),
);

export const hasSmallOrder = (bytes: Uint8Array): boolean => SMALL_ORDER_ENCODINGS.has(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex'));
