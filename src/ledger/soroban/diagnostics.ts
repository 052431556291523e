// Diagnostic error events written by the network itself rather than by the host, shaped as
// stellar-core shapes them: topics ["error", Error(type, code)], data the message, or
// [message, ...args] when there are arguments, outside any contract call. Submission-time ones come
// back with sendTransaction's ERROR answer (as from a core node run with
// ENABLE_DIAGNOSTICS_FOR_TX_SUBMISSION, as RPC providers run it); apply-time ones go into the failed
// transaction's meta. Clients print their text (stellar-cli, the SDKs' error messages), so the
// messages are core's, word for word.
import type { xdr } from '../../xdr/xdr.ts';
import { strVal, symVal, u64Val } from '../../xdr/scVals.ts';

/** ScErrorType values core uses for its own errors. */
export const ErrorType = { CONTEXT: 2, STORAGE: 3, BUDGET: 7, VALUE: 8 } as const;
/** ScErrorCode values core uses for its own errors. */
export const ErrorCode = { INVALID_INPUT: 2, EXCEEDED_LIMIT: 5, UNEXPECTED_TYPE: 8 } as const;

/** One network-written error: what core's pushError takes. */
export interface NetworkError {
  type: number;
  code: number;
  message: string;
  args?: xdr.ScValWire[];
}

/** Error(type, ExceededLimit) with the amount and its limit. */
export const limitExceeded = (type: number, message: string, amount: number | bigint, limit: number | bigint): NetworkError =>
  ({ type, code: ErrorCode.EXCEEDED_LIMIT, message, args: [u64Val(amount), u64Val(limit)] });

/** Error(Budget, ExceededLimit): most of core's apply-time errors. */
export const budgetExceeded = (message: string, amount: number | bigint, limit: number | bigint): NetworkError =>
  limitExceeded(ErrorType.BUDGET, message, amount, limit);

export function networkErrorEvent(e: NetworkError): xdr.DiagnosticEventWire {
  const message = strVal(e.message);
  const args = e.args ?? [];
  return {
    inSuccessfulContractCall: false,
    event: {
      ext: { v: 0 }, contractId: null, type: 2,
      body: {
        v: 0,
        v0: {
          topics: [symVal('error'), { type: 2, error: { type: e.type, code: e.code } as xdr.ScErrorWire }],
          data: args.length === 0 ? message : { type: 16, vec: [message, ...args] },
        },
      },
    },
  };
}
