/**
 * JSON-RPC errors: the standard codes and Solana's custom ones (rpc_custom_error.rs), with their messages.
 * RpcError is the node's one error type for clients: the dispatcher sends its code, message and data as
 * they are, and answers anything else thrown as -32603 "Internal error". Each kind of error is made by a
 * factory function below, not by a subclass.
 */

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    /** What the node itself may need to know of the error (never sent to the client). */
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'RpcError';
  }
}

/** An RpcError with this code (the way to tell one kind of error from another). */
export const isRpcError = (e: unknown, code: number): e is RpcError => e instanceof RpcError && e.code === code;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export const BLOCK_CLEANED_UP = -32001;
export const SEND_TRANSACTION_PREFLIGHT_FAILURE = -32002;
export const TRANSACTION_SIGNATURE_VERIFICATION_FAILURE = -32003;
export const BLOCK_NOT_AVAILABLE = -32004;
export const NODE_UNHEALTHY = -32005;
export const SLOT_SKIPPED = -32007;
export const NO_SNAPSHOT = -32008;
export const TRANSACTION_SIGNATURE_LEN_MISMATCH = -32013;
export const UNSUPPORTED_TRANSACTION_VERSION = -32015;
export const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;
/** Isthmus's own: a method a web page of another origin may not call (isthmus_getDevAccounts). */
export const FORBIDDEN_ORIGIN = -32090;

export const invalidParams = (detail: string) => new RpcError(INVALID_PARAMS, detail);
export const invalidRequest = (detail = 'Invalid request') => new RpcError(INVALID_REQUEST, detail);
export const methodNotFound = () => new RpcError(METHOD_NOT_FOUND, 'Method not found');
/**
 * geth's (and Erigon's) words for a method not served: ethers reads them as UNSUPPORTED_OPERATION, and
 * Otterscan, which shows "not supported by the node" on that code, waits forever on any other text.
 */
export const ethMethodNotFound = (method: string) => new RpcError(METHOD_NOT_FOUND, `the method ${method} does not exist/is not available`);

export const blockNotAvailable = (slot: number) => new RpcError(BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
export const blockCleanedUp = (slot: number, first: number) =>
  new RpcError(BLOCK_CLEANED_UP, `Block ${slot} cleaned up, does not exist on node. First available block: ${first}`);
export const slotSkipped = (slot: number) => new RpcError(SLOT_SKIPPED, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
export const noSnapshot = () => new RpcError(NO_SNAPSHOT, 'No snapshot');
export const minContextSlotNotReached = (contextSlot: number) =>
  new RpcError(MIN_CONTEXT_SLOT_NOT_REACHED, 'Minimum context slot has not been reached', { contextSlot });

/** Base-58 account data over 128 bytes (Agave's UiAccountEncoding check), -32600. */
export const encodedBinaryTooLarge = (maxBytes: number) =>
  new RpcError(INVALID_REQUEST, `Encoded binary (base 58) data should be less than ${maxBytes} bytes, please use Base64 encoding.`);

/**
 * A v0 transaction asked for without (or above) the client's `maxSupportedTransactionVersion`, -32015.
 * The version is kept as the error's cause for blockSubscribe, which reports it as data of its own.
 */
export const unsupportedTransactionVersion = (version: number) =>
  new RpcError(
    UNSUPPORTED_TRANSACTION_VERSION,
    `Transaction version (${version}) is not supported by the requesting client. ` +
      `Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`,
    undefined,
    { cause: { unsupportedTransactionVersion: version } },
  );

/** The version an unsupportedTransactionVersion error refused; null for any other error. */
export function refusedTransactionVersion(e: unknown): number | null {
  if (!isRpcError(e, UNSUPPORTED_TRANSACTION_VERSION)) return null;
  const cause = e.cause;
  return typeof cause === 'object' && cause !== null && 'unsupportedTransactionVersion' in cause && typeof cause.unsupportedTransactionVersion === 'number'
    ? cause.unsupportedTransactionVersion
    : null;
}

/** A feature of the interface this node does not have yet: a clear error instead of a made-up answer. */
export const notBuiltYet = (what: string) => new RpcError(METHOD_NOT_FOUND, `${what} is not available on this node yet`);
