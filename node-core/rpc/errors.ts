/** JSON-RPC errors: the standard codes and Solana's custom ones (rpc_custom_error.rs), with their messages. */

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

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

export const blockNotAvailable = (slot: number) => new RpcError(BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
export const blockCleanedUp = (slot: number, first: number) =>
  new RpcError(BLOCK_CLEANED_UP, `Block ${slot} cleaned up, does not exist on node. First available block: ${first}`);
export const slotSkipped = (slot: number) => new RpcError(SLOT_SKIPPED, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
export const noSnapshot = () => new RpcError(NO_SNAPSHOT, 'No snapshot');
export const minContextSlotNotReached = (contextSlot: number) =>
  new RpcError(MIN_CONTEXT_SLOT_NOT_REACHED, 'Minimum context slot has not been reached', { contextSlot });

/** A feature of the interface this node does not have yet: a clear error instead of a made-up answer. */
export const notBuiltYet = (what: string) => new RpcError(METHOD_NOT_FOUND, `${what} is not available on this node yet`);
