/**
 * JSON-RPC 2.0 over a request body: single requests, batches, notifications, and the standard
 * error codes. Ids are echoed exactly as sent (web3.js sends string ids and rejects anything else).
 */
import { joinPieces, type JsonPiece } from '../common/json-text.ts';
import { PieceChannel } from '../common/piece-channel.ts';
import { batchText, responseText, StreamedResult } from './json.ts';
import { INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, RpcError, methodNotFound } from './errors.ts';

/** What a method may know of the HTTP request that carried it (absent over PubSub and in tests). */
export interface RequestInfo {
  /** The browser's Origin header: set when a web page made the request. */
  origin?: string;
}

export type MethodHandler<C> = (params: unknown, ctx: C, request?: RequestInfo) => unknown;
export type MethodTable<C> = Readonly<Record<string, MethodHandler<C>>>;

export const MAX_BATCH_LENGTH = 1_000;

/** A streamed result's writer waits while more than this is queued for the transport to take (two of its 1 MB chunks). */
export const STREAMED_QUEUE_BYTES = 2 << 20;

type Id = string | number | null;

interface ErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

const errorResponse = (id: Id, e: ErrorBody) => ({ jsonrpc: '2.0', error: e, id });

/**
 * Only the node's own RpcErrors reach the client as they are. Anything else thrown (a TypeError, a
 * library's error, even one with a numeric `code`, a thrown string) is the node's fault: it is logged
 * here and the client gets a bare -32603 with nothing of the node's internals in it.
 */
function toErrorBody(e: unknown): ErrorBody {
  if (e instanceof RpcError) return e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data };
  console.error('isthmus: internal error while serving a request:', e);
  return { code: INTERNAL_ERROR, message: 'Internal error' };
}

const toRpcJsonError = (id: Id, e: unknown) => JSON.stringify(errorResponse(id, toErrorBody(e)));

const isValidId = (id: unknown): id is Id => id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));

export interface DispatcherOptions {
  /** The error for a method the table does not hold (default: -32601 "Method not found", Agave's words). */
  unknownMethod?: (method: string) => RpcError;
}

export class Dispatcher<C> {
  private readonly unknownMethod: (method: string) => RpcError;

  constructor(
    private readonly methods: MethodTable<C>,
    private readonly ctx: C,
    options: DispatcherOptions = {},
  ) {
    this.unknownMethod = options.unknownMethod ?? methodNotFound;
  }

  has(method: string): boolean {
    return Object.hasOwn(this.methods, method);
  }

  /** Answers a raw body; null when nothing is to be sent back (only notifications). */
  async handleBody(body: string, request?: RequestInfo): Promise<string | null> {
    const text = await this.handleBodyInPieces(body, request);
    return Array.isArray(text) ? joinPieces(text) : text;
  }

  /**
   * As handleBody, but a large answer written ahead as JSON text (JsonText) comes as its pieces, to be
   * written in order; with `stream`, the answer to a single request whose result streams
   * (StreamedResult) comes as the pieces of its text as they are written. A batch's results are
   * collected whole: one failing half-way must not cut the others' answers short.
   */
  handleBodyInPieces(body: string, request?: RequestInfo, opts?: { stream?: false }): Promise<string | JsonPiece[] | null>;
  handleBodyInPieces(body: string, request: RequestInfo | undefined, opts: { stream: boolean }): Promise<string | JsonPiece[] | AsyncIterable<JsonPiece> | null>;
  async handleBodyInPieces(body: string, request?: RequestInfo, opts: { stream?: boolean } = {}): Promise<string | JsonPiece[] | AsyncIterable<JsonPiece> | null> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return JSON.stringify(errorResponse(null, { code: PARSE_ERROR, message: 'Parse error' }));
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) return JSON.stringify(errorResponse(null, { code: INVALID_REQUEST, message: 'Invalid request' }));
      if (parsed.length > MAX_BATCH_LENGTH) {
        return JSON.stringify(errorResponse(null, { code: INVALID_REQUEST, message: `Invalid request: batch of ${parsed.length} requests is too long; max ${MAX_BATCH_LENGTH}` }));
      }
      const answers = await Promise.all(parsed.map((r) => this.handleOne(r, request)));
      const present = answers.filter((a) => a !== null);
      return present.length ? batchText(present) : null;
    }
    const answer = await this.handleOne(parsed, request, opts.stream === true);
    if (answer === null) return null;
    const { result, id } = answer as { result?: unknown; id: Id };
    return result instanceof StreamedResult ? this.streamedResponse(result, id) : responseText(answer);
  }

  /**
   * A response whose result streams, piece by piece as the result's text is written. Its first piece
   * is given only once the result wrote its first: until then a failure is still an error response.
   * A failure after that is the iteration's; stopping the iteration early stops the writer.
   */
  private async *streamedResponse(result: StreamedResult, id: Id): AsyncGenerator<JsonPiece> {
    const channel = new PieceChannel(STREAMED_QUEUE_BYTES);
    const writing = result.writeTo(channel).then(
      () => channel.end(),
      (e: unknown) => channel.fail(e),
    );
    const pieces = channel[Symbol.asyncIterator]();
    try {
      let next: IteratorResult<JsonPiece>;
      try {
        next = await pieces.next();
      } catch (e) {
        yield toRpcJsonError(id, e);
        return;
      }
      yield '{"jsonrpc":"2.0","result":';
      for (; !next.done; next = await pieces.next()) yield next.value;
      yield `,"id":${JSON.stringify(id)}}`;
    } finally {
      await pieces.return(undefined);
      await writing;
    }
  }

  /**
   * One request object → response object, or null for a notification. A StreamedResult stays one
   * with `streams` (the caller writes it out); else the whole result is computed here.
   */
  async handleOne(req: unknown, request?: RequestInfo, streams = false): Promise<object | null> {
    if (typeof req !== 'object' || req === null || Array.isArray(req)) {
      return errorResponse(null, { code: INVALID_REQUEST, message: 'Invalid request' });
    }
    const r = req as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };
    const isNotification = !('id' in r);
    const id: Id = isValidId(r.id) ? r.id : null;
    if (!isNotification && !isValidId(r.id)) return errorResponse(null, { code: INVALID_REQUEST, message: 'Invalid request: id must be a string, a number or null' });
    if (r.jsonrpc !== '2.0') return errorResponse(id, { code: INVALID_REQUEST, message: 'Invalid request: unsupported JSON-RPC protocol version (jsonrpc must be "2.0")' });
    if (typeof r.method !== 'string') return errorResponse(id, { code: INVALID_REQUEST, message: 'Invalid request: method must be a string' });
    const handler = Object.hasOwn(this.methods, r.method) ? this.methods[r.method] : undefined;
    let response: object;
    if (!handler) {
      response = errorResponse(id, toErrorBody(this.unknownMethod(r.method)));
    } else {
      try {
        let result = handler(r.params, this.ctx, request);
        if (result instanceof Promise) result = await result;
        if (result instanceof StreamedResult && (!streams || isNotification)) result = await result.whole();
        // A response must carry `result`; JSON.stringify would drop an undefined one.
        response = { jsonrpc: '2.0', result: result === undefined ? null : result, id };
      } catch (e) {
        response = errorResponse(id, toErrorBody(e));
      }
    }
    return isNotification ? null : response;
  }
}
