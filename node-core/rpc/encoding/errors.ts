/** Errors raised while encoding RPC results; each carries its JSON-RPC `code`, `message` and optional `data`. */

export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
export const UNSUPPORTED_TRANSACTION_VERSION = -32015;

export class RpcEncodingError extends Error {
  constructor(
    message: string,
    readonly code: number = INVALID_PARAMS,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcEncodingError';
  }
}

/** A v0 transaction asked for without (or above) the client's `maxSupportedTransactionVersion`. */
export class UnsupportedTransactionVersionError extends RpcEncodingError {
  constructor(readonly version: number) {
    super(
      `Transaction version (${version}) is not supported by the requesting client. ` +
        `Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`,
      UNSUPPORTED_TRANSACTION_VERSION,
    );
    this.name = 'UnsupportedTransactionVersionError';
  }
}
