// JSON-RPC error codes and the error type handlers throw. Codes and messages follow the reference
// node (stellar-rpc on jrpc2); see reference-node.md section 1.0.
export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  requestExceededProcessingLimit: -32001,
  /** Ours: a privileged method (lumen_*) called by a caller it does not answer (rpc/callerPolicy.ts). */
  forbidden: -32003,
  systemError: -32098,
} as const;

/**
 * `error.data`: a string for every method of the reference (Python's client rejects object-valued
 * data); an object only for queryEvents, whose specification puts `reason` and its numbers there.
 */
export type RpcErrorData = string | Readonly<Record<string, string | number>>;

export class RpcError extends Error {
  readonly code: number;
  readonly data: RpcErrorData | undefined;
  constructor(code: number, message: string, data?: RpcErrorData) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

export const invalidParams = (message: string, data?: string): RpcError => new RpcError(ErrorCode.invalidParams, message, data);
export const invalidRequest = (message: string): RpcError => new RpcError(ErrorCode.invalidRequest, message);
export const internalError = (message: string): RpcError => new RpcError(ErrorCode.internalError, message);
