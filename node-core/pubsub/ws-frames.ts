/**
 * WebSocket text frames as a server sends them (RFC 6455 §5.2: final, unmasked, no extension
 * bits), many in one buffer: a connection's notifications of one chain event leave in one socket
 * write instead of two writes each through ws's Sender.
 */
const FIN_TEXT = 0x81;

const headerLength = (payload: number): number => (payload < 126 ? 2 : payload < 0x10000 ? 4 : 10);

/** `texts` as consecutive text frames, in order, in one buffer. */
export function textFrames(texts: readonly string[]): Buffer {
  const lengths = texts.map((t) => Buffer.byteLength(t));
  let total = 0;
  for (const n of lengths) total += headerLength(n) + n;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    const n = lengths[i]!;
    out[at++] = FIN_TEXT;
    if (n < 126) out[at++] = n;
    else if (n < 0x10000) {
      out[at++] = 126;
      out.writeUInt16BE(n, at);
      at += 2;
    } else {
      out[at++] = 127;
      out.writeBigUInt64BE(BigInt(n), at);
      at += 8;
    }
    at += out.write(texts[i]!, at, 'utf8');
  }
  return out;
}
