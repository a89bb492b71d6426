/** Errors raised while encoding RPC results: JSON-RPC errors with their code, message and optional data. */
import { INVALID_PARAMS, RpcError, UNSUPPORTED_TRANSACTION_VERSION } from '../errors.ts';

export { INVALID_PARAMS, INVALID_REQUEST, UNSUPPORTED_TRANSACTION_VERSION } from '../errors.ts';

export class RpcEncodingError extends RpcError {
  constructor(message: string, code: number = INVALID_PARAMS, data?: unknown) {
    super(code, message, data);
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
