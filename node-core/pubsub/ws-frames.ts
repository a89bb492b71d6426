/**
 * WebSocket text frames as a server sends them (RFC 6455 §5.2: final, unmasked, no extension
 * bits), many in one buffer: a connection's notifications of one chain event leave in one socket
 * write instead of two writes each through ws's Sender.
 */
const FIN_TEXT = 0x81;

const headerLength = (payload: number): number => (payload < 126 ? 2 : payload < 0x10000 ? 4 : 10);

/** Messages for one client with their frames already built (ahead of the event that sends them). */
export interface FramedTexts {
  readonly texts: readonly string[];
  readonly frames: Buffer;
}

export const framed = (texts: readonly string[]): FramedTexts => ({ texts, frames: textFrames(texts) });

/** Above this many UTF-16 units a text's UTF-8 length is counted exactly rather than bounded (3 bytes a unit). */
const BOUNDED_UP_TO = 16_384;

const sizeBound = (text: string): number => (text.length > BOUNDED_UP_TO ? Buffer.byteLength(text) : 3 * text.length);

/**
 * `texts` as consecutive text frames, in order, in one buffer. A short text is encoded once,
 * straight into the buffer after room for the longest header its UTF-8 length could need; when its
 * encoded length needs a shorter header, the payload moves back to meet it.
 */
export function textFrames(texts: readonly string[]): Buffer {
  let bound = 0;
  for (const t of texts) {
    const size = sizeBound(t);
    bound += headerLength(size) + size;
  }
  const out = Buffer.allocUnsafe(bound);
  let at = 0;
  for (const text of texts) {
    const room = headerLength(sizeBound(text));
    const n = out.write(text, at + room, 'utf8');
    const header = headerLength(n);
    if (header !== room) out.copyWithin(at + header, at + room, at + room + n);
    out[at] = FIN_TEXT;
    if (n < 126) out[at + 1] = n;
    else if (n < 0x10000) {
      out[at + 1] = 126;
      out.writeUInt16BE(n, at + 2);
    } else {
      out[at + 1] = 127;
      out.writeBigUInt64BE(BigInt(n), at + 2);
    }
    at += header + n;
  }
  return out.subarray(0, at);
}

/** The frames of held messages, in order: runs of texts framed now, framed runs as they are. */
export function framesOf(held: ReadonlyArray<string | FramedTexts>): Buffer {
  if (held.length === 1 && typeof held[0] !== 'string') return held[0]!.frames;
  const pieces: Buffer[] = [];
  let texts: string[] = [];
  for (const m of held) {
    if (typeof m === 'string') {
      texts.push(m);
      continue;
    }
    if (texts.length) pieces.push(textFrames(texts));
    texts = [];
    pieces.push(m.frames);
  }
  if (texts.length) pieces.push(textFrames(texts));
  return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
}
