/**
 * JSON text of RPC answers and notifications. JSON.stringify writes u64::MAX (held as 2^64, see
 * RENT_EXEMPT_RENT_EPOCH) as 18446744073709552000; Agave writes the exact integer, and clients that
 * parse big integers exactly (@solana/kit) see the difference, so the digits are put right in the
 * text. Only a `rentEpoch` member can hold it; inside a JSON string the quotes would be escaped, so
 * the replacement never touches string content.
 */
import { JsonText, type JsonPiece } from '../common/json-text.ts';
import type { PieceSink } from '../common/piece-channel.ts';

const ROUNDED = '"rentEpoch":18446744073709552000';
const EXACT = '"rentEpoch":18446744073709551615';

export function toRpcJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes(ROUNDED) ? text.replaceAll(ROUNDED, EXACT) : text;
}

/** A JSON-RPC response's text, or its pieces in order when its result is JsonText (put in as it is, never joined here). */
export function responseText(response: object): string | JsonPiece[] {
  const { result, id } = response as { result?: unknown; id?: unknown };
  if (!(result instanceof JsonText)) return toRpcJson(response);
  return ['{"jsonrpc":"2.0","result":', ...result.pieces, `,"id":${JSON.stringify(id)}}`];
}

/** A batch's text: pieces when any response is in pieces. */
export function batchText(responses: object[]): string | JsonPiece[] {
  const texts = responses.map(responseText);
  if (texts.every((t) => typeof t === 'string')) return `[${texts.join(',')}]`;
  const pieces: JsonPiece[] = ['['];
  texts.forEach((t, i) => {
    if (i > 0) pieces.push(',');
    if (typeof t === 'string') pieces.push(t);
    else for (const p of t) pieces.push(p);
  });
  pieces.push(']');
  return pieces;
}

/**
 * A result whose text is written while it is computed (the struct logger's trace, its entries sent
 * while the run steps). `writeTo` writes the result's JSON text into a sink, waiting while the sink is
 * full; whatever can be refused is refused before the method returns one (a failure after its first
 * piece leaves the text cut short). `whole` gives the result as methods return them, for the answers
 * sent as one message (a batch, WebSocket, a notification).
 */
export class StreamedResult {
  constructor(
    readonly writeTo: (sink: PieceSink) => Promise<void>,
    readonly whole: () => Promise<unknown>,
  ) {}
}
